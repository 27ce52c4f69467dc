/* The AMG preconditioner's setup: the levels formed by the back end's
 * level builder (amg_builder.h: on the host, or the GPU's on the device,
 * with the host path where it answers no), every level's A, P and R in an
 * SpMV format of the back end (the registry on the GPU), the coarsest
 * level inverted densely. Values-only updates keep the aggregates
 * (amg-update full) or the whole hierarchy below the fine level (frozen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "amg.h"
#include "amg_prof.h"

/* The back end's level builder, taken once by amg_setup. */
static const cmrs_amg_builder_ops *bld(const cmrs_precond *pc)
{
    return ((const amg_impl *)pc->impl)->b;
}

/* CMRS_AMG_PROFILE: the back end's queue drained, then the step timed. */
static cmrs_code lprof(cmrs_precond *pc, double *t, int l, const char *what)
{
    if (!amg_prof_on()) return CMRS_OK;
    if (pc->be->ops->sync) CMRS_CHECK(pc->be->ops->sync(pc->be));
    return amg_prof_step(NULL, t, "level %d %s", l, what);
}

/* An operator of M in `format`: from the back end's copy where it can,
 * else from the host copy. */
static cmrs_code lmat_op(cmrs_precond *pc, cmrs_lmat *M, cmrs_op **op)
{
    cmrs_backend *be = pc->be;
    if (M->dev && bld(pc)->op_create_lmat) {
        CMRS_CHECK(bld(pc)->op_create_lmat(be, M, pc->o.level_format, op));
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_lmat_host(be, M));
    CMRS_CHECK(be->ops->op_create(be, &M->h, pc->o.level_format, op));
    return CMRS_OK;
}

/* D^-1 of a level's A: on the back end's copy where there is one; the
 * host path where there is not or it finds a bad diagonal (its error
 * names the row and `what`). */
static cmrs_code lmat_dinv(cmrs_precond *pc, cmrs_lmat *M, const char *what,
                           void **dinv)
{
    cmrs_backend *be = pc->be;
    int ok = 0;
    if (M->dev && bld(pc)->lmat_dinv)
        CMRS_CHECK(bld(pc)->lmat_dinv(be, M, dinv, &ok));
    if (ok) return CMRS_OK;
    CMRS_CHECK(cmrs_lmat_host(be, M));
    CMRS_CHECK(cmrs_pc_inverse_diagonal(be, &M->h, what, dinv));
    return CMRS_OK;
}

/* rho(D^-1 A) of level l by the power steps, in the level's own arrays
 * where it has a third (levels >= 1: x, free between V-cycles; level 0:
 * the hierarchy's pw) so that a re-setup allocates nothing here; bitwise
 * what the allocating cmrs_pc_power_rho gives. */
static cmrs_code level_rho(cmrs_precond *pc, int l)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l];
    void *u = l > 0 ? L->x : m->pw;
    if (u)
        CMRS_CHECK(cmrs_pc_power_rho_in(pc->be, L->A, L->n, L->dinv,
                                        pc->o.power_steps, L->r, L->d, u,
                                        &L->rho));
    else
        CMRS_CHECK(cmrs_pc_power_rho(pc->be, L->A, L->n, L->dinv,
                                     pc->o.power_steps, &L->rho));
    return CMRS_OK;
}

/* Operators, vectors, D^-1 and rho of level l (Am set for l >= 1; level
 * 0's D^-1 is made first, by fine_diagonal, with the user's name for A). */
static cmrs_code level_arrays(cmrs_precond *pc, int l, cmrs_lmat *A)
{
    amg_level *L = &((amg_impl *)pc->impl)->lev[l];
    cmrs_backend *be = pc->be;
    double t = 0;
    amg_prof_begin(&t);
    if (l == 0 && pc->o.fine_own_op && !L->A)
        CMRS_CHECK(lmat_op(pc, A, &L->A)); /* level 0 applies A itself */
    if (l > 0) {
        if (!L->A) CMRS_CHECK(lmat_op(pc, A, &L->A));
        CMRS_CHECK(lprof(pc, &t, l, "op_create A"));
        if (!L->b) CMRS_CHECK(be->ops->arr_create(be, L->n, &L->b));
        if (!L->x) CMRS_CHECK(be->ops->arr_create(be, L->n, &L->x));
    }
    if (!L->r) CMRS_CHECK(be->ops->arr_create(be, L->n, &L->r));
    if (!L->d) CMRS_CHECK(be->ops->arr_create(be, L->n, &L->d));
    if (l > 0) CMRS_CHECK(lmat_dinv(pc, A, "AMG level", &L->dinv));
    CMRS_CHECK(lprof(pc, &t, l, "vectors, D^-1"));
    double t0 = cmrs_wtime();
    CMRS_CHECK(level_rho(pc, l));
    pc->info.t_rho += cmrs_wtime() - t0;
    CMRS_CHECK(lprof(pc, &t, l, "power steps (rho)"));
    CMRS_ENSURE(L->rho > 0, CMRS_E_INPUT, "AMG level %d: rho(D^-1 A) "
                "estimated as %g", l, L->rho);
    CMRS_CHECK(cmrs_amg_smoother_scale(pc, L));
    return CMRS_OK;
}

/* The aggregates' host copy, fetched from the builder's device copy when
 * a host step first reads it: the GPU keeps them on the device, so setup
 * downloads nothing that a re-setup would send up again. */
static cmrs_code level_agg_host(cmrs_precond *pc, amg_level *L)
{
    if (L->agg_on_host) return CMRS_OK;
    CMRS_ENSURE(L->agg_dev, CMRS_E_INTERNAL, "AMG: a level's aggregates "
                "are gone (freed with its device copy as the coarsest)");
    CMRS_CHECK(bld(pc)->agg_fetch(pc->be, L->agg_dev, L->agg, L->n));
    L->agg_on_host = 1;
    return CMRS_OK;
}

void cmrs_amg_level_agg_dev_free(cmrs_backend *be,
                                 const cmrs_amg_builder_ops *b, amg_level *L)
{
    if (L->agg_dev) b->agg_dev_free(be, L->agg_dev);
    L->agg_dev = NULL;
}

