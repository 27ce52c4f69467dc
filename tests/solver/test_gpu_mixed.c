/* --precision mixed on the GPU: the cast kernel against the host's
 * rounding (output poisoned, n = 0, 1 and odd sizes, a scale), then
 * solves whose TRUE residual, recomputed here on the host in double from
 * the returned x, meets rtol: refinement (float solves inside double
 * refinement) with jacobi and none on every engine and with BiCGStab, the
 * preconditioner in single (amg, chebyshev) with iterations close to the
 * all-double solve's, new values, a 1-D Laplacian too ill-conditioned for
 * float (the double hand-over), and the refusals (precond mode with
 * jacobi, a single back end, float values on cusparse); float values
 * under double vectors (--mixed values) likewise. */
#include <float.h>

#include "base/gpu/cuda_check.h"
#include "tprecond.h"

/* arr_cast double -> float -> double against (float)(s * x) on the host. */
static void cast_matches_host(int64_t n)
{
    cmrs_csr A;
    lap2d(&A, 4);
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_backend_gpu_create(&A, "cmrs", CMRS_PREC_DOUBLE, NULL, &be));
    if (!be) return;
    int64_t m = n > 0 ? n : 1;
    double *x = malloc((size_t)m * 8), *y = malloc((size_t)m * 8);
    void *x_d = NULL, *f_d = NULL, *y_d = NULL;
    CHECK(cudaMalloc(&x_d, (size_t)m * 8) == cudaSuccess &&
              cudaMalloc(&f_d, (size_t)m * 4) == cudaSuccess &&
              cudaMalloc(&y_d, (size_t)m * 8) == cudaSuccess,
          "cudaMalloc");
    for (int64_t i = 0; i < m; ++i)
        x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + 1e-9 * (double)i) *
               pow(10.0, (double)(i % 11) - 5.0);
    cudaMemcpy(x_d, x, (size_t)m * 8, cudaMemcpyHostToDevice);
    cudaMemset(f_d, 0xff, (size_t)m * 4); /* poisoned: NaN */
    cudaMemset(y_d, 0xff, (size_t)m * 8);
    /* The memsets run on the legacy stream, the back end's stream does
     * not wait for it (non-blocking): without this, a busy GPU ran the
     * casts first and the poison landed on their output. */
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "poisoning");
    const double s = 0.37;
    CHECK_OK(be->ops->arr_cast(be, n, s, x_d, CMRS_PREC_DOUBLE, f_d,
                               CMRS_PREC_SINGLE));
    CHECK_OK(be->ops->arr_cast(be, n, 1.0 / s, f_d, CMRS_PREC_SINGLE, y_d,
                               CMRS_PREC_DOUBLE));
    CHECK_OK(be->ops->sync(be));
    cudaMemcpy(y, y_d, (size_t)m * 8, cudaMemcpyDeviceToHost);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; ++i) {
        double want = (1.0 / s) * (double)(float)(s * x[i]);
        if (y[i] != want) bad = i;
    }
    CHECK(bad < 0, "cast n=%lld: entry %lld is %.17g, host %.17g",
          (long long)n, (long long)bad, bad >= 0 ? y[bad] : 0.0,
          bad >= 0 ? (1.0 / s) * (double)(float)(s * x[bad]) : 0.0);
    if (n == 0) CHECK(isnan(y[0]), "cast n=0 wrote the output");
    cudaFree(x_d);
    cudaFree(f_d);
    cudaFree(y_d);
    free(x);
    free(y);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&A);
}

/* How far two correct evaluations of ||b - A x|| / ||b|| in different
 * orders may lie apart: each entry's sum is off by up to (n_i + 2) u
 * sum_j |a_ij x_j| (a near-singular A, float_singular: x ~ 1e6 against
 * b ~ 1, so this is most of the residual's size). */
