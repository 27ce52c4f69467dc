/* The distributed back end's AMG over all rows (amg-parts global, the
 * default): one aggregation hierarchy of the whole A, its V-cycle split
 * after level 0 (solver/amg/amg_split.h):
 *   - level 0 on the parts: the smoother and the residual are the back
 *     end's own ops (halos exchanged for every product), on D^-1 scaled
 *     by the whole A's rho;
 *   - the restriction: each part multiplies its residual by its rows of
 *     P0 transposed (a vector of level 1's n1 rows, the part's share of
 *     R r), and the parts' shares are summed (NCCL's all-reduce on the
 *     devices, else on the host), so every part holds the whole R r;
 *   - levels 1.. on every part's device at once, each part its own copy
 *     of the coarse hierarchy, all the same: no communication below
 *     level 0, and every part gets the same correction x1;
 *   - the prolongation: each part adds its rows of P0 x1.
 * Level 1 may run on the parts too (its own block partition and halo: a
 * sibling of the back end over level 1's A, dist_impl.h), its right side
 * reduced into each part's slice, its correction gathered back whole,
 * and the hierarchy whole only from level 2 (amg-parts-levels: 2, or
 * auto on GPUs where level 1 is large).
 * That is the one-device V-cycle step for step, so CG takes the one-device
 * iterations (to rounding), where a hierarchy per part (pc/pc_block.c) drops
 * the couplings across the cut and takes 3.7-4.5x as many
 * (docs/DISTRIBUTED.md). Each part builds the whole hierarchy from the
 * whole A (the same hierarchy everywhere: the builders are deterministic),
 * then frees the levels that run on the parts; the cost is setup time
 * and a coarse hierarchy per device, not communication. Needs the whole A in this
 * process and double precision; else, and where the hierarchy has one
 * level, pc_block.c's hierarchy per part (cmrs_dist_pc_create). On GPU
 * parts each part's cycle from its first whole level is a CUDA graph. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/memory.h"
#include "solver/amg/amg_prof.h"
#include "solver/amg/amg_split.h"
#include "solver/pc/precond.h"
#include "dist/dist_impl.h"
#include "pc_phases.h"

/* Most levels on the parts: level 0, and level 1 where it is split too. */
#define DLEVELS 2

_Static_assert(DLEVELS == PHASE_LEVELS, "the phase profile's levels");

/* One part's share (on its inner back end). */
typedef struct global_part {
    cmrs_precond *h;       /* the whole hierarchy, the levels on the parts
                              freed (their b and x kept) */
    cmrs_op *p[DLEVELS], *r[DLEVELS]; /* its rows of P_k (its rows of
                              level k x level k + 1's) and their transpose;
                              NULL on an empty part */
    void *zero[DLEVELS];   /* n_{k+1} zeros: an empty part's share of
                              R_k r, and the gathers' clean slate */
    cmrs_gpu_graph *graph; /* a GPU part: its coarse cycle captured (the
                              host issues one launch, not each level's
                              kernels: one thread issues every GPU's) */
    int from;              /* the coarse cycle's first level (g->nd) */
    int split;             /* setup: h has two levels or more */
} global_part;

/* A level on the parts. */
typedef struct dlevel {
    cmrs_backend *be;      /* level 0: the back end; level 1: its sibling
                              over level 1's A (owned) */
    void *dinv, *r, *d, *res; /* arrays of be: the smoother's scaled D^-1
                                 and work, the residual */
    void *b, *x;           /* level 1: its right side and correction */
    double **next_b, **next_x; /* per part: its hierarchy's level k + 1
                                  right side and correction (whole: the
                                  sums' targets) */
    int64_t n_next;
} dlevel;

typedef struct global_pc {
    global_part *part;     /* nparts */
    dlevel lev[DLEVELS];
    int nd;                /* levels on the parts (1 or 2); the hierarchy
                              cycles whole from level nd */
    const cmrs_csr *P;     /* setup only: the level's P on the host, or
                              NULL: each part cuts its rows from its own
                              hierarchy (on its device where it can) */
    const cmrs_csr *A;     /* setup only: the whole A */
    const char *what;      /* setup only */
    int k;                 /* setup only: the level being made */
    int nd_want;           /* setup only: the levels on the parts asked */
    int slices;            /* the exchange has the slice collectives
                              (reduce_slices_d, allgather_slices_d) */
    double *sum_h, *part_h;/* host sums of the shares: n1 each */
    int64_t n1;
    pc_phases ph;          /* CMRS_DIST_AMG_PHASES's profile */
    int warmed;            /* the setup's warm-up cycle ran (once) */
    int split;             /* 0: the hierarchy has one level */
} global_pc;

#define GLOBAL(pc) ((global_pc *)(pc)->impl)