/* P and R = P^T of level l from its aggregates and A. */
static cmrs_code level_transfer(cmrs_precond *pc, amg_level *L,
                                cmrs_lmat *A)
{
    cmrs_csr P = {0}, R = {0};
    CMRS_CHECK(level_agg_host(pc, L));
    cmrs_lmat_free(pc->be, &L->Pm);
    cmrs_lmat_free(pc->be, &L->Rm);
    CMRS_CHECK(cmrs_lmat_host(pc->be, A));
    CMRS_CHECK(cmrs_amg_prolongator(&A->h, L->agg, L->naggs, &pc->o.amg,
                                    &P));
    cmrs_lmat_wrap(&L->Pm, &P);
    CMRS_CHECK(cmrs_csr_transpose(&L->Pm.h, &R));
    cmrs_lmat_wrap(&L->Rm, &R);
    return CMRS_OK;
}

/* A_c = R A P from the host copies (the builder's galerkin op). */
static cmrs_code galerkin(cmrs_precond *pc, amg_level *L, cmrs_lmat *A,
                          cmrs_lmat *Ac)
{
    cmrs_backend *be = pc->be;
    cmrs_csr C = {0};
    cmrs_lmat_free(be, Ac);
    CMRS_CHECK(cmrs_lmat_host(be, A));
    CMRS_CHECK(cmrs_lmat_host(be, &L->Pm));
    CMRS_CHECK(cmrs_lmat_host(be, &L->Rm));
    CMRS_CHECK(bld(pc)->galerkin(be, &L->Rm.h, &A->h, &L->Pm.h, &C));
    cmrs_lmat_wrap(Ac, &C);
    return CMRS_OK;
}

/* Smoothed aggregation's P, R and A_c of level l in one builder call
 * (the GPU forms all three on the device); *done = 0: the host does. */
static cmrs_code device_level(cmrs_precond *pc, amg_level *L,
                              cmrs_lmat *A, cmrs_lmat *Ac, int *done)
{
    cmrs_lmat_free(pc->be, &L->Pm);
    cmrs_lmat_free(pc->be, &L->Rm);
    cmrs_lmat_free(pc->be, Ac);
    CMRS_CHECK(level_agg_host(pc, L));
    CMRS_CHECK(bld(pc)->sa_level(pc->be, A, L->agg, L->naggs, &pc->o.amg,
                                 &L->Pm, &L->Rm, Ac, done));
    return CMRS_OK;
}

/* The coarsest level: the dense inverse when A is numerically SPD and
 * small. Coarsening that stagnates (or runs out of levels) leaves a larger
 * coarsest level, whose inverse would cost n^3 on the host: smoothing
 * solves it instead. */
/* The coarse inverse's format: long dense rows, one warp per row; a
 * value store with no `after` step (cuSPARSE's redoes its SpMV
 * preprocessing), so a re-setup rewrites it in place and the engines'
 * graphs stay valid. */
#define COARSE_FORMAT "csr-vector"

/* M = the dense inverse of the coarsest level's Am as a CSR with every
 * entry stored; *spd = 0 (M empty) when Am is not numerically SPD. */
static cmrs_code coarse_inverse(cmrs_precond *pc, amg_level *L,
                                cmrs_lmat *Am, cmrs_csr *M, int *spd)
{
    cmrs_code rc = CMRS_OK;
    *spd = 0;
    CMRS_CHECK(cmrs_lmat_host(pc->be, Am)); /* small: the host needs it */
    const cmrs_csr *A = &Am->h;
    double *inv = cmrs_malloc_array((size_t)(L->n * L->n), sizeof *inv);
    CMRS_ENSURE(inv, CMRS_E_NOMEM, "cannot allocate the coarse inverse");
    CMRS_TRY(bld(pc)->dense_inverse(pc->be, A, inv, spd));
    if (*spd) CMRS_TRY(cmrs_amg_dense_csr(L->n, inv, M));
done:
    free(inv);
    return rc;
}

static cmrs_code coarsest(cmrs_precond *pc, amg_level *L, cmrs_lmat *Am)
{
    cmrs_code rc = CMRS_OK;
    cmrs_csr M = {0};
    int spd = 0;
    pc->be->ops->op_destroy(pc->be, L->Cinv);
    L->Cinv = NULL;
    if (L->n > 2 * pc->o.amg.coarse_rows) return CMRS_OK;
    if (bld(pc)->coarse_create) { /* the inverse made where it is used */
        int done = 0;
        CMRS_CHECK(bld(pc)->coarse_create(pc->be, Am, COARSE_FORMAT,
                                          &L->Cinv, &spd, &done));
        if (done) return CMRS_OK;
    }
    CMRS_TRY(coarse_inverse(pc, L, Am, &M, &spd));
    if (spd)
        CMRS_TRY(pc->be->ops->op_create(pc->be, &M, COARSE_FORMAT,
                                        &L->Cinv));
done:
    cmrs_csr_free(&M);
    return rc;
}

/* Whether level l (with A) is the coarsest: small enough, out of levels,
 * or aggregation no longer coarsens (then the smoother does the rest). */
static int is_coarsest(const cmrs_precond *pc, int l, const amg_level *L)
{
    const cmrs_amg_params *a = &pc->o.amg;
    return L->n <= a->coarse_rows || l + 1 >= a->max_levels ||
           (L->agg && (L->naggs == 0 || L->naggs * 10 > L->n * 9));
}

/* The guard against a hierarchy that blows up (a small theta with
 * smoothed P, or a matrix whose strength graph is nearly complete): the
 * Galerkin operator C of level l is kept only while the operator
 * complexity stays within max_op_complexity; otherwise level l becomes the
 * coarsest and info.stop says why. The V-cycle's cost is proportional to
 * the operator complexity, so this bounds it whatever the options. */
static int too_dense(cmrs_precond *pc, int l, const cmrs_lmat *C)
{
    amg_impl *m = pc->impl;
    /* (level 0's A: a block or the whole A where it is not be's own) */
    double nnz0 = (double)m->A0.nnz, cx = (m->nnz_sum + C->nnz) / nnz0;
    if (cx <= pc->o.amg.max_op_complexity) {
        m->nnz_sum += (double)C->nnz;
        return 0;
    }
    snprintf(pc->info.stop, sizeof pc->info.stop, "level %d (%lld rows, "
             "%.0f nnz/row) would take the operator complexity to %.2f > "
             "%.2f", l + 1, (long long)C->rows,
             C->rows ? (double)C->nnz / (double)C->rows : 0.0, cx,
             pc->o.amg.max_op_complexity);
    return 1;
}