static double cancel_bound(const cmrs_csr *A, const double *b, const double *x)
{
    double s2 = 0, b2 = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double m = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            m += fabs(A->values[k] * x[A->indices[k]]);
        m *= (double)(A->indptr[i + 1] - A->indptr[i] + 2) * DBL_EPSILON;
        s2 += m * m;
        b2 += b[i] * b[i];
    }
    return b2 > 0 ? 2 * sqrt(s2 / b2) : 0;
}

/* The refinement cycles of the last mixed_solve. */
static int64_t g_cycles;

/* A mixed solve: converged, and the true residual of the x it returned,
 * recomputed here in double, within rtol (a little slack for the sum's
 * order). Returns the iterations (-1 on failure), g_cycles its cycles. */
static int64_t mixed_solve(const char *name, const cmrs_system *sys,
                           cmrs_ksp_opts o)
{
    g_cycles = -1;
    outcome g = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &sys->A, sys->b, NULL, &o);
    int64_t its = -1;
    CHECK(g.rc == CMRS_OK, "%s: %s", name, outcome_why(&g));
    if (g.rc == CMRS_OK) {
        double rel = rel_residual(&sys->A, sys->b, g.x);
        CHECK(cmrs_ksp_reason_converged(g.r.reason) && rel <= 1.01 * o.rtol,
              "%s: %s, true residual here %.3e (rtol %.1e)", name,
              cmrs_ksp_reason_name(g.r.reason), rel, o.rtol);
        CHECK(g.r.mixed == o.mixed || o.mixed == CMRS_MIXED_AUTO,
              "%s: mode %s ran", name, cmrs_mixed_name(g.r.mixed));
        /* the device's sums and these in another order */
        CHECK(fabs(g.r.true_rel - rel) <=
                  1e-2 * rel + cancel_bound(&sys->A, sys->b, g.x) + 1e-15,
              "%s: reported true residual %.6e, here %.6e", name,
              g.r.true_rel, rel);
        CHECK(g.monitor_calls > 0 && g.hist[0] > 0 && isfinite(g.hist[0]),
              "%s: monitor %d calls, history[0] %g", name, g.monitor_calls,
              g.hist[0]);
        printf("%s: %lld iterations, %lld cycles, true %.2e\n", name,
               (long long)g.r.iterations, (long long)g.r.cycles, rel);
        its = g.r.iterations;
        g_cycles = g.r.cycles;
    }
    outcome_free(&g);
    return its;
}

static int64_t double_solve(const cmrs_system *sys, cmrs_ksp_opts o)
{
    o.mixed = CMRS_MIXED_OFF;
    outcome g = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &sys->A, sys->b, NULL, &o);
    int64_t its = g.rc == CMRS_OK ? g.r.iterations : -1;
    CHECK(g.rc == CMRS_OK, "double solve: %s", outcome_why(&g));
    outcome_free(&g);
    return its;
}

/* What the refinement and values cases run over: every engine, and the
 * preconditioners that are one vector pass. */
static const cmrs_engine engines[] = {CMRS_ENGINE_CUBLAS, CMRS_ENGINE_GRAPH,
                                      CMRS_ENGINE_FUSED};
static const cmrs_pc pcs[] = {CMRS_PC_JACOBI, CMRS_PC_NONE};

/* Refinement: jacobi and none, every engine, CG and BiCGStab; on the
 * well-conditioned Poisson system (refines = 1) past the probe, several
 * single-precision solves. */
static void refine_cases(const char *cname, const cmrs_system *sys,
                         int refines)
{
    for (int p = 0; p < 2; ++p)
        for (int e = 0; e < 3; ++e) {
            cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, pcs[p], 1e-8);
            o.engine = engines[e];
            o.mixed = CMRS_MIXED_REFINE;
            char name[128];
            snprintf(name, sizeof name, "%s refine %s %s", cname,
                     cmrs_pc_name(pcs[p]), cmrs_engine_name(engines[e]));
            mixed_solve(name, sys, o);
            CHECK(!refines || g_cycles >= 2, "%s: %lld cycles", name,
                  (long long)g_cycles);
        }
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1e-9);
    o.mixed = CMRS_MIXED_REFINE;
    char name[128];
    snprintf(name, sizeof name, "%s refine bicgstab jacobi", cname);
    mixed_solve(name, sys, o);
}

