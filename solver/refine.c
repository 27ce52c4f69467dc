/* --precision mixed with --mixed refine: single-precision solves inside
 * double iterative refinement (krylov.h); --mixed values: the same
 * refinement around double solves whose matrix holds A's values in float
 * (cmrs_spmv_opts.values32: 8 instead of 12 bytes per entry, row sums
 * kept, so the operator stays within float's epsilon of A in A's own
 * norm and the inner solve may aim at the target at once); its CG, on
 * the graph and fused engines, replaces its recursive residual by the
 * true one now and then (reliable updates, devloop.c), so one cycle
 * reaches the target where the float values' own solution would not.
 * Each cycle computes the true residual r = b - A x in double on the
 * back end, solves A d = r / ||r|| in single precision on a twin of the
 * back end (its own float copy of A,
 * the same stream, the same method, preconditioner and engine) to the
 * relative tolerance the cycle needs, and adds ||r|| d to x in double.
 *
 * Why: a single-precision iteration moves about 60% of a double one's
 * bytes (4-byte values and vectors) while x and the residual that decides
 * convergence stay in double, so the answer meets the same true-residual
 * test. The price is a restart per cycle; a cycle that fails to reduce the
 * true residual (a system too ill-conditioned for float) hands the rest of
 * the solve to the double loop from the x reached. */
#include <math.h>
#include <stdlib.h>

#include "solver/engine/engines.h"
#include "solver.h"

/* The first cycle is a probe: its inner solve asked for this relative
 * tolerance, it must cut the true residual by REFINE_PROBE_GAIN, else
 * float cannot hold A accurately enough (condition times float's epsilon
 * near 1: the generated vessels, the FEM case) and the rest runs in
 * double, having cost a fraction of the solve. CMRS_REFINE_RTOL
 * overrides the probe's tolerance (measurements). */
#define REFINE_PROBE_RTOL 1e-3
#define REFINE_PROBE_GAIN 1e-2
/* The later cycles' inner tolerance where float keeps up: float's
 * recurrences drift from the true residual near 1e-6 (CG, BiCGStab). */
#define REFINE_INNER_RTOL 1e-5
/* A later cycle must cut the true residual at least this much, else the
 * rest runs in double. */
#define REFINE_MIN_GAIN 0.5
/* Aim below the target: the float solution's rounding lifts the true
 * residual a little above the inner recurrence's. */
#define REFINE_MARGIN 0.5

struct cmrs_refine {
    cmrs_backend *twin; /* single precision (values: double vectors over
                           float values), on the back end's stream */
    cmrs_prec prec;     /* the twin's vectors' */
    double floor;       /* later cycles' inner rtol (REFINE_INNER_RTOL;
                           values: 0, the target) */
    double probe_gain;  /* what the first cycle must gain
                           (REFINE_PROBE_GAIN; values: REFINE_MIN_GAIN) */
    cmrs_ksp *inner;    /* the float solve, on the twin */
    cmrs_vec *b_f;      /* twin vector: r / ||r|| */
    cmrs_vec *saved;    /* back-end vector: x0 kept during a fallback */
    double probe;       /* the probe's inner rtol (REFINE_PROBE_RTOL) */
    cmrs_ksp *outer;    /* for the monitor shim */
    double scale;       /* ||r|| / ||b|| of the running cycle */
    int64_t base;       /* iterations before the running cycle */
};

/* The inner monitor, in the outer's terms (relative to the outer b). */
static void inner_monitor(void *ctx, int64_t k, double rel)
{
    struct cmrs_refine *R = ctx;
    const cmrs_ksp *s = R->outer;
    if (k > 0) s->o.monitor(s->o.monitor_ctx, R->base + k, rel * R->scale);
}

