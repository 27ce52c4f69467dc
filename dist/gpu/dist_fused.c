/* The fused engine's CG over GPU parts (dist_fused.h). Each part runs the
 * one-GPU kernels (solver/engine/fused_cg.cu) on its owned rows and its
 * own stream; an iteration is, on every part,
 *   the halo of p      exchange post: a gather, then grouped NCCL
 *                      send/recv into the ghost tail (the first
 *                      iteration only, where the exchange merges: below)
 *   q = A p + p'q      the format's apply_dot (else the SpMV and pq)
 *   sum_pq             one block: the part's p'q into glob_d[0]
 *   all-reduce         glob_d[0] summed over the parts, on the devices
 *   r                  alpha from it; z, the r'z and r'r partials
 *                      (another preconditioner: r only, then its apply
 *                      over all parts, z = M^-1 r, and rz: the partials)
 *   sum_rz, all-reduce glob_d[1..2]; where the exchange has
 *                      post_allreduce_d, z's halo in the same group
 *   xp                 beta, x, p, the commit of the part's state; with
 *                      z's ghosts, p's ghost tail as its owners form it
 *                      (p = z + beta p: the same bits), so the next
 *                      iteration's SpMV needs no halo of p: the parts
 *                      meet twice an iteration, not three times
 * so no iteration waits on the host. Every part reads the same sums, so
 * every part's state takes the same decisions; the host reads the first
 * part's status after each block of iterations (a thread per part: each
 * its own part's). Under MPI (a part per
 * rank) the same code runs the rank's part, the all-reduces and the halo
 * going between the ranks' GPUs. The iterations are launched, not
 * captured in a CUDA graph (the host queues a block while the GPUs run
 * the previous one); with Jacobi or none and several parts in the
 * process, by a thread per part (dist_fused_threads.c), else by this
 * thread, every step on every part in turn. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/gpu/cuda_check.h"
#include "solver/backend/gpu/backend_gpu.h"
#include "solver/engine/dev_args.h"
#include "dist_fused_impl.h"

static void free_part(cmrs_dev_args *a)
{
    cudaFree(a->st_d);
    cudaFree(a->partials_d);
    cudaFree(a->glob_d);
}

void cmrs_dist_fused_free(cmrs_dist_fused *f)
{
    if (!f) return;
    for (int p = 0; f->arg && f->device && p < f->nparts; ++p)
        if (f->device[p] >= 0 && cudaSetDevice(f->device[p]) == cudaSuccess)
            free_part(&f->arg[p]);
    cudaFreeHost(f->st_h);
    free(f->arg);
    free(f->device);
    free(f->glob);
    free(f->z);
    free(f);
}

static atomic_long g_merged_solves;

long cmrs_dist_fused_merged_solves(void)
{
    return atomic_load(&g_merged_solves);
}

/* Whether z's halo goes with the r'z sum (CMRS_DIST_MERGED_HALO=0: p's
 * halo before every SpMV instead, for comparison). */
static int merge_wanted(void)
{
    const char *env = getenv("CMRS_DIST_MERGED_HALO");
    return !env || strcmp(env, "0") != 0;
}

/* f->merged, the same on every part: under mpirun each rank reads its
 * own environment, and a rank sending p's halo while another sends z's
 * would pair sends of the same sizes with the wrong receives (wrong
 * ghosts, no error); so merged only where every part's process wants it
 * (once, when the loop is made for a back end). */
static cmrs_code agree_merged(cmrs_dist_fused *f, const dist_impl *d)
{
    const int here = d->ex->ops->post_allreduce_d != NULL && merge_wanted();
    CMRS_CHECK(cmrs_dist_all_agree(d, here, &f->merged));
    return CMRS_OK;
}

/* Part p's sizes, stream and buffers (its device current). */
static cmrs_code make_part(const cmrs_backend *be, const cmrs_backend *in,
                           int64_t n_own, cmrs_dev_args *a)
{
    const cmrs_spmv *spmv = GPU(in)->spmv;
    a->prec = be->prec;
    a->n = n_own;
    a->stream = GPU(in)->stream;
    CMRS_CHECK(cmrs_dev_grid(n_own, &a->grid));
    cmrs_fused_cg_choose_pq(spmv, a);
    CMRS_CUDA(cudaMalloc((void **)&a->st_d, sizeof(cmrs_dstate)));
    CMRS_CUDA(cudaMalloc((void **)&a->partials_d,
                         sizeof(double) * cmrs_dev_partials_count(a)));
    CMRS_CUDA(cudaMalloc((void **)&a->glob_d, GLOB_SUMS * sizeof(double)));
    return CMRS_OK;
}