/* Float values under double vectors (--mixed values): jacobi and none on
 * every engine, amg, CG and BiCGStab, each meeting rtol. CG on the graph
 * and fused engines replaces its residual by the true one (reliable
 * updates, devloop.c) and so needs one cycle. Where the float values'
 * solution already meets the target (one_cycle: the Poisson system,
 * whose row sums the corrections keep) CG's iterations are within a
 * tenth (and 3) of the all-double solve's; on the vessel the residual
 * gap costs more (docs/SOLVER.md). */
static void values_cases(const char *cname, const cmrs_system *sys,
                         int one_cycle)
{
    char name[128];
    for (int p = 0; p < 2; ++p)
        for (int e = 0; e < 3; ++e) {
            cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, pcs[p], 1e-8);
            o.engine = engines[e];
            o.mixed = CMRS_MIXED_VALUES;
            snprintf(name, sizeof name, "%s values %s %s", cname,
                     cmrs_pc_name(pcs[p]), cmrs_engine_name(engines[e]));
            int64_t its = mixed_solve(name, sys, o);
            int64_t ref = double_solve(sys, o);
            CHECK(its > 0 && (!one_cycle || close_its(ref, its, 3, 10)) &&
                      (engines[e] == CMRS_ENGINE_CUBLAS || g_cycles == 1),
                  "%s: %lld iterations in %lld cycles against double's %lld",
                  name, (long long)its, (long long)g_cycles, (long long)ref);
        }
    cmrs_ksp_opts o = amg_opts(0, 1e-8);
    o.mixed = CMRS_MIXED_VALUES;
    snprintf(name, sizeof name, "%s values amg", cname);
    int64_t its = mixed_solve(name, sys, o);
    int64_t ref = double_solve(sys, o);
    CHECK(its > 0 && g_cycles == 1 && (!one_cycle || close_its(ref, its, 3, 10)),
          "%s: %lld iterations in %lld cycles against %lld", name,
          (long long)its, (long long)g_cycles, (long long)ref);
    o = opts_of(CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1e-9);
    o.mixed = CMRS_MIXED_VALUES;
    snprintf(name, sizeof name, "%s values bicgstab jacobi", cname);
    mixed_solve(name, sys, o);
}

/* The preconditioner in single: iterations within a few of double's. */
static void precond_cases(const char *cname, const cmrs_system *sys)
{
    for (int v = 0; v < 3; ++v) {
        cmrs_ksp_opts o = amg_opts(v, 1e-8);
        o.mixed = CMRS_MIXED_AUTO; /* amg: precond */
        char name[128];
        snprintf(name, sizeof name, "%s precond amg %s", cname,
                 amg_variant_name(v));
        int64_t its = mixed_solve(name, sys, o);
        int64_t ref = double_solve(sys, o);
        CHECK(its > 0 && close_its(ref, its, 2, 10), "%s: %lld iterations "
              "against double's %lld", name, (long long)its, (long long)ref);
    }
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV, 1e-8);
    o.mixed = CMRS_MIXED_PRECOND;
    char name[128];
    snprintf(name, sizeof name, "%s precond chebyshev", cname);
    int64_t its = mixed_solve(name, sys, o);
    int64_t ref = double_solve(sys, o);
    CHECK(its > 0 && close_its(ref, its, 2, 10), "%s: %lld against %lld",
          name, (long long)its, (long long)ref);
    o = amg_opts(0, 1e-8);
    o.mixed = CMRS_MIXED_REFINE; /* amg inside refinement works too */
    snprintf(name, sizeof name, "%s refine amg", cname);
    mixed_solve(name, sys, o);
}

