/* The coarsest level's inverse with cuSOLVER (amg_dense_gpu.h): the dense
 * matrix factorised A = L L^T by cusolverDnDpotrf, inverted from its
 * factor by cusolverDnDpotri (A^-1's lower triangle), and the full
 * inverse written from that triangle, so it is exactly symmetric (the
 * V-cycle stays symmetric, as with the host inverse). potrs against the
 * identity took 16 ms at 922 rows (vessel 5M, H100, CMRS_AMG_PROFILE),
 * most of the setup's coarsest level. */
#include <cusolverDn.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "amg_dense_gpu.h"
#include "amg_spgemm_dev.h"
#include "solver/amg/amg_prof.h"

#define CMRS_CUSOLVER_TRY(expr)                                             \
    do {                                                                    \
        cusolverStatus_t cmrs_s_ = (expr);                                  \
        if (cmrs_s_ != CUSOLVER_STATUS_SUCCESS) {                           \
            rc = cmrs_cusolver_error((int)cmrs_s_, #expr, __FILE__,         \
                                     __LINE__);                             \
            goto done;                                                      \
        }                                                                   \
    } while (0)

/* The device side: a_d (the matrix, then its factor, then the inverse's
 * lower triangle, column-major) and x_d (the full inverse); h the
 * caller's handle. */
typedef struct dense_dev {
    double *a_d, *x_d, *work_d;
    int *info_d;
    cusolverDnHandle_t h;
} dense_dev;

static void dense_dev_free(dense_dev *d)
{
    CMRS_GPU_FREE_ALL(d->a_d, d->x_d, d->work_d, d->info_d);
}

/* d->info_d read back (the stream synchronised); < 0 names the bad
 * argument of cuSOLVER's `routine` as an error, > 0 is the caller's. */
static cmrs_code info_of(cudaStream_t stream, const dense_dev *d,
                         const char *routine, int *info)
{
    CMRS_CUDA(cudaMemcpyAsync(info, d->info_d, sizeof *info,
                              cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    CMRS_ENSURE(*info >= 0, CMRS_E_GPU, "cuSOLVER %s: argument %d is wrong",
                routine, -*info);
    return CMRS_OK;
}

/* Factorises a_d and inverts it from the factor into a_d's lower
 * triangle; *info_h > 0: not SPD. */
static cmrs_code factor_invert(cudaStream_t stream, int n, dense_dev *d,
                               int *info_h, double *t)
{
    cmrs_code rc = CMRS_OK;
    int lwork = 0, lwork_i = 0;
    CMRS_CUSOLVER_TRY(cusolverDnSetStream(d->h, stream));
    CMRS_CUSOLVER_TRY(cusolverDnDpotrf_bufferSize(
        d->h, CUBLAS_FILL_MODE_LOWER, n, d->a_d, n, &lwork));
    CMRS_CUSOLVER_TRY(cusolverDnDpotri_bufferSize(
        d->h, CUBLAS_FILL_MODE_LOWER, n, d->a_d, n, &lwork_i));
    if (lwork_i > lwork) lwork = lwork_i;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&d->work_d,
                             (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    CMRS_CUSOLVER_TRY(cusolverDnDpotrf(d->h, CUBLAS_FILL_MODE_LOWER, n,
                                       d->a_d, n, d->work_d, lwork,
                                       d->info_d));
    CMRS_TRY(info_of(stream, d, "potrf", info_h));
    CMRS_TRY(amg_prof_step(stream, t, "  coarse potrf"));
    if (*info_h != 0) goto done; /* not SPD */
    CMRS_CUSOLVER_TRY(cusolverDnDpotri(d->h, CUBLAS_FILL_MODE_LOWER, n,
                                       d->a_d, n, d->work_d, lwork,
                                       d->info_d));
    CMRS_TRY(info_of(stream, d, "potri", info_h));
    CMRS_TRY(amg_prof_step(stream, t, "  coarse potri"));
done:
    return rc;
}

/* A^-1 into d->x_d (exactly symmetric) from d->a_d, filled by the caller
 * (dense_alloc made both); *spd = 0 when A is not SPD. Every variant of
 * the header comes here from the device CSR's scatter. */
static cmrs_code inverse_filled(cudaStream_t stream, int64_t n, dense_dev *d,
                                int *spd, double *t)
{
    int info = 0;
    *spd = 0;
    CMRS_CHECK(factor_invert(stream, (int)n, d, &info, t));
    if (info != 0) return CMRS_OK; /* > 0: not SPD */
    CMRS_CHECK(cmrs_gpu_dense_mirror(stream, n, d->a_d, d->x_d));
    *spd = 1;
    return CMRS_OK;
}

/* The device arrays for an n x n inverse: a_d, x_d and info_d. */
static cmrs_code dense_alloc(int64_t n, dense_dev *d)
{
    size_t bytes = (size_t)(n * n) * sizeof(double);
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->a_d, bytes));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->x_d, bytes));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->info_d, sizeof(int)));
    return CMRS_OK;
}