/* P's rows of part p of d (local order) into Pp (n_own x P->cols). */
static cmrs_code part_rows(const dist_impl *d, int p, const cmrs_csr *P,
                           cmrs_csr *Pp)
{
    int64_t own = d->halo.part[p].n_own;
    const int64_t *rows = d->pt.order + d->pt.start[p];
    int64_t nnz = 0;
    for (int64_t j = 0; j < own; ++j)
        nnz += P->indptr[rows[j] + 1] - P->indptr[rows[j]];
    CMRS_CHECK(cmrs_csr_alloc(Pp, own, P->cols, nnz));
    int64_t at = 0;
    for (int64_t j = 0; j < own; ++j) {
        Pp->indptr[j] = at;
        for (int64_t k = P->indptr[rows[j]]; k < P->indptr[rows[j] + 1];
             ++k) {
            Pp->indices[at] = P->indices[k];
            Pp->values[at++] = P->values[k];
        }
    }
    Pp->indptr[own] = at;
    return CMRS_OK;
}

/* Part p's transfer operators of level k: its rows of P_k (the level's
 * partition) and their transpose, cut on its device from its own
 * hierarchy's P_k where it can, else from the host's g->P (or its own
 * hierarchy's host copy); n_{k+1} zeros where the part has no rows (its
 * share), or where x_{k+1} will be gathered by a sum (slices). */
static cmrs_code part_transfer(cmrs_precond *pc, int p)
{
    global_pc *g = GLOBAL(pc);
    int k = g->k;
    const dist_impl *d = DIST(g->lev[k].be);
    cmrs_backend *in = d->inner[p];
    global_part *gp = &g->part[p];
    if (d->halo.part[p].n_own == 0 || (k + 1 < g->nd_want && !g->slices))
        CMRS_CHECK(in->ops->arr_create(in, g->lev[k].n_next,
                                       &gp->zero[k]));
    if (d->halo.part[p].n_own == 0) return CMRS_OK;
    if (!g->P) { /* block parts: rows start[p] .. start[p + 1] */
        int done = 0;
        CMRS_CHECK(cmrs_amg_split_p_rows(gp->h, k, d->pt.start[p],
                                         d->pt.start[p + 1],
                                         pc->o.level_format, &gp->p[k],
                                         &gp->r[k], &done));
        if (done) return CMRS_OK;
        /* tests: the device's cut must have run (its fallback gives the
         * same bits, so only this tells them apart) */
        const char *need = getenv("CMRS_TEST_DIST_DEVICE_ROWS");
        CMRS_ENSURE(!(need && strcmp(need, "1") == 0), CMRS_E_INTERNAL,
                    "part %d's rows of P%d were not cut on its device", p,
                    k);
    }
    const cmrs_csr *Pk = g->P;
    if (!Pk) CMRS_CHECK(cmrs_amg_split_p(gp->h, k, &Pk));
    cmrs_csr P = {0}, R = {0};
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(part_rows(d, p, Pk, &P));
    CMRS_TRY(cmrs_csr_transpose(&P, &R));
    CMRS_TRY(in->ops->op_create(in, &P, pc->o.level_format, &gp->p[k]));
    CMRS_TRY(in->ops->op_create(in, &R, pc->o.level_format, &gp->r[k]));
done:
    cmrs_csr_free(&P);
    cmrs_csr_free(&R);
    return rc;
}

/* Whether level k's parts cut their rows of P_k themselves (each from its
 * own hierarchy, on its device where the builder keeps P: no download of
 * the whole P): where they are blocks of the level's rows in order (block
 * partitions; rcm and metis parts list their rows, cut on the host).
 * CMRS_DIST_AMG_HOST_ROWS=1 takes the host's path everywhere (tests
 * compare the two). */
static int parts_cut_rows(const dist_impl *d)
{
    const char *env = getenv("CMRS_DIST_AMG_HOST_ROWS");
    return d->pt.method == CMRS_PART_BLOCK && d->pt.order &&
           !(env && strcmp(env, "1") == 0);
}

/* First setup step, part p (cmrs_dist_each_part: the parts at once): the
 * whole hierarchy of g->A on its inner back end; its split flag (0: one
 * level, nothing to split: the caller falls back to a hierarchy per
 * part). */
static cmrs_code part_hierarchy(void *ctx, int p)
{
    cmrs_precond *pc = ctx;
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    global_part *gp = &g->part[p];
    cmrs_pc_opts o = pc->o;
    o.fine_own_op = 1; /* level 0 is A, not the part's own matrix */
    double t = 0;
    amg_prof_begin(&t);
    cmrs_code rc = cmrs_precond_create(d->inner[p], g->A, CMRS_PC_AMG, &o,
                                       g->what, &gp->h);
    if (rc == CMRS_E_NOMEM) { /* the whole A did not fit on this part */
        char why[512]; /* (the message is rewritten from its own buffer) */
        snprintf(why, sizeof why, "%s", cmrs_error_message());
        CMRS_FAIL(CMRS_E_NOMEM, "%s (amg-parts global builds the whole "
                  "hierarchy on every part's device; amg-parts block "
                  "builds one per part, of its rows)", why);
    }
    CMRS_CHECK(rc);
    CMRS_CHECK(amg_prof_step(NULL, &t, "part %d: the whole hierarchy", p));
    gp->split = cmrs_amg_split_ok(gp->h);
    if (gp->split)
        CMRS_ENSURE(cmrs_amg_split_n(gp->h, 1) <= INT_MAX, CMRS_E_USAGE,
                    "amg-parts global: level 1 has %lld rows, more than "
                    "one all-reduce takes (use amg-parts block)",
                    (long long)cmrs_amg_split_n(gp->h, 1));
    return CMRS_OK;
}