/* New values (the matrix scaled by 3, its diagonal lifted) reach the twin
 * and its preconditioner: the next solve meets rtol for the new A. */
static void update_case(const cmrs_system *sys, cmrs_ksp_opts o)
{
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    cmrs_csr B;
    CHECK_OK(cmrs_csr_copy(&B, &sys->A));
    for (int64_t i = 0; i < B.rows; ++i)
        for (int64_t k = B.indptr[i]; k < B.indptr[i + 1]; ++k)
            B.values[k] *= B.indices[k] == i ? 3.5 : 3.0;
    CHECK_OK(cmrs_backend_gpu_create(&sys->A, "cmrs", CMRS_PREC_DOUBLE, NULL,
                                     &be));
    if (be) CHECK_OK(cmrs_ksp_create(be, &sys->A, &o, "update", &s));
    if (s) {
        cmrs_ksp_result r;
        CHECK(!cmrs_ksp_can_update_d(s) || (o.mixed != CMRS_MIXED_REFINE &&
                                            o.mixed != CMRS_MIXED_VALUES),
              "refinement offers a device update it does not do");
        CHECK_OK(cmrs_ksp_update_values(s, &B));
        CHECK_OK(cmrs_ksp_set_rhs(s, sys->b, NULL));
        CHECK_OK(cmrs_ksp_solve(s, &r));
        double rel = rel_residual(&B, sys->b, r.x);
        CHECK(cmrs_ksp_reason_converged(r.reason) && rel <= 1.01 * o.rtol,
              "update %s: %s, true residual %.3e", cmrs_mixed_name(o.mixed),
              cmrs_ksp_reason_name(r.reason), rel);
    }
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&B);
}

/* 2 x 2 blocks [1, e - 1; e - 1, 1], e = 2e-8, on the diagonal: in
 * double their eigenvalues are e and 2 - e (two distinct: CG needs a few
 * iterations); in float e - 1 rounds to -1 and every block is singular
 * along (1, 1), where b mostly lies: the float probe gains nothing and
 * the double loop finishes the solve. */
static void float_singular(cmrs_system *sys, int64_t blocks)
{
    int64_t n = 2 * blocks;
    memset(sys, 0, sizeof *sys);
    CHECK_OK(cmrs_csr_alloc(&sys->A, n, n, 2 * n));
    sys->b = malloc((size_t)n * sizeof *sys->b);
    sys->A.indptr[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t j = i ^ 1; /* the other row of the block */
        sys->A.indptr[i + 1] = 2 * (i + 1);
        sys->A.indices[2 * i] = (int32_t)(i < j ? i : j);
        sys->A.indices[2 * i + 1] = (int32_t)(i < j ? j : i);
        sys->A.values[2 * i] = i < j ? 1.0 : 2e-8 - 1.0;
        sys->A.values[2 * i + 1] = i < j ? 2e-8 - 1.0 : 1.0;
        sys->b[i] = 1.0 + (i % 2 ? -0.01 : 0.01);
    }
}

/* Where float cannot help. A 1-D Laplacian of 20000 rows (condition
 * ~1.6e8, float's epsilon times it above 1) without a preconditioner:
 * refinement still converges to rtol 1e-10. A matrix float cannot hold
 * (float_singular): handed over to double after the probe. */
static void ill_conditioned(void)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    int64_t n = 20000;
    double *d = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; ++i) d[i] = 2.0;
    tridiag(&sys.A, n, d, -1.0);
    free(d);
    sys.b = rhs_for(&sys.A, NULL);
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
    o.mixed = CMRS_MIXED_REFINE;
    o.maxiter = 200000;
    mixed_solve("1-D Laplacian 20000, none, rtol 1e-10", &sys, o);
    /* float values with the row sums kept: iterations as in double */
    o.mixed = CMRS_MIXED_VALUES;
    int64_t its = mixed_solve("1-D Laplacian 20000, values, rtol 1e-10",
                              &sys, o);
    int64_t ref = double_solve(&sys, o);
    CHECK(its > 0 && close_its(ref, its, 3, 10), "1-D Laplacian values: %lld "
          "iterations against double's %lld", (long long)its,
          (long long)ref);
    cmrs_system_free(&sys);
    float_singular(&sys, 100);
    o.rtol = 1e-6;
    o.maxiter = 1000;
    mixed_solve("blocks singular in float", &sys, o);
    CHECK(g_cycles == 1, "blocks singular in float: %lld cycles, not handed "
          "over to double after the probe", (long long)g_cycles);
    cmrs_system_free(&sys);
}

