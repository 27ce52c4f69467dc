/* The distributed back end's setup and teardown (dist.h): partition, halo,
 * one inner back end per part, the exchange, the staging buffers. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/thread.h"
#include "base/timer.h"
#include "dist_impl.h"

void cmrs_dist_destroy(cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    if (!d) return;
    cmrs_exchange_destroy(d->ex);
    for (int p = 0; d->inner && p < d->pt.nparts; ++p) {
        if (!d->inner[p]) continue;
        cmrs_backend *in = dist_inner(d, p);
        if (d->local_op) in->ops->op_destroy(in, d->local_op[p]);
        if (!d->borrowed) cmrs_backend_destroy(in);
    }
    dist_home(d);
    if (d->user_free && !d->borrowed) d->user_free(d->user);
    free(d->local_op);
    cmrs_halo_free(&d->halo);
    cmrs_partition_free(&d->pt);
    CMRS_FREE_ALL(d->inner, d->partial, d->stage, d->history, d);
    be->impl = NULL;
}

static cmrs_code cpu_inner(void *user, const cmrs_csr *A_local, int p,
                           cmrs_backend **out)
{
    (void)user, (void)p;
    return cmrs_backend_cpu_create(A_local, CMRS_PREC_DOUBLE, out);
}

static cmrs_code host_exchange(void *user, const cmrs_halo *h,
                               cmrs_backend *const *inner,
                               cmrs_exchange **out)
{
    (void)user, (void)inner;
    return cmrs_exchange_host_create(h, out);
}

cmrs_code cmrs_dist_all_agree(const dist_impl *d, int yes, int *all)
{
    double *miss = d->partial, missing = 0;
    memset(miss, 0, (size_t)d->pt.nparts * sizeof *miss);
    FOR_MY_PARTS(d, p) miss[p] = yes ? 0.0 : 1.0;
    *all = 0;
    CMRS_CHECK(d->ex->ops->sum(d->ex, miss, 1, &missing));
    *all = missing == 0;
    return CMRS_OK;
}

/* One part's work for cmrs_dist_each_part, in its thread. */
typedef struct part_job {
    const dist_impl *d;
    cmrs_code (*fn)(void *ctx, int p);
    void *ctx;
    int p;
    cmrs_thread_job t;
} part_job;

static void *run_part(void *arg)
{
    part_job *j = arg;
    const dist_impl *d = j->d;
    if (d->enter) d->enter(d->user, j->p); /* this thread's device */
    cmrs_thread_job_end(&j->t, j->fn(j->ctx, j->p));
    return NULL;
}

/* At most this many parts run at once (GPUs of a node; simulated CPU
 * parts beyond it one after the other, in this thread). */
#define PART_THREADS 16