/* A later step, part p: its transfer operators of level g->k from the
 * shared g->P, its hierarchy's level k + 1 arrays. */
static cmrs_code part_ops(void *ctx, int p)
{
    cmrs_precond *pc = ctx;
    global_pc *g = GLOBAL(pc);
    dlevel *L = &g->lev[g->k];
    cmrs_backend *in = DIST(L->be)->inner[p];
    double t = 0;
    amg_prof_begin(&t);
    CMRS_CHECK(part_transfer(pc, p));
    L->next_b[p] = cmrs_amg_split_b(g->part[p].h, g->k + 1);
    L->next_x[p] = cmrs_amg_split_x(g->part[p].h, g->k + 1);
    CMRS_CHECK(in->ops->sync(in));
    CMRS_CHECK(amg_prof_step(NULL, &t, "part %d: its rows of P%d, R%d%s",
                             p, g->k, g->k, g->P ? "" : " (its own P)"));
    return CMRS_OK;
}

/* g->split and g->n1 from every part's hierarchy, in every process
 * alike (the exchange's sum: under MPI every rank sees every part's):
 * split where all have two levels or more; all of the same level-1 size
 * and level count (the builders are deterministic), else an error
 * everywhere. */
static cmrs_code agree(const dist_impl *d, global_pc *g)
{
    int P = d->pt.nparts;
    double *part = d->partial, sum[3] = {0, 0, 0};
    const cmrs_precond *h = g->part[dist_first_mine(d)].h;
    int split = cmrs_amg_split_ok(h);
    g->n1 = split ? cmrs_amg_split_n(h, 1) : 0;
    int nlev = split ? cmrs_amg_split_levels(h) : 1;
    memset(part, 0, (size_t)P * 3 * sizeof *part);
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        part[3 * p] = gp->split;
        part[3 * p + 1] = gp->split ? (double)cmrs_amg_split_n(gp->h, 1) : 0;
        part[3 * p + 2] = gp->split ? cmrs_amg_split_levels(gp->h) : 1;
    }
    CMRS_CHECK(d->ex->ops->sum(d->ex, part, 3, sum));
    g->split = sum[0] == (double)P;
    CMRS_ENSURE(!g->split || (sum[1] == (double)P * (double)g->n1 &&
                              sum[2] == (double)P * nlev),
                CMRS_E_INTERNAL, "amg-parts global: the parts' hierarchies "
                "differ (level 1 of %lld rows and %d levels here; %.0f rows "
                "and %.0f levels over %d parts)", (long long)g->n1, nlev,
                sum[1], sum[2], P);
    return CMRS_OK;
}

/* A level's arrays: dinv, r, d, res, then b and x (level 1's; level 0's
 * are the apply's r and z). */
#define LEVEL_ARRAYS 6
static void level_array_list(dlevel *L, void **arrays[LEVEL_ARRAYS])
{
    arrays[0] = &L->dinv, arrays[1] = &L->r, arrays[2] = &L->d;
    arrays[3] = &L->res, arrays[4] = &L->b, arrays[5] = &L->x;
}

/* The smoother's arrays of level k on its back end: D^-1 of A_k scaled
 * for the smoother by the hierarchy's rho_k, work and the residual. */
static cmrs_code level_arrays(cmrs_precond *pc, int k, const cmrs_csr *A,
                              double rho)
{
    dlevel *L = &GLOBAL(pc)->lev[k];
    cmrs_backend *be = L->be;
    CMRS_CHECK(cmrs_pc_inverse_diagonal(be, A, GLOBAL(pc)->what, &L->dinv));
    CMRS_CHECK(cmrs_pc_scale_array(be, be->n,
                                   cmrs_amg_smoother_factor(&pc->o, rho),
                                   L->dinv));
    void **arrays[LEVEL_ARRAYS];
    level_array_list(L, arrays);
    /* (0: dinv, made above; b and x, the last two, on level 1 only) */
    for (int a = 1; a < (k > 0 ? LEVEL_ARRAYS : LEVEL_ARRAYS - 2); ++a)
        CMRS_CHECK(be->ops->arr_create(be, be->n, arrays[a]));
    return CMRS_OK;
}

/* Level k's transfers on every part (from P, or where NULL each part's
 * own P_k; k's back end made), then level k freed in every part's
 * hierarchy. */
