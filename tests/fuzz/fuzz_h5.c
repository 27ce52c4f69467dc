/* libFuzzer target: the HDF5 system reader over an in-memory file image
 * (H5LTopen_file_image: no temporary files). A read that succeeds must give
 * a valid matrix and vectors of the right length; one that fails must leave
 * a one-line message and *sys empty. Crashes inside libhdf5 itself on
 * corrupt metadata are the library's (see docs/FUZZING.md). */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/readers.h"
#include "io/system.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    cmrs_set_memory_limit(256e6);
    cmrs_h5_quiet();
    return 0;
}

static void check_system(const cmrs_system *s)
{
    if (cmrs_csr_validate(&s->A, "fuzz") != CMRS_OK) abort();
    double sum = 0;
    for (int64_t i = 0; s->b && i < s->A.rows; ++i) sum += s->b[i];
    for (int64_t i = 0; s->x0 && i < s->A.rows; ++i) sum += s->x0[i];
    if (sum != sum) abort(); /* vectors are checked finite */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    /* HDF5 copies the image (flags 0), so the const input stays intact. */
    hid_t f = H5LTopen_file_image((void *)(uintptr_t)data, size, 0);
    if (f < 0) return 0;
    cmrs_system s;
    cmrs_code rc = cmrs_h5_read_system(f, "fuzz.h5", NULL, &s);
    if (rc == CMRS_OK) {
        check_system(&s);
        cmrs_system_free(&s);
    } else {
        const char *msg = cmrs_error_message();
        /* CMRS_E_NOMEM: a declaration over the 256 MB limit */
        if (rc != CMRS_E_INPUT && rc != CMRS_E_LIMIT && rc != CMRS_E_NOMEM)
            abort();
        if (!*msg || strchr(msg, '\n') || s.A.indptr || s.b) abort();
    }
    H5Fclose(f);
    cmrs_error_clear();
    return 0;
}
