/* The steps every Krylov loop shares: start from x0, record and test a
 * residual norm, apply the preconditioner. */
#include <math.h>

#include "krylov.h"

/* Converged by rtol, then atol, else still iterating. */
cmrs_ksp_reason cmrs_krylov_test(const cmrs_ksp *s, double rnorm)
{
    if (!isfinite(rnorm)) return CMRS_DIVERGED_NANORINF;
    if (rnorm <= s->o.rtol * s->bnorm) return CMRS_CONVERGED_RTOL;
    if (rnorm <= s->o.atol) return CMRS_CONVERGED_ATOL;
    return CMRS_ITERATING;
}

cmrs_ksp_reason cmrs_krylov_finite(int count, const double *v)
{
    for (int i = 0; i < count; ++i)
        if (!isfinite(v[i])) return CMRS_DIVERGED_NANORINF;
    return CMRS_ITERATING;
}

cmrs_code cmrs_krylov_record(cmrs_ksp *s, const cmrs_vec *r, int64_t k,
                             double *rnorm, cmrs_ksp_reason *reason)
{
    cmrs_backend *be = s->be;
    CMRS_CHECK(be->ops->resnorm(be, r, k, rnorm));
    double rel = *rnorm / s->bnorm;
    if (s->o.monitor) s->o.monitor(s->o.monitor_ctx, k, rel);
    *reason = cmrs_krylov_test(s, *rnorm);
    return CMRS_OK;
}

cmrs_code cmrs_krylov_residual(cmrs_ksp *s, cmrs_vec *r)
{
    cmrs_backend *be = s->be;
    CMRS_CHECK(be->ops->copy(be, s->b, r));
    CMRS_CHECK(be->ops->spmv(be, -1.0, s->x, 1.0, r));
    return CMRS_OK;
}

cmrs_code cmrs_krylov_residual0(cmrs_ksp *s, cmrs_vec *r)
{
    CMRS_CHECK(s->be->ops->copy(s->be, s->x0, s->x));
    CMRS_CHECK(cmrs_krylov_residual(s, r));
    return CMRS_OK;
}

cmrs_code cmrs_krylov_start(cmrs_ksp *s, cmrs_vec *r, double *rnorm,
                            cmrs_ksp_reason *reason)
{
    CMRS_CHECK(cmrs_krylov_residual0(s, r));
    CMRS_CHECK(cmrs_krylov_record(s, r, 0, rnorm, reason));
    return CMRS_OK;
}

cmrs_code cmrs_krylov_precond(cmrs_ksp *s, cmrs_vec *r, cmrs_vec *z,
                              cmrs_vec **out)
{
    if (s->o.pc == CMRS_PC_NONE) {
        *out = r;
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_precond_apply(s->pc, r->data, z->data));
    *out = z;
    return CMRS_OK;
}
