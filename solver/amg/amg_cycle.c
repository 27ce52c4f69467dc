/* The AMG V-cycle, written once over the back end's kit: every step is an
 * SpMV of a level operator (registry format on the GPU) or a dxpby pass,
 * all queued on one stream with no host synchronisation, so the engines
 * capture it in their CUDA graphs. Pre- and post-smoothing are the same
 * symmetric smoother with the same step count, and the coarsest level is
 * solved exactly: the cycle is a symmetric positive definite operator, as
 * CG requires. */
#include "amg.h"
#include "amg_split.h"

/* Chebyshev smoother interval on D^-1 A, in units of rho: the upper part
 * of the spectrum (hypre's eig_ratio 0.3), with a margin over the power
 * estimate. */
#define CHEB_LO 0.3
#define CHEB_HI 1.1

/* The smoother's diagonal: weighted Jacobi's w D^-1 with w = 4 / (3 rho)
 * (as pyamg), Chebyshev's D^-1 / rho over [0.3, 1.1] (the same polynomial
 * as D^-1 over [0.3 rho, 1.1 rho]: pc_chebyshev.c). Folding rho into the
 * array leaves no value-dependent kernel argument in the cycle, so the
 * engines' captured graphs survive a values-only update. */
double cmrs_amg_smoother_factor(const cmrs_pc_opts *o, double rho)
{
    return o->smoother == CMRS_SMOOTH_CHEBYSHEV ? 1.0 / rho
                                                : 4.0 / (3.0 * rho);
}

cmrs_code cmrs_amg_smoother_scale(cmrs_precond *pc, amg_level *L)
{
    CMRS_CHECK(cmrs_pc_scale_array(pc->be, L->n,
                                   cmrs_amg_smoother_factor(&pc->o, L->rho),
                                   L->dinv));
    return CMRS_OK;
}

cmrs_code cmrs_amg_smooth(const cmrs_pc_opts *o, const cmrs_amg_fine *f,
                          const void *b, void *x, int x_zero, int steps)
{
    cmrs_backend *be = f->be;
    if (o->smoother == CMRS_SMOOTH_CHEBYSHEV) {
        CMRS_CHECK(cmrs_pc_chebyshev_run(be, f->A, f->n, f->dinv, steps,
                                         CHEB_LO, CHEB_HI, b, x, x_zero,
                                         f->r, f->d));
        return CMRS_OK;
    }
    for (int s = 0; s < steps; ++s) { /* f->dinv is w D^-1 */
        if (s == 0 && x_zero) {
            CMRS_CHECK(be->ops->dxpby(be, f->n, 1.0, f->dinv, b, 0.0, x));
            continue;
        }
        CMRS_CHECK(cmrs_pc_residual(be, f->A, f->n, b, x, f->r));
        CMRS_CHECK(be->ops->dxpby(be, f->n, 1.0, f->dinv, f->r, 1.0, x));
    }
    return CMRS_OK;
}

/* x = S(b, x) on level L: `steps` smoothing steps (x_zero: x starts at
 * 0). */
static cmrs_code smooth(cmrs_precond *pc, amg_level *L, const void *b,
                        void *x, int x_zero, int steps)
{
    const cmrs_amg_fine f = {.be = pc->be, .A = L->A, .n = L->n,
                             .dinv = L->dinv, .r = L->r, .d = L->d};
    return cmrs_amg_smooth(&pc->o, &f, b, x, x_zero, steps);
}

/* The coarsest level: the dense inverse, or (not SPD numerically) many
 * smoothing steps. */
static cmrs_code coarse_solve(cmrs_precond *pc, amg_level *L, const void *b,
                              void *x)
{
    if (L->Cinv) {
        CMRS_CHECK(pc->be->ops->op_apply(pc->be, L->Cinv, 1.0, b, 0.0, x));
        return CMRS_OK;
    }
    CMRS_CHECK(smooth(pc, L, b, x, 1, cmrs_pc_amg_coarse_steps(&pc->o)));
    return CMRS_OK;
}

cmrs_code cmrs_amg_vcycle(cmrs_precond *pc, int level, const void *b, void *x)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[level];
    cmrs_backend *be = pc->be;
    if (level == m->nlev - 1) {
        CMRS_CHECK(coarse_solve(pc, L, b, x));
        return CMRS_OK;
    }
    amg_level *C = &m->lev[level + 1];
    const int sweeps = cmrs_pc_amg_sweeps(&pc->o);
    CMRS_CHECK(smooth(pc, L, b, x, 1, sweeps));
    CMRS_CHECK(cmrs_pc_residual(be, L->A, L->n, b, x, L->r));
    CMRS_CHECK(be->ops->op_apply(be, L->R, 1.0, L->r, 0.0, C->b));
    CMRS_CHECK(cmrs_amg_vcycle(pc, level + 1, C->b, C->x));
    CMRS_CHECK(be->ops->op_apply(be, L->P, 1.0, C->x, 1.0, x));
    CMRS_CHECK(smooth(pc, L, b, x, 0, sweeps));
    return CMRS_OK;
}
