/* Chebyshev-Jacobi: z = p_k(D^-1 A) D^-1 r, the degree-k Chebyshev
 * polynomial on [hi / ratio, hi], hi = 1.1 rho(D^-1 A) from a few power
 * steps. All SpMV and vector passes, no reductions in apply. Its two
 * pieces also serve the AMG smoother (amg.c).
 *
 * The apply runs on the scaled diagonal S = D^-1 / rho over the fixed
 * interval [1.1 / ratio, 1.1]: Chebyshev on D^-1 A over [a rho, b rho] is
 * Chebyshev on S A over [a, b] (Saad's theta, delta and 1/theta scale by
 * rho; sigma and the rho_k recurrence do not), so the recurrence's
 * coefficients are constants and nothing that changes with the values is
 * a kernel argument: captured CUDA graphs survive a values-only update,
 * which rewrites S in place. */
#include <math.h>
#include <stdlib.h>

#include "pc_start.h"
#include "precond.h"

/* The fixed start vector (pc_start.h), made where the array lives when
 * the back end can (no host array and upload of n values). */
static cmrs_code start_vector(cmrs_backend *be, int64_t n, void *v)
{
    if (be->ops->arr_start) {
        CMRS_CHECK(be->ops->arr_start(be, n, v));
        return CMRS_OK;
    }
    double *h = cmrs_malloc_array((size_t)n, sizeof *h);
    CMRS_ENSURE(h, CMRS_E_NOMEM, "cannot allocate %lld doubles", (long long)n);
    for (int64_t i = 0; i < n; ++i)
        h[i] = cmrs_pc_start_value(i);
    cmrs_code rc = be->ops->arr_set(be, n, v, h);
    free(h);
    return rc;
}

/* Every how many power steps the iterate is rescaled: its norm can grow
 * by ||D^-1 A||^RENORM_EVERY between two rescalings. Where that leaves
 * the arrays' range (a float hierarchy with rho(D^-1 A) past ~1e3, a
 * double one past ~1e30) the steps run again rescaled every step. */
#define RENORM_EVERY 5

/* The power steps from the start vector already in v, with w and u as
 * work: x_k = (D^-1 A)^k v, rho = |x_K| / |x_{K-1}|. A dot is a host
 * round trip on the GPU, so the iterate is not normalised every step, only
 * rescaled every `every` steps; the norms are taken there and at the last
 * two steps: 3 round trips for 10 steps instead of 11 (the same estimate
 * to rounding). *finite = 0: a norm overflowed (rho not set). v, w and u
 * end in an unspecified order. */
static cmrs_code power_iterate(cmrs_backend *be, const cmrs_op *op, int64_t n,
                               const void *dinv, int steps, int every,
                               void *v, void *w, void *u, double *rho,
                               int *finite)
{
    double prev = 0, xx = 0;
    *rho = 0;
    *finite = 1;
    if (steps == 1) CMRS_CHECK(be->ops->arr_dot(be, n, v, v, &prev));
    for (int k = 0; k < steps && isfinite(prev); ++k) {
        CMRS_CHECK(be->ops->op_apply(be, op, 1.0, v, 0.0, w));
        CMRS_CHECK(be->ops->dxpby(be, n, 1.0, dinv, w, 0.0, u));
        void *t = v; /* v = x_{k+1} */
        v = u, u = t;
        int last = k == steps - 1, before_last = k == steps - 2;
        int rescale = !last && !before_last && (k + 1) % every == 0;
        if (!last && !before_last && !rescale) continue;
        CMRS_CHECK(be->ops->arr_dot(be, n, v, v, &xx));
        if (!isfinite(xx)) break;
        if (last) {
            if (prev > 0) *rho = sqrt(xx / prev);
            return CMRS_OK;
        }
        if (!(xx > 0)) return CMRS_OK; /* (D^-1 A)^k v = 0: rho stays 0 */
        if (rescale) {
            CMRS_CHECK(be->ops->dxpby(be, n, 1.0 / sqrt(xx), NULL, v, 0.0, v));
            xx = 1.0;
        }
        prev = xx;
    }
    *finite = isfinite(prev) && isfinite(xx);
    return CMRS_OK;
}

/* The power steps from v0 (NULL: the fixed start vector), rescaled every
 * RENORM_EVERY steps, or every step where that overflowed. */
