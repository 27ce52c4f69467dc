/* One level's smoothed-aggregation products kept for new values (see
 * amg_sa_plan_gpu.h). Each product C = X Y follows the reuse sequence of
 * the CUDA 13 cuSPARSE API: cusparseSpGEMMreuse_workEstimation (size
 * query, then with buffer 1), cusparseSpGEMMreuse_nnz (buffers 2, 3 and
 * 4; nnz(C) by cusparseSpMatGetSize), C's columns and values allocated and
 * set (cusparseCsrSetPointers), cusparseSpGEMMreuse_copy (buffer 5: C's
 * structure), after which buffers 1-3 go and 4, 5 and the descriptor are
 * kept: every cusparseSpGEMMreuse_compute reads them (and X's and Y's
 * values) to write C's values. R = P^T keeps the permutation of P's
 * entries (csr2csc of their numbers), so its values are one gather. The
 * plan's products must come out in the order of the level matrices the
 * operators were made from: checked once at creation (on the device);
 * otherwise there is no plan and the caller forms the level as setup did. */
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "spmv/device.h"
#include "amg_sa_gpu.h"
#include "amg_sa_plan_gpu.h"

#define OP_N CUSPARSE_OPERATION_NON_TRANSPOSE
#define REUSE_ALG CUSPARSE_SPGEMM_DEFAULT

static const double k_one = 1.0, k_zero = 0.0;

/* C = X Y, re-computable: the reuse descriptor, the buffers compute
 * reads (4 and 5) and C (owned). */
typedef struct reuse_product {
    cusparseSpGEMMDescr_t descr;
    void *buf4, *buf5;
    amg_dev_mat c;
} reuse_product;

struct amg_sa_plan {
    cusparseHandle_t handle; /* host pointer mode, on the level's stream */
    amg_dev_mat a_own;       /* level 0: the plan's copy of A */
    int own_a;
    int64_t n;
    int32_t *agg_d;
    double *f_d;             /* the row scales w / a_ii of the last run */
    amg_dev_mat pt;          /* the tentative P */
    reuse_product ap_t;      /* A P_tent, smoothed in place into P */
    reuse_product ap;        /* A P */
    reuse_product rap;       /* R (A P) */
    amg_dev_mat r;           /* R = P^T */
    int32_t *perm_d;         /* R's entry k is P's entry perm_d[k] */
};

static void product_free(reuse_product *p)
{
    if (p->descr) cusparseSpGEMM_destroyDescr(p->descr);
    CMRS_GPU_FREE_ALL(p->buf4, p->buf5);
    amg_dev_free(&p->c);
    memset(p, 0, sizeof *p);
}

void amg_sa_plan_free(amg_sa_plan *p)
{
    if (!p) return;
    product_free(&p->rap);
    product_free(&p->ap);
    product_free(&p->ap_t);
    amg_dev_free(&p->r);
    amg_dev_free(&p->pt);
    amg_dev_free(&p->a_own);
    CMRS_GPU_FREE_ALL(p->perm_d, p->agg_d, p->f_d);
    if (p->handle) cusparseDestroy(p->handle);
    free(p);
}

/* workEstimation: size query, then with buffer 1 (freed by the caller
 * once the structure is copied). */
static cmrs_code reuse_estimate(cusparseHandle_t h, const amg_dev_mat *x,
                                const amg_dev_mat *y, reuse_product *p,
                                void **buf1)
{
    size_t s1 = 0;
    CMRS_CUSPARSE(cusparseSpGEMMreuse_workEstimation(
        h, OP_N, OP_N, x->descr, y->descr, p->c.descr, REUSE_ALG, p->descr,
        &s1, NULL));
    CMRS_CUDA(cmrs_dev_malloc(buf1, s1 ? s1 : 1));
    CMRS_CUSPARSE(cusparseSpGEMMreuse_workEstimation(
        h, OP_N, OP_N, x->descr, y->descr, p->c.descr, REUSE_ALG, p->descr,
        &s1, *buf1));
    return CMRS_OK;
}

/* nnz: sizes, then buffers 2 and 3 (the caller's to free) and 4 (kept). */
static cmrs_code reuse_nnz(cusparseHandle_t h, const amg_dev_mat *x,
                           const amg_dev_mat *y, reuse_product *p,
                           void **buf2, void **buf3)
{
    size_t s2 = 0, s3 = 0, s4 = 0;
    CMRS_CUSPARSE(cusparseSpGEMMreuse_nnz(
        h, OP_N, OP_N, x->descr, y->descr, p->c.descr, REUSE_ALG, p->descr,
        &s2, NULL, &s3, NULL, &s4, NULL));
    CMRS_CUDA(cmrs_dev_malloc(buf2, s2 ? s2 : 1));
    CMRS_CUDA(cmrs_dev_malloc(buf3, s3 ? s3 : 1));
    CMRS_CUDA(cmrs_dev_malloc(&p->buf4, s4 ? s4 : 1));
    CMRS_CUSPARSE(cusparseSpGEMMreuse_nnz(
        h, OP_N, OP_N, x->descr, y->descr, p->c.descr, REUSE_ALG, p->descr,
        &s2, *buf2, &s3, *buf3, &s4, p->buf4));
    return CMRS_OK;
}

