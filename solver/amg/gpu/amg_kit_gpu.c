/* The GPU's AMG level builder (amg_builder.h, cmrs_amg_builder_gpu at
 * the end): adapters from the builder ops to amg_dense_gpu.c,
 * amg_handshake_gpu.cu, amg_mis2_gpu.cu and amg_sa_gpu.c on the back end's
 * stream (the operator ops are the kit's, backend_gpu_kit.c). Level
 * matrices formed on the device stay there (cmrs_lmat.dev, an amg_dev_mat
 * with sorted rows): the next level's aggregation, its products, its D^-1
 * and the level operators read them with no host copy. */
#include <stdlib.h>
#include <string.h>

#include "amg_dense_gpu.h"
#include "amg_handshake_gpu.h"
#include "amg_mis2_gpu.h"
#include "amg_pool_gpu.h"
#include "amg_sa_gpu.h"
#include "amg_sa_plan_gpu.h"
#include "base/gpu/dev_alloc.h"
#include "solver/amg/amg_prof.h"
#include "solver/backend/gpu/backend_gpu.h"

cmrs_code cmrs_gpu_kit_dense_inverse(cmrs_backend *be, const cmrs_csr *A,
                                     double *inv, int *spd)
{
    CMRS_CHECK(cmrs_gpu_dense_inverse(GPU(be)->stream, A, inv, spd));
    return CMRS_OK;
}

/* A device result as a level matrix: kept on the device when its rows are
 * sorted (the next steps search them), else downloaded and sorted on the
 * host (cuSPARSE does not promise sorted output). m is left empty. */
static cmrs_code adopt(cudaStream_t st, amg_dev_mat *m, cmrs_lmat *M)
{
    int sorted = 0;
    memset(M, 0, sizeof *M);
    M->rows = m->rows;
    M->cols = m->cols;
    M->nnz = m->nnz;
    CMRS_CHECK(cmrs_gpu_csr_rows_sorted(st, m->rows, m->indptr_d,
                                        m->indices_d, &sorted));
    if (!sorted) {
        CMRS_CHECK(amg_dev_download(st, m, &M->h));
        amg_dev_free(m);
        CMRS_CHECK(cmrs_csr_sort_sum_duplicates(&M->h));
        return CMRS_OK;
    }
    amg_dev_mat *own = malloc(sizeof *own);
    CMRS_ENSURE(own, CMRS_E_NOMEM, "cannot allocate a level matrix");
    *own = *m;
    memset(m, 0, sizeof *m);
    M->dev = own;
    return CMRS_OK;
}

/* The smoothed level on the device from A's device copy (or its host copy,
 * uploaded), results adopted into P, R, Ac. */
static cmrs_code sa_lmat(cmrs_backend *be, cmrs_lmat *A,
                         const cmrs_gpu_sa_args *g, cmrs_lmat *P,
                         cmrs_lmat *R, cmrs_lmat *Ac, int *done)
{
    cudaStream_t st = GPU(be)->stream;
    cmrs_code rc = CMRS_OK;
    amg_dev_mat p, r, ac;
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    CMRS_CHECK(cmrs_gpu_sa_run(st, A->dev ? NULL : &A->h, A->dev, g, &p, &r,
                               &ac, done));
    if (!*done) return CMRS_OK;
    double t = 0;
    amg_prof_begin(&t);
    CMRS_TRY(adopt(st, &p, P));
    CMRS_TRY(adopt(st, &r, R));
    CMRS_TRY(adopt(st, &ac, Ac));
    CMRS_TRY(amg_prof_step(st, &t, "sa P, R, A_c adopted"));
done:
    amg_dev_free(&p);
    amg_dev_free(&r);
    amg_dev_free(&ac);
    if (rc != CMRS_OK) {
        cmrs_lmat_free(be, P);
        cmrs_lmat_free(be, R);
        cmrs_lmat_free(be, Ac);
        *done = 0;
    }
    return rc;
}

/* MIS-2 aggregates alone, from A's device copy or its host copy. */
static cmrs_code mis2_only(cmrs_backend *be, cmrs_lmat *A,
                           const cmrs_amg_params *p, int32_t *agg,
                           int64_t *naggs)
{
    cudaStream_t st = GPU(be)->stream;
    if (A->dev)
        CMRS_CHECK(cmrs_gpu_mis2_down(st, A->dev, p->theta, agg, naggs));
    else
        CMRS_CHECK(cmrs_gpu_mis2(st, &A->h, p, agg, naggs));
    return CMRS_OK;
}