/* Coarsening stopped early (the aggregates no longer coarsen). */
static void stagnated(cmrs_precond *pc, int l, const amg_level *L)
{
    if (L->n <= pc->o.amg.coarse_rows || l + 1 >= pc->o.amg.max_levels)
        return;
    snprintf(pc->info.stop, sizeof pc->info.stop, "level %d: %lld rows "
             "formed %lld aggregates (less than 1.11x coarser)", l,
             (long long)L->n, (long long)L->naggs);
}

/* Level l's transfer operators and the next level's A freed: formed
 * anew, or dropped where level l stays the coarsest. */
static void next_free(cmrs_precond *pc, amg_level *L, amg_level *C)
{
    cmrs_lmat_free(pc->be, &C->Am);
    cmrs_lmat_free(pc->be, &L->Pm);
    cmrs_lmat_free(pc->be, &L->Rm);
}

/* Level l's aggregates by the builder, which may form the next level on
 * the way (amg_builder.h aggregate: nothing, A_{l+1} alone, or P, R and
 * A_{l+1}). */
static cmrs_code aggregate(cmrs_precond *pc, amg_level *L, cmrs_lmat *A,
                           amg_level *C)
{
    const amg_impl *m = pc->impl;
    next_free(pc, L, C);
    cmrs_amg_level_agg_dev_free(pc->be, bld(pc), L);
    CMRS_CHECK(bld(pc)->aggregate(pc->be, m->agg, A, &pc->o.amg, L->agg,
                                  &L->naggs, &L->Pm, &L->Rm, &C->Am,
                                  bld(pc)->agg_fetch ? &L->agg_dev : NULL));
    L->agg_on_host = L->agg_dev == NULL;
    return CMRS_OK;
}

/* CMRS_AMG_FAIL_LEVEL=k (tests): forming level k runs out of memory
 * before its aggregates; "k@galerkin": after its P and R, before A_k. */
static cmrs_code injected(int l, const char *where)
{
    const char *fail = getenv("CMRS_AMG_FAIL_LEVEL");
    if (!fail || atoi(fail) != l + 1) return CMRS_OK;
    const char *at = strchr(fail, '@');
    if (strcmp(at ? at + 1 : "aggregate", where) != 0) return CMRS_OK;
    CMRS_FAIL(CMRS_E_NOMEM, "CMRS_AMG_FAIL_LEVEL");
}

/* What the aggregation left of level l's next level: P and R (smoothed
 * aggregation's by the builder's sa_level, which forms A_{l+1} too, where
 * the aggregation formed nothing; else on the host), then A_{l+1} = R A P
 * where it is still missing. */
static cmrs_code next_level(cmrs_precond *pc, int l, cmrs_lmat *A)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    double t1 = cmrs_wtime();
    int have_pr = cmrs_lmat_has(&L->Pm); /* P and R come together */
    if (!cmrs_lmat_has(&C->Am) && pc->o.amg.smooth_p && bld(pc)->sa_level)
        CMRS_CHECK(device_level(pc, L, A, &C->Am, &have_pr));
    if (!have_pr) CMRS_CHECK(level_transfer(pc, L, A));
    double t2 = cmrs_wtime();
    if (!cmrs_lmat_has(&C->Am)) {
        CMRS_CHECK(injected(l, "galerkin"));
        CMRS_CHECK(galerkin(pc, L, A, &C->Am));
    }
    pc->info.t_transfer += t2 - t1;
    pc->info.t_galerkin += cmrs_wtime() - t2;
    return CMRS_OK;
}

/* Whether a failure to form level l + 1 becomes a stop: where it ran
 * out of memory (or a product passed cuSPARSE's 32-bit indices) and
 * l > 0, level l becomes the coarsest (as too_dense makes it; the
 * smoother does the rest) and info.stop says why. A slowly coarsened
 * level's products can pass what cuSPARSE's SpGEMM takes at all (every
 * algorithm refuses R (A P) forming level 3 of the vessel 5M and level 4
 * of fem_odt_0.4M with --amg-theta 0.08, H100). Not at level 0, where AMG
 * would be the smoother alone, nor in amg-parts global's builds
 * (fine_own_op), where every part must build the same hierarchy whatever
 * its device's free memory: there the failure stands. */
static int stop_on_failure(cmrs_precond *pc, int l, cmrs_code rc)
{
    if ((rc != CMRS_E_NOMEM && rc != CMRS_E_LIMIT) || l == 0 ||
        pc->o.fine_own_op)
        return 0;
    snprintf(pc->info.stop, sizeof pc->info.stop, "level %d could not be "
             "formed: out of memory or past cuSPARSE's limits", l + 1);
    cmrs_error_clear();
    return 1;
}

/* Level l's aggregates (and whatever the builder forms with them); *last
 * where level l stays the coarsest. */
static cmrs_code aggregate_or_stop(cmrs_precond *pc, int l, cmrs_lmat *A,
                                   int *last)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    cmrs_code rc = injected(l, "aggregate");
    if (rc == CMRS_OK) rc = aggregate(pc, L, A, C);
    if (rc == CMRS_OK) {
        *last = is_coarsest(pc, l, L); /* the aggregation was spent */
        if (*last) stagnated(pc, l, L);
        return CMRS_OK;
    }
    if (!stop_on_failure(pc, l, rc)) return rc;
    L->naggs = 0; /* none usable */
    *last = 1;
    return CMRS_OK;
}

/* Level l's next level: aggregates, P, R, A_{l+1} = R A P; none where
 * level l turns out to be the coarsest. */
static cmrs_code coarsen(cmrs_precond *pc, int l, cmrs_lmat *A)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    double t0 = cmrs_wtime();
    L->agg = cmrs_malloc_array((size_t)L->n, sizeof *L->agg);
    CMRS_ENSURE(L->agg, CMRS_E_NOMEM, "cannot allocate the aggregates");
    int last = 0;
    CMRS_CHECK(aggregate_or_stop(pc, l, A, &last));
    double tp = t0;
    CMRS_CHECK(lprof(pc, &tp, l, "aggregation"));
    pc->info.t_aggregate += cmrs_wtime() - t0;
    if (!last) {
        cmrs_code rc = next_level(pc, l, A);
        if (rc != CMRS_OK && !stop_on_failure(pc, l, rc)) return rc;
        last = rc != CMRS_OK;
    }
    if (last || too_dense(pc, l, &C->Am)) {
        next_free(pc, L, C);
        /* no next level: nothing reads the aggregates again
         * (level_agg_host refuses them from here on) */
        cmrs_amg_level_agg_dev_free(pc->be, bld(pc), L);
        return CMRS_OK;
    }
    C->n = C->Am.rows;
    m->nlev = l + 2;
    return CMRS_OK;
}