static cmrs_code level_transfers(cmrs_precond *pc, int k, const cmrs_csr *P)
{
    global_pc *g = GLOBAL(pc);
    const dist_impl *d = DIST(g->lev[k].be);
    g->P = P;
    g->k = k;
    g->lev[k].n_next = cmrs_amg_split_n(g->part[dist_first_mine(d)].h, k + 1);
    cmrs_code rc = cmrs_dist_each_part(d, part_ops, pc);
    g->P = NULL;
    CMRS_CHECK(rc);
    FOR_MY_PARTS(d, p) {
        (void)dist_inner(d, p);
        cmrs_amg_split_drop(g->part[p].h, k);
    }
    dist_home(d);
    return CMRS_OK;
}

/* Level k's host matrices (P and, k >= 1, A; each where asked: not NULL)
 * from the first local part's hierarchy (the hierarchies are the same),
 * on its device. */
static cmrs_code level_host(cmrs_precond *pc, int k, const cmrs_csr **A,
                            const cmrs_csr **P)
{
    const dist_impl *d = DIST(pc->be);
    int first = dist_first_mine(d);
    cmrs_precond *h = GLOBAL(pc)->part[first].h;
    (void)dist_inner(d, first);
    cmrs_code rc = P ? cmrs_amg_split_p(h, k, P) : CMRS_OK;
    if (rc == CMRS_OK && A) rc = cmrs_amg_split_a(h, k, A);
    dist_home(d);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* The levels to run on the parts (o.amg_parts_levels; auto: level 1
 * too where it has CMRS_AMG_PARTS_LEVEL1_ROWS rows or more and the
 * exchange moves its slices on the devices, the case measured; on the
 * host the slices cost two whole sums a cycle): 2 only where the
 * hierarchy has a level 2 to cycle from. */
static int levels_wanted(const cmrs_pc_opts *o, const cmrs_precond *h,
                         int slices)
{
    int want = o->amg_parts_levels;
    if (want == 0)
        want = slices && cmrs_amg_split_n(h, 1) >= CMRS_AMG_PARTS_LEVEL1_ROWS
                   ? 2 : 1;
    return want == 2 && cmrs_amg_split_levels(h) >= 3 ? 2 : 1;
}

/* Every part's outcome of its sibling (rc, this process's) summed over
 * the parts, so that every process takes the same path: *go where all
 * made it; all fall back where one was refused (CMRS_E_USAGE: an
 * operator of A1's part its format cannot hold, an exchange that cannot
 * relist); all fail where one failed otherwise. */
static cmrs_code agree_level1(cmrs_precond *pc, cmrs_code rc, int *go)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    int P = d->pt.nparts;
    double *part = d->partial, sum[2] = {0, 0};
    char why[512]; /* this part's message, kept across the sum */
    snprintf(why, sizeof why, "%s", rc == CMRS_OK ? "" : cmrs_error_message());
    memset(part, 0, (size_t)P * 2 * sizeof *part);
    FOR_MY_PARTS(d, p) {
        part[2 * p] = rc == CMRS_E_USAGE;
        part[2 * p + 1] = rc != CMRS_OK && rc != CMRS_E_USAGE;
    }
    cmrs_code src = d->ex->ops->sum(d->ex, part, 2, sum);
    *go = src == CMRS_OK && sum[0] == 0 && sum[1] == 0;
    if (*go) return CMRS_OK;
    if (g->lev[1].be) cmrs_backend_destroy(g->lev[1].be);
    g->lev[1].be = NULL;
    CMRS_CHECK(src);
    if (sum[1] > 0 && rc != CMRS_OK && rc != CMRS_E_USAGE)
        CMRS_FAIL(rc, "%s", why);
    CMRS_ENSURE(sum[1] == 0, CMRS_E_INTERNAL, "amg-parts-levels 2: another "
                "part failed to put level 1 on the parts (its message "
                "there)");
    cmrs_error_clear(); /* refused somewhere: level 1 stays whole */
    return CMRS_OK;
}

/* Tests: CMRS_TEST_FAIL_DIST_LEVEL1=1 fails level 1's setup on the parts
 * once its sibling and arrays are made, as an allocation failure there
 * would (the setup must free everything and refuse to apply). */
static cmrs_code injected_failure(void)
{
    const char *e = getenv("CMRS_TEST_FAIL_DIST_LEVEL1");
    if (!e || strcmp(e, "1") != 0) return CMRS_OK;
    CMRS_FAIL(CMRS_E_NOMEM, "level 1 on the parts: cannot allocate "
              "(injected: CMRS_TEST_FAIL_DIST_LEVEL1)");
}

/* Level 1 on the parts: its sibling back end (block partition of A1),
 * transfers from P1, arrays; where a part refuses it (agree_level1)
 * level 1 stays whole, its host copies freed. */