/* C's columns and values (nnz known), then its structure (buffer 5). */
static cmrs_code reuse_copy(cusparseHandle_t h, const amg_dev_mat *x,
                            const amg_dev_mat *y, reuse_product *p)
{
    amg_dev_mat *c = &p->c;
    int64_t rows = 0, cols = 0, nnz = 0;
    size_t s5 = 0;
    CMRS_CUSPARSE(cusparseSpMatGetSize(c->descr, &rows, &cols, &nnz));
    CMRS_CHECK(amg_dev_check_int32(rows, cols, nnz, "re-setup product"));
    CMRS_ENSURE(nnz > 0, CMRS_E_LIMIT, "re-setup product: empty");
    c->nnz = nnz;
    CMRS_CUDA(cmrs_dev_malloc((void **)&c->indices_d,
                         (size_t)nnz * sizeof(int32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&c->values_d, (size_t)nnz * sizeof(double)));
    CMRS_CUSPARSE(cusparseCsrSetPointers(c->descr, c->indptr_d, c->indices_d,
                                         c->values_d));
    CMRS_CUSPARSE(cusparseSpGEMMreuse_copy(h, OP_N, OP_N, x->descr, y->descr,
                                           c->descr, REUSE_ALG, p->descr,
                                           &s5, NULL));
    CMRS_CUDA(cmrs_dev_malloc(&p->buf5, s5 ? s5 : 1));
    CMRS_CUSPARSE(cusparseSpGEMMreuse_copy(h, OP_N, OP_N, x->descr, y->descr,
                                           c->descr, REUSE_ALG, p->descr,
                                           &s5, p->buf5));
    return CMRS_OK;
}

/* The symbolic phases of C = X Y; the stream is synchronised before the
 * temporary buffers go (the copy may still read them). */
static cmrs_code reuse_build(cusparseHandle_t h, cudaStream_t stream,
                             const amg_dev_mat *x, const amg_dev_mat *y,
                             reuse_product *p)
{
    cmrs_code rc = CMRS_OK;
    void *b1 = NULL, *b2 = NULL, *b3 = NULL;
    CMRS_TRY(amg_dev_product_shell(x, y, &p->c));
    CMRS_CUSPARSE_TRY(cusparseSpGEMM_createDescr(&p->descr));
    CMRS_TRY(reuse_estimate(h, x, y, p, &b1));
    CMRS_TRY(reuse_nnz(h, x, y, p, &b2, &b3));
    CMRS_TRY(reuse_copy(h, x, y, p));
done:
    if (cudaStreamSynchronize(stream) != cudaSuccess && rc == CMRS_OK)
        rc = cmrs_cuda_error(cudaGetLastError(), "cudaStreamSynchronize",
                             __FILE__, __LINE__);
    CMRS_GPU_FREE_ALL(b1, b2, b3);
    return rc;
}

/* C's values from X's and Y's current ones (queued on the handle's
 * stream). */
static cmrs_code reuse_compute(cusparseHandle_t h, const amg_dev_mat *x,
                               const amg_dev_mat *y, reuse_product *p)
{
    CMRS_CUSPARSE(cusparseSpGEMMreuse_compute(
        h, OP_N, OP_N, &k_one, x->descr, y->descr, &k_zero, p->c.descr,
        CUDA_R_64F, REUSE_ALG, p->descr));
    return CMRS_OK;
}

/* The plan's A: level 0's own copy (made from the caller's device copy
 * or its host CSR), else the caller's (kept where it is between runs). */
static const amg_dev_mat *plan_a(const amg_sa_plan *p, const amg_sa_level *v)
{
    return p->own_a ? &p->a_own : v->a;
}

static cmrs_code own_copy(cudaStream_t stream, amg_sa_plan *p,
                          const amg_sa_level *v)
{
    const amg_dev_mat *a = v->a;
    if (!a) {
        CMRS_CHECK(amg_dev_upload(v->a_h, &p->a_own));
        return CMRS_OK;
    }
    CMRS_CHECK(amg_dev_alloc(&p->a_own, a->rows, a->cols, a->nnz));
    CMRS_CUDA(cudaMemcpyAsync(p->a_own.indptr_d, a->indptr_d,
                              ((size_t)a->rows + 1) * sizeof(int32_t),
                              cudaMemcpyDeviceToDevice, stream));
    CMRS_CUDA(cudaMemcpyAsync(p->a_own.indices_d, a->indices_d,
                              (size_t)a->nnz * sizeof(int32_t),
                              cudaMemcpyDeviceToDevice, stream));
    CMRS_CUDA(cudaMemcpyAsync(p->a_own.values_d, a->values_d,
                              (size_t)a->nnz * sizeof(double),
                              cudaMemcpyDeviceToDevice, stream));
    CMRS_CHECK(amg_dev_describe(&p->a_own));
    return CMRS_OK;
}

/* Level 0's new values into the plan's copy of A. */
static cmrs_code own_values(cudaStream_t stream, amg_sa_plan *p,
                            const amg_sa_level *v)
{
    size_t bytes = (size_t)p->a_own.nnz * sizeof(double);
    const void *src = v->a ? (const void *)v->a->values_d
                           : (const void *)v->a_h->values;
    CMRS_CUDA(cudaMemcpyAsync(p->a_own.values_d, src, bytes,
                              v->a ? cudaMemcpyDeviceToDevice
                                   : cudaMemcpyHostToDevice, stream));
    return CMRS_OK;
}

/* The aggregates (copied on the device where the level kept them there,
 * else up), the tentative P from them, room for the scales. */
static cmrs_code plan_inputs(cudaStream_t stream, amg_sa_plan *p,
                             const amg_sa_level *v)
{
    size_t n = (size_t)p->n;
    CMRS_CUDA(cmrs_dev_malloc((void **)&p->agg_d, n * sizeof(int32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&p->f_d, n * sizeof(double)));
    CMRS_CUDA(cudaMemcpyAsync(p->agg_d, v->agg_d ? v->agg_d : v->agg,
                              n * sizeof(int32_t),
                              v->agg_d ? cudaMemcpyDeviceToDevice
                                       : cudaMemcpyHostToDevice, stream));
    CMRS_CHECK(amg_dev_alloc(&p->pt, p->n, v->naggs, p->n));
    CMRS_CHECK(cmrs_gpu_sa_tentative(stream, p->n, p->agg_d, p->pt.indptr_d,
                                     p->pt.indices_d, p->pt.values_d));
    CMRS_CHECK(amg_dev_describe(&p->pt));
    return CMRS_OK;
}

/* R = P^T's structure by csr2csc, P's entry numbers carried as values:
 * they come out as the permutation R's values are gathered through. */
static cmrs_code plan_transpose(cudaStream_t stream, amg_sa_plan *p)
{
    cmrs_code rc = CMRS_OK;
    const amg_dev_mat *P = &p->ap_t.c;
    amg_dev_mat *r = &p->r;
    double *iota_d = NULL;
    void *buf_d = NULL;
    size_t bytes = 0;
    CMRS_CHECK(amg_dev_alloc(r, P->cols, P->rows, P->nnz));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&iota_d,
                             (size_t)P->nnz * sizeof(double)));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&p->perm_d,
                             (size_t)P->nnz * sizeof(int32_t)));
    CMRS_TRY(cmrs_gpu_iota_d(stream, P->nnz, iota_d));
    CMRS_CUSPARSE_TRY(cusparseCsr2cscEx2_bufferSize(
        p->handle, (int)P->rows, (int)P->cols, (int)P->nnz, iota_d,
        P->indptr_d, P->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, &bytes));
    CMRS_CUDA_TRY(cmrs_dev_malloc(&buf_d, bytes ? bytes : 1));
    CMRS_CUSPARSE_TRY(cusparseCsr2cscEx2(
        p->handle, (int)P->rows, (int)P->cols, (int)P->nnz, iota_d,
        P->indptr_d, P->indices_d, r->values_d, r->indptr_d, r->indices_d,
        CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG1, buf_d));
    CMRS_TRY(cmrs_gpu_to_int32(stream, P->nnz, r->values_d, p->perm_d));
    CMRS_TRY(amg_dev_describe(r));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
