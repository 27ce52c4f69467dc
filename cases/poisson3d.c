/* Dirichlet Poisson -div(k grad u) = f on the unit cube, node-centred on an
 * n^3 grid (boundary eliminated). Homogeneous: the classic 7-point (6, -1)
 * and 27-point (26, -1) stencils. Heterogeneous (--contrast C): a random
 * log10 k field spanning [0, C] (see coeff_field.c); each link of the
 * stencil gets the harmonic mean of k at its two nodes, the diagonal the sum
 * of the links (boundary links included). Symmetric, weakly diagonally
 * dominant with strict dominance next to the boundary: SPD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "common.h"
#include "coeff_field.h"
#include "grid3d.h"

typedef struct poisson_ctx {
    int64_t n;
    const double *k; /* (n+2)^3 nodal values, boundary included; NULL: 1 */
} poisson_ctx;

static double node_k(const poisson_ctx *c, int64_t i, int64_t j, int64_t k)
{
    int64_t m = c->n + 2;
    return c->k[(i + 1) + m * ((j + 1) + m * (k + 1))];
}

/* Harmonic mean: the conductance of two equal half-links in series, so a
 * low-k node blocks the flux as it would in a porous medium. */
static double link_k(double a, double b) { return 2.0 * a * b / (a + b); }

static void poisson_row(const void *ctx_, const grid_stencil *s, int64_t i,
                        int64_t j, int64_t k, double *vals)
{
    const poisson_ctx *c = ctx_;
    double diag = 0, k_here = c->k ? node_k(c, i, j, k) : 1.0;
    for (int q = 0; q < s->count; ++q) {
        if (q == s->centre) continue;
        const int *d = s->off[q];
        double w = 1.0;
        if (c->k) w = link_k(k_here, node_k(c, i + d[0], j + d[1], k + d[2]));
        vals[q] = -w;
        diag += w;
    }
    vals[s->centre] = diag;
}

static cmrs_code check_opts(const cmrs_poisson_opts *o)
{
    CMRS_CHECK(grid_check_n("poisson3d", o->n));
    CMRS_ENSURE(o->stencil == 7 || o->stencil == 27, CMRS_E_USAGE,
                "poisson3d: --stencil %d is not 7 or 27", o->stencil);
    CMRS_ENSURE(isfinite(o->contrast) && o->contrast >= 0 &&
                    o->contrast <= CMRS_MAX_CONTRAST, CMRS_E_USAGE,
                "poisson3d: --contrast %g is out of range [0, %d] (orders of "
                "magnitude)", o->contrast, CMRS_MAX_CONTRAST);
    return CMRS_OK;
}

cmrs_code cmrs_gen_poisson3d(const cmrs_poisson_opts *o, cmrs_system *sys)
{
    memset(sys, 0, sizeof *sys);
    CMRS_CHECK(check_opts(o));
    grid_stencil s;
    CMRS_CHECK(grid_stencil_make(o->stencil, &s));
    poisson_ctx ctx = {o->n, NULL};
    cmrs_code rc = CMRS_OK;
    double *k = NULL;
    char option[64];
    snprintf(option, sizeof option, "--n %lld --stencil %d", (long long)o->n,
             o->stencil);
    double m = (double)(o->n + 2); /* the coefficient field and its lattice */
    CMRS_CHECK(grid_check_memory("poisson3d", option, o->n, &s,
                                 o->contrast > 0 ? 2 * 8.0 * m * m * m : 0));
    if (o->contrast > 0) {
        CMRS_TRY(cmrs_coeff_field(o->n + 2, o->contrast, o->seed, &k));
        ctx.k = k;
    }
    CMRS_TRY(grid_build_system(o->n, &s, poisson_row, &ctx, sys));
    CMRS_TRY(cases_finish(sys, "poisson3d"));
done:
    free(k);
    if (rc != CMRS_OK) cmrs_system_free(sys);
    return rc;
}