static cmrs_code make_level1(cmrs_precond *pc, double *t)
{
    global_pc *g = GLOBAL(pc);
    const cmrs_csr *A1 = NULL, *P1 = NULL;
    int go = 0;
    CMRS_CHECK(level_host(pc, 1, &A1, NULL));
    CMRS_CHECK(amg_prof_step(NULL, t, "level 1's A on the host"));
    cmrs_code rc = cmrs_dist_sibling_create(pc->be, A1, pc->o.level_format,
                                            &g->lev[1].be);
    CMRS_CHECK(agree_level1(pc, rc, &go));
    if (!go) {
        const dist_impl *d = DIST(pc->be);
        int first = dist_first_mine(d);
        (void)dist_inner(d, first);
        cmrs_amg_split_free_host(g->part[first].h, 1);
        dist_home(d);
        return CMRS_OK;
    }
    CMRS_CHECK(amg_prof_step(NULL, t, "level 1 on the parts: partition, "
                             "halo, operators"));
    double rho1 = cmrs_amg_split_rho(g->part[dist_first_mine(DIST(pc->be))].h,
                                     1);
    CMRS_CHECK(level_arrays(pc, 1, A1, rho1));
    CMRS_CHECK(injected_failure());
    if (!parts_cut_rows(DIST(g->lev[1].be)))
        CMRS_CHECK(level_host(pc, 1, NULL, &P1));
    CMRS_CHECK(level_transfers(pc, 1, P1)); /* frees A1, P1 */
    g->nd = 2;
    CMRS_CHECK(amg_prof_step(NULL, t, "level 1 on the parts: D^-1, "
                             "transfers"));
    return CMRS_OK;
}

/* Every local part's hierarchy, then level 0's transfers (P0 downloaded
 * once), level 0's arrays on the parts and, where chosen, level 1 on the
 * parts; g->split, g->n1, g->nd set. */
static cmrs_code build_all(cmrs_precond *pc, const cmrs_csr *A,
                           const char *what)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    g->A = A;
    g->what = what;
    g->lev[0].be = pc->be;
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(cmrs_dist_each_part(d, part_hierarchy, pc));
    CMRS_TRY(agree(d, g));
    if (!g->split) goto done;
    const cmrs_precond *h = g->part[dist_first_mine(d)].h;
    double rho0 = cmrs_amg_split_rho(h, 0), t = 0;
    const cmrs_csr *P0 = NULL;
    g->nd = 1;
    g->slices = d->ex->ops->reduce_slices_d && d->ex->ops->allgather_slices_d;
    g->nd_want = levels_wanted(&pc->o, h, g->slices);
    if (!parts_cut_rows(d)) CMRS_TRY(level_host(pc, 0, NULL, &P0));
    CMRS_TRY(level_transfers(pc, 0, P0));
    amg_prof_begin(&t);
    CMRS_TRY(level_arrays(pc, 0, A, rho0));
    CMRS_TRY(amg_prof_step(NULL, &t, "level 0 on the parts: D^-1, arrays"));
    if (g->nd_want > 1) CMRS_TRY(make_level1(pc, &t));
done:
    g->A = NULL;
    g->what = NULL;
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* Part gp's coarse cycle, from its first level whole. */
static cmrs_code cycle_of(void *gp)
{
    const global_part *part = gp;
    return cmrs_amg_split_cycle(part->h, part->from);
}

/* Each GPU part's coarse cycle as a CUDA graph (CMRS_DIST_AMG_GRAPH=0:
 * none, each level's kernels issued at every cycle), captured after one
 * cycle run as it is (whatever its first run makes is made). */
static cmrs_code capture_all(cmrs_precond *pc)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    const char *env = getenv("CMRS_DIST_AMG_GRAPH");
    FOR_MY_PARTS(d, p) g->part[p].from = g->nd;
    if (env && strcmp(env, "0") == 0) return CMRS_OK;
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        cmrs_stream s = cmrs_backend_gpu_stream(in);
        if (!s) continue; /* a CPU part */
        global_part *gp = &g->part[p];
        cmrs_code rc = cycle_of(gp);
        if (rc == CMRS_OK) rc = in->ops->sync(in);
        if (rc != CMRS_OK) {
            dist_home(d);
            return cmrs_error_trace(rc, __FILE__, __LINE__);
        }
        /* A capture the runtime refuses costs speed, not results: this
         * part then issues its cycle kernel by kernel. */
        if (cmrs_gpu_graph_capture(s, cycle_of, gp, &gp->graph) != CMRS_OK) {
            cmrs_gpu_clear_error();
            cmrs_error_clear();
        }
    }
    dist_home(d);
    return CMRS_OK;
}

/* Level k's arrays on its back end, and the back end where it is a
 * sibling (level 1). */
static void level_free(global_pc *g, int k)
{
    dlevel *L = &g->lev[k];
    cmrs_backend *be = L->be;
    if (be) {
        void **arrays[LEVEL_ARRAYS];
        level_array_list(L, arrays);
        for (int a = 0; a < LEVEL_ARRAYS; ++a)
            be->ops->arr_destroy(be, *arrays[a]);
        if (k > 0) cmrs_backend_destroy(be);
    }
    double **next_b = L->next_b, **next_x = L->next_x;
    *L = (dlevel){.next_b = next_b, .next_x = next_x};
}