static cmrs_code level_ops(cmrs_precond *pc, int l, cmrs_lmat *A)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l];
    CMRS_CHECK(level_arrays(pc, l, A));
    double t = 0;
    amg_prof_begin(&t);
    if (l == m->nlev - 1) {
        double t0 = cmrs_wtime();
        CMRS_CHECK(coarsest(pc, L, A));
        pc->info.t_coarse += cmrs_wtime() - t0;
        CMRS_CHECK(lprof(pc, &t, l, "coarse inverse"));
        return CMRS_OK;
    }
    CMRS_CHECK(lmat_op(pc, &L->Pm, &L->P));
    CMRS_CHECK(lprof(pc, &t, l, "op_create P"));
    CMRS_CHECK(lmat_op(pc, &L->Rm, &L->R));
    CMRS_CHECK(lprof(pc, &t, l, "op_create R"));
    return CMRS_OK;
}

static cmrs_lmat *level_matrix(amg_impl *m, int l)
{
    return l == 0 ? &m->A0 : &m->lev[l].Am;
}

/* Level 0 is the caller's A (its arrays borrowed, never freed here); a
 * device copy kept for level 0's re-setup plan stays (fine_release). */
static void wrap_fine(amg_impl *m, const cmrs_csr *A)
{
    void *dev = m->A0.dev;
    free(m->fresh_h); /* level 0 reads the caller's values again */
    m->fresh_h = NULL;
    memset(&m->A0, 0, sizeof m->A0);
    m->A0.dev = dev;
    m->A0.rows = A->rows;
    m->A0.cols = A->cols;
    m->A0.nnz = A->nnz;
    m->A0.h = *A;
}

static void fill_info(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    cmrs_pc_info *info = &pc->info;
    double rows = 0, nnz = 0;
    info->levels = m->nlev;
    for (int l = 0; l < m->nlev; ++l) {
        const cmrs_lmat *A = level_matrix(m, l);
        cmrs_pc_level_info *li = &info->level[l];
        li->rows = A->rows;
        li->nnz = A->nnz;
        li->rho = m->lev[l].rho;
        const char *f = l == 0 ? pc->be->format
                        : m->lev[l].A ? pc->be->ops->op_format(m->lev[l].A)
                                      : "?";
        if (l == m->nlev - 1 && m->lev[l].Cinv) f = "dense-inverse";
        else if (l == m->nlev - 1) f = "smoothed";
        snprintf(li->format, sizeof li->format, "%s", f);
        rows += (double)A->rows;
        nnz += (double)A->nnz;
    }
    info->grid_complexity = rows / (double)m->A0.rows;
    info->op_complexity = m->A0.nnz ? nnz / (double)m->A0.nnz : 1.0;
}

static void fine_free(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    if (m->A0.dev && bld(pc)->lmat_free_dev)
        bld(pc)->lmat_free_dev(pc->be, m->A0.dev);
    m->A0.dev = NULL;
    m->fine_kept = 0;
}

/* The builder's plans of levels l and l + 1 (level l's matrices, which
 * l + 1's A is, are about to be formed anew): made again next time, but
 * level l's only where it had one (a plan refused for its patterns would
 * be refused again: not rebuilt at every update). */
static void plans_drop(cmrs_precond *pc, int l)
{
    amg_impl *m = pc->impl;
    for (int k = l; k <= l + 1 && k < CMRS_AMG_MAX_LEVELS; ++k) {
        if (m->lev[k].sa) bld(pc)->sa_state_free(pc->be, m->lev[k].sa);
        m->lev[k].sa = NULL;
        if (k > l) m->lev[k].sa_off = 0;
    }
}

/* Level 0's device copy, from the back end's own format where it can
 * give one (no second upload of A; refilled in its arrays where level
 * 0's re-setup plan keeps it); dropped once the hierarchy is built, so
 * solves do not hold it, unless that plan reads it. A plan left without
 * its copy is dropped. */
static cmrs_code fine_on_device(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    int ok = 0, kept = m->fine_kept;
    /* (A block of the back end's matrix is not what its format holds.) */
    if (bld(pc)->lmat_own && !pc->o.fine_own_op)
        CMRS_CHECK(bld(pc)->lmat_own(pc->be, &m->A0, &ok));
    if (kept && !m->A0.dev) { /* the refill failed: the plan lost its A */
        plans_drop(pc, 0);
        m->fine_kept = 0;
    }
    return CMRS_OK;
}

/* Level 0's device copy freed, unless level 0's plan reads it (kept
 * between updates, refilled by fine_on_device). */
static void fine_release(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    if (m->lev[0].sa && m->A0.dev) {
        m->fine_kept = 1;
        return;
    }
    fine_free(pc);
}

/* Level 0's D^-1, before anything else: a bad diagonal is reported (with
 * the name of the input) before the hierarchy is built. */
static cmrs_code fine_diagonal(cmrs_precond *pc, const char *what)
{
    amg_impl *m = pc->impl;
    CMRS_CHECK(lmat_dinv(pc, &m->A0, what, &m->lev[0].dinv));
    return CMRS_OK;
}

/* Every level's setup times (info.level[].t_coarsen, t_level) zeroed:
 * a setup measures them anew, a re-setup does not measure them. */
static void level_times_clear(cmrs_precond *pc)
{
    for (int l = 0; l < CMRS_AMG_MAX_LEVELS; ++l)
        pc->info.level[l].t_coarsen = pc->info.level[l].t_level = 0;
}

/* The hierarchy's levels (coarsen() adds a level unless aggregation
 * stopped coarsening), with the builder's scratch kept between them. */
