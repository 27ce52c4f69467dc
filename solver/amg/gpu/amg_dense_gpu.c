/* The coarsest level's inverse with cuSOLVER (amg_dense_gpu.h). The dense
 * matrix is built on the host (a few MB), factorised A = L L^T by
 * cusolverDnDpotrf and solved against the identity by cusolverDnDpotrs,
 * which gives A^-1 column by column; the result is symmetrised on the
 * host ((X + X^T) / 2, rounding-level) so the V-cycle stays exactly
 * symmetric, as the host inverse is. */
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "solver/amg/amg.h"
#include "amg_dense_gpu.h"
#include "amg_sa_gpu.h"

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
 * (> 0: not SPD) and potrs; h the caller's handle. */
typedef struct dense_dev {
    double *a_d, *x_d, *work_d;
    int *info_d;
    cusolverDnHandle_t h;
} dense_dev;

static void dense_dev_free(dense_dev *d)
{
    CMRS_GPU_FREE_ALL(d->a_d, d->x_d, d->work_d, d->info_d);
}

/* Factorises a_d and solves against x_d = I; *info_h = potrf's info. */
static cmrs_code factor_solve(cudaStream_t stream, int n, dense_dev *d,
                              int *info_h)
{
    cmrs_code rc = CMRS_OK;
    int lwork = 0;
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

/* A^-1 (not yet symmetrised) into d->x_d; *spd = 0 when A is not SPD.
 * stage: n x n host doubles, the staging buffer: A (symmetric, so
 * row-major = column-major) goes up from it, then the identity. */
static cmrs_code inverse_on_device(cudaStream_t stream, const cmrs_csr *A,
                                   double *stage, dense_dev *d, int *spd)
{
    int64_t n = A->rows;
    size_t bytes = (size_t)(n * n) * sizeof(double);
    *spd = 0;
    cmrs_amg_dense_fill(A, stage);
    CMRS_CUDA(cudaMalloc((void **)&d->a_d, bytes));
    CMRS_CUDA(cudaMalloc((void **)&d->x_d, bytes));
    CMRS_CUDA(cudaMalloc((void **)&d->info_d, sizeof(int)));
    CMRS_CUDA(cudaMemcpyAsync(d->a_d, stage, bytes, cudaMemcpyHostToDevice,
                              stream));
    /* the pageable copy has read stage once cudaMemcpyAsync returns */
    memset(stage, 0, bytes);
    for (int64_t i = 0; i < n; ++i) stage[i * n + i] = 1.0;
    CMRS_CUDA(cudaMemcpyAsync(d->x_d, stage, bytes, cudaMemcpyHostToDevice,
                              stream));
    int info = 0;
    CMRS_CHECK(factor_solve(stream, (int)n, d, &info));
    CMRS_ENSURE(info >= 0, CMRS_E_GPU, "cuSOLVER potrf: argument %d is "
                "wrong", -info);
    *spd = info == 0; /* > 0: not SPD */
    return CMRS_OK;
}

static cmrs_code check_size(int64_t n)
{
    CMRS_ENSURE(n > 0 && n <= 46340, CMRS_E_LIMIT, "GPU dense inverse: %lld "
                "rows is out of range (1 to 46340)", (long long)n);
    return CMRS_OK;
}

cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, cusolverDnHandle_t h,
                                 const cmrs_csr *A, double *inv, int *spd)
{
    cmrs_code rc = CMRS_OK;
    dense_dev d;
    memset(&d, 0, sizeof d);
    d.h = h;
    int64_t n = A->rows;
    *spd = 0;
    CMRS_CHECK(check_size(n));
    size_t bytes = (size_t)(n * n) * sizeof(double);
    int ok = 0;
    CMRS_TRY(inverse_on_device(stream, A, inv, &d, &ok));
    if (!ok) goto done;
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

cmrs_code cmrs_gpu_dense_inverse_d(cudaStream_t stream, cusolverDnHandle_t h,
                                   const cmrs_csr *A, double **inv_d, int *spd)
{
    cmrs_code rc = CMRS_OK;
    dense_dev d;
    memset(&d, 0, sizeof d);
    d.h = h;
    int64_t n = A->rows;
    *inv_d = NULL;
    *spd = 0;
    CMRS_CHECK(check_size(n));
    double *stage = cmrs_malloc_array((size_t)(n * n), sizeof *stage);
    CMRS_ENSURE(stage, CMRS_E_NOMEM, "cannot allocate the coarse inverse");
    int ok = 0;
    CMRS_TRY(inverse_on_device(stream, A, stage, &d, &ok));
    if (!ok) goto done;
    CMRS_TRY(cmrs_gpu_symmetrize(stream, n, d.x_d));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    *inv_d = d.x_d; /* the caller's now */
    d.x_d = NULL;
    *spd = 1;
done:
    free(stage);
    dense_dev_free(&d);
    return rc;
}
