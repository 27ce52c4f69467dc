/* libFuzzer target: the Matrix Market parser (matrix and vector) over the
 * raw input bytes. A parse that succeeds must give a valid matrix; one that
 * fails must leave a one-line message and nothing allocated. */
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
    /* A size line may legally ask for all the memory available; keep the
     * fuzzer under its own RSS limit instead. */
    cmrs_set_memory_limit(256e6);
    return 0;
}

/* A failure must come with a non-empty one-line message. */
static void check_failure(cmrs_code rc)
{
    const char *msg = cmrs_error_message();
    /* CMRS_E_NOMEM: a declaration over the 256 MB limit */
    if (rc != CMRS_E_INPUT && rc != CMRS_E_LIMIT && rc != CMRS_E_NOMEM)
        abort();
    if (!*msg || strchr(msg, '\n')) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    cmrs_csr A;
    cmrs_code rc = cmrs_mm_parse_matrix(text, size, "fuzz.mtx", &A);
    if (rc == CMRS_OK) {
        if (cmrs_csr_validate(&A, "fuzz") != CMRS_OK) abort();
        cmrs_csr_free(&A);
    } else {
        check_failure(rc);
        if (A.indptr || A.indices || A.values) abort();
    }
    double *v = NULL;
    int64_t n = 0;
    rc = cmrs_mm_parse_vector(text, size, "fuzz.mtx", &v, &n);
    if (rc == CMRS_OK) {
        for (int64_t i = 0; i < n; ++i) /* touch every entry (ASan) */
            if (v[i] != v[i]) abort();
        free(v);
    } else {
        check_failure(rc);
        if (v) abort();
    }
    cmrs_error_clear();
    return 0;
}