static cmrs_code levels_form(cmrs_precond *pc, double *tp)
{
    amg_impl *m = pc->impl;
    for (int l = 0; !is_coarsest(pc, l, &m->lev[l]); ++l) {
        double tl = cmrs_wtime();
        CMRS_CHECK(coarsen(pc, l, level_matrix(m, l)));
        pc->info.level[l].t_coarsen = cmrs_wtime() - tl;
        CMRS_CHECK(lprof(pc, tp, l, "coarsened (aggregation and after)"));
        if (m->nlev == l + 1) break;
    }
    return CMRS_OK;
}

static cmrs_code amg_setup_levels(cmrs_precond *pc, const cmrs_csr *A,
                                  const char *what)
{
    const cmrs_amg_builder_ops *b = pc->be->ops->amg_builder;
    const cmrs_amg_agg_method *agg = cmrs_amg_agg_method_of(pc->o.amg.agg);
    CMRS_ENSURE(b, CMRS_E_USAGE, "--precond amg does not run on the %s back "
                "end: it builds no AMG levels (use jacobi, chebyshev or none)",
                pc->be->ops->name);
    CMRS_ENSURE(agg, CMRS_E_USAGE, "amg: unknown aggregation method %d",
                (int)pc->o.amg.agg);
    amg_impl *m = calloc(1, sizeof *m);
    CMRS_ENSURE(m, CMRS_E_NOMEM, "cannot allocate the AMG hierarchy");
    pc->impl = m;
    m->b = b;
    m->agg = agg;
    m->nlev = 1;
    m->lev[0].n = A->rows;
    m->nnz_sum = (double)A->nnz;
    wrap_fine(m, A);
    level_times_clear(pc);
    double tp = 0, tall = 0;
    amg_prof_begin(&tp);
    amg_prof_begin(&tall);
    if (b->coarse_prepare) b->coarse_prepare(pc->be);
    CMRS_CHECK(fine_on_device(pc));
    CMRS_CHECK(lprof(pc, &tp, 0, "A from the back end's format"));
    CMRS_CHECK(fine_diagonal(pc, what));
    CMRS_CHECK(lprof(pc, &tp, 0, "D^-1"));
    if (b->scratch_hold) b->scratch_hold(pc->be, 1);
    cmrs_code rc = levels_form(pc, &tp);
    if (b->scratch_hold) b->scratch_hold(pc->be, 0);
    CMRS_CHECK(rc);
    CMRS_CHECK(lprof(pc, &tp, 0, "scratch released"));
    double t0 = cmrs_wtime();
    CMRS_CHECK(pc->be->ops->arr_create(pc->be, A->rows, &m->pw));
    for (int l = 0; l < m->nlev; ++l) {
        double tl = cmrs_wtime();
        CMRS_CHECK(level_ops(pc, l, level_matrix(m, l)));
        pc->info.level[l].t_level = cmrs_wtime() - tl;
    }
    CMRS_CHECK(pc->be->ops->sync(pc->be));
    fine_release(pc);
    pc->info.t_upload = cmrs_wtime() - t0;
    fill_info(pc);
    CMRS_CHECK(lprof(pc, &tp, m->nlev - 1, "levels' operators to the end"));
    CMRS_CHECK(lprof(pc, &tall, 0, "AMG setup total"));
    return CMRS_OK;
}

/* The setup inside the builder's allocation scope. */
static cmrs_code amg_setup(cmrs_precond *pc, const cmrs_csr *A,
                           const char *what)
{
    const cmrs_amg_builder_ops *b = pc->be->ops->amg_builder;
    if (b && b->alloc_scope) b->alloc_scope(pc->be, 1);
    cmrs_code rc = amg_setup_levels(pc, A, what);
    if (b && b->alloc_scope) b->alloc_scope(pc->be, 0);
    return rc;
}

static cmrs_code amg_apply(cmrs_precond *pc, const void *r, void *z)
{
    CMRS_CHECK(cmrs_amg_vcycle(pc, 0, r, z));
    return CMRS_OK;
}

/* Frozen hierarchy, level 0's rho(D^-1 A) again: the same power steps as
 * setup (same start vector, same operations: unchanged values give
 * setup's rho bit for bit) on the back end's A, which the update path
 * has already refreshed, into level 0's arrays (no allocation on the
 * GPU). Re-estimated rather than kept: the smoother's weight 4/(3 rho)
 * and Chebyshev's [0.3 rho, 1.1 rho] need rho from above, and drifting
 * values move it; power_steps SpMVs cost little next to a re-setup. */
static cmrs_code fine_rho(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[0];
    double t0 = cmrs_wtime();
    CMRS_CHECK(cmrs_pc_power_rho_in(pc->be, L->A, L->n, L->dinv,
                                    pc->o.power_steps, L->r, L->d, m->pw,
                                    &L->rho));
    pc->info.t_rho = cmrs_wtime() - t0;
    pc->info.t_coarse = 0;
    CMRS_ENSURE(L->rho > 0, CMRS_E_INPUT, "AMG level 0: rho(D^-1 A) "
                "estimated as %g after the update", L->rho);
    pc->info.level[0].rho = L->rho;
    CMRS_CHECK(cmrs_amg_smoother_scale(pc, L));
    return CMRS_OK;
}

/* amg-update frozen, host values: level 0's D^-1 from the host CSR (its
 * check names a bad diagonal), then its rho; nothing else changes. */
static cmrs_code amg_update_frozen(cmrs_precond *pc, const cmrs_csr *A,
                                   const char *what)
{
    amg_impl *m = pc->impl;
    fine_release(pc);
    wrap_fine(m, A);
    m->fine_stale = 0;
    CMRS_CHECK(cmrs_pc_inverse_diagonal(pc->be, A, what, &m->lev[0].dinv));
    CMRS_CHECK(fine_rho(pc));
    pc->moved = 0; /* level 0's arrays rewritten, the rest untouched */
    return CMRS_OK;
}

/* amg-update frozen, device values (the back end's format already holds
 * them): D^-1 by the back end's kernel (the host's arithmetic; a bad
 * diagonal flagged for update_check), rho on the device. No copy to or
 * from the host, no allocation. The host CSR that level 0 borrows is
 * stale until the API reads it back; frozen never reads it. */
static cmrs_code amg_update_frozen_d(cmrs_precond *pc, const void *values_d)
{
    amg_impl *m = pc->impl;
    CMRS_ENSURE(m->pw && pc->be->ops->dinv_d, CMRS_E_INTERNAL, "AMG: "
                "device values update without its arrays");
    CMRS_CHECK(pc->be->ops->dinv_d(pc->be, values_d, m->lev[0].dinv));
    CMRS_CHECK(fine_rho(pc));
    pc->moved = 0;
    return CMRS_OK;
}