static cmrs_code check_size(int64_t n)
{
    CMRS_ENSURE(n > 0 && n <= 46340, CMRS_E_LIMIT, "GPU dense inverse: %lld "
                "rows is out of range (1 to 46340)", (long long)n);
    return CMRS_OK;
}

cmrs_code cmrs_gpu_dense_inverse_dev(cudaStream_t stream, cusolverDnHandle_t h,
                                     int64_t n, const int32_t *indptr_d,
                                     const int32_t *indices_d,
                                     const double *values_d, double **inv_d,
                                     int *spd)
{
    cmrs_code rc = CMRS_OK;
    dense_dev d;
    memset(&d, 0, sizeof d);
    d.h = h;
    *inv_d = NULL;
    *spd = 0;
    CMRS_CHECK(check_size(n));
    int ok = 0;
    double t = 0;
    amg_prof_begin(&t);
    CMRS_TRY(dense_alloc(n, &d));
    CMRS_TRY(cmrs_gpu_dense_scatter(stream, n, indptr_d, indices_d, values_d,
                                    d.a_d));
    CMRS_TRY(amg_prof_step(stream, &t, "  coarse alloc, scatter (n %lld)",
                           (long long)n));
    CMRS_TRY(inverse_filled(stream, n, &d, &ok, &t));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream)); /* the mirror done */
    CMRS_TRY(amg_prof_step(stream, &t, "  coarse mirror"));
    if (!ok) goto done;
    *inv_d = d.x_d; /* the caller's now */
    d.x_d = NULL;
    *spd = 1;
done:
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    dense_dev_free(&d);
    return rc;
}

/* From a host CSR: A uploaded (a few hundred KB), then the device path. No
 * entries: not SPD (potrf would say so of the zero matrix). */
cmrs_code cmrs_gpu_dense_inverse_d(cudaStream_t stream, cusolverDnHandle_t h,
                                   const cmrs_csr *A, double **inv_d, int *spd)
{
    cmrs_code rc = CMRS_OK;
    amg_dev_mat a;
    memset(&a, 0, sizeof a);
    *inv_d = NULL;
    *spd = 0;
    CMRS_CHECK(check_size(A->rows));
    if (A->nnz == 0) return CMRS_OK;
    CMRS_TRY(amg_dev_upload(A, &a));
    CMRS_TRY(cmrs_gpu_dense_inverse_dev(stream, h, A->rows, a.indptr_d,
                                        a.indices_d, a.values_d, inv_d, spd));
done:
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    amg_dev_free(&a);
    return rc;
}

cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, cusolverDnHandle_t h,
                                 const cmrs_csr *A, double *inv, int *spd)
{
    double *inv_d = NULL;
    CMRS_CHECK(cmrs_gpu_dense_inverse_d(stream, h, A, &inv_d, spd));
    cmrs_code rc = CMRS_OK;
    if (*spd)
        CMRS_CUDA_TRY(cudaMemcpy(inv, inv_d, (size_t)(A->rows * A->rows) *
                                 sizeof(double), cudaMemcpyDeviceToHost));
done:
    cmrs_dev_free(inv_d);
    return rc;
}
