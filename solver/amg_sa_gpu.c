/* Smoothed aggregation's P, R = P^T and A_c = R A P on the GPU (see
 * amg_sa_gpu.h). The decisions are the host's: w from
 * cmrs_amg_smoothing_weight and f_i = w / a_ii per row on the host, so a
 * row the host would keep tentative (f not finite) sends the whole level
 * back to the host. Only the arithmetic runs on the device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg_host.h"
#include "amg_prof.h"
#include "amg_sa_gpu.h"
#include "amg_spgemm_dev.h"
#include "../spmv/cuda_check.h"

/* f_i = w / a_ii for every row; 0 when some f_i is not finite. */
static int row_scales(const cmrs_csr *A, double omega, double *f)
{
    double t = 0;
    amg_prof_begin(&t);
    double w = cmrs_amg_smoothing_weight(A, omega);
    (void)amg_prof_step(NULL, &t, "sa w (host Gershgorin)");
    for (int64_t i = 0; i < A->rows; ++i) {
        int found = 0;
        f[i] = w / cmrs_csr_lookup(A, i, (int32_t)i, &found);
        if (!found || !isfinite(f[i])) return 0;
    }
    (void)amg_prof_step(NULL, &t, "sa f_i = w / a_ii (host)");
    return 1;
}

/* The device arrays of one level, freed together. */
typedef struct sa_dev {
    cusparseHandle_t handle;
    amg_dev_mat a, pt, p, r, ap, rap;
    double *f_d;
    int32_t *agg_d;
    void *buf_d;
} sa_dev;

static void sa_free(sa_dev *d)
{
    amg_dev_free(&d->rap);
    amg_dev_free(&d->ap);
    amg_dev_free(&d->r);
    amg_dev_free(&d->p);
    amg_dev_free(&d->pt);
    amg_dev_free(&d->a);
    cudaFree(d->f_d);
    cudaFree(d->agg_d);
    cudaFree(d->buf_d);
    if (d->handle) cusparseDestroy(d->handle);
    memset(d, 0, sizeof *d);
}

/* d->r = P^T by cusparseCsr2cscEx2 on the handle's stream: the CSC
 * arrays of P are R's CSR. */
