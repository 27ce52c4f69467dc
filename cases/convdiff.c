/* Convection-diffusion -eps Lap(u) + v . grad(u) = f on the unit cube,
 * node-centred on an n^3 grid (Dirichlet boundary eliminated), first-order
 * upwind, scaled by h^2/eps. With Pe = --peclet = |v|max * 1 / eps, the mesh
 * Peclet number of component d at a node is p_d = Pe * h * v_d, and a row is
 *   diag = 6 + |p_x| + |p_y| + |p_z|,
 *   upwind neighbour = -(1 + |p_d|), downwind neighbour = -1.
 * Off-diagonals <= 0, row sums 0 inside and > 0 next to the boundary: a
 * nonsingular M-matrix, nonsymmetric for Pe > 0 (BiCGStab's case). The
 * velocity is a swirl about the vertical axis through the cube's centre plus
 * an upward drift, v = (-(2y-1), 2x-1, 1/2) / 1.5 (|v| <= 1). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "common.h"
#include "grid3d.h"

typedef struct convdiff_ctx {
    int64_t n;
    double peclet;
} convdiff_ctx;

static void velocity(double x, double y, double v[3])
{
    v[0] = -(2 * y - 1) / 1.5;
    v[1] = (2 * x - 1) / 1.5;
    v[2] = 0.5 / 1.5;
}

static void convdiff_row(const void *ctx_, const grid_stencil *s, int64_t i,
                         int64_t j, int64_t k, double *vals)
{
    const convdiff_ctx *c = ctx_;
    (void)k; /* the velocity does not depend on z */
    double h = 1.0 / (double)(c->n + 1), v[3];
    velocity((double)(i + 1) * h, (double)(j + 1) * h, v);
    double diag = 0;
    for (int q = 0; q < s->count; ++q) {
        if (q == s->centre) continue;
        const int *d = s->off[q];
        int axis = d[0] ? 0 : d[1] ? 1 : 2, dir = d[0] + d[1] + d[2];
        double p = c->peclet * h * v[axis];
        /* the neighbour at -v is upwind: it carries the convective term */
        double upwind = (dir < 0) == (p > 0) ? fabs(p) : 0.0;
        vals[q] = -(1.0 + upwind);
        diag += 1.0 + upwind;
    }
    vals[s->centre] = diag;
}

cmrs_code cmrs_gen_convdiff(const cmrs_convdiff_opts *o, cmrs_system *sys)
{
    memset(sys, 0, sizeof *sys);
    CMRS_CHECK(grid_check_n("convdiff", o->n));
    CMRS_ENSURE(isfinite(o->peclet) && o->peclet >= 0 &&
                    o->peclet <= CMRS_MAX_PECLET, CMRS_E_USAGE,
                "convdiff: --peclet %g is out of range [0, %g]", o->peclet,
                CMRS_MAX_PECLET);
    grid_stencil s;
    CMRS_CHECK(grid_stencil_make(7, &s));
    convdiff_ctx ctx = {o->n, o->peclet};
    cmrs_code rc = CMRS_OK;
    char option[32];
    snprintf(option, sizeof option, "--n %lld", (long long)o->n);
    CMRS_CHECK(grid_check_memory("convdiff", option, o->n, &s, 0));
    CMRS_TRY(grid_build_system(o->n, &s, convdiff_row, &ctx, sys));
    CMRS_TRY(cases_finish(sys, "convdiff"));
done:
    if (rc != CMRS_OK) cmrs_system_free(sys);
    return rc;
}