static cmrs_code power_from(cmrs_backend *be, const cmrs_op *op, int64_t n,
                            const void *dinv, int steps, const void *v0,
                            void *v, void *w, void *u, double *rho)
{
    int finite = 0;
    for (int every = RENORM_EVERY;; every = 1) {
        if (v0) CMRS_CHECK(be->ops->dxpby(be, n, 1.0, NULL, v0, 0.0, v));
        else CMRS_CHECK(start_vector(be, n, v));
        CMRS_CHECK(power_iterate(be, op, n, dinv, steps, every, v, w, u, rho,
                                 &finite));
        if (finite) return CMRS_OK;
        CMRS_ENSURE(every > 1, CMRS_E_INPUT, "the power iteration for "
                    "rho(D^-1 A) overflowed (values too large?)");
    }
}

cmrs_code cmrs_pc_power_rho_in(cmrs_backend *be, const cmrs_op *op,
                               int64_t n, const void *dinv, int steps,
                               void *v, void *w, void *u, double *rho)
{
    CMRS_CHECK(power_from(be, op, n, dinv, steps, NULL, v, w, u, rho));
    return CMRS_OK;
}

cmrs_code cmrs_pc_power_rho(cmrs_backend *be, const cmrs_op *op, int64_t n,
                            const void *dinv, int steps, double *rho)
{
    cmrs_code rc = CMRS_OK;
    void *v = NULL, *w = NULL, *u = NULL;
    CMRS_TRY(be->ops->arr_create(be, n, &v));
    CMRS_TRY(be->ops->arr_create(be, n, &w));
    CMRS_TRY(be->ops->arr_create(be, n, &u));
    CMRS_TRY(power_from(be, op, n, dinv, steps, NULL, v, w, u, rho));
done:
    be->ops->arr_destroy(be, v);
    be->ops->arr_destroy(be, w);
    be->ops->arr_destroy(be, u);
    return rc;
}

cmrs_code cmrs_pc_residual(cmrs_backend *be, const cmrs_op *op, int64_t n,
                           const void *b, const void *x, void *r)
{
    CMRS_CHECK(be->ops->dxpby(be, n, 1.0, NULL, b, 0.0, r));
    CMRS_CHECK(be->ops->op_apply(be, op, -1.0, x, 1.0, r));
    return CMRS_OK;
}

/* Saad, Iterative Methods, Alg. 12.1, on the Jacobi-scaled system. */
cmrs_code cmrs_pc_chebyshev_run(cmrs_backend *be, const cmrs_op *op,
                                int64_t n, const void *dinv, int degree,
                                double lo, double hi, const void *b, void *x,
                                int x_zero, void *r, void *d)
{
    const cmrs_backend_ops *f = be->ops;
    double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo);
    double sigma = theta / delta, rho = 1.0 / sigma;
    if (x_zero)
        CMRS_CHECK(f->dxpby(be, n, 1.0, NULL, b, 0.0, r));
    else
        CMRS_CHECK(cmrs_pc_residual(be, op, n, b, x, r));
    CMRS_CHECK(f->dxpby(be, n, 1.0 / theta, dinv, r, 0.0, d));
    CMRS_CHECK(f->dxpby(be, n, 1.0, NULL, d, x_zero ? 0.0 : 1.0, x));
    for (int k = 1; k < degree; ++k) {
        CMRS_CHECK(f->op_apply(be, op, -1.0, d, 1.0, r));
        double rho_new = 1.0 / (2.0 * sigma - rho);
        CMRS_CHECK(f->dxpby(be, n, 2.0 * rho_new / delta, dinv, r,
                            rho_new * rho, d));
        CMRS_CHECK(f->dxpby(be, n, 1.0, NULL, d, 1.0, x));
        rho = rho_new;
    }
    return CMRS_OK;
}

typedef struct cheb_impl {
    void *dinv;     /* D^-1 / rho (D^-1 until rho is known) */
    void *r, *d;
    void *v0, *u;   /* device updates: the start vector, a third work array
                       (GPU only; the host path makes its own) */
    double lo, hi;  /* the interval on S A: constants (1.1 / ratio, 1.1) */
} cheb_impl;

cmrs_code cmrs_pc_scale_array(cmrs_backend *be, int64_t n, double s, void *a)
{
    CMRS_CHECK(be->ops->dxpby(be, n, s, NULL, a, 0.0, a));
    return CMRS_OK;
}

/* dinv holds D^-1 (rho came from it): now S = D^-1 / rho, in place. */
static cmrs_code cheb_set_interval(cmrs_precond *pc, double rho,
                                   const char *what)
{
    cheb_impl *c = pc->impl;
    CMRS_ENSURE(rho > 0, CMRS_E_INPUT, "%s: Chebyshev: rho(D^-1 A) "
                "estimated as %g: the matrix has no positive spectrum to "
                "target (use --precond jacobi)", what, rho);
    c->hi = 1.1;
    c->lo = c->hi / pc->o.cheb_ratio;
    pc->info.lmax = 1.1 * rho;
    CMRS_CHECK(cmrs_pc_scale_array(pc->be, pc->be->n, 1.0 / rho, c->dinv));
    pc->moved = 0; /* same arrays, same arguments */
    return CMRS_OK;
}