done:
    CMRS_GPU_FREE_ALL(iota_d, buf_d);
    return rc;
}

/* *same = 1 when x and y have the same shape, indptr and indices. */
static cmrs_code same(cudaStream_t stream, const amg_dev_mat *x,
                      const amg_dev_mat *y, int *same)
{
    *same = 0;
    if (x->rows != y->rows || x->cols != y->cols || x->nnz != y->nnz)
        return CMRS_OK;
    CMRS_CHECK(cmrs_gpu_csr_same_pattern(stream, x->rows, x->nnz,
                                         x->indptr_d, x->indices_d,
                                         y->indptr_d, y->indices_d, same));
    return CMRS_OK;
}

/* Everything symbolic, then the check against setup's P, R and A_c. */
static cmrs_code plan_build(cudaStream_t stream, amg_sa_plan *p,
                            const amg_sa_level *v, int *usable)
{
    int sp = 0, sr = 0, sa = 0;
    *usable = 0;
    CMRS_CUSPARSE(cusparseCreate(&p->handle));
    CMRS_CUSPARSE(cusparseSetStream(p->handle, stream));
    if (p->own_a) CMRS_CHECK(own_copy(stream, p, v));
    CMRS_CHECK(plan_inputs(stream, p, v));
    const amg_dev_mat *a = plan_a(p, v);
    CMRS_CHECK(reuse_build(p->handle, stream, a, &p->pt, &p->ap_t));
    CMRS_CHECK(plan_transpose(stream, p));
    CMRS_CHECK(reuse_build(p->handle, stream, a, &p->ap_t.c, &p->ap));
    CMRS_CHECK(reuse_build(p->handle, stream, &p->r, &p->ap.c, &p->rap));
    CMRS_CHECK(same(stream, &p->ap_t.c, v->P, &sp));
    CMRS_CHECK(same(stream, &p->r, v->R, &sr));
    CMRS_CHECK(same(stream, &p->rap.c, v->Ac, &sa));
    *usable = sp && sr && sa;
    return CMRS_OK;
}