static cmrs_code transpose(sa_dev *d)
{
    const amg_dev_mat *p = &d->p;
    amg_dev_mat *r = &d->r;
    size_t bytes = 0;
    r->rows = p->cols;
    r->cols = p->rows;
    r->nnz = p->nnz;
    CMRS_CUDA(cudaMalloc((void **)&r->indptr_d,
                         ((size_t)r->rows + 1) * sizeof(int32_t)));
    CMRS_CUDA(cudaMalloc((void **)&r->indices_d,
                         (size_t)r->nnz * sizeof(int32_t)));
    CMRS_CUDA(cudaMalloc((void **)&r->values_d,
                         (size_t)r->nnz * sizeof(double)));
    CMRS_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
        d->handle, (int)p->rows, (int)p->cols, (int)p->nnz, p->values_d,
        p->indptr_d, p->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, &bytes));
    CMRS_CUDA(cudaMalloc(&d->buf_d, bytes ? bytes : 1));
    CMRS_CUSPARSE(cusparseCsr2cscEx2(
        d->handle, (int)p->rows, (int)p->cols, (int)p->nnz, p->values_d,
        p->indptr_d, p->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, d->buf_d));
    CMRS_CUSPARSE(cusparseCreateCsr(
        &r->descr, r->rows, r->cols, r->nnz, r->indptr_d, r->indices_d,
        r->values_d, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    return CMRS_OK;
}

/* P (in place of A P_tent), R, A P, R A P on the device. */
static cmrs_code products(cudaStream_t stream, sa_dev *d, const double *f,
                          const int32_t *agg)
{
    int64_t n = d->a.rows;
    double t = 0;
    amg_prof_begin(&t);
    CMRS_CUDA(cudaMalloc((void **)&d->f_d, (size_t)n * sizeof(double)));
    CMRS_CUDA(cudaMalloc((void **)&d->agg_d, (size_t)n * sizeof(int32_t)));
    CMRS_CUDA(cudaMemcpyAsync(d->f_d, f, (size_t)n * sizeof(double),
                              cudaMemcpyHostToDevice, stream));
    CMRS_CUDA(cudaMemcpyAsync(d->agg_d, agg, (size_t)n * sizeof(int32_t),
                              cudaMemcpyHostToDevice, stream));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa upload f, agg"));
    CMRS_CHECK(amg_dev_spgemm(d->handle, stream, &d->a, &d->pt, &d->p,
                              "A P_tent"));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM A P_tent"));
    CMRS_ENSURE(d->p.nnz >= n, CMRS_E_INTERNAL, "GPU smoothed P: A P_tent "
                "has %lld entries for %lld rows with a diagonal",
                (long long)d->p.nnz, (long long)n);
    CMRS_CHECK(cmrs_gpu_sa_smooth_rows(stream, n, d->p.indptr_d,
                                       d->p.indices_d, d->p.values_d,
                                       d->f_d, d->agg_d));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa smooth rows (P)"));
    CMRS_CHECK(transpose(d));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa csr2csc R = P^T"));
    CMRS_CHECK(amg_dev_spgemm(d->handle, stream, &d->a, &d->p, &d->ap,
                              "A P"));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM A P"));
    CMRS_CHECK(amg_dev_spgemm(d->handle, stream, &d->r, &d->ap, &d->rap,
                              "R A P"));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM R (A P)"));
    CMRS_ENSURE(d->rap.nnz > 0, CMRS_E_INTERNAL, "GPU smoothed "
                "aggregation: R A P came out empty");
    return CMRS_OK;
}

/* Everything on the device, then the three results downloaded. */
static cmrs_code sa_device(cudaStream_t stream, const cmrs_csr *A,
                           const int32_t *agg, int64_t naggs,
                           const double *f, cmrs_csr *P, cmrs_csr *R,
                           cmrs_csr *Ac)
{
    cmrs_code rc = CMRS_OK;
    sa_dev d;
    cmrs_csr Pt = {0};
    cmrs_amg_params plain;
    double t = 0;
    memset(&d, 0, sizeof d);
    amg_prof_begin(&t);
    cmrs_amg_params_default(&plain);
    plain.smooth_p = 0;
    CMRS_TRY(cmrs_amg_prolongator(A, agg, naggs, &plain, &Pt));
    CMRS_TRY(amg_prof_step(NULL, &t, "sa P_tent (host)"));
    CMRS_CUSPARSE_TRY(cusparseCreate(&d.handle));
    CMRS_CUSPARSE_TRY(cusparseSetStream(d.handle, stream));
    CMRS_TRY(amg_prof_step(stream, &t, "sa cusparseCreate"));
    CMRS_TRY(amg_dev_upload(stream, A, &d.a));
    CMRS_TRY(amg_prof_step(stream, &t, "sa upload A (nnz %lld)",
                           (long long)A->nnz));
    CMRS_TRY(amg_dev_upload(stream, &Pt, &d.pt));
    CMRS_TRY(amg_prof_step(stream, &t, "sa upload P_tent"));
    CMRS_TRY(products(stream, &d, f, agg));
    CMRS_TRY(amg_prof_step(stream, &t, "sa products total"));
    CMRS_TRY(amg_dev_download(stream, &d.p, P));
    CMRS_TRY(amg_prof_step(stream, &t, "sa download P (nnz %lld)",
                           (long long)P->nnz));
    CMRS_TRY(amg_dev_download(stream, &d.r, R));
    CMRS_TRY(amg_prof_step(stream, &t, "sa download R"));
    CMRS_TRY(amg_dev_download(stream, &d.rap, Ac));
    CMRS_TRY(amg_prof_step(stream, &t, "sa download A_c (nnz %lld)",
                           (long long)Ac->nnz));
    CMRS_TRY(amg_dev_ensure_sorted(P));
    CMRS_TRY(amg_dev_ensure_sorted(R));
    CMRS_TRY(amg_dev_ensure_sorted(Ac));
    CMRS_TRY(amg_prof_step(NULL, &t, "sa sortedness scans (host)"));
done:
    sa_free(&d);
    if (rc == CMRS_OK) rc = amg_prof_step(stream, &t, "sa free device");
    cmrs_csr_free(&Pt);
    if (rc != CMRS_OK) {
        cmrs_csr_free(P);
        cmrs_csr_free(R);
        cmrs_csr_free(Ac);
    }
    return rc;
}

cmrs_code cmrs_gpu_sa_level(cudaStream_t stream, const cmrs_csr *A,
                            const int32_t *agg, int64_t naggs, double omega,
                            cmrs_csr *P, cmrs_csr *R, cmrs_csr *Ac,
                            int *done)
{
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    *done = 0;
    if (A->rows == 0 || A->nnz == 0 || naggs == 0) return CMRS_OK;
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    double *f = cmrs_malloc_array((size_t)A->rows, sizeof *f);
    CMRS_ENSURE(f, CMRS_E_NOMEM, "cannot allocate %lld row scales",
                (long long)A->rows);
    cmrs_code rc = CMRS_OK;
    if (row_scales(A, omega, f)) {
        rc = sa_device(stream, A, agg, naggs, f, P, R, Ac);
        *done = rc == CMRS_OK;
    }
    free(f);
    if (rc != CMRS_OK) return cmrs_error_trace(rc, __FILE__, __LINE__);
    return CMRS_OK;
}
