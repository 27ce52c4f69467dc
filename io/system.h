/* A linear system A x = b as read from a file, and the one reader that
 * detects the file's layout (native CSR HDF5, anndata, h5sparse, MATLAB v7.3
 * / PETSc HDF5, Matrix Market). Every count read from a file is untrusted:
 * readers validate before they allocate or index. */
#ifndef CMRS_SYSTEM_H
#define CMRS_SYSTEM_H

#include "base/csr.h"
#include "linsys.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Reads path into *sys (zeroed first). Layout detected from the content
 * (HDF5 signature, else "%%MatrixMarket" banner). What the file declares
 * is checked before anything sized by it is allocated (readers.h,
 * cmrs_check_declared). All failures are CMRS_E_INPUT/LIMIT with one line
 * naming file, dataset and problem, except a declaration whose estimated
 * memory exceeds the memory available, and allocation failures
 * (CMRS_E_NOMEM). On failure *sys holds nothing. */
cmrs_code cmrs_system_read(const char *path, const cmrs_read_opts *opts,
                           cmrs_system *sys);

/* Writes the native layout (/A group with data/indices/indptr + shape, /b,
 * /x0 when present) to a temporary name beside path, renamed when complete.
 * Refuses to write over input_path (may be NULL). */
cmrs_code cmrs_system_write(const char *path, const cmrs_system *sys,
                            const char *input_path);

/* Matrix Market: a coordinate matrix (real/integer/pattern; general,
 * symmetric, skew-symmetric; expanded, duplicates summed, rows sorted), or a
 * vector from an `array` file (or an n x 1 coordinate file). .gz via zlib. */
cmrs_code cmrs_mm_read_matrix(const char *path, cmrs_csr *A);
cmrs_code cmrs_mm_read_vector(const char *path, double **v, int64_t *n);

/* Same parsers over a memory buffer (used by the fuzz targets); `name`
 * stands for the file in messages. */
cmrs_code cmrs_mm_parse_matrix(const char *buf, size_t len, const char *name,
                               cmrs_csr *A);
cmrs_code cmrs_mm_parse_vector(const char *buf, size_t len, const char *name,
                               double **v, int64_t *n);

#ifdef __cplusplus
}
#endif

#endif