/* Level 0's host CSR, where a device-values update left the caller's old
 * values in it (fine_stale): the back end's values read back into a
 * buffer of the hierarchy's own (fresh_h), which level 0's host copy then
 * reads; the caller's CSR keeps its values (the API refreshes it lazily,
 * and a failed update leaves it as it was). Only where a host step needs
 * level 0: a level the device path gave back to the host, a fine level
 * the back end cannot give on the device, a one-level hierarchy's coarse
 * inverse. */
static cmrs_code fine_fresh(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    if (!m->fine_stale) return CMRS_OK;
    CMRS_ENSURE(pc->be->ops->values_get, CMRS_E_INTERNAL, "AMG: stale "
                "fine level and no read-back");
    if (!m->fresh_h)
        m->fresh_h = cmrs_malloc_array((size_t)m->A0.nnz, sizeof *m->fresh_h);
    CMRS_ENSURE(m->fresh_h, CMRS_E_NOMEM, "cannot allocate %lld values",
                (long long)m->A0.nnz);
    CMRS_CHECK(pc->be->ops->values_get(pc->be, m->fresh_h));
    m->A0.h.values = m->fresh_h;
    m->fine_stale = 0;
    return CMRS_OK;
}

/* Level l's P, R (smoothed P depends on the values; the tentative P does
 * not and stays) and A_{l+1} formed again from the new A_l, as setup
 * formed them: on the device by sa_level where it can, else the host. */
static cmrs_code form_level(cmrs_precond *pc, int l)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    cmrs_lmat *Al = level_matrix(m, l);
    int done = 0;
    if (pc->o.amg.smooth_p && bld(pc)->sa_level)
        CMRS_CHECK(device_level(pc, L, Al, &C->Am, &done));
    if (!done && l == 0) CMRS_CHECK(fine_fresh(pc));
    if (!done && pc->o.amg.smooth_p)
        CMRS_CHECK(level_transfer(pc, L, Al));
    if (!done) CMRS_CHECK(galerkin(pc, L, Al, &C->Am));
    return CMRS_OK;
}

/* Tests: CMRS_TEST_FAIL_AMG_RESETUP=l fails the in-place re-setup at
 * level l once its new matrices are formed, as an allocation failure half
 * way would (everything made so far must be freed by the destroy). */
static cmrs_code injected_failure(int l)
{
    const char *e = getenv("CMRS_TEST_FAIL_AMG_RESETUP");
    if (!e || atoi(e) != l) return CMRS_OK;
    CMRS_FAIL(CMRS_E_NOMEM, "AMG re-setup, level %d: cannot allocate "
              "(injected: CMRS_TEST_FAIL_AMG_RESETUP)", l);
}

/* op takes the values of M, which has the pattern (same order) op was
 * made from, in its own buffers; a format with no value store is made
 * again from M. *kept = 0 unless op stayed where it was with only its
 * values rewritten. */
static cmrs_code values_into(cmrs_precond *pc, cmrs_op **op, cmrs_lmat *M,
                             int *kept)
{
    cmrs_backend *be = pc->be;
    int done = 0, in_place = 0;
    if (*op) CMRS_CHECK(bld(pc)->op_update(be, *op, M, &done, &in_place));
    *kept = *kept && done && in_place;
    if (done) return CMRS_OK;
    be->ops->op_destroy(be, *op);
    *op = NULL;
    CMRS_CHECK(lmat_op(pc, M, op));
    return CMRS_OK;
}

/* op, made from `old`, refreshed from the new M: its values where M has
 * old's pattern in the same order (lmat_same), else made again. */
static cmrs_code refresh_op(cmrs_precond *pc, cmrs_op **op,
                            const cmrs_lmat *old, cmrs_lmat *M, int *kept)
{
    cmrs_backend *be = pc->be;
    int same = 0;
    CMRS_CHECK(bld(pc)->lmat_same(be, old, M, &same));
    if (same) {
        CMRS_CHECK(values_into(pc, op, M, kept));
        return CMRS_OK;
    }
    be->ops->op_destroy(be, *op);
    *op = NULL;
    *kept = 0;
    CMRS_CHECK(lmat_op(pc, M, op));
    return CMRS_OK;
}

/* A level matrix whose device values were rewritten: its host copy (if a
 * host step made one) is stale, and made again when next needed. */
static void drop_host(cmrs_lmat *M)
{
    cmrs_csr_free(&M->h);
    memset(&M->h, 0, sizeof M->h);
}

/* Level l through the back end's kept plan (sa_again): P, R and A_c of
 * setup rewritten in their own device arrays, then into the operators.
 * *done = 0: no plan (setup kept a product on the host, the plan's
 * products came out in another order) or a row the host would keep
 * tentative; the level is then formed from scratch (and a missing plan
 * not tried again until then). Tests: CMRS_TEST_AMG_NO_PLAN=1 forms every
 * level from scratch (with the aggregates fetched from the device). */
static cmrs_code level_reuse(cmrs_precond *pc, int l, int *kept, int *done)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    cmrs_backend *be = pc->be;
    *done = 0;
    const char *no_plan = getenv("CMRS_TEST_AMG_NO_PLAN");
    if (no_plan && strcmp(no_plan, "0") != 0) return CMRS_OK;
    if (!pc->o.amg.smooth_p || !bld(pc)->sa_again || L->sa_off)
        return CMRS_OK;
    /* level 0's device copy is kept for the plan (fine_release); without
     * one (single precision) the plan keeps its own, from the host */
    int own_a = l == 0 && !m->A0.dev;
    CMRS_CHECK(bld(pc)->sa_again(be, &L->sa, level_matrix(m, l), own_a,
                                 L->agg, L->agg_dev, L->naggs, &pc->o.amg, &L->Pm,
                                 &L->Rm, &C->Am, done));
    if (!*done) {
        L->sa_off = L->sa == NULL;
        return CMRS_OK;
    }
    drop_host(&L->Pm);
    drop_host(&L->Rm);
    drop_host(&C->Am);
    CMRS_CHECK(injected_failure(l));
    CMRS_CHECK(values_into(pc, &L->P, &L->Pm, kept));
    CMRS_CHECK(values_into(pc, &L->R, &L->Rm, kept));
    CMRS_CHECK(values_into(pc, &C->A, &C->Am, kept));
    return CMRS_OK;
}

