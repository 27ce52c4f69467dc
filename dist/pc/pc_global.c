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
 * That is the one-device V-cycle step for step, so CG takes the one-device
 * iterations (to rounding), where a hierarchy per part (pc/pc_block.c) drops
 * the couplings across the cut and takes 3.7-4.5x as many
 * (docs/DISTRIBUTED.md). Each part builds the whole hierarchy from the
 * whole A (the same hierarchy everywhere: the builders are deterministic),
 * then frees its level 0 there; the cost is setup time and a coarse
 * hierarchy per device, not communication. Needs the whole A in this
 * process and double precision; else, and where the hierarchy has one
 * level, pc_block.c's hierarchy per part (cmrs_dist_pc_create). On GPU
 * parts each part's cycle from level 1 is a CUDA graph. */
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

/* One part's share (on its inner back end). */
typedef struct global_part {
    cmrs_precond *h;       /* the whole hierarchy, level 0 freed */
    cmrs_op *p0, *r0;      /* its rows of P0 (n_own x n1) and their
                              transpose; NULL on an empty part */
    void *zero1;           /* an empty part: n1 zeros, its share of R r */
    cmrs_gpu_graph *graph; /* a GPU part: its coarse cycle captured (the
                              host issues one launch, not each level's
                              kernels: one thread issues every GPU's) */
    int split;             /* setup: h has two levels or more */
} global_part;

typedef struct global_pc {
    global_part *part;     /* nparts */
    double **b1;           /* per part: its hierarchy's level-1 right side
                              (the coarse sums' target; allreduce_d takes
                              this array) */
    const cmrs_csr *P0;    /* setup only: level 0's P on the host */
    const cmrs_csr *A;     /* setup only: the whole A */
    const char *what;      /* setup only */
    double *sum_h, *part_h;/* host sums of the shares: n1 each */
    void *dinv, *r, *d, *res; /* level 0 on the parts: the back end's
                                 arrays (scaled D^-1, smoother work, the
                                 residual) */
    int64_t n1;
    int split;             /* 0: the hierarchy has one level */
} global_pc;

#define GLOBAL(pc) ((global_pc *)(pc)->impl)


/* P0's rows of part p (local order) into P (n_own x n1). */
static cmrs_code part_rows(const dist_impl *d, int p, const cmrs_csr *P0,
                           cmrs_csr *P)
{
    int64_t own = d->halo.part[p].n_own;
    const int64_t *rows = d->pt.order + d->pt.start[p];
    int64_t nnz = 0;
    for (int64_t j = 0; j < own; ++j)
        nnz += P0->indptr[rows[j] + 1] - P0->indptr[rows[j]];
    CMRS_CHECK(cmrs_csr_alloc(P, own, P0->cols, nnz));
    int64_t at = 0;
    for (int64_t j = 0; j < own; ++j) {
        P->indptr[j] = at;
        for (int64_t k = P0->indptr[rows[j]]; k < P0->indptr[rows[j] + 1];
             ++k) {
            P->indices[at] = P0->indices[k];
            P->values[at++] = P0->values[k];
        }
    }
    P->indptr[own] = at;
    return CMRS_OK;
}

/* Part p's transfer operators from P0 (an empty part: n1 zeros for its
 * share instead). */
static cmrs_code part_transfer(cmrs_precond *pc, const dist_impl *d, int p,
                               cmrs_backend *in, const cmrs_csr *P0)
{
    global_pc *g = GLOBAL(pc);
    global_part *gp = &g->part[p];
    if (d->halo.part[p].n_own == 0)
        return in->ops->arr_create(in, g->n1, &gp->zero1);
    cmrs_csr P = {0}, R = {0};
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(part_rows(d, p, P0, &P));
    CMRS_TRY(cmrs_csr_transpose(&P, &R));
    CMRS_TRY(in->ops->op_create(in, &P, pc->o.level_format, &gp->p0));
    CMRS_TRY(in->ops->op_create(in, &R, pc->o.level_format, &gp->r0));
done:
    cmrs_csr_free(&P);
    cmrs_csr_free(&R);
    return rc;
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
        CMRS_ENSURE(cmrs_amg_split_n1(gp->h) <= INT_MAX, CMRS_E_USAGE,
                    "amg-parts global: level 1 has %lld rows, more than "
                    "one all-reduce takes (use amg-parts block)",
                    (long long)cmrs_amg_split_n1(gp->h));
    return CMRS_OK;
}

