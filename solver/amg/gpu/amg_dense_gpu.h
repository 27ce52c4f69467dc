/* The coarsest AMG level's dense inverse on the GPU through cuSOLVER
 * (potrf, then potrs on the identity): milliseconds where the host
 * Cholesky of amg_dense.c takes a fifth of a second at ~900 rows. */
#ifndef CMRS_SOLVER_AMG_DENSE_GPU_H
#define CMRS_SOLVER_AMG_DENSE_GPU_H

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* inv (n x n row-major, exactly symmetric) = A^-1 for the n x n CSR A,
 * computed in double on `stream` with cuSOLVER handle h (the back end's,
 * set to that stream here; synchronised on return). *spd = 0 when
 * the Cholesky factorisation meets a pivot that is not positive (A is not
 * numerically SPD; inv is then unset), else 1. All device memory is
 * allocated and freed here: this runs once per setup. CMRS_E_GPU/NOMEM on
 * CUDA or cuSOLVER failures. */
cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, cusolverDnHandle_t h,
                                 const cmrs_csr *A, double *inv, int *spd);

/* The same left on the device (the AMG re-setup writes it straight into
 * the coarse operator's values): *inv_d a new n x n row-major device
 * array (cudaFree it), symmetrised there bitwise as above; NULL with
 * *spd = 0. */
cmrs_code cmrs_gpu_dense_inverse_d(cudaStream_t stream, cusolverDnHandle_t h,
                                   const cmrs_csr *A, double **inv_d, int *spd);

#ifdef __cplusplus
}
#endif

#endif