static void global_free(cmrs_precond *pc)
{
    global_pc *g = GLOBAL(pc);
    const dist_impl *d = DIST(pc->be);
    FOR_MY_PARTS(d, p) {
        global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        for (int k = 0; k < DLEVELS; ++k) {
            in->ops->op_destroy(in, gp->p[k]);
            in->ops->op_destroy(in, gp->r[k]);
            in->ops->arr_destroy(in, gp->zero[k]);
            if (g->lev[k].next_b) g->lev[k].next_b[p] = NULL;
            if (g->lev[k].next_x) g->lev[k].next_x[p] = NULL;
        }
        cmrs_gpu_graph_destroy(gp->graph); /* before its hierarchy */
        cmrs_precond_destroy(gp->h);
        *gp = (global_part){0};
    }
    dist_home(d);
    pc_phases_free(&g->ph);
    for (int k = DLEVELS - 1; k >= 0; --k) level_free(g, k); /* sibling
                                                              first */
    CMRS_FREE_ALL(g->sum_h, g->part_h);
    g->sum_h = g->part_h = NULL; /* a failed update frees them again */
    g->split = 0;
    g->nd = 0;
    g->n1 = 0;
}

static cmrs_code level_cycle(cmrs_precond *pc, int k, const void *b, void *x);

/* One V-cycle on zeros, waited for: the one-time costs of a first cycle
 * (NCCL's connections, made at the first use of each collective and
 * peer; CUDA's kernels, loaded at their first launch) paid in the setup,
 * not by the first solve. */
static cmrs_code warm_up(cmrs_precond *pc)
{
    cmrs_backend *be = pc->be;
    global_pc *g = GLOBAL(pc);
    int mode = g->ph.mode; /* not a timed cycle */
    void *b = NULL, *x = NULL;
    cmrs_code rc = be->ops->arr_create(be, be->n, &b);
    if (rc == CMRS_OK) rc = be->ops->arr_create(be, be->n, &x);
    g->ph.mode = PC_PHASES_OFF;
    if (rc == CMRS_OK) rc = level_cycle(pc, 0, b, x);
    g->ph.mode = mode;
    if (rc == CMRS_OK) rc = be->ops->sync(be);
    be->ops->arr_destroy(be, b);
    be->ops->arr_destroy(be, x);
    return rc == CMRS_OK ? rc : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* Everything made anew from A (the whole matrix): the setup, and new
 * values. g->split = 0: the hierarchy has one level (nothing made but
 * it). */
static cmrs_code global_make(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    double t = 0;
    cmrs_code rc = CMRS_OK;
    global_free(pc);
    CMRS_TRY(build_all(pc, A, what));
    if (!g->split) return CMRS_OK;
    pc->info = g->part[dist_first_mine(d)].h->info;
    pc->info.parts_levels = g->nd;
    amg_prof_begin(&t);
    CMRS_TRY(capture_all(pc));
    CMRS_TRY(amg_prof_step(NULL, &t, "coarse cycles captured"));
    if (!d->ex->ops->allreduce_d) { /* n1 >= every level's below */
        g->sum_h = cmrs_malloc_array((size_t)g->n1, sizeof(double));
        g->part_h = cmrs_malloc_array((size_t)g->n1, sizeof(double));
        if (!g->sum_h || !g->part_h)
            CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate the AMG's coarse "
                          "sums (%lld rows)", (long long)g->n1);
    }
    /* once (new values find NCCL connected), on GPU parts (NCCL) */
    if (!g->warmed && d->ex->ops->allreduce_d && dist_warm_up_wanted()) {
        CMRS_TRY(warm_up(pc));
        CMRS_TRY(amg_prof_step(NULL, &t, "a cycle on zeros (warm-up)"));
        g->warmed = 1;
    }
    CMRS_TRY(pc_phases_make(&g->ph, d));
done:
    /* A setup failed half way leaves nothing an apply could run on. */
    if (rc != CMRS_OK) global_free(pc);
    return rc;
}

/* New values (same pattern): made again. */
static cmrs_code global_update(cmrs_precond *pc, const cmrs_csr *A,
                               const char *what)
{
    CMRS_CHECK(global_make(pc, A, what));
    CMRS_ENSURE(GLOBAL(pc)->split, CMRS_E_INTERNAL, "amg-parts global: "
                "the new values' hierarchy has one level, setup's more");
    return CMRS_OK;
}

/* buf[p] (n doubles on every local part) summed over the parts into
 * every part's buf[p]: on the devices (NCCL), else on the host: this
 * process's parts in part order, then over the processes by MPI's
 * reduction (its order: under mpirun -np 3 or more not bit for bit
 * --parts N's, as NCCL's is not one process's). */
