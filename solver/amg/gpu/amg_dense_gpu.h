/* The coarsest AMG level's dense inverse on the GPU by a blocked sweep
 * (Gauss-Jordan on the diagonal, amg_dense_gpu.cu): under a millisecond
 * where the host Cholesky of amg_dense.c takes a fifth of a second at ~900
 * rows, with kernels of our own (it replaced cuSOLVER's potrf and potri,
 * whose kernels, chosen by n, loaded on first use). */
#ifndef CMRS_SOLVER_AMG_DENSE_GPU_H
#define CMRS_SOLVER_AMG_DENSE_GPU_H

#include <cuda_runtime_api.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* inv (n x n row-major, exactly symmetric) = A^-1 for the n x n CSR A
 * (taken as the symmetric matrix of its upper triangle), computed in
 * double on `stream` (synchronised on return). *spd = 0 when a pivot is
 * not positive (A is not numerically SPD, as Cholesky would find; inv is
 * then unset), else 1. All device memory is allocated and freed here:
 * this runs once per setup. CMRS_E_GPU/NOMEM on CUDA failures. */
cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, const cmrs_csr *A,
                                 double *inv, int *spd);

/* The same left on the device (the AMG re-setup writes it straight into
 * the coarse operator's values): *inv_d a new n x n row-major device
 * array (cudaFree it), bitwise as above; NULL with *spd = 0. */
cmrs_code cmrs_gpu_dense_inverse_d(cudaStream_t stream, const cmrs_csr *A,
                                   double **inv_d, int *spd);

/* The same from the n x n device CSR (32-bit, rows sorted, as the AMG's
 * levels are held): no host copy of A or of its inverse. `stream` is
 * synchronised on return. */
cmrs_code cmrs_gpu_dense_inverse_dev(cudaStream_t stream, int64_t n,
                                     const int32_t *indptr_d,
                                     const int32_t *indices_d,
                                     const double *values_d, double **inv_d,
                                     int *spd);

/* The device kernels behind them (amg_dense_gpu.cu), queued on `stream`:
 * a_d (n x n) = the CSR scattered into zeros; x_d = sign times the full
 * symmetric matrix of a_d's upper triangle (row-major); m_d (n x n,
 * symmetric) swept in place to -m_d^-1, with scratch w_d and r_d of
 * n CMRS_DENSE_SWEEP_WIDTH doubles each, *info_d = 0, or the row + 1 of
 * the first pivot that is not positive (m_d is then garbage); the dense
 * CSR pattern of an n x n matrix (indptr_d n + 1, indices_d n^2
 * entries). */
#define CMRS_DENSE_SWEEP_WIDTH 32
cmrs_code cmrs_gpu_dense_scatter(cudaStream_t stream, int64_t n,
                                 const int32_t *indptr_d,
                                 const int32_t *indices_d,
                                 const double *values_d, double *a_d);
cmrs_code cmrs_gpu_dense_mirror(cudaStream_t stream, int64_t n,
                                const double *a_d, double *x_d, double sign);
cmrs_code cmrs_gpu_dense_sweep(cudaStream_t stream, int64_t n, double *m_d,
                               double *w_d, double *r_d, int *info_d);
cmrs_code cmrs_gpu_dense_pattern(cudaStream_t stream, int64_t n,
                                 int32_t *indptr_d, int32_t *indices_d);

#ifdef __cplusplus
}
#endif

#endif
