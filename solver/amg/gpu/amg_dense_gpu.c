/* The coarsest level's inverse on the device (amg_dense_gpu.h): the dense
 * matrix, made symmetric from its upper triangle, swept to -A^-1 by
 * blocks (amg_dense_gpu.cu), and A^-1 written from the result's upper
 * triangle, so it is exactly symmetric (the V-cycle stays symmetric, as
 * with the host inverse). cuSOLVER's potrf and potri did it before, in
 * 2-16 ms at ~900 rows (vessel 5M, Poisson 200^3, H100, CMRS_AMG_PROFILE)
 * against the sweep's (see BENCHMARKS.md). */
#include <string.h>

#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "amg_dense_gpu.h"
#include "amg_spgemm_dev.h"
#include "solver/amg/amg_prof.h"

/* The device side: a_d (the matrix, then A^-1) and x_d (the symmetric
 * matrix swept), the sweep's scratch w_d (W' then R) and its pivot
 * report info_d. */
typedef struct dense_dev {
    double *a_d, *x_d, *w_d;
    int *info_d;
} dense_dev;

static void dense_dev_free(dense_dev *d)
{
    CMRS_GPU_FREE_ALL(d->a_d, d->x_d, d->w_d, d->info_d);
}

/* A^-1 into d->a_d (exactly symmetric) from d->a_d, filled by the caller
 * (dense_alloc made the arrays); *spd = 0 when A is not SPD. Every variant
 * of the header comes here from the device CSR's scatter. */
static cmrs_code inverse_filled(cudaStream_t stream, int64_t n, dense_dev *d,
                                int *spd, double *t)
{
    int info = 0;
    *spd = 0;
    CMRS_CHECK(cmrs_gpu_dense_mirror(stream, n, d->a_d, d->x_d, 1.0));
    CMRS_CHECK(cmrs_gpu_dense_sweep(stream, n, d->x_d, d->w_d,
                                    d->w_d + n * CMRS_DENSE_SWEEP_WIDTH,
                                    d->info_d));
    CMRS_CUDA(cudaMemcpyAsync(&info, d->info_d, sizeof info,
                              cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    CMRS_CHECK(amg_prof_step(stream, t, "  coarse sweep"));
    if (info != 0) return CMRS_OK; /* a pivot not > 0: not SPD */
    CMRS_CHECK(cmrs_gpu_dense_mirror(stream, n, d->x_d, d->a_d, -1.0));
    *spd = 1;
    return CMRS_OK;
}

/* The device arrays for an n x n inverse: a_d, x_d, w_d and info_d. */
static cmrs_code dense_alloc(int64_t n, dense_dev *d)
{
    size_t bytes = (size_t)(n * n) * sizeof(double);
    size_t panel = (size_t)n * CMRS_DENSE_SWEEP_WIDTH * sizeof(double);
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->a_d, bytes));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->x_d, bytes));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->w_d, 2 * panel));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->info_d, sizeof(int)));
    return CMRS_OK;
}

static cmrs_code check_size(int64_t n)
{
    CMRS_ENSURE(n > 0 && n <= 46340, CMRS_E_LIMIT, "GPU dense inverse: %lld "
                "rows is out of range (1 to 46340)", (long long)n);
    return CMRS_OK;
}

cmrs_code cmrs_gpu_dense_inverse_dev(cudaStream_t stream, int64_t n,
                                     const int32_t *indptr_d,
                                     const int32_t *indices_d,
                                     const double *values_d, double **inv_d,
                                     int *spd)
{
    cmrs_code rc = CMRS_OK;
    dense_dev d;
    memset(&d, 0, sizeof d);
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
    *inv_d = d.a_d; /* the caller's now */
    d.a_d = NULL;
    *spd = 1;
done:
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    dense_dev_free(&d);
    return rc;
}

/* From a host CSR: A uploaded (a few hundred KB), then the device path. No
 * entries: not SPD (the sweep's first pivot, 0, would say so). */
cmrs_code cmrs_gpu_dense_inverse_d(cudaStream_t stream, const cmrs_csr *A,
                                   double **inv_d, int *spd)
{
    cmrs_code rc = CMRS_OK;
    amg_dev_mat a;
    memset(&a, 0, sizeof a);
    *inv_d = NULL;
    *spd = 0;
    CMRS_CHECK(check_size(A->rows));
    if (A->nnz == 0) return CMRS_OK;
    CMRS_TRY(amg_dev_upload(A, &a));
    CMRS_TRY(cmrs_gpu_dense_inverse_dev(stream, A->rows, a.indptr_d,
                                        a.indices_d, a.values_d, inv_d, spd));
done:
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    amg_dev_free(&a);
    return rc;
}

cmrs_code cmrs_gpu_dense_inverse(cudaStream_t stream, const cmrs_csr *A,
                                 double *inv, int *spd)
{
    double *inv_d = NULL;
    CMRS_CHECK(cmrs_gpu_dense_inverse_d(stream, A, &inv_d, spd));
    cmrs_code rc = CMRS_OK;
    if (*spd)
        CMRS_CUDA_TRY(cudaMemcpy(inv, inv_d, (size_t)(A->rows * A->rows) *
                                 sizeof(double), cudaMemcpyDeviceToHost));
done:
    cmrs_dev_free(inv_d);
    return rc;
}