cmrs_code amg_sa_plan_create(cudaStream_t stream, const amg_sa_level *v,
                             amg_sa_plan **plan)
{
    int usable = 0;
    *plan = NULL;
    const amg_dev_mat *a = v->a;
    if (!v->P || !v->R || !v->Ac || (!a && !(v->own_a && v->a_h)))
        return CMRS_OK;
    int64_t n = a ? a->rows : v->a_h->rows;
    if (n <= 0) return CMRS_OK;
    amg_sa_plan *p = calloc(1, sizeof *p);
    CMRS_ENSURE(p, CMRS_E_NOMEM, "cannot allocate an AMG re-setup plan");
    p->own_a = v->own_a;
    p->n = n;
    cmrs_code rc = plan_build(stream, p, v, &usable);
    if (rc == CMRS_OK && usable) {
        *plan = p;
        return CMRS_OK;
    }
    amg_sa_plan_free(p);
    /* cuSPARSE refusing a step, an empty product or no room for the
     * plan's arrays means no plan, not a failed update: the level is
     * formed as setup formed it (with transient memory only). */
    if (rc != CMRS_OK) {
        cmrs_error_clear();
        (void)cudaGetLastError(); /* a failed cudaMalloc's, not left for
                                     the next launch check to report */
    }
    return CMRS_OK;
}

/* The numeric phases, queued: P = (I - D_f A) P_tent, R's gather, A P,
 * R (A P). */
static cmrs_code plan_products(cudaStream_t stream, amg_sa_plan *p,
                               const amg_dev_mat *a)
{
    amg_dev_mat *P = &p->ap_t.c;
    CMRS_CHECK(reuse_compute(p->handle, a, &p->pt, &p->ap_t));
    CMRS_CHECK(cmrs_gpu_sa_smooth_rows(stream, p->n, P->indptr_d,
                                       P->indices_d, P->values_d, p->f_d,
                                       p->agg_d));
    CMRS_CHECK(cmrs_dev_gather_values(P->values_d, p->perm_d, p->r.nnz,
                                      CMRS_PREC_DOUBLE, p->r.values_d, NULL,
                                      stream));
    CMRS_CHECK(reuse_compute(p->handle, a, P, &p->ap));
    CMRS_CHECK(reuse_compute(p->handle, &p->r, &p->ap.c, &p->rap));
    return CMRS_OK;
}

static cmrs_code copy_values(cudaStream_t stream, amg_dev_mat *dst,
                             const amg_dev_mat *src)
{
    CMRS_CUDA(cudaMemcpyAsync(dst->values_d, src->values_d,
                              (size_t)src->nnz * sizeof(double),
                              cudaMemcpyDeviceToDevice, stream));
    return CMRS_OK;
}

cmrs_code amg_sa_plan_run(cudaStream_t stream, amg_sa_plan *p,
                          const amg_sa_level *v, int *done)
{
    double w = 0;
    int ok = 0;
    *done = 0;
    const amg_dev_mat *a = plan_a(p, v);
    if (!a || (p->own_a && !v->a && !v->a_h)) return CMRS_OK; /* no A */
    if (p->own_a) CMRS_CHECK(own_values(stream, p, v));
    CMRS_CHECK(cmrs_gpu_sa_scales(stream, p->n, a->indptr_d, a->indices_d,
                                  a->values_d, v->omega, p->f_d, &w, &ok));
    if (!ok) return CMRS_OK;
    CMRS_CHECK(plan_products(stream, p, a));
    CMRS_CHECK(copy_values(stream, v->P, &p->ap_t.c));
    CMRS_CHECK(copy_values(stream, v->R, &p->r));
    CMRS_CHECK(copy_values(stream, v->Ac, &p->rap.c));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    *done = 1;
    return CMRS_OK;
}