static cmrs_code make(cmrs_dist_fused *f, cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    int P = d->pt.nparts;
    f->nparts = P;
    f->arg = calloc((size_t)P, sizeof *f->arg);
    f->glob = calloc((size_t)P, sizeof *f->glob);
    f->z = calloc((size_t)P, sizeof *f->z);
    f->device = malloc((size_t)P * sizeof *f->device);
    CMRS_ENSURE(f->arg && f->glob && f->z && f->device, CMRS_E_NOMEM,
                "cannot allocate the fused loop of %d parts", P);
    for (int p = 0; p < P; ++p) f->device[p] = -1;
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CUDA(cudaGetDevice(&f->device[p]));
        CMRS_ENSURE(strcmp(in->ops->name, "gpu") == 0, CMRS_E_USAGE,
                    "the fused distributed CG runs on GPU parts; part %d "
                    "is on the %s back end", p, in->ops->name);
        CMRS_CHECK(make_part(be, in, d->halo.part[p].n_own, &f->arg[p]));
        f->glob[p] = f->arg[p].glob_d;
    }
    f->first = dist_first_mine(d);
    dist_home(d);
    CMRS_CHECK(agree_merged(f, d));
    /* Portable: every part's device copies the state from it. */
    CMRS_CUDA(cudaHostAlloc((void **)&f->st_h,
                            ((size_t)P + 1) * sizeof *f->st_h,
                            cudaHostAllocPortable));
    return CMRS_OK;
}

/* Every part's back end keeps a history of at least `count` entries (a
 * solve's maxiter + 1), which its kernels write (bind). */
static cmrs_code reserve_history(cmrs_dist_fused *f, const dist_impl *d,
                                 int64_t count)
{
    FOR_HERE(f, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CHECK(in->ops->history_reserve(in, count));
    }
    return CMRS_OK;
}

#define PART(v, p) (((cmrs_dist_arr *)(v))->part[p])

/* The solve's vectors into every part's arguments (cg_bind's roles). */
static void bind(cmrs_dist_fused *f, const dist_impl *d,
                 const cmrs_cg_loop_io *io)
{
    FOR_HERE(f, p) {
        cmrs_dev_args *a = &f->arg[p];
        a->history_d = GPU(d->inner[p])->history_d;
        a->x = PART(io->x->data, p);
        a->r = PART(io->r->data, p);
        a->p = PART(io->p->data, p);
        a->q = PART(io->q->data, p);
        a->dinv_d = io->dinv ? PART(io->dinv, p) : NULL;
        a->pc_z = io->precond != NULL;
        a->z = io->dinv || io->precond ? PART(io->z->data, p) : a->r;
        a->p_tail = f->merged ? d->halo.part[p].n_ghost : 0;
        f->z[p] = a->z;
    }
}

/* z = M^-1 r where a preconditioner other than Jacobi runs between the
 * steps: queued on every part's stream like the kernels (the exchanges it
 * makes are the back end's, on the same streams). */
static cmrs_code precond(const cmrs_cg_loop_io *io)
{
    if (!io->precond) return CMRS_OK;
    return io->precond(io->precond_ctx, io->r->data, io->z->data);
}

/* The initial state and the one-thread loop's status reads. */
static cmrs_dstate *main_state(const cmrs_dist_fused *f)
{
    return &f->st_h[f->nparts];
}

/* Every part's state: the stopping constants, the rest 0; waited for, so
 * that st_h can take the status reads. */
static cmrs_code reset_state(cmrs_dist_fused *f, const dist_impl *d,
                             const cmrs_backend *be,
                             const cmrs_cg_loop_io *io)
{
    cmrs_dstate *st = main_state(f);
    memset(st, 0, sizeof *st);
    st->rtol_b = io->rtol_b;
    st->atol = io->atol;
    st->eps = be->eps;
    st->maxiter = io->maxiter;
    FOR_HERE(f, p) {
        d->enter(d->user, p);
        CMRS_CUDA(cudaMemcpyAsync(f->arg[p].st_d, st, sizeof *st,
                                  cudaMemcpyHostToDevice, f->arg[p].stream));
    }
    FOR_HERE(f, p) {
        d->enter(d->user, p);
        CMRS_CUDA(cudaStreamSynchronize(f->arg[p].stream));
    }
    return CMRS_OK;
}

/* fn on every part, its device current. */
static cmrs_code each(cmrs_dist_fused *f, const dist_impl *d,
                      cmrs_code (*fn)(const cmrs_dev_args *))
{
    FOR_HERE(f, p) {
        d->enter(d->user, p);
        CMRS_CHECK(fn(&f->arg[p]));
    }
    return CMRS_OK;
}