cmrs_code cmrs_dist_each_part(const dist_impl *d,
                              cmrs_code (*fn)(void *ctx, int p), void *ctx)
{
    int P = d->pt.nparts, local = 0;
    part_job *job = calloc(P > 0 ? (size_t)P : 1, sizeof *job);
    CMRS_ENSURE(job, CMRS_E_NOMEM, "cannot allocate %d parts' jobs", P);
    FOR_MY_PARTS(d, p) ++local;
    FOR_MY_PARTS(d, p) {
        job[p] = (part_job){.d = d, .fn = fn, .ctx = ctx, .p = p};
        job[p].t.started = local > 1 && local <= PART_THREADS &&
                           cmrs_thread_start(&job[p].t.thread, run_part,
                                             &job[p]);
    }
    FOR_MY_PARTS(d, p) {
        if (job[p].t.started)
            pthread_join(job[p].t.thread, NULL);
        else
            run_part(&job[p]);
    }
    cmrs_code rc = CMRS_OK;
    FOR_MY_PARTS(d, p)
        if (rc == CMRS_OK) rc = cmrs_thread_job_raise(&job[p].t);
    free(job);
    dist_home(d);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* What a part's setup step (cmrs_dist_each_part: the parts at once)
 * reads: the back end, and the placement's hooks (make_inner) or the
 * operators' format (sibling_part). */
typedef struct part_ctx {
    dist_impl *d;
    const cmrs_dist_params *prm;
    const char *format;
} part_ctx;

/* Part p's inner back end (GPU parts upload and convert at the same
 * time; one after the other cost 0.23 s of the 5M vessel's 2-GPU
 * setup). */
static cmrs_code make_inner(void *ctx, int p)
{
    const part_ctx *c = ctx;
    dist_impl *d = c->d;
    return (c->prm->inner_create ? c->prm->inner_create : cpu_inner)(
        d->user, &d->halo.part[p].A, p, &d->inner[p]);
}

/* The host buffers the ops reuse (a back end and its siblings): the
 * parts' partial sums and a staging buffer of the longest local length. */
static cmrs_code part_buffers(dist_impl *d)
{
    int64_t longest = 1;
    FOR_MY_PARTS(d, p)
        if (dist_local_len(d, p) > longest) longest = dist_local_len(d, p);
    d->partial = calloc((size_t)d->pt.nparts * CMRS_ALLREDUCE_MAX,
                        sizeof(double));
    d->stage = cmrs_malloc_array((size_t)longest, sizeof *d->stage);
    CMRS_ENSURE(d->partial && d->stage, CMRS_E_NOMEM, "cannot allocate the "
                "parts' sums and staging buffer");
    return CMRS_OK;
}

/* Inner back ends and the host buffers the ops reuse. */
static cmrs_code make_parts(dist_impl *d, const cmrs_dist_params *prm,
                            double *spmv_bytes)
{
    d->inner = calloc((size_t)d->pt.nparts, sizeof *d->inner);
    CMRS_ENSURE(d->inner, CMRS_E_NOMEM, "cannot allocate %d parts",
                d->pt.nparts);
    CMRS_CHECK(part_buffers(d));
    part_ctx ctx = {.d = d, .prm = prm};
    CMRS_CHECK(cmrs_dist_each_part(d, make_inner, &ctx));
    FOR_MY_PARTS(d, p) *spmv_bytes += d->inner[p]->spmv_bytes;
    return CMRS_OK;
}

/* Seconds since *since, which moves to now. */
static double lap(double *since)
{
    double now = cmrs_wtime(), dt = now - *since;
    *since = now;
    return dt;
}

static cmrs_code build(const cmrs_csr *A, const cmrs_dist_params *prm,
                       cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    cmrs_dist_setup_times *t = &d->times;
    double t0 = cmrs_wtime();
    if (prm->rows_halo) {
        CMRS_CHECK(prm->rows_halo(d->user, A, prm->row0, &d->pt, &d->halo));
        CMRS_ENSURE(d->pt.nparts == prm->nparts, CMRS_E_INTERNAL, "rows "
                    "mode: %d parts for %d ranks", d->pt.nparts, prm->nparts);
        be->n_total = d->pt.n;
        be->row0 = prm->row0;
    } else {
        CMRS_CHECK(cmrs_partition_build(A, prm->nparts, prm->method,
                                        &d->pt));
        t->partition = lap(&t0);
        CMRS_CHECK(cmrs_halo_build_for(A, &d->pt, d->rank, d->nranks,
                                       &d->halo));
    }
    if (prm->sort_rows) CMRS_CHECK(cmrs_halo_sort_rows(&d->halo));
    t->halo = lap(&t0);
    CMRS_CHECK(make_parts(d, prm, &be->spmv_bytes));
    t->parts = lap(&t0);
    CMRS_CHECK((prm->exchange_create ? prm->exchange_create
                : host_exchange)(d->user, &d->halo, d->inner, &d->ex));
    t->exchange = lap(&t0);
    const cmrs_backend *in = d->inner[dist_first_mine(d)];
    snprintf(be->device, sizeof be->device, "%.64s x%d parts (%.16s exchange)",
             in->device, prm->nparts, d->ex->ops->name);
    snprintf(be->format, sizeof be->format, "%s", in->format);
    be->prec = in->prec;
    be->eps = in->eps;
    return CMRS_OK;
}

cmrs_code cmrs_backend_dist_create(const cmrs_csr *A,
                                   const cmrs_dist_params *prm,
                                   cmrs_backend **out)
{
    *out = NULL;
    cmrs_backend *be = calloc(1, sizeof *be);
    dist_impl *d = calloc(1, sizeof *d);
    if (!be || !d) {
        free(be);
        free(d);
        if (prm->user_free) prm->user_free(prm->user);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the distributed back end");
    }
    /* Owned from here: freed with the back end, also after a failure. */
    d->rank = prm->rank;
    d->nranks = prm->nranks;
    d->enter = prm->enter;
    d->dots = prm->dots;
    d->cg_loop = prm->cg_loop;
    d->user = prm->user;
    d->user_free = prm->user_free;
    d->sort_rows = prm->sort_rows;
    *be = (cmrs_backend){.ops = prm->cg_loop ? &cmrs_dist_loop_ops
                                             : &cmrs_dist_ops,
                         .impl = d, .n = A->rows,
                         .nnz = A->nnz, .prec = CMRS_PREC_DOUBLE,
                         .eps = DBL_EPSILON};
    cmrs_code rc = build(A, prm, be);
    if (rc != CMRS_OK) {
        cmrs_backend_destroy(be);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    *out = be;
    return CMRS_OK;
}

const cmrs_partition *cmrs_backend_dist_partition(const cmrs_backend *be)
{
    return dist_is(be) ? &DIST(be)->pt : NULL;
}

const cmrs_dist_setup_times *cmrs_backend_dist_times(const cmrs_backend *be)
{
    return dist_is(be) ? &DIST(be)->times : NULL;
}

/* The sibling's part p: M's local matrix as an operator on be's inner
 * back end p. */
static cmrs_code sibling_part(void *ctx, int p)
{
    const part_ctx *c = ctx;
    dist_impl *d = c->d;
    cmrs_backend *in = d->inner[p];
    return in->ops->op_create(in, &d->halo.part[p].A, c->format,
                              &d->local_op[p]);
}

/* The sibling's partition, halo, operators, exchange and buffers. */
static cmrs_code sibling_build(const dist_impl *d0, const cmrs_csr *M,
                               const char *format, cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    int P = d0->pt.nparts;
    CMRS_ENSURE(d0->ex->ops->relist, CMRS_E_USAGE, "the %s exchange cannot "
                "carry a second matrix's halo", d0->ex->ops->name);
    CMRS_CHECK(cmrs_partition_build(M, P, CMRS_PART_BLOCK, &d->pt));
    CMRS_CHECK(cmrs_halo_build_for(M, &d->pt, d->rank, d->nranks,
                                   &d->halo));
    if (d->sort_rows) CMRS_CHECK(cmrs_halo_sort_rows(&d->halo));
    d->inner = calloc((size_t)P, sizeof *d->inner);
    d->local_op = calloc((size_t)P, sizeof *d->local_op);
    CMRS_ENSURE(d->inner && d->local_op, CMRS_E_NOMEM, "cannot allocate %d "
                "parts", P);
    CMRS_CHECK(part_buffers(d));
    FOR_MY_PARTS(d, p) d->inner[p] = d0->inner[p];
    part_ctx ctx = {.d = d, .format = format};
    CMRS_CHECK(cmrs_dist_each_part(d, sibling_part, &ctx));
    FOR_MY_PARTS(d, p) { /* the operators hold them; no new values come */
        cmrs_csr_free(&d->halo.part[p].A);
        free(d->halo.part[p].value_of);
        d->halo.part[p].value_of = NULL;
    }
    CMRS_CHECK(d0->ex->ops->relist(d0->ex, &d->halo, &d->ex));
    return CMRS_OK;
}

cmrs_code cmrs_dist_sibling_create(const cmrs_backend *be, const cmrs_csr *M,
                                   const char *format, cmrs_backend **out)
{
    const dist_impl *d0 = DIST(be);
    *out = NULL;
    CMRS_ENSURE(dist_is(be) && !d0->pt.by_rows, CMRS_E_INTERNAL, "a "
                "sibling needs a distributed back end over the whole A");
    cmrs_backend *s = calloc(1, sizeof *s);
    dist_impl *d = calloc(1, sizeof *d);
    CMRS_CHECK(cmrs_alloc_both(s, d, "a sibling distributed back end"));
    *d = (dist_impl){.rank = d0->rank, .nranks = d0->nranks,
                     .enter = d0->enter, .dots = d0->dots, .user = d0->user,
                     .sort_rows = d0->sort_rows, .borrowed = 1};
    *s = (cmrs_backend){.ops = &cmrs_dist_ops, .impl = d, .n = M->rows,
                        .nnz = M->nnz, .prec = be->prec, .eps = be->eps};
    snprintf(s->device, sizeof s->device, "%s", be->device);
    snprintf(s->format, sizeof s->format, "%s", be->format);
    cmrs_code rc = sibling_build(d0, M, format, s);
    if (rc != CMRS_OK) {
        cmrs_backend_destroy(s);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    *out = s;
    return CMRS_OK;
}