/* s's back end is double with twins: resolve_mixed (solver.c) saw to it. */
cmrs_code cmrs_refine_create(cmrs_ksp *s)
{
    cmrs_backend *be = s->be;
    struct cmrs_refine *R = calloc(1, sizeof *R);
    CMRS_ENSURE(R, CMRS_E_NOMEM, "cannot allocate the refinement");
    s->refine = R;
    R->outer = s;
    const int values = s->o.mixed == CMRS_MIXED_VALUES;
    R->prec = values ? CMRS_PREC_DOUBLE : CMRS_PREC_SINGLE;
    R->floor = values ? 0.0 : REFINE_INNER_RTOL;
    const char *probe = getenv("CMRS_REFINE_RTOL");
    R->probe_gain = values ? REFINE_MIN_GAIN : REFINE_PROBE_GAIN;
    R->probe = probe ? atof(probe) : values ? 0.0 : REFINE_PROBE_RTOL;
    CMRS_ENSURE(!probe || (R->probe > 0 && R->probe < 1), CMRS_E_USAGE,
                "CMRS_REFINE_RTOL '%s' is not in (0, 1)", probe ? probe : "");
    CMRS_CHECK(be->ops->twin_create(be, s->A, R->prec, values, &R->twin));
    cmrs_ksp_opts o = s->o;
    o.mixed = CMRS_MIXED_OFF;
    o.monitor = s->o.monitor ? inner_monitor : NULL;
    o.monitor_ctx = R;
    CMRS_CHECK(cmrs_ksp_create(R->twin, s->A, &o, s->what, &R->inner));
    R->inner->no_true = 1;
    /* values: the inner CG replaces its residual by the true one (A in
     * double, on be) now and then instead of restarting (devloop.c) */
    if (values) R->inner->true_be = be;
    CMRS_CHECK(R->twin->ops->vec_create(R->twin, &R->b_f));
    CMRS_CHECK(be->ops->vec_create(be, &R->saved));
    return CMRS_OK;
}

void cmrs_refine_free(cmrs_ksp *s)
{
    struct cmrs_refine *R = s->refine;
    if (!R) return;
    if (R->twin) {
        cmrs_ksp_destroy(R->inner);
        R->twin->ops->vec_destroy(R->twin, R->b_f);
        cmrs_backend_destroy(R->twin);
    }
    s->be->ops->vec_destroy(s->be, R->saved);
    free(R);
    s->refine = NULL;
}

cmrs_code cmrs_refine_update_values(cmrs_ksp *s, const cmrs_csr *A)
{
    CMRS_CHECK(cmrs_ksp_update_values(s->refine->inner, A));
    return CMRS_OK;
}

/* r = b - A x in double; *rnorm its norm, recorded as history entry k. */
static cmrs_code true_residual(cmrs_ksp *s, cmrs_vec *r, int64_t k,
                               double *rnorm)
{
    CMRS_CHECK(cmrs_krylov_residual(s, r));
    CMRS_CHECK(s->be->ops->nrm2(s->be, r, rnorm));
    s->history_h[k] = *rnorm;
    if (s->o.monitor) s->o.monitor(s->o.monitor_ctx, k, *rnorm / s->bnorm);
    return CMRS_OK;
}

/* One cycle: d from the float solve of A d = r / rnorm to relative
 * tolerance tau (or what the target needs, if less), x += rnorm d.
 * *its: its iterations; *reason: the inner one's. */
static cmrs_code cycle(cmrs_ksp *s, cmrs_vec *r, double rnorm, double tau,
                       int64_t done, int64_t *its, cmrs_ksp_reason *reason)
{
    struct cmrs_refine *R = s->refine;
    cmrs_backend *be = s->be;
    cmrs_ksp *in = R->inner;
    double target = fmax(s->o.rtol * s->bnorm, s->o.atol);
    CMRS_CHECK(be->ops->arr_cast(be, be->n, 1.0 / rnorm, r->data,
                                 CMRS_PREC_DOUBLE, R->b_f->data, R->prec));
    CMRS_CHECK(cmrs_ksp_set_rhs_vec(in, R->b_f, NULL));
    in->o.rtol = fmax(tau, REFINE_MARGIN * target / rnorm);
    in->o.atol = 0.0;
    in->o.maxiter = s->o.maxiter - done;
    R->scale = rnorm / s->bnorm;
    R->base = done;
    cmrs_ksp_result ir;
    CMRS_CHECK(cmrs_ksp_solve(in, &ir));
    /* The inner history (relative to ||b_f|| ~ 1) as the outer's. */
    for (int64_t k = 1; k <= ir.iterations; ++k)
        s->history_h[done + k] = ir.history[k] * ir.bnorm * rnorm;
    *its = ir.iterations;
    *reason = ir.reason;
    if (ir.reason == CMRS_DIVERGED_NANORINF) return CMRS_OK; /* x kept */
    CMRS_CHECK(be->ops->arr_cast(be, be->n, rnorm, cmrs_ksp_x(in)->data,
                                 R->prec, r->data, CMRS_PREC_DOUBLE));
    CMRS_CHECK(be->ops->axpy(be, 1.0, r, s->x));
    return CMRS_OK;
}

