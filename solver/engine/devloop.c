/* The device loop's driver: state, start, graph capture, replay, status.
 * See devloop.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "devloop.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/pinned_small.h"

/* Reliable updates (--mixed values, s->true_be): the recursive residual of
 * a loop over A's float values drifts from b - A x by the rounding of A
 * times the steps taken; it is replaced by the true one (A in double)
 * after each block in which it fell below RELIABLE_DROP times the last
 * true one, keeping the Krylov direction (the "reliable updates" of
 * mixed-precision CG in QUDA, Clark et al. 2010), and when the loop stops
 * converged (then undone where the true residual misses the test, the
 * direction restarted from z, at most RELIABLE_MAX_UNDO times a solve). */
#define RELIABLE_DROP 0.1
#define RELIABLE_MAX_UNDO 8

struct devloop {
    const devloop_method *m;
    cmrs_dev_args args;
    cmrs_dstate *st_h;          /* pinned: initial state, status read */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    int have_graph, have_exec;
    int block;                  /* iterations per replay */
    double r_ref;               /* reliable updates: the last true ||r|| */
    int undone;                 /* converged stops undone this solve */
};

void cmrs_devloop_free(struct devloop *d)
{
    if (!d) return;
    if (d->have_exec) cudaGraphExecDestroy(d->exec);
    if (d->have_graph) cudaGraphDestroy(d->graph);
    cmrs_dev_free(d->args.st_d);
    cmrs_dev_free(d->args.partials_d);
    cmrs_pinned_small_free(d->st_h);
    free(d);
}

/* Blocks of the grid kernels: enough resident blocks to saturate memory
 * bandwidth (the grid-stride loops cover any n), never more than give each
 * thread DEV_MIN_PER_THREAD elements, at least one per SM (fewer where n is
 * smaller). Every block adds all partials of the previous kernel (grid
 * doubles each), so on small n a full grid reads as many partial bytes as
 * vector bytes: on the vessel 0.5M (H200, docs/BENCHMARKS.md) 4 blocks per
 * SM instead of 8 took the fused Jacobi-PCG from 29.1 to 27.3 us per
 * iteration. Fixed for a device and n: the sums do not depend on the run. */
#define DEV_MIN_PER_THREAD 4

cmrs_code cmrs_dev_grid(int64_t n, int *grid)
{
    int dev = 0, sms = 0;
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                     dev));
    const int64_t per_block = (int64_t)CMRS_DEV_THREADS * DEV_MIN_PER_THREAD;
    int64_t full = (int64_t)sms * (2048 / CMRS_DEV_THREADS);
    int64_t want = (n + per_block - 1) / per_block;
    int64_t need = (n + CMRS_DEV_THREADS - 1) / CMRS_DEV_THREADS;
    if (want < sms) want = need < sms ? need : sms;
    *grid = (int)(want < full ? (want > 0 ? want : 1) : full);
    return CMRS_OK;
}

static cmrs_code bind_args(cmrs_ksp *s, struct devloop *d)
{
    cmrs_backend *be = s->be;
    gpu_impl *g = GPU(be);
    cmrs_dev_args *a = &d->args;
    a->prec = be->prec;
    a->n = be->n;
    a->stream = g->stream;
    a->history_d = g->history_d;
    a->dinv_d = s->pc->dinv; /* Jacobi only: the kernels fuse it */
    a->x = s->x->data;
    CMRS_CHECK(cmrs_dev_grid(be->n, &a->grid));
    d->m->bind(s, a);
    return CMRS_OK;
}

/* Everything a device-loop solve needs, once per solver. */
static cmrs_code prepare(cmrs_ksp *s)
{
    if (s->dev) return CMRS_OK; /* solver.c ran the engine check */
    struct devloop *d = calloc(1, sizeof *d);
    CMRS_ENSURE(d, CMRS_E_NOMEM, "cannot allocate the device loop");
    s->dev = d;
    d->m = cmrs_devloop_method(s->o.engine, s->o.method);
    CMRS_ENSURE(d->m, CMRS_E_INTERNAL, "no %s method for engine %s",
                cmrs_method_name(s->o.method), cmrs_engine_name(s->o.engine));
    d->block = cmrs_ksp_check_every(&s->o);
    CMRS_CHECK(bind_args(s, d));
    CMRS_CUDA(cudaMalloc((void **)&d->args.st_d, sizeof(cmrs_dstate)));
    CMRS_CUDA(cudaMalloc((void **)&d->args.partials_d,
                         sizeof(double) * cmrs_dev_partials_count(&d->args)));
    CMRS_CUDA(cmrs_pinned_small_alloc((void **)&d->st_h, sizeof(cmrs_dstate)));
    return CMRS_OK;
}