/* z = M^-1 r, p = z, entry 0 from r'z and r'r summed over the parts. */
static cmrs_code start(cmrs_dist_fused *f, const dist_impl *d,
                       const cmrs_cg_loop_io *io)
{
    CMRS_CHECK(precond(io));
    CMRS_CHECK(each(f, d, cmrs_fused_cg_init));
    CMRS_CHECK(each(f, d, cmrs_fused_cg_sum_rz));
    CMRS_CHECK(d->ex->ops->allreduce_d(d->ex, f->glob, GLOB_RZ, 2));
    CMRS_CHECK(each(f, d, cmrs_fused_cg_start));
    return CMRS_OK;
}

/* q = A p on part p, with its p'q partials; then their sum. */
static cmrs_code product(cmrs_dist_fused *f, const dist_impl *d, int p)
{
    d->enter(d->user, p);
    CMRS_CHECK(cmrs_fused_cg_product(GPU(d->inner[p])->spmv, &f->arg[p]));
    return cmrs_fused_cg_sum_pq(&f->arg[p]);
}

/* The r'z and r'r sums over the parts; merged, z's halo with them. */
static cmrs_code sum_rz(cmrs_dist_fused *f, const dist_impl *d)
{
    cmrs_exchange *ex = d->ex;
    if (f->merged)
        return ex->ops->post_allreduce_d(ex, f->z, f->glob, GLOB_RZ, 2);
    return ex->ops->allreduce_d(ex, f->glob, GLOB_RZ, 2);
}

/* One iteration over every part of this process, each step queued on
 * every part before the next; halo_p: p's ghosts by a halo (else xp
 * formed them). */
static cmrs_code iterate(cmrs_dist_fused *f, const dist_impl *d,
                         const cmrs_cg_loop_io *io, int halo_p)
{
    cmrs_exchange *ex = d->ex;
    FOR_HERE(f, p)
        if (halo_p) CMRS_CHECK(ex->ops->post(ex, p, f->arg[p].p));
    FOR_HERE(f, p)
        if (halo_p) CMRS_CHECK(ex->ops->wait(ex, p, f->arg[p].p));
    FOR_HERE(f, p) CMRS_CHECK(product(f, d, p));
    CMRS_CHECK(ex->ops->allreduce_d(ex, f->glob, GLOB_PQ, 1));
    CMRS_CHECK(each(f, d, cmrs_fused_cg_r));
    if (io->precond) {
        CMRS_CHECK(precond(io));
        CMRS_CHECK(each(f, d, cmrs_fused_cg_rz));
    }
    CMRS_CHECK(each(f, d, cmrs_fused_cg_sum_rz));
    CMRS_CHECK(sum_rz(f, d));
    CMRS_CHECK(each(f, d, cmrs_fused_cg_xp));
    return CMRS_OK;
}

/* The same steps for part p alone (Jacobi or none: no preconditioner
 * spans the parts), its exchanges in groups of its own. */
cmrs_code dist_fused_iterate_part(cmrs_dist_fused *f, const dist_impl *d,
                                  int p, int halo_p)
{
    cmrs_exchange *ex = d->ex;
    cmrs_dev_args *a = &f->arg[p];
    if (halo_p) CMRS_CHECK(ex->ops->part_group_d(ex, p, a->p, NULL, 0, 0));
    CMRS_CHECK(cmrs_fused_cg_product(GPU(d->inner[p])->spmv, a));
    CMRS_CHECK(cmrs_fused_cg_sum_pq(a));
    CMRS_CHECK(ex->ops->part_group_d(ex, p, NULL, a->glob_d, GLOB_PQ, 1));
    CMRS_CHECK(cmrs_fused_cg_r(a));
    CMRS_CHECK(cmrs_fused_cg_sum_rz(a));
    CMRS_CHECK(ex->ops->part_group_d(ex, p, f->merged ? a->z : NULL,
                                     a->glob_d, GLOB_RZ, 2));
    CMRS_CHECK(cmrs_fused_cg_xp(a));
    return CMRS_OK;
}

cmrs_code dist_fused_read_status(cmrs_dist_fused *f, int p, cmrs_dstate *st)
{
    size_t bytes = offsetof(cmrs_dstate, rnorm) + sizeof(double);
    const cmrs_dev_args *a = &f->arg[p];
    CMRS_CUDA(cudaMemcpyAsync(st, a->st_d, bytes, cudaMemcpyDeviceToHost,
                              a->stream));
    CMRS_CUDA(cudaStreamSynchronize(a->stream));
    return CMRS_OK;
}

/* The first part's status into main_state. */
static cmrs_code read_status(cmrs_dist_fused *f, const dist_impl *d)
{
    d->enter(d->user, f->first);
    return dist_fused_read_status(f, f->first, main_state(f));
}

/* dist_fused_blocks' status read: part p's into st_h[p], or (p < 0) the
 * first part's into main_state. */
static cmrs_code block_status(cmrs_dist_fused *f, const dist_impl *d, int p)
{
    if (p >= 0) return dist_fused_read_status(f, p, &f->st_h[p]);
    return read_status(f, d);
}