/* Level l's transfer operators and A_{l+1} formed again, their operators
 * refreshed in place: through the back end's plan where it has one, else
 * formed from scratch (the matrices the operators were made from compared
 * with the new ones, then freed). */
static cmrs_code level_again(cmrs_precond *pc, int l, int *kept)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
    cmrs_code rc = CMRS_OK;
    int smooth = pc->o.amg.smooth_p;
    cmrs_lmat old[3]; /* P, R (smoothed only), A_{l+1} */
    int reused = 0;
    CMRS_CHECK(level_reuse(pc, l, kept, &reused));
    if (reused) return CMRS_OK;
    plans_drop(pc, l);
    memset(old, 0, sizeof old);
    if (smooth) {
        old[0] = L->Pm, old[1] = L->Rm;
        memset(&L->Pm, 0, sizeof L->Pm);
        memset(&L->Rm, 0, sizeof L->Rm);
    }
    old[2] = C->Am;
    memset(&C->Am, 0, sizeof C->Am);
    CMRS_TRY(form_level(pc, l));
    CMRS_TRY(injected_failure(l));
    if (smooth) {
        CMRS_TRY(refresh_op(pc, &L->P, &old[0], &L->Pm, kept));
        CMRS_TRY(refresh_op(pc, &L->R, &old[1], &L->Rm, kept));
    }
    CMRS_TRY(refresh_op(pc, &C->A, &old[2], &C->Am, kept));
done:
    for (int i = 0; i < 3; ++i) cmrs_lmat_free(pc->be, &old[i]);
    return rc;
}

/* The coarsest level again: its dense inverse written into the operator
 * it had (a new one where it had none, or the format has no value store;
 * none when A_c is no longer numerically SPD: smoothing then). */
static cmrs_code coarsest_again(cmrs_precond *pc, amg_level *L,
                                cmrs_lmat *Am, int *kept)
{
    cmrs_backend *be = pc->be;
    cmrs_code rc = CMRS_OK;
    cmrs_csr M = {0};
    int spd = 0, done = 0, in_place = 0;
    if (!L->Cinv) {
        CMRS_CHECK(coarsest(pc, L, Am));
        *kept = *kept && !L->Cinv;
        return CMRS_OK;
    }
    if (bld(pc)->coarse_update) { /* on the device, into the operator */
        if (!Am->dev) CMRS_CHECK(cmrs_lmat_host(be, Am)); /* small */
        CMRS_CHECK(bld(pc)->coarse_update(be, Am, L->Cinv, &spd, &done,
                                          &in_place));
    }
    if (done && !spd) { /* no longer SPD: smoothing solves it */
        be->ops->op_destroy(be, L->Cinv);
        L->Cinv = NULL;
        *kept = 0;
        return CMRS_OK;
    }
    if (done) {
        *kept = *kept && in_place;
        return CMRS_OK;
    }
    CMRS_TRY(coarse_inverse(pc, L, Am, &M, &spd));
    if (spd) {
        cmrs_lmat W = {M.rows, M.cols, M.nnz, M, NULL};
        CMRS_TRY(bld(pc)->op_update(be, L->Cinv, &W, &done, &in_place));
    }
    *kept = *kept && done && in_place;
    if (done) goto done;
    be->ops->op_destroy(be, L->Cinv);
    L->Cinv = NULL;
    if (spd) CMRS_TRY(be->ops->op_create(be, &M, COARSE_FORMAT, &L->Cinv));
done:
    cmrs_csr_free(&M);
    return rc;
}

/* amg-update full on a back end that updates operators in place (the
 * GPU): the aggregates and every level's operators, vectors and D^-1
 * arrays stay; P, R, A_c formed again and written into the operators
 * made from them (same patterns), D^-1 rewritten, rho and the smoothers'
 * scaling redone, the coarse inverse refactored into its operator. pc->
 * moved = 0 when every operator stayed: the engines' graphs are kept.
 * Level 0's D^-1 is already made (fine_diagonal or dinv_d). */
static cmrs_code resetup_in_place(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    int kept = 1, last = m->nlev - 1;
    for (int l = 0; l < last; ++l) CMRS_CHECK(level_again(pc, l, &kept));
    for (int l = 0; l <= last; ++l)
        CMRS_CHECK(level_arrays(pc, l, level_matrix(m, l)));
    if (last == 0) CMRS_CHECK(fine_fresh(pc));
    double t0 = cmrs_wtime();
    CMRS_CHECK(coarsest_again(pc, &m->lev[last], level_matrix(m, last),
                              &kept));
    pc->info.t_coarse += cmrs_wtime() - t0;
    pc->moved = !kept;
    return CMRS_OK;
}

/* amg-update full where operators cannot take values (the CPU): every
 * level's operators made again in their formats. */
static cmrs_code resetup_rebuild(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    cmrs_backend *be = pc->be;
    for (int l = 0; l + 1 < m->nlev; ++l) {
        amg_level *L = &m->lev[l], *C = &m->lev[l + 1];
        CMRS_CHECK(form_level(pc, l));
        be->ops->op_destroy(be, C->A);
        be->ops->op_destroy(be, L->P);
        be->ops->op_destroy(be, L->R);
        C->A = L->P = L->R = NULL;
    }
    for (int l = 0; l < m->nlev; ++l)
        CMRS_CHECK(level_ops(pc, l, level_matrix(m, l)));
    pc->moved = 1;
    return CMRS_OK;
}

static cmrs_code resetup(cmrs_precond *pc)
{
    pc->info.t_rho = pc->info.t_coarse = 0; /* of this re-setup */
    level_times_clear(pc); /* setup's, not this re-setup's */
    if (bld(pc)->op_update && bld(pc)->lmat_same)
        CMRS_CHECK(resetup_in_place(pc));
    else
        CMRS_CHECK(resetup_rebuild(pc));
    fine_release(pc);
    fill_info(pc);
    return CMRS_OK;
}

/* amg-update full, device values: level 0's device copy from the back
 * end's format (already updated), its D^-1 by the back end's kernel (a
 * bad diagonal flagged for update_check), then the re-setup; the host
 * CSR level 0 borrows is read back only where a host step needs it
 * (fine_fresh). Where the format cannot give its CSR on the device
 * (single precision, formats with no csr_get_d), level 0 goes up from
 * the host: read back first. */
