/* ELLPACK-R / ELLR-T (paper 003, after Vazquez et al.): host conversion.
 *
 * Every row is padded to `width` slots (the longest row rounded up to a
 * multiple of T), rl[r] holds row r's true length. With T threads per row,
 * entry k of row r lives at
 *     slot(r, k) = (k / T) * rows * T + r * T + (k % T)
 * i.e. column-major over groups of T entries: at step i the warp's lanes
 * (T per row, consecutive rows) read consecutive addresses. T = 1 is the
 * plain ELLPACK-R layout A[k * rows + r] of the paper's Table II.
 * Padding slots hold column 0 and value 0 and are never read by the kernel.
 */
#ifndef CMRS_FMT_ELLR_H
#define CMRS_FMT_ELLR_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_ELLR_MAX_T 32

typedef struct cmrs_ellr_host {
    int64_t rows, cols, nnz;
    int T;          /* threads per row: 1, 2, 4, 8, 16 or 32 */
    int64_t width;  /* slots per row, a multiple of T (0 if nnz == 0) */
    int64_t stored; /* rows * width, padding included */
    int32_t *rl;    /* rows row lengths */
    int32_t *col;   /* stored column indices */
    double *val;    /* stored values */
} cmrs_ellr_host;

/* Index of entry k of row r in col/val. */
static inline int64_t cmrs_ellr_slot(int64_t rows, int T, int64_t r,
                                     int64_t k)
{
    return (k / T) * rows * T + r * T + (k % T);
}

/* Default T: the smallest power of two >= mean row length / 4, in [1, 32]
 * (each lane then handles about 4 entries of an average row). */
int cmrs_ellr_default_T(const cmrs_csr *A);

/* *T = requested, or the default when requested == 0. Anything but 0, 1,
 * 2, 4, 8, 16, 32 is CMRS_E_USAGE. */
cmrs_code cmrs_ellr_resolve_T(int requested, const cmrs_csr *A, int *T);

/* Builds the padded arrays of A for T threads per row. Too much padding
 * (cmrs_check_padding) or a size overflow is CMRS_E_LIMIT; on failure *E
 * holds nothing. Free with cmrs_ellr_host_free. */
cmrs_code cmrs_ellr_build(const cmrs_csr *A, int T, cmrs_ellr_host *E);
void cmrs_ellr_host_free(cmrs_ellr_host *E); /* NULL-safe, idempotent */

#ifdef __cplusplus
}
#endif

#endif