cmrs_code dist_fused_blocks(cmrs_dist_fused *f, const dist_impl *d,
                            const cmrs_cg_loop_io *io, int p,
                            _Atomic int *failed, int *follows)
{
    const int block = io->check_every, one = p >= 0;
    int64_t launched = 0, bound = io->maxiter + 2 * (int64_t)block;
    const cmrs_dstate *st = one ? &f->st_h[p] : main_state(f);
    CMRS_CHECK(block_status(f, d, p));
    while (!st->done) {
        *follows = failed && atomic_load(failed);
        CMRS_ENSURE(!*follows, CMRS_E_INTERNAL, "part %d stopped: another "
                    "part's loop failed", p);
        CMRS_ENSURE(launched <= bound, CMRS_E_INTERNAL, "the distributed "
                    "device loop (part %d; -1: all) did not stop after %lld "
                    "iterations (maxiter %lld)", p, (long long)launched,
                    (long long)io->maxiter);
        for (int i = 0; i < block; ++i) {
            const int halo_p = !f->merged || launched + i == 0;
            CMRS_CHECK(one ? dist_fused_iterate_part(f, d, p, halo_p)
                           : iterate(f, d, io, halo_p));
        }
        launched += block;
        CMRS_CHECK(block_status(f, d, p));
    }
    return CMRS_OK;
}

/* The solve's blocks: a thread per part where that is how they run,
 * else this thread over every part. */
static cmrs_code run_blocks(cmrs_dist_fused *f, const dist_impl *d,
                            const cmrs_cg_loop_io *io)
{
    int threads = 0, follows = 0;
    CMRS_CHECK(dist_fused_run_threads(f, d, io, &threads));
    if (threads) return CMRS_OK;
    return dist_fused_blocks(f, d, io, -1, NULL, &follows);
}

/* The first part's norms (its back end's history) into the
 * distributed back end's (history_get). */
static cmrs_code history_out(cmrs_dist_fused *f, dist_impl *d, int64_t count)
{
    CMRS_ENSURE(count <= d->history_cap, CMRS_E_INTERNAL, "history of %lld "
                "entries, %lld reserved", (long long)count,
                (long long)d->history_cap);
    cmrs_backend *in = dist_inner(d, f->first);
    CMRS_CHECK(in->ops->history_get(in, count, d->history));
    return CMRS_OK;
}

/* Whether a part's format no longer writes the p'q partials the state
 * was sized for (new values that made the format anew may change its
 * kernel, hence dot_parts). */
static int stale(const cmrs_dist_fused *f, const dist_impl *d)
{
    FOR_HERE(f, p) {
        const cmrs_dev_args *a = &f->arg[p];
        cmrs_dev_args now = {.grid = a->grid};
        cmrs_fused_cg_choose_pq(GPU(d->inner[p])->spmv, &now);
        if (now.pq_in_spmv != a->pq_in_spmv || now.pq_parts != a->pq_parts)
            return 1;
    }
    return 0;
}

cmrs_code cmrs_dist_fused_cg(cmrs_dist_fused **f, cmrs_backend *be,
                             cmrs_cg_loop_io *io)
{
    dist_impl *d = DIST(be);
    CMRS_ENSURE(d->ex->ops->allreduce_d, CMRS_E_USAGE, "the fused "
                "distributed CG needs an exchange with device all-reduce "
                "(NCCL); the %s exchange has none", d->ex->ops->name);
    CMRS_ENSURE(io->check_every >= 1, CMRS_E_INTERNAL, "the fused "
                "distributed CG: %d iterations between status reads",
                io->check_every);
    if (*f && stale(*f, d)) { /* a format rebuilt by new values */
        cmrs_dist_fused_free(*f);
        *f = NULL;
    }
    if (!*f) {
        *f = calloc(1, sizeof **f);
        CMRS_ENSURE(*f, CMRS_E_NOMEM, "cannot allocate the fused loop");
        cmrs_code rc = make(*f, be);
        if (rc != CMRS_OK) {
            cmrs_dist_fused_free(*f);
            *f = NULL;
            return cmrs_error_trace(rc, __FILE__, __LINE__);
        }
    }
    cmrs_dist_fused *fu = *f;
    CMRS_CHECK(reserve_history(fu, d, io->maxiter + 1));
    bind(fu, d, io);
    CMRS_CHECK(reset_state(fu, d, be, io));
    CMRS_CHECK(start(fu, d, io));
    CMRS_CHECK(run_blocks(fu, d, io));
    if (fu->merged) atomic_fetch_add(&g_merged_solves, 1);
    io->reason = main_state(fu)->reason;
    io->iterations = main_state(fu)->k;
    io->res_norm = main_state(fu)->rnorm;
    CMRS_CHECK(history_out(fu, d, io->iterations + 1));
    return CMRS_OK;
}
