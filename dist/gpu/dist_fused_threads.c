/* The fused CG's iterations with a thread per part (dist_fused_impl.h).
 * One thread queueing every part's kernels and NCCL calls in turn spends
 * about 0.037 ms of host time per part and iteration: with 4 parts that
 * is more than a part's GPU work on the vessel 5M (1.25M rows), so
 * `--gpus 4` ran at one GPU's speed there while a process per GPU ran
 * 2.35x faster (docs/DISTRIBUTED.md). Here each part's thread queues its
 * own part, as an MPI rank does: the same kernels, its NCCL calls in
 * groups of its own (the exchange's part_group_d; NCCL's group state is
 * per thread), the same order on every part; each thread reads its own
 * part's status after each block and stops where it says done, which is
 * the same block on every part (the same sums, the same decisions).
 *
 * All or none: a part's loop waits in NCCL for the others, so a part
 * whose thread could not start cannot run after the others in this
 * thread; the threads wait at a gate until every one has started, and
 * where one has not, they leave and the one-thread loop runs instead. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread.h"
#include "dist_fused_impl.h"

static atomic_long g_threaded_solves;

long cmrs_dist_fused_threaded_solves(void)
{
    return atomic_load(&g_threaded_solves);
}

/* Where the threads go once every one was asked to start. */
enum { GATE_WAIT, GATE_GO, GATE_LEAVE };

typedef struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    int state;
} gate;

typedef struct part_run {
    cmrs_dist_fused *f;
    const dist_impl *d;
    const cmrs_cg_loop_io *io;
    gate *g;
    _Atomic int *failed; /* a part's loop failed: the others stop at their
                            next status read (one waiting in NCCL for the
                            failed part does not get there) */
    int p;
    int follows;         /* it stopped because another part failed */
    cmrs_thread_job t;
} part_run;

static int threads_wanted(const cmrs_dist_fused *f, const dist_impl *d,
                          const cmrs_cg_loop_io *io)
{
    const char *env = getenv("CMRS_DIST_THREADS");
    int here = 0;
    FOR_HERE(f, p) ++here;
    return here > 1 && !io->precond && d->ex->ops->part_group_d &&
           !(env && strcmp(env, "0") == 0);
}

static int gate_wait(gate *g)
{
    pthread_mutex_lock(&g->m);
    while (g->state == GATE_WAIT) pthread_cond_wait(&g->c, &g->m);
    int go = g->state == GATE_GO;
    pthread_mutex_unlock(&g->m);
    return go;
}

static void gate_open(gate *g, int state)
{
    pthread_mutex_lock(&g->m);
    g->state = state;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}

static void run_part(part_run *r)
{
    r->d->enter(r->d->user, r->p);
    cmrs_code rc = dist_fused_blocks(r->f, r->d, r->io, r->p, r->failed,
                                     &r->follows);
    if (rc != CMRS_OK) atomic_store(r->failed, 1);
    cmrs_thread_job_end(&r->t, rc);
}

static void *part_thread(void *arg)
{
    part_run *r = arg;
    if (gate_wait(r->g)) run_part(r);
    return NULL;
}

/* Every part stopped at the same iteration (the same sums): the first
 * part's status is the solve's. */
static cmrs_code agree(cmrs_dist_fused *f)
{
    const cmrs_dstate *first = &f->st_h[f->first];
    FOR_HERE(f, p)
        CMRS_ENSURE(f->st_h[p].k == first->k &&
                        f->st_h[p].reason == first->reason,
                    CMRS_E_INTERNAL, "part %d stopped after %lld "
                    "iterations (reason %d), part %d after %lld (%d)", p,
                    (long long)f->st_h[p].k, f->st_h[p].reason, f->first,
                    (long long)first->k, first->reason);
    f->st_h[f->nparts] = *first;
    return CMRS_OK;
}

/* The other parts' threads started behind the gate; 1 where all did. */
static int start_all(part_run *run, const cmrs_dist_fused *f)
{
    int all = 1;
    FOR_HERE(f, p) {
        if (p == f->first) continue;
        run[p].t.started = cmrs_thread_start(&run[p].t.thread, part_thread,
                                             &run[p]);
        all = all && run[p].t.started;
    }
    return all;
}

/* The failure that stopped the loops: the first in part order that did
 * not follow another's, else the first. */
static cmrs_code first_failure(const part_run *run, const cmrs_dist_fused *f)
{
    FOR_HERE(f, p)
        if (run[p].t.rc != CMRS_OK && !run[p].follows)
            return cmrs_thread_job_raise(&run[p].t);
    FOR_HERE(f, p)
        if (run[p].t.rc != CMRS_OK) return cmrs_thread_job_raise(&run[p].t);
    return CMRS_OK;
}

cmrs_code dist_fused_run_threads(cmrs_dist_fused *f, const dist_impl *d,
                                 const cmrs_cg_loop_io *io, int *ran)
{
    *ran = 0;
    if (!threads_wanted(f, d, io)) return CMRS_OK;
    part_run *run = calloc((size_t)f->nparts, sizeof *run);
    CMRS_ENSURE(run, CMRS_E_NOMEM, "cannot allocate %d parts' threads",
                f->nparts);
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
              GATE_WAIT};
    _Atomic int failed = 0;
    FOR_HERE(f, p)
        run[p] = (part_run){.f = f, .d = d, .io = io, .g = &g,
                            .failed = &failed, .p = p};
    const int all = start_all(run, f);
    gate_open(&g, all ? GATE_GO : GATE_LEAVE);
    if (all) run_part(&run[f->first]);
    FOR_HERE(f, p)
        if (run[p].t.started) pthread_join(run[p].t.thread, NULL);
    dist_home(d);
    cmrs_code rc = all ? first_failure(run, f) : CMRS_OK;
    free(run);
    CMRS_CHECK(rc);
    *ran = all;
    if (!all) return CMRS_OK;
    atomic_fetch_add(&g_threaded_solves, 1);
    return agree(f);
}
