/* The solver's own GPU kernels (solver/backend/gpu/gpu_kernels.cu): the element-wise steps
 * cuBLAS does not offer. Arrays are device arrays of the precision's type;
 * kernels run on `stream` and are checked at launch. */
#ifndef CMRS_SOLVER_GPU_KERNELS_H
#define CMRS_SOLVER_GPU_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/status.h"
#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha d.*x + beta y (d NULL: identity; beta 0: y not read; x may
 * be y): Jacobi, the smoothers' passes, copies. */
cmrs_code cmrs_gpu_dxpby(cmrs_prec prec, int64_t n, double alpha,
                         const void *d_d, const void *x_d, double beta,
                         void *y_d, cudaStream_t stream);
/* y[i] = cmrs_pc_start_value(i) (pc_start.h) rounded to the precision:
 * the power iteration's start vector, made on the device. */
cmrs_code cmrs_gpu_start_vector(cmrs_prec prec, int64_t n, void *y_d,
                                cudaStream_t stream);
/* dinv[i] = 1 / values[diag[i]], the division in double as the host's
 * Jacobi setup does it (bitwise the same D^-1); a row whose diagonal is
 * missing, not > 0 or not finite lowers *bad_d (atomicMin) to its index. */
cmrs_code cmrs_gpu_dinv_values(cmrs_prec prec, int64_t n,
                               const int32_t *diag_d, const void *values_d,
                               void *dinv_d, unsigned long long *bad_d,
                               cudaStream_t stream);
/* dinv[i] = 1 / diag[i] in double, then rounded to the precision: the
 * host's Jacobi setup and arr_set, bitwise, from the diagonal in double
 * that a format's setup found (spmv.h: cmrs_diag_d; rows it flagged are
 * the caller's to report). Single precision: *overflow_d lowered
 * (atomicMin) to the smallest i whose inverse does not fit a float, as
 * arr_set refuses it on the host. */
cmrs_code cmrs_gpu_dinv_of_diag(cmrs_prec prec, int64_t n,
                                const double *diag_d, void *dinv_d,
                                unsigned long long *overflow_d,
                                cudaStream_t stream);
/* The fused device-values update (a format whose value store is a copy
 * or a gather with no `after` step): tiles of a fixed number of stored
 * entries; tile_rows gives each tile the rows whose diagonal lies in its
 * share of A's entries. */
int64_t cmrs_gpu_update_tiles(int64_t stored);
/* rows_d (update_tiles(stored) + 1 entries) from the diagonal positions
 * (n rows, nnz entries); *bad_d set to ~0 first, then lowered to a row
 * whose diagonal is missing or out of order (copy_dinv then takes the
 * rows the plain way). */
cmrs_code cmrs_gpu_tile_rows(int64_t n, const int32_t *diag_d, int64_t nnz,
                             int64_t stored, int32_t *rows_d,
                             unsigned long long *bad_d, cudaStream_t stream);
/* What the fused update writes and reads besides the new values. */
typedef struct cmrs_gpu_fused_update {
    void *dst_d;            /* the value store: stored values */
    const int32_t *perm_d;  /* stored entry -> CSR entry (-1: padding), or
                               NULL: CSR order */
    int64_t stored, n;
    const int32_t *diag_d, *tile_rows_d;
    const unsigned long long *tiles_bad_d;
    unsigned long long *bad_value_d, *bad_row_d; /* as the two kernels' */
    unsigned long long *reset_d; /* or NULL: two words the kernel sets to
                                    ~0 (the next update's, so that it
                                    needs no memset of its own) */
} cmrs_gpu_fused_update;
/* One kernel for the value store's gather of src_d (*bad_value_d lowered
 * to a non-finite value's CSR index) and dinv as cmrs_gpu_dinv_values
 * (*bad_row_d), the diagonal read while its tile is in cache. */
cmrs_code cmrs_gpu_copy_dinv(cmrs_prec prec, const cmrs_gpu_fused_update *u,
                             const void *src_d, void *dinv_d,
                             cudaStream_t stream);
/* y = s x over n entries, x of precision px read, y of precision py
 * written (the product in double, then rounded): the casts around a
 * single-precision preconditioner or inner solve in a double loop. */
cmrs_code cmrs_gpu_cast(int64_t n, double s, const void *x_d, cmrs_prec px,
                        void *y_d, cmrs_prec py, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif
