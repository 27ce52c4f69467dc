/* Right-preconditioned BiCGStab (van der Vorst 1992; Saad Alg. 7.7 with
 * M^-1 applied to p and s), written once over the back-end ops.
 *
 * x is updated with alpha*phat as soon as alpha is known, so phat and shat
 * share one work vector, and r is overwritten by s. The history gets one
 * entry per full iteration (||s|| when the half step already converged).
 *
 * Breakdowns (relative to the precision's epsilon, since exact zeros are
 * rare in floating point):
 *   rho   = r_hat'r with |rho| <= eps ||r_hat|| ||r||  (r has become
 *           orthogonal to the shadow residual: the Lanczos process stops);
 *   r_hat'v == 0 (alpha undefined);
 *   omega = t's/t't with t't == 0 or |t's| <= eps ||t|| ||s|| (the
 *           stabilising step makes no progress: typical of a singular or
 *           strongly indefinite A). */
#include <math.h>

#include "krylov.h"

enum { R, RHAT, P, V, T, Z };

int cmrs_bicgstab_work_count(cmrs_pc pc)
{
    return pc == CMRS_PC_NONE ? 5 : 6;
}

typedef struct bcg {
    double rho, alpha, omega;
    double rnorm, rhat_norm;
    int64_t k; /* completed iterations */
    cmrs_ksp_reason reason;
} bcg;

/* Sets reason unless v is finite and |v| > tol. */
static void guard(bcg *st, double v, double tol)
{
    st->reason = cmrs_krylov_finite(1, &v);
    if (st->reason == CMRS_ITERATING && !(fabs(v) > tol))
        st->reason = CMRS_DIVERGED_BREAKDOWN;
}

/* rho = r_hat'r; p = r (first) or p = r + beta (p - omega v). */
static cmrs_code direction(cmrs_ksp *s, bcg *st)
{
    cmrs_backend *be = s->be;
    double rho;
    CMRS_CHECK(be->ops->dot(be, s->w[RHAT], s->w[R], &rho));
    guard(st, rho, be->eps * st->rhat_norm * st->rnorm);
    if (st->reason != CMRS_ITERATING) return CMRS_OK;
    if (st->k == 0) {
        CMRS_CHECK(be->ops->copy(be, s->w[R], s->w[P]));
    } else {
        double beta = (rho / st->rho) * (st->alpha / st->omega);
        CMRS_CHECK(be->ops->axpy(be, -st->omega, s->w[V], s->w[P]));
        CMRS_CHECK(be->ops->xpby(be, s->w[R], beta, s->w[P]));
    }
    st->rho = rho;
    return CMRS_OK;
}

/* v = A M^-1 p, alpha = rho / r_hat'v, x += alpha M^-1 p, r = s = r - alpha
 * v. Ends the iteration (reason set) when ||s|| already converged. */
static cmrs_code half_step(cmrs_ksp *s, bcg *st)
{
    cmrs_backend *be = s->be;
    cmrs_vec *phat;
    double rv, snorm;
    CMRS_CHECK(cmrs_krylov_precond(s, s->w[P], s->w[Z], &phat));
    CMRS_CHECK(be->ops->spmv(be, 1.0, phat, 0.0, s->w[V]));
    CMRS_CHECK(be->ops->dot(be, s->w[RHAT], s->w[V], &rv));
    guard(st, rv, 0.0);
    if (st->reason != CMRS_ITERATING) return CMRS_OK;
    st->alpha = st->rho / rv;
    CMRS_CHECK(be->ops->axpy(be, st->alpha, phat, s->x));
    CMRS_CHECK(be->ops->axpy(be, -st->alpha, s->w[V], s->w[R]));
    CMRS_CHECK(be->ops->nrm2(be, s->w[R], &snorm));
    st->rnorm = snorm;
    if (cmrs_krylov_test(s, snorm) != CMRS_ITERATING)
        CMRS_CHECK(cmrs_krylov_record(s, s->w[R], ++st->k, &st->rnorm,
                                      &st->reason));
    return CMRS_OK;
}

/* t = A M^-1 s, omega = t's / t't, x += omega M^-1 s, r = s - omega t. */
static cmrs_code stabilise(cmrs_ksp *s, bcg *st)
{
    cmrs_backend *be = s->be;
    cmrs_vec *shat;
    double tt, ts;
    CMRS_CHECK(cmrs_krylov_precond(s, s->w[R], s->w[Z], &shat));
    CMRS_CHECK(be->ops->spmv(be, 1.0, shat, 0.0, s->w[T]));
    CMRS_CHECK(be->ops->dot(be, s->w[T], s->w[T], &tt));
    CMRS_CHECK(be->ops->dot(be, s->w[T], s->w[R], &ts));
    guard(st, tt, 0.0);
    if (st->reason == CMRS_ITERATING)
        guard(st, ts, be->eps * sqrt(tt) * st->rnorm);
    if (st->reason != CMRS_ITERATING) { /* x, r = x_half, s: consistent */
        cmrs_ksp_reason why = st->reason;
        CMRS_CHECK(cmrs_krylov_record(s, s->w[R], ++st->k, &st->rnorm,
                                      &st->reason));
        if (st->reason == CMRS_ITERATING) st->reason = why;
        return CMRS_OK;
    }
    st->omega = ts / tt;
    CMRS_CHECK(be->ops->axpy(be, st->omega, shat, s->x));
    CMRS_CHECK(be->ops->axpy(be, -st->omega, s->w[T], s->w[R]));
    CMRS_CHECK(cmrs_krylov_record(s, s->w[R], ++st->k, &st->rnorm,
                                  &st->reason));
    return CMRS_OK;
}

cmrs_code cmrs_bicgstab_iterate(cmrs_ksp *s, cmrs_ksp_result *res)
{
    bcg st = {1.0, 1.0, 1.0, 0.0, 0.0, 0, CMRS_ITERATING};
    CMRS_CHECK(cmrs_krylov_start(s, s->w[R], &st.rnorm, &st.reason));
    st.rhat_norm = st.rnorm;
    if (st.reason == CMRS_ITERATING)
        CMRS_CHECK(s->be->ops->copy(s->be, s->w[R], s->w[RHAT]));
    while (st.reason == CMRS_ITERATING && st.k < s->o.maxiter) {
        CMRS_CHECK(direction(s, &st));
        if (st.reason == CMRS_ITERATING) CMRS_CHECK(half_step(s, &st));
        if (st.reason == CMRS_ITERATING) CMRS_CHECK(stabilise(s, &st));
    }
    res->reason =
        st.reason == CMRS_ITERATING ? CMRS_DIVERGED_MAXITS : st.reason;
    res->iterations = st.k;
    res->res_norm = st.rnorm;
    return CMRS_OK;
}