static cmrs_code sum_parts(cmrs_precond *pc, double *const *buf, int64_t n)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    cmrs_exchange *ex = d->ex;
    if (ex->ops->allreduce_d) return ex->ops->allreduce_d(ex, buf, 0, (int)n);
    memset(g->sum_h, 0, (size_t)n * sizeof *g->sum_h);
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CHECK(in->ops->arr_get(in, n, buf[p], g->part_h));
        for (int64_t c = 0; c < n; ++c) g->sum_h[c] += g->part_h[c];
    }
    if (ex->ops->sum_vec) /* the other processes' parts */
        CMRS_CHECK(ex->ops->sum_vec(ex, g->sum_h, n));
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CHECK(in->ops->arr_set(in, n, buf[p], g->sum_h));
    }
    dist_home(d);
    return CMRS_OK;
}

/* The exchange's slice collectives where level k + 1 is on the parts
 * too (NCCL), else NULL: the parts' slices are then moved by whole sums. */
static cmrs_exchange *slicer(const cmrs_precond *pc, int k)
{
    const global_pc *g = GLOBAL(pc);
    return k + 1 < g->nd && g->slices ? DIST(pc->be)->ex : NULL;
}

/* Every part's share of R_k res into its level k + 1 right side, then
 * summed: every part holds the whole R_k res, or (level k + 1 on the
 * parts, slicer) its own slice of it. */
static cmrs_code restrict_sum(cmrs_precond *pc, int k)
{
    global_pc *g = GLOBAL(pc);
    const dlevel *L = &g->lev[k];
    const dist_impl *d = DIST(L->be);
    const cmrs_dist_arr *res = L->res;
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        if (gp->r[k])
            CMRS_CHECK(in->ops->op_apply(in, gp->r[k], 1.0, res->part[p],
                                         0.0, L->next_b[p]));
        else
            CMRS_CHECK(in->ops->dxpby(in, L->n_next, 1.0, NULL, gp->zero[k],
                                      0.0, L->next_b[p]));
    }
    dist_home(d);
    cmrs_exchange *ex = slicer(pc, k);
    if (ex)
        return ex->ops->reduce_slices_d(ex, L->next_b,
                                        DIST(g->lev[k + 1].be)->pt.start);
    return sum_parts(pc, L->next_b, L->n_next);
}

/* Level k + 1 on the parts (a block partition: part p owns its rows
 * [start[p], start[p + 1])): scatter: each part's slice of its next_b
 * into C->b; gather: each part's C->x into its slice of next_x, the
 * others' slices from them (slicer), or zeros there and summed. */
static cmrs_code slices(cmrs_precond *pc, int k, int scatter)
{
    global_pc *g = GLOBAL(pc);
    const dlevel *L = &g->lev[k], *C = &g->lev[k + 1];
    const dist_impl *dc = DIST(C->be);
    cmrs_exchange *ex = slicer(pc, k);
    FOR_MY_PARTS(dc, p) {
        cmrs_backend *in = dist_inner(dc, p);
        int64_t own = dc->halo.part[p].n_own, at = dc->pt.start[p];
        if (scatter) {
            CMRS_CHECK(in->ops->dxpby(in, own, 1.0, NULL, L->next_b[p] + at,
                                      0.0, ((cmrs_dist_arr *)C->b)->part[p]));
            continue;
        }
        if (!ex)
            CMRS_CHECK(in->ops->dxpby(in, L->n_next, 1.0, NULL,
                                      g->part[p].zero[k], 0.0,
                                      L->next_x[p]));
        CMRS_CHECK(in->ops->dxpby(in, own, 1.0, NULL,
                                  ((cmrs_dist_arr *)C->x)->part[p], 0.0,
                                  L->next_x[p] + at));
    }
    dist_home(dc);
    if (scatter) return CMRS_OK;
    if (ex) return ex->ops->allgather_slices_d(ex, L->next_x, dc->pt.start);
    return sum_parts(pc, L->next_x, L->n_next);
}

/* The coarse cycle from level g->nd on every part at once. */
static cmrs_code coarse_cycles(cmrs_precond *pc)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    FOR_MY_PARTS(d, p) {
        global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        if (gp->graph)
            CMRS_CHECK(cmrs_gpu_graph_launch(gp->graph,
                                             cmrs_backend_gpu_stream(in)));
        else
            CMRS_CHECK(cycle_of(gp));
    }
    dist_home(d);
    return CMRS_OK;
}

/* x = V(b) from level k on the parts: smoothing and residual on the
 * level's back end (halos), R_k res summed into every part, level k + 1
 * on the parts (its slices) or whole on every part, x_p += P_k,p x_{k+1}
 * on each part's rows, post-smoothing. */