static cmrs_code amg_update_full_d(cmrs_precond *pc, const void *values_d)
{
    amg_impl *m = pc->impl;
    fine_release(pc); /* an update that failed half way */
    m->fine_stale = 1;
    CMRS_CHECK(fine_on_device(pc));
    if (!m->A0.dev) CMRS_CHECK(fine_fresh(pc));
    CMRS_CHECK(pc->be->ops->dinv_d(pc->be, values_d, m->lev[0].dinv));
    CMRS_CHECK(resetup(pc));
    return CMRS_OK;
}

static cmrs_code amg_update_d(cmrs_precond *pc, const void *values_d,
                              const char *what)
{
    (void)what;
    CMRS_ENSURE(pc->be->ops->dinv_d, CMRS_E_INTERNAL, "AMG: device values "
                "update on a back end without one");
    if (pc->o.amg_update == CMRS_AMG_UPDATE_FROZEN)
        return amg_update_frozen_d(pc, values_d);
    CMRS_CHECK(amg_update_full_d(pc, values_d));
    return CMRS_OK;
}

/* Same pattern, new values: the aggregates stay; P (smoothed P depends on
 * the values), R, the Galerkin operators, D^-1, rho and the coarse inverse
 * are formed again (by the back end's sa_level where it has one), in
 * place where the back end can (resetup). */
static cmrs_code amg_update(cmrs_precond *pc, const cmrs_csr *A,
                            const char *what)
{
    amg_impl *m = pc->impl;
    CMRS_ENSURE(!pc->o.fine_own_op, CMRS_E_INTERNAL, "amg: a hierarchy on "
                "a block of the back end's matrix is made again, not updated");
    if (pc->o.amg_update == CMRS_AMG_UPDATE_FROZEN)
        return amg_update_frozen(pc, A, what);
    fine_release(pc); /* an update that failed half way */
    wrap_fine(m, A);
    m->fine_stale = 0;
    CMRS_CHECK(fine_on_device(pc));
    CMRS_CHECK(fine_diagonal(pc, what));
    CMRS_CHECK(resetup(pc));
    return CMRS_OK;
}

static void level_free(cmrs_backend *be, const cmrs_amg_builder_ops *b,
                       amg_level *L)
{
    const cmrs_backend_ops *f = be->ops;
    if (L->sa) b->sa_state_free(be, L->sa);
    cmrs_lmat_free(be, &L->Am);
    cmrs_lmat_free(be, &L->Pm);
    cmrs_lmat_free(be, &L->Rm);
    free(L->agg);
    cmrs_amg_level_agg_dev_free(be, b, L);
    f->op_destroy(be, L->A);
    f->op_destroy(be, L->P);
    f->op_destroy(be, L->R);
    f->op_destroy(be, L->Cinv);
    f->arr_destroy(be, L->dinv);
    f->arr_destroy(be, L->b);
    f->arr_destroy(be, L->x);
    f->arr_destroy(be, L->r);
    f->arr_destroy(be, L->d);
}

static void amg_destroy(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    if (!m) return;
    for (int l = 0; l < CMRS_AMG_MAX_LEVELS; ++l)
        level_free(pc->be, m->b, &m->lev[l]);
    fine_free(pc); /* a setup that failed half way, level 0's plan's copy */
    free(m->fresh_h);
    pc->be->ops->arr_destroy(pc->be, m->pw);
    free(m);
}

/* Seconds of `reps` V-cycles from level l down, per cycle. */
static cmrs_code time_from(cmrs_precond *pc, int l, const void *b, void *x,
                           int reps, double *t)
{
    CMRS_CHECK(cmrs_amg_vcycle(pc, l, b, x)); /* warm-up */
    CMRS_CHECK(pc->be->ops->sync(pc->be));
    double t0 = cmrs_wtime();
    for (int k = 0; k < reps; ++k) CMRS_CHECK(cmrs_amg_vcycle(pc, l, b, x));
    CMRS_CHECK(pc->be->ops->sync(pc->be));
    *t = (cmrs_wtime() - t0) / reps;
    return CMRS_OK;
}

/* Level l's share = the cycle from l down minus the cycle from l + 1 (its
 * time, and its bytes: cmrs_amg_cycle_bytes), and the copy bandwidth that
 * turns bytes into the floor. The level-0 input and output are scratch
 * arrays (zeros: the time does not depend on the values). */
static cmrs_code amg_profile(cmrs_precond *pc, int reps)
{
    amg_impl *m = pc->impl;
    cmrs_backend *be = pc->be;
    cmrs_code rc = CMRS_OK;
    void *b0 = NULL, *x0 = NULL;
    double below = 0, t = 0;
    CMRS_TRY(be->ops->arr_create(be, be->n, &b0));
    CMRS_TRY(be->ops->arr_create(be, be->n, &x0));
    double bytes_below = 0;
    for (int l = m->nlev - 1; l >= 0; --l) {
        CMRS_TRY(time_from(pc, l, l ? m->lev[l].b : b0,
                           l ? m->lev[l].x : x0, reps, &t));
        pc->info.level[l].t_apply = t > below ? t - below : 0.0;
        below = t;
        double bytes = cmrs_amg_cycle_bytes(pc, l);
        pc->info.level[l].bytes = bytes - bytes_below;
        bytes_below = bytes;
    }
    pc->info.copy_bw = 0;
    if (be->ops->copy_bandwidth)
        CMRS_TRY(be->ops->copy_bandwidth(be, &pc->info.copy_bw));
done:
    be->ops->arr_destroy(be, b0);
    be->ops->arr_destroy(be, x0);
    return rc;
}

/* Level 0's D^-1 is the first thing both device updates write (scaled
 * by rho afterwards). */
static void *amg_update_dinv(const cmrs_precond *pc)
{
    const amg_impl *m = pc->impl;
    return pc->o.fine_own_op || m->nlev == 0 ? NULL : m->lev[0].dinv;
}

const cmrs_precond_ops cmrs_pc_amg_ops = {
    .name = "amg",
    .setup = amg_setup,
    .apply = amg_apply,
    .update_values = amg_update,
    .destroy = amg_destroy,
    .profile = amg_profile,
    .update_values_d = amg_update_d,
    .update_dinv = amg_update_dinv,
};