/* auto with jacobi: double all through, and the notice says why. */
static void auto_jacobi(const cmrs_system *sys)
{
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-8);
    o.mixed = CMRS_MIXED_AUTO;
    CHECK_OK(cmrs_backend_gpu_create(&sys->A, "cmrs", CMRS_PREC_DOUBLE, NULL,
                                     &be));
    if (be) CHECK_OK(cmrs_ksp_create(be, &sys->A, &o, "auto", &s));
    if (s) {
        cmrs_ksp_result r;
        const char *why = cmrs_ksp_notice(s);
        CHECK(why && strstr(why, "runs in double"), "auto jacobi notice: %s",
              why ? why : "none");
        CHECK_OK(cmrs_ksp_set_rhs(s, sys->b, NULL));
        CHECK_OK(cmrs_ksp_solve(s, &r));
        CHECK(r.mixed == CMRS_MIXED_OFF && r.cycles == 0, "auto jacobi ran "
              "%s", cmrs_mixed_name(r.mixed));
    }
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
}

static void refusals(const cmrs_system *sys)
{
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-8);
    o.mixed = CMRS_MIXED_PRECOND;
    outcome g = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &sys->A, sys->b, NULL, &o);
    CHECK(g.rc == CMRS_E_USAGE, "precond mode with jacobi: rc %d", g.rc);
    outcome_free(&g);
    o.mixed = CMRS_MIXED_REFINE;
    g = solve_gpu("cmrs", CMRS_PREC_SINGLE, &sys->A, sys->b, NULL, &o);
    CHECK(g.rc == CMRS_E_USAGE, "mixed on a single back end: rc %d", g.rc);
    outcome_free(&g);
    o.mixed = CMRS_MIXED_VALUES;
    g = solve_gpu("cusparse", CMRS_PREC_DOUBLE, &sys->A, sys->b, NULL, &o);
    CHECK(g.rc == CMRS_E_USAGE && strstr(cmrs_error_message(), "float"),
          "values on cusparse: rc %d '%s'", g.rc, cmrs_error_message());
    outcome_free(&g);
    cmrs_error_clear();
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    static const int64_t sizes[] = {0, 1, 31, 1000, 70001};
    for (int i = 0; i < 5; ++i) cast_matches_host(sizes[i]);
    cmrs_system vessel, poisson;
    pc_cases(&vessel, &poisson);
    refine_cases("vessel", &vessel, 0);
    refine_cases("poisson", &poisson, 1);
    precond_cases("vessel", &vessel);
    precond_cases("poisson", &poisson);
    values_cases("vessel", &vessel, 0);
    values_cases("poisson", &poisson, 1);
    cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-8);
    o.mixed = CMRS_MIXED_REFINE;
    update_case(&vessel, o);
    o.mixed = CMRS_MIXED_VALUES;
    update_case(&vessel, o);
    o = amg_opts(0, 1e-8);
    o.mixed = CMRS_MIXED_VALUES;
    update_case(&vessel, o);
    o = amg_opts(0, 1e-8);
    o.mixed = CMRS_MIXED_PRECOND;
    update_case(&vessel, o);
    ill_conditioned();
    auto_jacobi(&vessel);
    refusals(&vessel);
    cmrs_system_free(&vessel);
    cmrs_system_free(&poisson);
    return check_summary();
}
