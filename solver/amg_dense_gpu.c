/* The coarsest level's inverse with cuSOLVER (amg_dense_gpu.h). The dense
 * matrix is built on the host (a few MB), factorised A = L L^T by
 * cusolverDnDpotrf and solved against the identity by cusolverDnDpotrs,
 * which gives A^-1 column by column; the result is symmetrised on the
 * host ((X + X^T) / 2, rounding-level) so the V-cycle stays exactly
 * symmetric, as the host inverse is. */
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "../spmv/cuda_check.h"
#include "amg.h"
#include "amg_dense_gpu.h"

#define CMRS_CUSOLVER_TRY(expr)                                             \
    do {                                                                    \
        cusolverStatus_t cmrs_s_ = (expr);                                  \
        if (cmrs_s_ != CUSOLVER_STATUS_SUCCESS) {                           \
            rc = cmrs_cusolver_error((int)cmrs_s_, #expr, __FILE__,         \
                                     __LINE__);                             \
            goto done;                                                      \
        }                                                                   \
    } while (0)

/* The device side: a_d (the matrix, then its factor) and x_d (the
 * identity, then the inverse), both n x n column-major; *info_h from potrf
 * (> 0: not SPD) and potrs. */
typedef struct dense_dev {
    double *a_d, *x_d, *work_d;
    int *info_d;
    cusolverDnHandle_t h;
} dense_dev;

static void dense_dev_free(dense_dev *d)
{
    if (d->h) cusolverDnDestroy(d->h);
    cudaFree(d->a_d);
    cudaFree(d->x_d);
    cudaFree(d->work_d);
    cudaFree(d->info_d);
}

/* Factorises a_d and solves against x_d = I; *info_h = potrf's info. */
static cmrs_code factor_solve(cudaStream_t stream, int n, dense_dev *d,
                              int *info_h)
{
    cmrs_code rc = CMRS_OK;
    int lwork = 0;
    CMRS_CUSOLVER_TRY(cusolverDnCreate(&d->h));
    CMRS_CUSOLVER_TRY(cusolverDnSetStream(d->h, stream));
    CMRS_CUSOLVER_TRY(cusolverDnDpotrf_bufferSize(
        d->h, CUBLAS_FILL_MODE_LOWER, n, d->a_d, n, &lwork));
    CMRS_CUDA_TRY(cudaMalloc((void **)&d->work_d,
                             (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    CMRS_CUSOLVER_TRY(cusolverDnDpotrf(d->h, CUBLAS_FILL_MODE_LOWER, n,
                                       d->a_d, n, d->work_d, lwork,
                                       d->info_d));
    CMRS_CUDA_TRY(cudaMemcpyAsync(info_h, d->info_d, sizeof *info_h,
                                  cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    if (*info_h != 0) goto done; /* not SPD (or a bad argument: < 0) */
    CMRS_CUSOLVER_TRY(cusolverDnDpotrs(d->h, CUBLAS_FILL_MODE_LOWER, n, n,
                                       d->a_d, n, d->x_d, n, d->info_d));
    int info2 = 0;
    CMRS_CUDA_TRY(cudaMemcpyAsync(&info2, d->info_d, sizeof info2,
                                  cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    CMRS_ENSURE(info2 == 0, CMRS_E_GPU, "cuSOLVER potrs: argument %d is "
                "wrong", -info2);
done:
    return rc;
}

cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, const cmrs_csr *A,
                                 double *inv, int *spd)
{
    cmrs_code rc = CMRS_OK;
    dense_dev d;
    memset(&d, 0, sizeof d);
    int64_t n = A->rows;
    *spd = 0;
    CMRS_ENSURE(n > 0 && n <= 46340, CMRS_E_LIMIT, "GPU dense inverse: %lld "
                "rows is out of range (1 to 46340)", (long long)n);
    size_t bytes = (size_t)(n * n) * sizeof(double);
    /* inv is the staging buffer: A (symmetric, so row-major = column-major)
     * goes up from it, then the identity. */
    cmrs_amg_dense_fill(A, inv);
    CMRS_CUDA_TRY(cudaMalloc((void **)&d.a_d, bytes));
    CMRS_CUDA_TRY(cudaMalloc((void **)&d.x_d, bytes));
    CMRS_CUDA_TRY(cudaMalloc((void **)&d.info_d, sizeof(int)));
    CMRS_CUDA_TRY(cudaMemcpyAsync(d.a_d, inv, bytes, cudaMemcpyHostToDevice,
                                  stream));
    memset(inv, 0, bytes);
    for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
    CMRS_CUDA_TRY(cudaMemcpyAsync(d.x_d, inv, bytes, cudaMemcpyHostToDevice,
                                  stream));
    int info = 0;
    CMRS_TRY(factor_solve(stream, (int)n, &d, &info));
    if (info != 0) {
        if (info < 0)
            CMRS_TRY_FAIL(CMRS_E_GPU, "cuSOLVER potrf: argument %d is wrong",
                          -info);
        goto done; /* > 0: not SPD */
    }
    CMRS_CUDA_TRY(cudaMemcpyAsync(inv, d.x_d, bytes, cudaMemcpyDeviceToHost,
                                  stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < i; ++j) {
            double s = 0.5 * (inv[i * n + j] + inv[j * n + i]);
            inv[i * n + j] = inv[j * n + i] = s;
        }
    *spd = 1;
done:
    dense_dev_free(&d);
    return rc;
}