/* Second step, part p: its transfer operators from the shared g->P0. */
static cmrs_code part_ops(void *ctx, int p)
{
    cmrs_precond *pc = ctx;
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    cmrs_backend *in = d->inner[p];
    double t = 0;
    amg_prof_begin(&t);
    CMRS_CHECK(part_transfer(pc, d, p, in, g->P0));
    g->b1[p] = cmrs_amg_split_b1(g->part[p].h);
    CMRS_CHECK(in->ops->sync(in));
    CMRS_CHECK(amg_prof_step(NULL, &t, "part %d: its rows of P0, R0", p));
    return CMRS_OK;
}

/* g->split and g->n1 from every part's hierarchy, in every process
 * alike (the exchange's sum: under MPI every rank sees every part's):
 * split where all have two levels or more; all of the same level-1 size
 * (the builders are deterministic), else an error everywhere. */
static cmrs_code agree(const dist_impl *d, global_pc *g)
{
    int P = d->pt.nparts;
    double *part = d->partial, sum[2] = {0, 0};
    g->n1 = cmrs_amg_split_ok(g->part[dist_first_mine(d)].h)
                ? cmrs_amg_split_n1(g->part[dist_first_mine(d)].h)
                : 0;
    memset(part, 0, (size_t)P * 2 * sizeof *part);
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        part[2 * p] = gp->split;
        part[2 * p + 1] = gp->split ? (double)cmrs_amg_split_n1(gp->h) : 0;
    }
    CMRS_CHECK(d->ex->ops->sum(d->ex, part, 2, sum));
    g->split = sum[0] == (double)P;
    CMRS_ENSURE(!g->split || sum[1] == (double)P * (double)g->n1,
                CMRS_E_INTERNAL, "amg-parts global: the parts' hierarchies "
                "differ (level 1 of %lld rows here, %.0f over %d parts)",
                (long long)g->n1, sum[1], P);
    return CMRS_OK;
}

/* Every local part's hierarchy, then (P0 downloaded once, from the first
 * local part's: the hierarchies are the same) its transfer operators,
 * then level 0 freed on every part; g->split and g->n1 set. */
static cmrs_code build_all(cmrs_precond *pc, const cmrs_csr *A,
                           const char *what)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    g->A = A;
    g->what = what;
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(cmrs_dist_each_part(d, part_hierarchy, pc));
    CMRS_TRY(agree(d, g));
    if (!g->split) goto done;
    int first = dist_first_mine(d);
    (void)dist_inner(d, first);
    rc = cmrs_amg_split_p0(g->part[first].h, &g->P0);
    dist_home(d);
    CMRS_TRY(rc);
    CMRS_TRY(cmrs_dist_each_part(d, part_ops, pc));
    FOR_MY_PARTS(d, p) {
        (void)dist_inner(d, p);
        cmrs_amg_split_drop_fine(g->part[p].h);
    }
    dist_home(d);
done:
    g->A = g->P0 = NULL;
    g->what = NULL;
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

static cmrs_code cycle_of(void *h) { return cmrs_amg_split_cycle(h); }

/* Each GPU part's coarse cycle as a CUDA graph (CMRS_DIST_AMG_GRAPH=0:
 * none, each level's kernels issued at every cycle), captured after one
 * cycle run as it is (whatever its first run makes is made). */