/* The state of a fresh solve: stopping constants, everything else 0. */
static cmrs_code reset_state(cmrs_ksp *s, struct devloop *d)
{
    memset(d->st_h, 0, sizeof *d->st_h);
    d->st_h->rtol_b = s->o.rtol * s->bnorm;
    d->st_h->atol = s->o.atol;
    d->st_h->eps = s->be->eps;
    d->st_h->maxiter = s->o.maxiter;
    CMRS_CUDA(cudaMemcpyAsync(d->args.st_d, d->st_h, sizeof *d->st_h,
                              cudaMemcpyHostToDevice, d->args.stream));
    return CMRS_OK;
}

/* x = x0, r = b - A x, then the method's start; waits for the status. */
static cmrs_code start(cmrs_ksp *s, struct devloop *d)
{
    cmrs_vec r = {d->args.r};
    CMRS_CHECK(reset_state(s, d));
    CMRS_CHECK(cmrs_krylov_residual0(s, &r));
    CMRS_CHECK(d->m->start(s, &d->args));
    return CMRS_OK;
}

/* The first 24 bytes of the state (k, done, reason, rnorm) to st_h. */
static cmrs_code read_status(struct devloop *d)
{
    size_t bytes = offsetof(cmrs_dstate, rnorm) + sizeof(double);
    CMRS_CUDA(cudaMemcpyAsync(d->st_h, d->args.st_d, bytes,
                              cudaMemcpyDeviceToHost, d->args.stream));
    CMRS_CUDA(cudaStreamSynchronize(d->args.stream));
    return CMRS_OK;
}

/* `block` iterations captured into one graph, once per solver. The capture
 * is always ended, even when an iteration fails to enqueue. */
