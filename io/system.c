/* cmrs_system_read: detects the layout from the content and dispatches to the
 * HDF5 or Matrix Market reader; then the checks every layout shares (square,
 * b = A*1 when absent). cmrs_system_write: the native layout. */
#include "system.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5_out.h"
#include "readers.h"

cmrs_code cmrs_check_readable(const char *path)
{
    struct stat st;
    CMRS_ENSURE(stat(path, &st) == 0, CMRS_E_INPUT, "%s: cannot open: %s",
                path, strerror(errno));
    CMRS_ENSURE(!S_ISDIR(st.st_mode), CMRS_E_INPUT, "%s: is a directory",
                path);
    FILE *f = fopen(path, "rb");
    CMRS_ENSURE(f, CMRS_E_INPUT, "%s: cannot open: %s", path, strerror(errno));
    fclose(f);
    return CMRS_OK;
}

/* HDF5 (signature, also after a user block), else a Matrix Market banner. */
static cmrs_code detect_layout(const char *path, int *is_hdf5)
{
    CMRS_CHECK(cmrs_check_readable(path));
    cmrs_h5_quiet();
    *is_hdf5 = H5Fis_hdf5(path) > 0;
    if (*is_hdf5 || cmrs_mm_has_banner(path)) return CMRS_OK;
#ifndef CMRS_HAVE_ZLIB
    CMRS_ENSURE(!cmrs_is_gzip(path), CMRS_E_INPUT, "%s: gzip-compressed, but "
                "cmrs was built without zlib: gunzip it first", path);
#endif
    CMRS_FAIL(CMRS_E_INPUT, "%s: not HDF5 or Matrix Market (no HDF5 "
              "signature, no %%%%MatrixMarket banner on line 1)", path);
}

cmrs_code cmrs_h5_open_file(const char *path, int64_t *file)
{
    cmrs_h5_quiet();
    *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file < 0) {
        char why[256];
        cmrs_h5_error_text(why, sizeof why);
        CMRS_FAIL(CMRS_E_INPUT, "%s: cannot open as HDF5: %s (corrupt or "
                  "truncated file?)", path, *why ? why : "unknown reason");
    }
    return CMRS_OK;
}

static cmrs_code read_hdf5(const char *path, const cmrs_read_opts *o,
                           cmrs_system *sys)
{
    hid_t f = -1;
    CMRS_CHECK(cmrs_h5_open_file(path, &f));
    cmrs_code rc = cmrs_h5_read_system(f, path, o, sys);
    H5Fclose(f);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

static cmrs_code read_mtx(const char *path, const cmrs_read_opts *o,
                          cmrs_system *sys)
{
    CMRS_CHECK(cmrs_mm_read_matrix_with(path, o, &sys->A));
    snprintf(sys->layout, sizeof sys->layout, "mtx");
    if (o->rhs)
        CMRS_CHECK(cmrs_mm_read_vector_of(o->rhs, sys->A.rows,
                                          "right-hand side", &sys->b));
    if (o->x0)
        CMRS_CHECK(cmrs_mm_read_vector_of(o->x0, sys->A.rows,
                                          "initial guess", &sys->x0));
    return CMRS_OK;
}

static cmrs_code read_any(const char *path, const cmrs_read_opts *o,
                          cmrs_system *sys)
{
    int is_hdf5 = 0;
    CMRS_CHECK(detect_layout(path, &is_hdf5));
    CMRS_CHECK(is_hdf5 ? read_hdf5(path, o, sys) : read_mtx(path, o, sys));
    if (o->require_square && sys->A.rows != sys->A.cols)
        CMRS_CHECK(cmrs_fail_not_square(path, sys->A.rows, sys->A.cols));
    return CMRS_OK;
}

cmrs_code cmrs_system_read(const char *path, const cmrs_read_opts *opts,
                           cmrs_system *sys)
{
    static const cmrs_read_opts defaults = {0};
    memset(sys, 0, sizeof *sys);
    cmrs_code rc = read_any(path, opts ? opts : &defaults, sys);
    if (rc != CMRS_OK) {
        cmrs_system_free(sys);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

cmrs_code cmrs_system_write(const char *path, const cmrs_system *sys,
                            const char *input_path)
{
    cmrs_h5_out o;
    cmrs_code rc = CMRS_OK;
    CMRS_CHECK(cmrs_h5_out_open(&o, path, input_path));
    CMRS_TRY(cmrs_h5_write_csr(&o, "/A", &sys->A));
    if (sys->b) CMRS_TRY(cmrs_h5_write_f64(&o, "/b", sys->b, sys->A.rows));
    if (sys->x0) CMRS_TRY(cmrs_h5_write_f64(&o, "/x0", sys->x0, sys->A.rows));
    CMRS_TRY(cmrs_h5_out_commit(&o));
done:
    cmrs_h5_out_abort(&o);
    return rc;
}