/* The rest of the solve in double from the x reached: x0 set to it for
 * the loop (by value: captured graphs hold x0's address), restored
 * after; the loop's own history appended. */
static cmrs_code fallback(cmrs_ksp *s, int64_t done, cmrs_ksp_result *res)
{
    struct cmrs_refine *R = s->refine;
    cmrs_backend *be = s->be;
    CMRS_CHECK(be->ops->copy(be, s->x0, R->saved));
    CMRS_CHECK(be->ops->copy(be, s->x, s->x0));
    int64_t maxiter = s->o.maxiter;
    s->o.maxiter = maxiter - done;
    cmrs_ksp_result fr = {0};
    cmrs_code rc = cmrs_ksp_loop(s, &fr);
    s->o.maxiter = maxiter;
    CMRS_CHECK(rc);
    CMRS_CHECK(be->ops->copy(be, R->saved, s->x0));
    CMRS_CHECK(be->ops->history_get(be, fr.iterations + 1,
                                    s->history_h + done));
    res->iterations = done + fr.iterations;
    res->reason = fr.reason;
    res->res_norm = fr.res_norm;
    return CMRS_OK;
}

/* After a cycle that asked for tau and cut the true residual by gain:
 * whether refinement goes on, and the next cycle's tolerance. A cycle
 * gains at most what float's rounding of A allows (about float's epsilon
 * times A's condition): where it fell short of tau by far, asking the
 * next one for more than that gain would only add iterations. */
static int next_tau(const struct cmrs_refine *R, int64_t cycles, double gain,
                    double *tau)
{
    double need = cycles == 1 ? R->probe_gain : REFINE_MIN_GAIN;
    if (!(gain <= need)) return 0;
    *tau = gain > 10 * *tau ? fmax(*tau, REFINE_MARGIN * gain) : R->floor;
    return 1;
}

cmrs_code cmrs_refine_solve(cmrs_ksp *s, cmrs_ksp_result *res)
{
    cmrs_backend *be = s->be;
    cmrs_vec *r = s->w[0];
    int64_t done = 0;
    double rnorm = 0, last = 0, tau = s->refine->probe;
    CMRS_CHECK(be->ops->copy(be, s->x0, s->x));
    for (;;) {
        CMRS_CHECK(true_residual(s, r, done, &rnorm));
        res->iterations = done;
        res->res_norm = rnorm;
        res->reason = cmrs_krylov_test(s, rnorm);
        if (res->reason != CMRS_ITERATING) return CMRS_OK;
        if (done >= s->o.maxiter) {
            res->reason = CMRS_DIVERGED_MAXITS;
            return CMRS_OK;
        }
        if (res->cycles > 0 &&
            !next_tau(s->refine, res->cycles, rnorm / last, &tau))
            break;
        last = rnorm;
        int64_t its = 0;
        cmrs_ksp_reason inner = CMRS_ITERATING;
        CMRS_CHECK(cycle(s, r, rnorm, tau, done, &its, &inner));
        done += its;
        res->cycles++;
        res->reliable += s->refine->inner->reliable;
        if (inner == CMRS_DIVERGED_BREAKDOWN ||
            inner == CMRS_DIVERGED_NANORINF)
            last = 0; /* float gave up: rnorm / 0 hands over */
    }
    return fallback(s, done, res);
}