/* A method's aggregation on the device; P, R and Ac as the builder's
 * aggregate op says (amg_builder.h). */
typedef cmrs_code (*dev_aggregate)(cmrs_backend *be, cmrs_lmat *A,
                                   const cmrs_amg_params *p, int32_t *agg,
                                   int64_t *naggs, cmrs_lmat *P, cmrs_lmat *R,
                                   cmrs_lmat *Ac, void **agg_dev);

/* MIS-2 with the smoothed P forms P, R and A_c from the same copy of A
 * (and keeps them there, with the aggregates where the caller takes them:
 * their download beside the products held up the main thread's calls, 5
 * ms of the 5M vessel's level 0, CUPTI trace, H100); with the tentative
 * P, the aggregates alone. */
static cmrs_code mis2_dev(cmrs_backend *be, cmrs_lmat *A,
                          const cmrs_amg_params *p, int32_t *agg,
                          int64_t *naggs, cmrs_lmat *P, cmrs_lmat *R,
                          cmrs_lmat *Ac, void **agg_dev)
{
    if (p->smooth_p && A->rows > 0 && A->nnz > 0) {
        int32_t *kept_d = NULL;
        cmrs_gpu_sa_args g = {1, p->theta, p->p_omega, agg, naggs,
                              agg_dev ? &kept_d : NULL};
        int done = 0;
        cmrs_code rc = sa_lmat(be, A, &g, P, R, Ac, &done);
        if (rc != CMRS_OK || !done) { /* then agg was written */
            cmrs_gpu_free(kept_d);
            kept_d = NULL;
        }
        if (agg_dev) *agg_dev = kept_d;
        return rc;
    }
    CMRS_CHECK(mis2_only(be, A, p, agg, naggs));
    return CMRS_OK;
}

/* Handshake from A's host copy; with the tentative P it forms Q^T A Q
 * (A_c) on the device too. */
static cmrs_code handshake_dev(cmrs_backend *be, cmrs_lmat *A,
                               const cmrs_amg_params *p, int32_t *agg,
                               int64_t *naggs, cmrs_lmat *P, cmrs_lmat *R,
                               cmrs_lmat *Ac, void **agg_dev)
{
    (void)agg_dev; /* set NULL by the caller */
    cmrs_csr C = {0};
    (void)P, (void)R;
    CMRS_CHECK(cmrs_lmat_host(be, A));
    CMRS_CHECK(cmrs_gpu_handshake(GPU(be)->stream, &A->h, p, agg, naggs,
                                  p->smooth_p ? NULL : &C));
    if (C.indptr) cmrs_lmat_wrap(Ac, &C);
    return CMRS_OK;
}

/* The methods the GPU aggregates on the device, by the registry's id
 * (amg_host.h); the sequential ones (pairwise, greedy) have no entry and
 * stay on the host. */
static const dev_aggregate k_dev_aggregate[CMRS_AMG_AGG_COUNT] = {
    [CMRS_AMG_AGG_HANDSHAKE] = handshake_dev,
    [CMRS_AMG_AGG_MIS2] = mis2_dev,
};

cmrs_code cmrs_gpu_kit_aggregate(cmrs_backend *be,
                                 const cmrs_amg_agg_method *m, cmrs_lmat *A,
                                 const cmrs_amg_params *p, int32_t *agg,
                                 int64_t *naggs, cmrs_lmat *P, cmrs_lmat *R,
                                 cmrs_lmat *Ac, void **agg_dev)
{
    *naggs = 0;
    if (agg_dev) *agg_dev = NULL;
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "amg: cannot aggregate a "
                "non-square matrix (%lld x %lld)", (long long)A->rows,
                (long long)A->cols);
    dev_aggregate on_device = k_dev_aggregate[m->id];
    if (on_device)
        CMRS_CHECK(on_device(be, A, p, agg, naggs, P, R, Ac, agg_dev));
    else
        CMRS_CHECK(cmrs_amg_builder_cpu.aggregate(be, m, A, p, agg, naggs, P,
                                                  R, Ac, agg_dev));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_agg_fetch(cmrs_backend *be, const void *agg_dev,
                                 int32_t *agg, int64_t n)
{
    CMRS_CHECK(cmrs_gpu_agg_download(GPU(be)->stream, agg_dev, agg, n));
    return CMRS_OK;
}

