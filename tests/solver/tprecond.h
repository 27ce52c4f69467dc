/* Shared by the preconditioner tests (host and GPU): the cases, the
 * option sets and the V-cycle's symmetry check. Header-only. */
#ifndef CMRS_TEST_TPRECOND_H
#define CMRS_TEST_TPRECOND_H

#include "cases/cases.h"
#include "tsolve.h"

/* A vessel and a 7-point Poisson system of a few thousand rows. */
static inline void pc_cases(cmrs_system *vessel, cmrs_system *poisson)
{
    cmrs_vessel_opts vo = {20000, 1};
    cmrs_poisson_opts po = {16, 7, 0.0, 1};
    memset(vessel, 0, sizeof *vessel);
    memset(poisson, 0, sizeof *poisson);
    CHECK_OK(cmrs_gen_vessel(&vo, vessel));
    CHECK_OK(cmrs_gen_poisson3d(&po, poisson));
}

/* The AMG variants worth testing: the default (MIS-2 smoothed
 * aggregation, theta 0.02: on the GPU back end the aggregates, P, R and
 * A_c are formed on the device and stay there), pairwise plain (the
 * default before 2026-11-23, with its theta 0.08), the Chebyshev smoother
 * on the default, handshake aggregation with the plain P (on the device on
 * the GPU back end, which forms A_c there), greedy smoothed aggregation
 * (the default before MIS-2; aggregates on the host, P, R and A_c on the
 * device). */
#define AMG_VARIANTS 5
static inline cmrs_ksp_opts amg_opts(int variant, double rtol)
{
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_AMG, rtol);
    o.pco.amg.coarse_rows = 50; /* several levels even on small cases */
    if (variant == 1 || variant == 3) {
        o.pco.amg.agg = variant == 1 ? CMRS_AMG_AGG_PAIRWISE
                                     : CMRS_AMG_AGG_HANDSHAKE;
        o.pco.amg.smooth_p = 0;
        o.pco.amg.theta = 0.08;
    }
    if (variant == 2) o.pco.smoother = CMRS_SMOOTH_CHEBYSHEV;
    if (variant == 4) o.pco.amg.agg = CMRS_AMG_AGG_GREEDY;
    return o;
}

static inline const char *amg_variant_name(int variant)
{
    static const char *const names[] = {"mis2 smoothed + jacobi (default)",
                                        "pairwise plain + jacobi",
                                        "mis2 smoothed + chebyshev",
                                        "handshake plain + jacobi",
                                        "greedy smoothed + jacobi"};
    return names[variant];
}

/* |x'My - y'Mx| relative to |x'My|, and x'Mx, for two fixed vectors. */
static inline cmrs_code pc_symmetry(cmrs_backend *be, cmrs_precond *pc,
                                    double *asym, double *xmx)
{
    int64_t n = be->n;
    double *xh = malloc((size_t)n * sizeof *xh), *yh = malloc((size_t)n * 8);
    void *x = NULL, *y = NULL, *mx = NULL, *my = NULL;
    for (int64_t i = 0; i < n; ++i) {
        xh[i] = sin(0.37 * (double)i) + 0.1;
        yh[i] = cos(1.91 * (double)i) - 0.2;
    }
    double xmy = 0, ymx = 0;
    cmrs_code rc = be->ops->arr_create(be, n, &x);
    if (!rc) rc = be->ops->arr_create(be, n, &y);
    if (!rc) rc = be->ops->arr_create(be, n, &mx);
    if (!rc) rc = be->ops->arr_create(be, n, &my);
    if (!rc) rc = be->ops->arr_set(be, n, x, xh);
    if (!rc) rc = be->ops->arr_set(be, n, y, yh);
    if (!rc) rc = cmrs_precond_apply(pc, x, mx);
    if (!rc) rc = cmrs_precond_apply(pc, y, my);
    if (!rc) rc = be->ops->arr_dot(be, n, x, my, &xmy);
    if (!rc) rc = be->ops->arr_dot(be, n, y, mx, &ymx);
    if (!rc) rc = be->ops->arr_dot(be, n, x, mx, xmx);
    *asym = fabs(xmy - ymx) / fabs(xmy);
    be->ops->arr_destroy(be, x);
    be->ops->arr_destroy(be, y);
    be->ops->arr_destroy(be, mx);
    be->ops->arr_destroy(be, my);
    free(xh);
    free(yh);
    return rc;
}

#endif