static cmrs_code capture(cmrs_ksp *s, struct devloop *d)
{
    cmrs_code rc = CMRS_OK;
    cudaStream_t stream = d->args.stream;
    CMRS_CUDA(cudaStreamBeginCapture(stream,
                                     cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < d->block && rc == CMRS_OK; ++i)
        rc = d->m->iterate(s, &d->args);
    if (rc == CMRS_OK && d->m->end_block) rc = d->m->end_block(s, &d->args);
    cudaError_t e = cudaStreamEndCapture(stream, &d->graph);
    if (e == cudaSuccess) d->have_graph = 1;
    CMRS_CHECK(rc);
    CMRS_CUDA(e);
    CMRS_CUDA(cudaGraphInstantiate(&d->exec, d->graph, 0));
    d->have_exec = 1;
    s->captures++;
    return CMRS_OK;
}

/* Calls the monitor for history entries from..to (relative norms), read
 * from the device: only when a monitor is set. */
static cmrs_code monitor(cmrs_ksp *s, int64_t from, int64_t to)
{
    if (!s->o.monitor || to < from) return CMRS_OK;
    gpu_impl *g = GPU(s->be);
    size_t vb = cmrs_prec_value_bytes(s->be->prec);
    char *dst = (char *)g->history_h + (size_t)from * vb;
    const char *src = (const char *)g->history_d + (size_t)from * vb;
    CMRS_CUDA(cudaMemcpyAsync(dst, src, (size_t)(to - from + 1) * vb,
                              cudaMemcpyDeviceToHost, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    for (int64_t k = from; k <= to; ++k) {
        const double v = cmrs_prec_value_at(s->be->prec, g->history_h, k);
        s->o.monitor(s->o.monitor_ctx, k, v / s->bnorm);
    }
    return CMRS_OK;
}

static int converged_stop(const cmrs_dstate *st)
{
    return st->done && (st->reason == CMRS_CONVERGED_RTOL ||
                        st->reason == CMRS_CONVERGED_ATOL);
}

/* r = b - A x with s->true_be's product (A in double; the same stream,
 * its own cuBLAS handle in host pointer mode), then z, rz, ||r|| and the
 * stop restated; a stop undone gets the direction it skipped. */
static cmrs_code replace_residual(cmrs_ksp *s, struct devloop *d)
{
    cmrs_backend *tb = s->true_be;
    /* z from D^-1 r in the restate (jacobi), r itself (none), or the
     * preconditioner object (amg, chebyshev: its dinv, if any, is its
     * smoother's, not z's) */
    cmrs_dev_args a = d->args;
    if (s->o.pc != CMRS_PC_JACOBI) a.dinv_d = NULL;
    cmrs_vec r = {a.r};
    CMRS_CHECK(tb->ops->copy(tb, s->b, &r));
    CMRS_CHECK(tb->ops->spmv(tb, -1.0, s->x, 1.0, &r));
    if (!a.dinv_d && a.z != a.r) CMRS_CHECK(cmrs_dev_precond(s, a.r, a.z));
    CMRS_CHECK(cmrs_fused_cg_restate(&a));
    CMRS_CHECK(cmrs_dev_cg_direction(&a));
    CMRS_CHECK(read_status(d));
    d->r_ref = d->st_h->rnorm;
    s->reliable++;
    return CMRS_OK;
}

/* After a block: a reliable update where RELIABLE_DROP or a converged
 * stop calls for one (CG with s->true_be only). */
static cmrs_code reliable(cmrs_ksp *s, struct devloop *d)
{
    const cmrs_dstate *st = d->st_h;
    if (!s->true_be || s->o.method != CMRS_METHOD_CG) return CMRS_OK;
    const int conv = converged_stop(st);
    if (st->done && (!conv || d->undone >= RELIABLE_MAX_UNDO)) return CMRS_OK;
    if (!conv && !(st->rnorm < RELIABLE_DROP * d->r_ref)) return CMRS_OK;
    CMRS_CHECK(replace_residual(s, d));
    if (conv && !d->st_h->done) d->undone++;
    return CMRS_OK;
}

/* Replays blocks until the device says done. The device stops at maxiter
 * itself; the host bound only catches a state that never stops. */
static cmrs_code run_blocks(cmrs_ksp *s, struct devloop *d)
{
    int64_t shown = 0, launched = 0;
    /* each stop undone by a reliable update (at most RELIABLE_MAX_UNDO)
     * leaves up to a block of no-op iterations behind it */
    int64_t bound = s->o.maxiter + (2 + RELIABLE_MAX_UNDO) * (int64_t)d->block;
    while (!d->st_h->done) {
        CMRS_ENSURE(launched <= bound, CMRS_E_INTERNAL, "device loop did "
                    "not stop after %lld iterations (maxiter %lld)",
                    (long long)launched, (long long)s->o.maxiter);
        if (!d->have_exec) CMRS_CHECK(capture(s, d));
        CMRS_CUDA(cudaGraphLaunch(d->exec, d->args.stream));
        launched += d->block;
        CMRS_CHECK(read_status(d));
        CMRS_CHECK(monitor(s, shown + 1, d->st_h->k));
        shown = d->st_h->k;
        CMRS_CHECK(reliable(s, d));
    }
    return CMRS_OK;
}

/* Device pointer mode for the whole solve, host mode restored after. */
static cmrs_code solve_in_device_mode(cmrs_ksp *s, struct devloop *d)
{
    CMRS_CHECK(start(s, d));
    CMRS_CHECK(read_status(d));
    CMRS_CHECK(monitor(s, 0, 0));
    d->r_ref = d->st_h->rnorm;
    d->undone = 0;
    s->reliable = 0;
    CMRS_CHECK(run_blocks(s, d));
    return CMRS_OK;
}

cmrs_code cmrs_devloop_solve(cmrs_ksp *s, cmrs_ksp_result *res)
{
    CMRS_CHECK(prepare(s));
    struct devloop *d = s->dev;
    cublasHandle_t h = GPU(s->be)->blas;
    CMRS_CUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    cmrs_code rc = solve_in_device_mode(s, d);
    cublasStatus_t back = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    CMRS_CHECK(rc);
    CMRS_CUBLAS(back);
    res->reason = (cmrs_ksp_reason)d->st_h->reason;
    res->iterations = d->st_h->k;
    res->res_norm = d->st_h->rnorm;
    return CMRS_OK;
}