/* The interval: hi a margin above the power estimate (which approaches
 * rho from below), lo = hi / ratio. D^-1 is rewritten into the array of
 * setup (cmrs_pc_inverse_diagonal reuses it). */
static cmrs_code cheb_interval(cmrs_precond *pc, const cmrs_csr *A,
                               const char *what)
{
    cheb_impl *c = pc->impl;
    cmrs_backend *be = pc->be;
    CMRS_CHECK(cmrs_pc_inverse_diagonal(be, A, what, &c->dinv));
    double rho = 0;
    CMRS_CHECK(cmrs_pc_power_rho(be, NULL, be->n, c->dinv, pc->o.power_steps,
                                 &rho));
    CMRS_CHECK(cheb_set_interval(pc, rho, what));
    return CMRS_OK;
}

/* Device values: D^-1 and the power steps on the device, from the start
 * vector kept since setup (bitwise the host path's: same D^-1, same
 * start, same operations), into the arrays of setup. */
static cmrs_code cheb_update_d(cmrs_precond *pc, const void *values_d,
                               const char *what)
{
    cheb_impl *c = pc->impl;
    cmrs_backend *be = pc->be;
    double rho = 0;
    CMRS_CHECK(be->ops->dinv_d(be, values_d, c->dinv));
    CMRS_CHECK(power_from(be, NULL, be->n, c->dinv, pc->o.power_steps,
                          c->v0, c->r, c->d, c->u, &rho));
    CMRS_CHECK(cheb_set_interval(pc, rho, what));
    return CMRS_OK;
}

static void *cheb_update_dinv(const cmrs_precond *pc)
{
    return ((const cheb_impl *)pc->impl)->dinv;
}

/* What cheb_update_d needs beyond the host path (GPU back ends only). */
static cmrs_code cheb_device_arrays(cmrs_precond *pc)
{
    cheb_impl *c = pc->impl;
    cmrs_backend *be = pc->be;
    if (!be->ops->dinv_d) return CMRS_OK;
    CMRS_CHECK(be->ops->arr_create(be, be->n, &c->v0));
    CMRS_CHECK(be->ops->arr_create(be, be->n, &c->u));
    CMRS_CHECK(start_vector(be, be->n, c->v0));
    return CMRS_OK;
}

static cmrs_code cheb_setup(cmrs_precond *pc, const cmrs_csr *A,
                            const char *what)
{
    cmrs_backend *be = pc->be;
    cheb_impl *c = calloc(1, sizeof *c);
    CMRS_ENSURE(c, CMRS_E_NOMEM, "cannot allocate a preconditioner");
    pc->impl = c;
    CMRS_CHECK(be->ops->arr_create(be, be->n, &c->r));
    CMRS_CHECK(be->ops->arr_create(be, be->n, &c->d));
    CMRS_CHECK(cheb_interval(pc, A, what));
    CMRS_CHECK(cheb_device_arrays(pc));
    return CMRS_OK;
}

static cmrs_code cheb_apply(cmrs_precond *pc, const void *r, void *z)
{
    cheb_impl *c = pc->impl;
    CMRS_CHECK(cmrs_pc_chebyshev_run(pc->be, NULL, pc->be->n, c->dinv,
                                     pc->o.cheb_degree, c->lo, c->hi, r, z, 1,
                                     c->r, c->d));
    return CMRS_OK;
}

static void cheb_destroy(cmrs_precond *pc)
{
    cheb_impl *c = pc->impl;
    if (!c) return;
    pc->be->ops->arr_destroy(pc->be, c->dinv);
    pc->be->ops->arr_destroy(pc->be, c->r);
    pc->be->ops->arr_destroy(pc->be, c->d);
    pc->be->ops->arr_destroy(pc->be, c->v0);
    pc->be->ops->arr_destroy(pc->be, c->u);
    free(c);
}

/* New values: new diagonal, new interval (both derive from the values). */
const cmrs_precond_ops cmrs_pc_chebyshev_ops = {
    .name = "chebyshev",
    .setup = cheb_setup,
    .apply = cheb_apply,
    .update_values = cheb_interval,
    .destroy = cheb_destroy,
    .update_values_d = cheb_update_d,
    .update_dinv = cheb_update_dinv,
};
