/* Preconditioned conjugate gradients (Hestenes-Stiefel, as in Saad,
 * "Iterative Methods for Sparse Linear Systems", Alg. 9.1), written once
 * over the back-end ops. Host-synchronised: alpha and beta come back to the
 * host each iteration (two dots and one norm per iteration).
 *
 * Breakdown: p'Ap <= 0 means A is not positive definite along p (indefinite
 * or singular A); r'z <= 0 means the preconditioner is not SPD. */
#include "krylov.h"

enum { R, P, Q, Z };

int cmrs_cg_work_count(cmrs_pc pc) { return pc == CMRS_PC_NONE ? 3 : 4; }

/* p'Ap, or the reason the iteration cannot go on. */
static cmrs_code curvature(cmrs_ksp *s, double *pq, cmrs_ksp_reason *reason)
{
    cmrs_backend *be = s->be;
    CMRS_CHECK(be->ops->spmv(be, 1.0, s->w[P], 0.0, s->w[Q]));
    CMRS_CHECK(be->ops->dot(be, s->w[P], s->w[Q], pq));
    *reason = cmrs_krylov_finite(1, pq);
    if (*reason == CMRS_ITERATING && !(*pq > 0))
        *reason = CMRS_DIVERGED_BREAKDOWN;
    return CMRS_OK;
}

/* z = M^-1 r and rz = r'z, checked positive. */
static cmrs_code precond_dot(cmrs_ksp *s, cmrs_vec **z, double *rz,
                             cmrs_ksp_reason *reason)
{
    cmrs_backend *be = s->be;
    CMRS_CHECK(cmrs_krylov_precond(s, s->w[R], s->w[Z], z));
    CMRS_CHECK(be->ops->dot(be, s->w[R], *z, rz));
    *reason = cmrs_krylov_finite(1, rz);
    if (*reason == CMRS_ITERATING && !(*rz > 0))
        *reason = CMRS_DIVERGED_BREAKDOWN;
    return CMRS_OK;
}

cmrs_code cmrs_cg_iterate(cmrs_ksp *s, cmrs_ksp_result *res)
{
    cmrs_backend *be = s->be;
    cmrs_vec *z = NULL;
    double rnorm, rz, pq, rz_new;
    cmrs_ksp_reason reason;
    int64_t k = 0;
    CMRS_CHECK(cmrs_krylov_start(s, s->w[R], &rnorm, &reason));
    if (reason == CMRS_ITERATING)
        CMRS_CHECK(precond_dot(s, &z, &rz, &reason));
    if (reason == CMRS_ITERATING) CMRS_CHECK(be->ops->copy(be, z, s->w[P]));
    /* k counts completed iterations: history entries 0..k are recorded. */
    while (reason == CMRS_ITERATING && k < s->o.maxiter) {
        CMRS_CHECK(curvature(s, &pq, &reason));
        if (reason != CMRS_ITERATING) break;
        double alpha = rz / pq;
        CMRS_CHECK(be->ops->axpy(be, alpha, s->w[P], s->x));
        CMRS_CHECK(be->ops->axpy(be, -alpha, s->w[Q], s->w[R]));
        CMRS_CHECK(cmrs_krylov_record(s, s->w[R], ++k, &rnorm, &reason));
        if (reason != CMRS_ITERATING) break;
        CMRS_CHECK(precond_dot(s, &z, &rz_new, &reason));
        if (reason != CMRS_ITERATING) break;
        CMRS_CHECK(be->ops->xpby(be, z, rz_new / rz, s->w[P]));
        rz = rz_new;
    }
    res->reason = reason == CMRS_ITERATING ? CMRS_DIVERGED_MAXITS : reason;
    res->iterations = k;
    res->res_norm = rnorm;
    return CMRS_OK;
}

static cmrs_code apply_pc(void *pc, const void *r, void *z)
{
    return cmrs_precond_apply(pc, r, z);
}

/* The same recurrence run by the back end itself (its cg_loop: the fused
 * engine's kernels on every GPU part), from r = b - A x0 queued here; the
 * monitor sees the history afterwards. Jacobi goes inline (dinv); amg and
 * chebyshev are applied between the loop's steps (precond). */
cmrs_code cmrs_cg_backend_loop(cmrs_ksp *s, cmrs_ksp_result *res)
{
    cmrs_backend *be = s->be;
    int none = s->o.pc == CMRS_PC_NONE, inline_pc = s->pc && s->pc->dinv;
    CMRS_CHECK(cmrs_krylov_residual0(s, s->w[R]));
    cmrs_cg_loop_io io = {
        .x = s->x, .r = s->w[R], .p = s->w[P], .q = s->w[Q],
        .z = none ? NULL : s->w[Z],
        .dinv = inline_pc ? s->pc->dinv : NULL,
        .precond = none || inline_pc ? NULL : apply_pc,
        .precond_ctx = none || inline_pc ? NULL : s->pc,
        .rtol_b = s->o.rtol * s->bnorm, .atol = s->o.atol,
        .maxiter = s->o.maxiter,
        .check_every = cmrs_ksp_check_every(&s->o)};
    CMRS_CHECK(be->ops->cg_loop(be, &io));
    res->reason = (cmrs_ksp_reason)io.reason;
    res->iterations = io.iterations;
    res->res_norm = io.res_norm;
    if (!s->o.monitor) return CMRS_OK;
    CMRS_CHECK(be->ops->history_get(be, io.iterations + 1, s->history_h));
    for (int64_t k = 0; k <= io.iterations; ++k)
        s->o.monitor(s->o.monitor_ctx, k, s->history_h[k] / s->bnorm);
    return CMRS_OK;
}