static cmrs_code capture_all(cmrs_precond *pc)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    const char *env = getenv("CMRS_DIST_AMG_GRAPH");
    if (env && strcmp(env, "0") == 0) return CMRS_OK;
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        cmrs_stream s = cmrs_backend_gpu_stream(in);
        if (!s) continue; /* a CPU part */
        global_part *gp = &g->part[p];
        cmrs_code rc = cmrs_amg_split_cycle(gp->h);
        if (rc == CMRS_OK) rc = in->ops->sync(in);
        if (rc != CMRS_OK) {
            dist_home(d);
            return cmrs_error_trace(rc, __FILE__, __LINE__);
        }
        /* A capture the runtime refuses costs speed, not results: this
         * part then issues its cycle kernel by kernel. */
        if (cmrs_gpu_graph_capture(s, cycle_of, gp->h, &gp->graph) !=
            CMRS_OK) {
            cmrs_gpu_clear_error();
            cmrs_error_clear();
        }
    }
    dist_home(d);
    return CMRS_OK;
}

/* Level 0 on the parts: D^-1 of the whole A scaled for the smoother by
 * the hierarchy's rho, the smoother's and the residual's arrays. */
static cmrs_code fine_arrays(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what, double rho0)
{
    global_pc *g = GLOBAL(pc);
    cmrs_backend *be = pc->be;
    CMRS_CHECK(cmrs_pc_inverse_diagonal(be, A, what, &g->dinv));
    CMRS_CHECK(cmrs_pc_scale_array(be, be->n,
                                   cmrs_amg_smoother_factor(&pc->o, rho0),
                                   g->dinv));
    CMRS_CHECK(be->ops->arr_create(be, be->n, &g->r));
    CMRS_CHECK(be->ops->arr_create(be, be->n, &g->d));
    CMRS_CHECK(be->ops->arr_create(be, be->n, &g->res));
    return CMRS_OK;
}

static void global_free(cmrs_precond *pc)
{
    global_pc *g = GLOBAL(pc);
    const dist_impl *d = DIST(pc->be);
    FOR_MY_PARTS(d, p) {
        global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        in->ops->op_destroy(in, gp->p0);
        in->ops->op_destroy(in, gp->r0);
        in->ops->arr_destroy(in, gp->zero1);
        cmrs_gpu_graph_destroy(gp->graph); /* before its hierarchy */
        cmrs_precond_destroy(gp->h);
        *gp = (global_part){0};
        g->b1[p] = NULL;
    }
    dist_home(d);
    cmrs_backend *be = pc->be;
    be->ops->arr_destroy(be, g->dinv);
    be->ops->arr_destroy(be, g->r);
    be->ops->arr_destroy(be, g->d);
    be->ops->arr_destroy(be, g->res);
    g->dinv = g->r = g->d = g->res = NULL;
    CMRS_FREE_ALL(g->sum_h, g->part_h);
    g->sum_h = g->part_h = NULL; /* a failed update frees them again */
    g->split = 0;
    g->n1 = 0;
}

/* Everything made anew from A (the whole matrix): the setup, and new
 * values. g->split = 0: the hierarchy has one level (nothing made but
 * it). */
static cmrs_code global_make(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    global_free(pc);
    CMRS_CHECK(build_all(pc, A, what));
    if (!g->split) return CMRS_OK;
    int p0 = dist_first_mine(d);
    pc->info = g->part[p0].h->info;
    double t = 0;
    amg_prof_begin(&t);
    CMRS_CHECK(fine_arrays(pc, A, what,
                           cmrs_amg_split_rho0(g->part[p0].h)));
    CMRS_CHECK(amg_prof_step(NULL, &t, "level 0 on the parts: D^-1, "
                             "arrays"));
    CMRS_CHECK(capture_all(pc));
    CMRS_CHECK(amg_prof_step(NULL, &t, "coarse cycles captured"));
    if (!d->ex->ops->allreduce_d) {
        g->sum_h = cmrs_malloc_array((size_t)g->n1, sizeof(double));
        g->part_h = cmrs_malloc_array((size_t)g->n1, sizeof(double));
        CMRS_ENSURE(g->sum_h && g->part_h, CMRS_E_NOMEM, "cannot allocate "
                    "the AMG's coarse sums (%lld rows)", (long long)g->n1);
    }
    return CMRS_OK;
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

/* Every part's share of R r summed over the parts into every part's b1:
 * on the devices (NCCL), else on the host: this process's parts in part
 * order, then over the processes by MPI's reduction (its order: under
 * mpirun -np 3 or more not bit for bit --parts N's, as NCCL's is not one
 * process's). */
static cmrs_code coarse_sum(cmrs_precond *pc)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    cmrs_exchange *ex = d->ex;
    if (ex->ops->allreduce_d)
        return ex->ops->allreduce_d(ex, g->b1, 0, (int)g->n1);
    memset(g->sum_h, 0, (size_t)g->n1 * sizeof *g->sum_h);
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CHECK(in->ops->arr_get(in, g->n1, g->b1[p], g->part_h));
        for (int64_t c = 0; c < g->n1; ++c) g->sum_h[c] += g->part_h[c];
    }
    if (ex->ops->sum_vec) /* the other processes' parts */
        CMRS_CHECK(ex->ops->sum_vec(ex, g->sum_h, g->n1));
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        CMRS_CHECK(in->ops->arr_set(in, g->n1, g->b1[p], g->sum_h));
    }
    dist_home(d);
    return CMRS_OK;
}