void cmrs_gpu_kit_agg_dev_free(cmrs_backend *be, void *agg_dev)
{
    (void)be;
    cmrs_gpu_free(agg_dev);
}

/* Smoothed aggregation's P, R and A_c formed (and kept) on the device. */
cmrs_code cmrs_gpu_kit_sa_level(cmrs_backend *be, cmrs_lmat *A,
                                const int32_t *agg, int64_t naggs,
                                const cmrs_amg_params *p, cmrs_lmat *P,
                                cmrs_lmat *R, cmrs_lmat *Ac, int *done)
{
    *done = 0;
    if (A->rows == 0 || A->nnz == 0 || naggs == 0) return CMRS_OK;
    CMRS_CHECK(cmrs_amg_check_aggregates(A->rows, A->cols, agg, naggs));
    cmrs_gpu_sa_args g = {0, 0.0, p->p_omega, (int32_t *)agg, &naggs, NULL};
    CMRS_CHECK(sa_lmat(be, A, &g, P, R, Ac, done));
    return CMRS_OK;
}

/* The re-setup through the level's reuse plan (made on the first call):
 * only where setup kept P, R and A_c on the device (sorted products) and
 * A is there too (or, level 0, on the host). */
cmrs_code cmrs_gpu_kit_sa_again(cmrs_backend *be, void **state,
                                const cmrs_lmat *A, int own_a,
                                const int32_t *agg, const void *agg_dev,
                                int64_t naggs,
                                const cmrs_amg_params *p, cmrs_lmat *P,
                                cmrs_lmat *R, cmrs_lmat *Ac, int *done)
{
    cudaStream_t st = GPU(be)->stream;
    *done = 0;
    if (!P->dev || !R->dev || !Ac->dev || (!A->dev && !own_a) ||
        (!A->dev && !A->h.indptr) || naggs <= 0)
        return CMRS_OK;
    amg_sa_level v = {A->dev, &A->h, own_a, agg, agg_dev, naggs, p->p_omega,
                      P->dev, R->dev, Ac->dev};
    if (!*state) {
        amg_sa_plan *plan = NULL;
        CMRS_CHECK(amg_sa_plan_create(st, &v, &plan));
        if (!plan) return CMRS_OK;
        *state = plan;
    }
    CMRS_CHECK(amg_sa_plan_run(st, *state, &v, done));
    return CMRS_OK;
}

void cmrs_gpu_kit_sa_state_free(cmrs_backend *be, void *state)
{
    (void)be;
    amg_sa_plan_free(state);
}

/* Same pattern where both have a copy on the same side (the device's
 * first); a device copy against a host one counts as different (rare:
 * the level's operators are then rebuilt). */
cmrs_code cmrs_gpu_kit_lmat_same(cmrs_backend *be, const cmrs_lmat *a,
                                 const cmrs_lmat *b, int *same)
{
    *same = 0;
    if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz)
        return CMRS_OK;
    if (a->dev && b->dev) {
        const amg_dev_mat *x = a->dev, *y = b->dev;
        CMRS_CHECK(cmrs_gpu_csr_same_pattern(GPU(be)->stream, x->rows,
                                             x->nnz, x->indptr_d,
                                             x->indices_d, y->indptr_d,
                                             y->indices_d, same));
        return CMRS_OK;
    }
    if (!a->h.indptr || !b->h.indptr) return CMRS_OK;
    *same = memcmp(a->h.indptr, b->h.indptr,
                   (size_t)(a->rows + 1) * sizeof *a->h.indptr) == 0 &&
            memcmp(a->h.indices, b->h.indices,
                   (size_t)a->nnz * sizeof *a->h.indices) == 0;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_lmat_download(cmrs_backend *be, cmrs_lmat *M)
{
    CMRS_CHECK(amg_dev_download(GPU(be)->stream, M->dev, &M->h));
    return CMRS_OK;
}

void cmrs_gpu_kit_lmat_free_dev(cmrs_backend *be, void *dev)
{
    (void)be;
    amg_dev_free(dev);
    free(dev);
}