static cmrs_code level_cycle(cmrs_precond *pc, int k, const void *b, void *x)
{
    global_pc *g = GLOBAL(pc);
    const dlevel *L = &g->lev[k];
    cmrs_backend *be = L->be;
    const dist_impl *d = DIST(be);
    const cmrs_amg_fine fine = {.be = be, .A = NULL, .n = be->n,
                                .dinv = L->dinv, .r = L->r, .d = L->d};
    const int sweeps = cmrs_pc_amg_sweeps(&pc->o);
    CMRS_CHECK(cmrs_amg_smooth(&pc->o, &fine, b, x, 1, sweeps));
    CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_PRE));
    CMRS_CHECK(cmrs_pc_residual(be, NULL, be->n, b, x, L->res));
    CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_RES));
    CMRS_CHECK(restrict_sum(pc, k));
    CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_RESTRICT));
    if (k + 1 < g->nd) {
        CMRS_CHECK(slices(pc, k, 1));
        CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_SCATTER));
        CMRS_CHECK(level_cycle(pc, k + 1, g->lev[k + 1].b, g->lev[k + 1].x));
        CMRS_CHECK(slices(pc, k, 0));
        CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_GATHER));
    } else {
        CMRS_CHECK(coarse_cycles(pc));
        CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_COARSE));
    }
    cmrs_dist_arr *xa = x;
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        if (gp->p[k])
            CMRS_CHECK(in->ops->op_apply(in, gp->p[k], 1.0, L->next_x[p],
                                         1.0, xa->part[p]));
    }
    dist_home(d);
    CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_PROLONG));
    CMRS_CHECK(cmrs_amg_smooth(&pc->o, &fine, b, x, 0, sweeps));
    CMRS_CHECK(pc_phases_mark(&g->ph, pc->be, k, PH_POST));
    return CMRS_OK;
}

static cmrs_code global_apply(cmrs_precond *pc, const void *r, void *z)
{
    global_pc *g = GLOBAL(pc);
    CMRS_ENSURE(g->split && g->lev[0].dinv, CMRS_E_USAGE, "amg-parts "
                "global: no hierarchy (its last update failed)");
    CMRS_CHECK(pc_phases_start(&g->ph, pc->be));
    CMRS_CHECK(level_cycle(pc, 0, r, z));
    return pc_phases_end(&g->ph, DIST(pc->be));
}

static void global_destroy(cmrs_precond *pc)
{
    global_pc *g = GLOBAL(pc);
    if (!g) return;
    pc_phases_report(&g->ph);
    if (g->part && g->lev[0].next_b) global_free(pc);
    for (int k = 0; k < DLEVELS; ++k)
        CMRS_FREE_ALL(g->lev[k].next_b, g->lev[k].next_x);
    CMRS_FREE_ALL(g->part, g);
    pc->impl = NULL;
}

static const cmrs_precond_ops k_global_amg = {
    .name = "amg", .setup = global_make, .apply = global_apply,
    .update_values = global_update, .destroy = global_destroy};

int cmrs_dist_pc_global_fits(const cmrs_backend *be, const cmrs_csr *A,
                             const cmrs_pc_opts *o)
{
    const dist_impl *d = DIST(be);
    /* (A of at most amg-coarse rows, or one level allowed: a hierarchy of
     * one level, nothing to split) */
    int one_level = A && (A->rows <= o->amg.coarse_rows ||
                          o->amg.max_levels <= 1);
    return o->amg_parts == CMRS_AMG_PARTS_GLOBAL && !d->pt.by_rows &&
           be->prec == CMRS_PREC_DOUBLE && !o->mixed && A &&
           A->rows == be->n && !one_level;
}

cmrs_code cmrs_dist_pc_global_create(cmrs_backend *be, const cmrs_csr *A,
                                     const cmrs_pc_opts *o, const char *what,
                                     cmrs_precond **out)
{
    const dist_impl *d = DIST(be);
    size_t np = (size_t)d->pt.nparts;
    *out = NULL;
    cmrs_precond *pc = calloc(1, sizeof *pc);
    global_pc *g = calloc(1, sizeof *g);
    CMRS_CHECK(cmrs_alloc_both(pc, g, "the distributed AMG"));
    *pc = (cmrs_precond){.ops = &k_global_amg, .be = be,
                         .kind = CMRS_PC_AMG, .o = *o, .impl = g};
    g->part = calloc(np, sizeof *g->part);
    pc_phases_init(&g->ph);
    int ok = g->part != NULL;
    for (int k = 0; k < DLEVELS; ++k) {
        g->lev[k].next_b = calloc(np, sizeof *g->lev[k].next_b);
        g->lev[k].next_x = calloc(np, sizeof *g->lev[k].next_x);
        ok = ok && g->lev[k].next_b && g->lev[k].next_x;
    }
    if (!ok) {
        cmrs_precond_destroy(pc);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the distributed AMG");
    }
    CMRS_CHECK(cmrs_precond_setup_timed(pc, A, what, out));
    if (GLOBAL(*out)->split) return CMRS_OK;
    cmrs_precond_destroy(*out); /* one level: the caller's fallback */
    *out = NULL;
    return CMRS_OK;
}