/* b1 = each part's share of R res, then summed; x1 = V(b1) from level 1
 * on every part; z += P0 x1 on each part's rows. */
static cmrs_code coarse_correction(cmrs_precond *pc, void *z)
{
    const dist_impl *d = DIST(pc->be);
    global_pc *g = GLOBAL(pc);
    const cmrs_dist_arr *res = g->res;
    cmrs_dist_arr *za = z;
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        if (gp->r0)
            CMRS_CHECK(in->ops->op_apply(in, gp->r0, 1.0, res->part[p], 0.0,
                                         g->b1[p]));
        else
            CMRS_CHECK(in->ops->dxpby(in, g->n1, 1.0, NULL, gp->zero1, 0.0,
                                      g->b1[p]));
    }
    dist_home(d);
    CMRS_CHECK(coarse_sum(pc));
    FOR_MY_PARTS(d, p) {
        const global_part *gp = &g->part[p];
        cmrs_backend *in = dist_inner(d, p);
        if (gp->graph)
            CMRS_CHECK(cmrs_gpu_graph_launch(gp->graph,
                                             cmrs_backend_gpu_stream(in)));
        else
            CMRS_CHECK(cmrs_amg_split_cycle(gp->h));
        if (gp->p0)
            CMRS_CHECK(in->ops->op_apply(in, gp->p0, 1.0,
                                         cmrs_amg_split_x1(gp->h), 1.0,
                                         za->part[p]));
    }
    dist_home(d);
    return CMRS_OK;
}

static cmrs_code global_apply(cmrs_precond *pc, const void *r, void *z)
{
    global_pc *g = GLOBAL(pc);
    cmrs_backend *be = pc->be;
    CMRS_ENSURE(g->split && g->dinv, CMRS_E_USAGE, "amg-parts global: no "
                "hierarchy (its last update failed)");
    const cmrs_amg_fine fine = {.be = be, .A = NULL, .n = be->n,
                                .dinv = g->dinv, .r = g->r, .d = g->d};
    CMRS_CHECK(cmrs_amg_smooth(&pc->o, &fine, r, z, 1, pc->o.sweeps));
    CMRS_CHECK(cmrs_pc_residual(be, NULL, be->n, r, z, g->res));
    CMRS_CHECK(coarse_correction(pc, z));
    CMRS_CHECK(cmrs_amg_smooth(&pc->o, &fine, r, z, 0, pc->o.sweeps));
    return CMRS_OK;
}

static void global_destroy(cmrs_precond *pc)
{
    global_pc *g = GLOBAL(pc);
    if (!g) return;
    if (g->part && g->b1) global_free(pc);
    CMRS_FREE_ALL(g->part, g->b1, g);
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
    g->b1 = calloc(np, sizeof *g->b1);
    if (!g->part || !g->b1) {
        cmrs_precond_destroy(pc);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the distributed AMG");
    }
    CMRS_CHECK(cmrs_precond_setup_timed(pc, A, what, out));
    if (GLOBAL(*out)->split) return CMRS_OK;
    cmrs_precond_destroy(*out); /* one level: the caller's fallback */
    *out = NULL;
    return CMRS_OK;
}