cmrs_code cmrs_gpu_kit_lmat_dinv(cmrs_backend *be, const cmrs_lmat *M,
                                 void **dinv, int *ok)
{
    const amg_dev_mat *a = M->dev;
    *ok = 0;
    if (!*dinv) CMRS_CHECK(be->ops->arr_create(be, M->rows, dinv));
    CMRS_CHECK(cmrs_gpu_csr_inverse_diagonal(GPU(be)->stream, a->rows,
                                             a->indptr_d, a->indices_d,
                                             a->values_d, IS_SINGLE(be),
                                             *dinv, ok));
    return CMRS_OK;
}

/* Rows r0 .. r1 of M's device copy as S (arrays of its own, row pointers
 * rebased) and T = S^T, device copies only: a part's share of a level's P
 * and R for the distributed AMG, where the host once downloaded all of P
 * and cut and transposed its rows (~2 s at 50M rows). *done = 0 where M
 * has no device copy or the slice no entries. */
cmrs_code cmrs_gpu_kit_lmat_rows(cmrs_backend *be, const cmrs_lmat *M,
                                 int64_t r0, int64_t r1, cmrs_lmat *S,
                                 cmrs_lmat *T, int *done)
{
    const amg_dev_mat *m = M->dev;
    cudaStream_t st = GPU(be)->stream;
    amg_dev_mat *s = NULL, *t = NULL;
    cusparseHandle_t h = NULL;
    int32_t ends[2] = {0, 0};
    cmrs_code rc = CMRS_OK;
    *done = 0;
    memset(S, 0, sizeof *S);
    memset(T, 0, sizeof *T);
    if (!m || r0 < 0 || r1 > m->rows || r1 <= r0) return CMRS_OK;
    CMRS_CUDA(cudaMemcpyAsync(&ends[0], m->indptr_d + r0, sizeof(int32_t),
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaMemcpyAsync(&ends[1], m->indptr_d + r1, sizeof(int32_t),
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaStreamSynchronize(st));
    int64_t rows = r1 - r0, nnz = (int64_t)ends[1] - ends[0];
    if (nnz <= 0) return CMRS_OK;
    s = calloc(1, sizeof *s);
    t = calloc(1, sizeof *t);
    if (!s || !t) CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate a slice");
    CMRS_TRY(amg_dev_alloc(s, rows, m->cols, nnz));
    CMRS_TRY(cmrs_gpu_rebase_indptr(st, rows, m->indptr_d + r0,
                                    s->indptr_d));
    CMRS_CUDA_TRY(cudaMemcpyAsync(s->indices_d, m->indices_d + ends[0],
                                  (size_t)nnz * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, st));
    CMRS_CUDA_TRY(cudaMemcpyAsync(s->values_d, m->values_d + ends[0],
                                  (size_t)nnz * sizeof(double),
                                  cudaMemcpyDeviceToDevice, st));
    CMRS_TRY(amg_dev_describe(s));
    CMRS_CUSPARSE_TRY(cusparseCreate(&h));
    CMRS_CUSPARSE_TRY(cusparseSetStream(h, st));
    CMRS_TRY(amg_dev_transpose(h, st, s, t));
    CMRS_CUDA_TRY(cudaStreamSynchronize(st));
    *S = (cmrs_lmat){.rows = rows, .cols = m->cols, .nnz = nnz, .dev = s};
    *T = (cmrs_lmat){.rows = m->cols, .cols = rows, .nnz = nnz, .dev = t};
    s = t = NULL;
    *done = 1;
done:
    /* after a failure queued copies may still read or write s and t */
    if (rc != CMRS_OK) cudaStreamSynchronize(st);
    if (h) cusparseDestroy(h);
    if (s) cmrs_gpu_kit_lmat_free_dev(be, s);
    if (t) cmrs_gpu_kit_lmat_free_dev(be, t);
    amg_pool_trim(st); /* the transpose's buffer: not held for the solve */
    return rc;
}

/* The fine level's device copy from the back end's format: the CSR-order
 * cmrs layout gives its arrays back on the device, so the setup does not
 * upload A a second time (0.05 s at 5M rows). Other formats (and single
 * precision, unless the back end is a twin whose parent holds A in
 * double: then the parent's): *ok = 0, the level is uploaded from the
 * host copy. */
static cmrs_spmv *fine_source(cmrs_backend *be)
{
    const gpu_impl *g = GPU(be);
    if (be->prec == CMRS_PREC_DOUBLE) return g->spmv;
    return g->parent && g->parent->prec == CMRS_PREC_DOUBLE
               ? GPU(g->parent)->spmv : NULL;
}

/* A copy kept from an earlier call (the AMG re-setup plan reads it):
 * the format's current values into the same arrays, so that whatever
 * holds them stays valid. A failure drops the copy. */
static cmrs_code own_refill(cmrs_backend *be, cmrs_lmat *M, int *ok)
{
    amg_dev_mat *m = M->dev;
    cmrs_code rc = cmrs_spmv_csr_get_d(fine_source(be), m->indptr_d,
                                       m->indices_d, m->values_d);
    if (rc == CMRS_E_USAGE) {
        cmrs_error_clear();
        cmrs_gpu_kit_lmat_free_dev(be, m);
        M->dev = NULL;
        return CMRS_OK;
    }
    CMRS_CHECK(rc);
    CMRS_CUDA(cudaStreamSynchronize(GPU(be)->stream));
    *ok = 1;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_lmat_own(cmrs_backend *be, cmrs_lmat *M, int *ok)
{
    cmrs_code rc = CMRS_OK;
    cmrs_spmv *s = fine_source(be);
    amg_dev_mat *m = NULL;
    *ok = 0;
    if (M->dev) return own_refill(be, M, ok);
    if (!s || !s->ops->csr_get_d || M->nnz == 0 ||
        amg_dev_check_int32(M->rows, M->cols, M->nnz, "A") != CMRS_OK) {
        cmrs_error_clear();
        return CMRS_OK;
    }
    m = calloc(1, sizeof *m);
    CMRS_ENSURE(m, CMRS_E_NOMEM, "cannot allocate a level matrix");
    CMRS_TRY(amg_dev_alloc(m, M->rows, M->cols, M->nnz));
    rc = cmrs_spmv_csr_get_d(s, m->indptr_d, m->indices_d, m->values_d);
    if (rc == CMRS_E_USAGE) { /* this instance cannot: upload instead */
        cmrs_error_clear();
        rc = CMRS_OK;
        goto done;
    }
    CMRS_TRY(rc);
    CMRS_CUDA_TRY(cudaStreamSynchronize(GPU(be)->stream));
    CMRS_TRY(amg_dev_describe(m));
    M->dev = m;
    m = NULL;
    *ok = 1;
done:
    if (m) {
        amg_dev_free(m);
        free(m);
    }
    return rc;
}

static void coarse_prepare(cmrs_backend *be)
{
    cmrs_gpu_spgemm_warm_start(GPU(be));
}

static void scratch_hold(cmrs_backend *be, int on)
{
    /* the warm-up's scratch freed before the last trim (long done by
     * then: it ran beside level 0's aggregation) */
    if (!on) cmrs_gpu_spgemm_warm_join(GPU(be));
    amg_pool_hold(on, GPU(be)->stream);
}

static void alloc_scope(cmrs_backend *be, int on)
{
    (void)be;
    cmrs_dev_pool_scope(on); /* dev_alloc.h */
}

const cmrs_amg_builder_ops cmrs_amg_builder_gpu = {
    .name = "gpu",
    .aggregate = cmrs_gpu_kit_aggregate,
    .agg_fetch = cmrs_gpu_kit_agg_fetch,
    .agg_dev_free = cmrs_gpu_kit_agg_dev_free,
    .galerkin = cmrs_gpu_kit_galerkin,
    .dense_inverse = cmrs_gpu_kit_dense_inverse,
    .sa_level = cmrs_gpu_kit_sa_level,
    .lmat_download = cmrs_gpu_kit_lmat_download,
    .lmat_free_dev = cmrs_gpu_kit_lmat_free_dev,
    .lmat_own = cmrs_gpu_kit_lmat_own,
    .op_create_lmat = cmrs_gpu_kit_op_create_lmat,
    .lmat_dinv = cmrs_gpu_kit_lmat_dinv,
    .lmat_rows = cmrs_gpu_kit_lmat_rows,
    .sa_again = cmrs_gpu_kit_sa_again,
    .sa_state_free = cmrs_gpu_kit_sa_state_free,
    .lmat_same = cmrs_gpu_kit_lmat_same,
    .op_update = cmrs_gpu_kit_op_update,
    .coarse_update = cmrs_gpu_kit_coarse_update,
    .coarse_create = cmrs_gpu_kit_coarse_create,
    .coarse_prepare = coarse_prepare,
    .scratch_hold = scratch_hold,
    .alloc_scope = alloc_scope,
};
