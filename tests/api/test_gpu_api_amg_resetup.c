/* The AMG's in-place re-setup (amg-update full) and the graphs kept over
 * values-only updates, on the GPU (exits 77 without one), vessel_3k:
 *   - every level format the AMG can use, double and single: new device
 *     values S A S (S = diag(1, 2, 4, 1, ...), powers of two, so the
 *     strength of connection, hence the aggregates, of a fresh setup are
 *     bit for bit those kept; P's row scales and smoothing weight, R, A_c
 *     and the coarse inverse all change) give the level operators of a
 *     fresh setup on those values (within rounding) and its iterations
 *     (+-1; +-3 in single), two levels so that the coarse aggregates cannot differ; two
 *     updates each, so that the SpGEMM reuse plans made by the first are
 *     run again by the second (in double every level must have used one);
 *   - more levels, values 4 A (every level's aggregates kept by a fresh
 *     setup too), host and device values, graph and fused engines: the
 *     CUDA graphs captured before the update are replayed after it (no
 *     new capture) and the solve matches a fresh setup's;
 *   - frozen updates and the chebyshev preconditioner keep the graphs too,
 *     chebyshev converging exactly as a fresh setup;
 *   - with no reuse plan (CMRS_TEST_AMG_NO_PLAN: every level formed from
 *     scratch from the aggregates setup kept on the device, fetched to the
 *     host first), the same operators and iterations as a fresh setup;
 *   - an allocation failure injected half way through a re-setup
 *     (CMRS_TEST_FAIL_AMG_RESETUP) reports NOMEM naming it, leaves the
 *     solver not set up (no solve with half-updated levels), and a new
 *     setup of the same solver works. */
#include <cuda_runtime_api.h>
#include <math.h>

#include "api/api_internal.h"
#include "solver/amg/amg.h"
#include "solver/krylov/krylov.h"
#include "base/gpu/cuda_check.h"
#include "spmv/spmv.h"
#include "tapi_case.h"

/* 1 while without_plans runs: no level may use a reuse plan. */
static int g_no_plan;
#include "tapi_gpu.h"

static cmrs_context *g_gpu;
static cmrs_system g_sys;
static char g_file[1024];

typedef struct setup_opts {
    const char *pc, *update, *format, *precision, *engine;
    const char *levels, *coarse; /* NULL: default */
} setup_opts;

/* Setup may refuse a level format (a padding limit): *s NULL then. */
static cmrs_solver *make_solver(cmrs_matrix *M, const setup_opts *o)
{
    cmrs_solver *s = NULL;
    API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
    API_OK(g_gpu, cmrs_solver_set_option(s, "precond", o->pc));
    API_OK(g_gpu, cmrs_solver_set_option(s, "precision", o->precision));
    API_OK(g_gpu, cmrs_solver_set_option(s, "engine", o->engine));
    /* single: well above float's floor, where rounding moves few
     * iterations (tests/api/test_gpu_api_update.c saw up to 25 at 1e-5) */
    API_OK(g_gpu, cmrs_solver_set_option(s, "rtol",
                                         strcmp(o->precision, "single")
                                             ? "1e-8" : "1e-4"));
    if (o->update)
        API_OK(g_gpu, cmrs_solver_set_option(s, "amg-update", o->update));
    if (o->format)
        API_OK(g_gpu, cmrs_solver_set_option(s, "amg-format", o->format));
    if (o->levels)
        API_OK(g_gpu, cmrs_solver_set_option(s, "amg-levels", o->levels));
    if (o->coarse)
        API_OK(g_gpu, cmrs_solver_set_option(s, "amg-coarse", o->coarse));
    cmrs_status st = cmrs_solver_setup(s, M);
    if (st == CMRS_SUCCESS) return s;
    CHECK(st == CMRS_ERROR_LIMIT, "setup (%s, format %s, %s): %s", o->pc,
          o->format ? o->format : "auto", o->precision,
          cmrs_last_error(g_gpu));
    printf("format %s refused: %s\n", o->format, cmrs_last_error(g_gpu));
    cmrs_solver_destroy(s);
    return NULL;
}

/* A matrix of its own holding values v (an update writes the values). */
static cmrs_matrix *matrix_with(const double *v)
{
    cmrs_matrix *M = tapi_read(g_gpu, g_file);
    if (v)
        memcpy(cmrs_matrix_system(M)->A.values, v,
               (size_t)g_sys.A.nnz * sizeof *v);
    return M;
}

static int single(const setup_opts *o)
{
    return strcmp(o->precision, "single") == 0;
}

/* v as the solver's precision gives it back (a fresh setup must see the
 * values a float32 update carries). */
static void rounded(const setup_opts *o, double *v)
{
    if (!single(o)) return;
    for (int64_t k = 0; k < g_sys.A.nnz; ++k) v[k] = (float)v[k];
}

/* S A S with S = diag(1, 2, 4, 1, 2, 4, ...): exact in double. */
static double *sym_scaled(void)
{
    static const double s[3] = {1, 2, 4};
    const cmrs_csr *A = &g_sys.A;
    double *v = malloc((size_t)A->nnz * sizeof *v);
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            v[k] = A->values[k] * s[i % 3] * s[A->indices[k] % 3];
    return v;
}

static double *times4(void)
{
    double *v = malloc((size_t)g_sys.A.nnz * sizeof *v);
    for (int64_t k = 0; k < g_sys.A.nnz; ++k) v[k] = 4 * g_sys.A.values[k];
    return v;
}

static cmrs_precond *pc_of(cmrs_solver *s) { return cmrs_ksp_precond(s->ksp); }

/* max |x - y| / max |y| of two level matrices (host copies made); INF
 * when their patterns differ. */
static double lmat_diff(cmrs_backend *bx, cmrs_lmat *x, cmrs_backend *by,
                        cmrs_lmat *y)
{
    CHECK_OK(cmrs_lmat_host(bx, x));
    CHECK_OK(cmrs_lmat_host(by, y));
    const cmrs_csr *a = &x->h, *b = &y->h;
    if (a->rows != b->rows || a->nnz != b->nnz || !a->indptr || !b->indptr)
        return INFINITY;
    double d = 0, m = 0;
    for (int64_t k = 0; k < a->nnz; ++k) {
        if (a->indices[k] != b->indices[k]) return INFINITY;
        d = fmax(d, fabs(a->values[k] - b->values[k]));
        m = fmax(m, fabs(b->values[k]));
    }
    return m > 0 ? d / m : d;
}

/* The worst relative difference of the hierarchies' P, R, A_c and rho. */
static double hierarchy_diff(cmrs_solver *u, cmrs_solver *f)
{
    cmrs_precond *pu = pc_of(u), *pf = pc_of(f);
    amg_impl *mu = pu->impl, *mf = pf->impl;
    if (mu->nlev != mf->nlev) return INFINITY;
    double worst = 0;
    for (int l = 0; l + 1 < mu->nlev; ++l) {
        amg_level *a = &mu->lev[l], *b = &mf->lev[l];
        worst = fmax(worst, lmat_diff(pu->be, &a->Pm, pf->be, &b->Pm));
        worst = fmax(worst, lmat_diff(pu->be, &a->Rm, pf->be, &b->Rm));
        worst = fmax(worst, lmat_diff(pu->be, &mu->lev[l + 1].Am, pf->be,
                                      &mf->lev[l + 1].Am));
    }
    for (int l = 0; l < mu->nlev; ++l) {
        double ru = pu->info.level[l].rho, rf = pf->info.level[l].rho;
        worst = fmax(worst, fabs(ru - rf) / rf);
    }
    return worst;
}

static int64_t captures(cmrs_solver *s) { return cmrs_ksp_graph_captures(s->ksp); }

/* Levels whose re-setup ran through the back end's SpGEMM reuse plan
 * (amg_sa_plan_gpu.h; a level without one was formed from scratch). */
static int plans(cmrs_solver *s)
{
    amg_impl *m = pc_of(s)->impl;
    int k = 0;
    for (int l = 0; l + 1 < m->nlev; ++l) k += m->lev[l].sa != NULL;
    return k;
}

static cmrs_solve_info solve(cmrs_solver *s, double *x)
{
    return tapi_solve(g_gpu, s, g_sys.b, g_sys.A.rows, x);
}

/* New values v into s, from the device (as the precision's type) or the
 * host (doubles). */
static void update(cmrs_solver *s, const setup_opts *o, const double *v,
                   int device)
{
    cmrs_value_type t = single(o) ? CMRS_VALUE_FLOAT32 : CMRS_VALUE_FLOAT64;
    if (!device) {
        API_OK(g_gpu, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
                                                CMRS_MEMORY_HOST));
        return;
    }
    void *v_d = tapi_to_device(t, v, g_sys.A.nnz);
    API_OK(g_gpu, cmrs_solver_update_values(s, v_d, t, CMRS_MEMORY_DEVICE));
    CHECK(cudaFree(v_d) == cudaSuccess, "cudaFree");
}

/* Whether an update of s's level format keeps the graphs: the formats
 * whose value store has no `after` step (cusparse redoes its SpMV
 * preprocessing). */
static int format_in_place(const char *format)
{
    return !format || strcmp(format, "cusparse") != 0;
}

/* Setup on A, a solve (graphs captured), an update to A's own values
 * (the re-setup that makes the plans), the update to v, a solve; then a
 * fresh setup on v: the same hierarchy and iterations, and the graphs
 * kept where every operator took its values in place. */
static void resetup_equals_fresh(const setup_opts *o, double *v, int device,
                                 double tol)
{
    int64_t n = g_sys.A.rows;
    double *x = malloc((size_t)n * sizeof *x);
    double *y = malloc((size_t)n * sizeof *y);
    rounded(o, v);
    cmrs_matrix *Mu = matrix_with(NULL), *Mf = matrix_with(v);
    cmrs_solver *u = make_solver(Mu, o), *f = u ? make_solver(Mf, o) : NULL;
    if (u && f) {
        solve(u, x);
        int64_t c0 = captures(u);
        /* twice: the first re-setup makes the reuse plans, the second
         * only runs them */
        update(u, o, g_sys.A.values, device);
        update(u, o, v, device);
        cmrs_solve_info a = solve(u, x), b = solve(f, y);
        double d = hierarchy_diff(u, f);
        int kept = captures(u) == c0;
        const char *fmt = o->format ? o->format : "auto";
        CHECK(d <= tol, "%s %s %s: re-setup vs fresh setup: levels differ "
              "by %g (relative) > %g", o->engine, fmt, o->precision, d, tol);
        CHECK(a.converged && b.converged &&
                  llabs(a.iterations - b.iterations) <= (single(o) ? 3 : 1),
              "%s %s %s: re-setup %lld iterations (converged %d), fresh "
              "%lld (%d)", o->engine, fmt, o->precision,
              (long long)a.iterations, a.converged, (long long)b.iterations,
              b.converged);
        CHECK(kept == format_in_place(o->format) || c0 == 0,
              "%s %s %s: %lld graph captures before the update, %lld after "
              "(kept expected: %d)", o->engine, fmt, o->precision,
              (long long)c0, (long long)captures(u),
              format_in_place(o->format));
        /* The reuse plans are the fast path, not a condition of
         * correctness: required where nothing sends a level to the host
         * (double, the default format's sorted device products). */
        int np = plans(u), nl = ((amg_impl *)pc_of(u)->impl)->nlev - 1;
        CHECK(g_no_plan ? np == 0 : np == nl || single(o) || o->format,
              "%s %s: %d of %d levels re-set up through a SpGEMM reuse "
              "plan (none asked: %d)", o->engine, o->precision, np, nl,
              g_no_plan);
        printf("%s %s %s %s: %lld / %lld iterations, levels within %.2e, "
               "graphs %s, %d/%d levels through reuse plans\n", o->engine,
               fmt, o->precision, device ? "device" : "host",
               (long long)a.iterations, (long long)b.iterations, d,
               kept ? "kept" : "captured again", np, nl);
    }
    cmrs_solver_destroy(u), cmrs_solver_destroy(f);
    cmrs_matrix_destroy(Mu), cmrs_matrix_destroy(Mf);
    free(x), free(y);
}

/* Every level format, both precisions, two levels, S A S from device
 * values (the path a time loop takes). */
static void every_format(void)
{
    static const char *const precs[] = {"double", "single"};
    for (int p = 0; p < 2; ++p)
        for (size_t i = 0; i < cmrs_spmv_format_count(); ++i) {
            setup_opts o = {"amg", "full", cmrs_spmv_format_at(i)->name,
                            precs[p], "graph", "2", NULL};
            double *v = sym_scaled();
            resetup_equals_fresh(&o, v, 1, p ? 1e-5 : 1e-10);
            free(v);
        }
}

/* Every level formed from scratch on the re-setup (no reuse plan): the
 * aggregates that setup kept on the device come to the host for it. */
static void without_plans(void)
{
    setenv("CMRS_TEST_AMG_NO_PLAN", "1", 1);
    g_no_plan = 1;
    for (int device = 0; device < 2; ++device) {
        setup_opts o = {"amg", "full", NULL, "double", "graph", NULL, "100"};
        double *v = times4();
        resetup_equals_fresh(&o, v, device, 1e-10);
        free(v);
    }
    g_no_plan = 0;
    unsetenv("CMRS_TEST_AMG_NO_PLAN");
}

/* More levels (coarse 100), 4 A, host and device values, both
 * precisions, the graph and fused engines. */
static void more_levels(void)
{
    static const char *const engines[] = {"graph", "fused"};
    static const char *const precs[] = {"double", "single"};
    for (int e = 0; e < 2; ++e)
        for (int p = 0; p < 2; ++p)
            for (int device = 0; device < 2; ++device) {
                setup_opts o = {"amg", "full", NULL, precs[p], engines[e],
                                NULL, "100"};
                double *v = times4();
                resetup_equals_fresh(&o, v, device, p ? 1e-5 : 1e-10);
                free(v);
            }
}

/* frozen and chebyshev: the graphs stay; chebyshev solves exactly as a
 * fresh setup on the new values (the same D^-1, power steps and scaling
 * arithmetic). */
static void keeps_graphs(const char *pc, const char *upd, int device)
{
    int64_t n = g_sys.A.rows;
    double *x = malloc((size_t)n * sizeof *x);
    double *y = malloc((size_t)n * sizeof *y);
    double *v = tapi_diag_scaled(&g_sys.A, 1.5);
    setup_opts o = {pc, upd, NULL, "double", "graph", NULL, "100"};
    cmrs_matrix *Mu = matrix_with(NULL), *Mf = matrix_with(v);
    cmrs_solver *u = make_solver(Mu, &o), *f = make_solver(Mf, &o);
    solve(u, x);
    int64_t c0 = captures(u);
    update(u, &o, v, device);
    cmrs_solve_info a = solve(u, x), b = solve(f, y);
    CHECK(c0 > 0 && captures(u) == c0, "%s %s: graph captures %lld before "
          "the update, %lld after", pc, upd ? upd : "", (long long)c0,
          (long long)captures(u));
    CHECK(a.converged && b.converged && a.true_relative_residual <= 2e-8,
          "%s %s: not converged after the update (%d, true residual %g)",
          pc, upd ? upd : "", a.converged, a.true_relative_residual);
    if (strcmp(pc, "chebyshev") == 0) {
        double d = 0, m = 0;
        for (int64_t i = 0; i < n; ++i) {
            d = fmax(d, fabs(x[i] - y[i]));
            m = fmax(m, fabs(y[i]));
        }
        CHECK(a.iterations == b.iterations && d <= 1e-12 * m, "chebyshev "
              "update (%s): %lld iterations, fresh %lld; max |dx| %g",
              device ? "device" : "host", (long long)a.iterations,
              (long long)b.iterations, d);
    }
    printf("%s %s %s values: graphs kept, %lld iterations (fresh %lld)\n",
           pc, upd ? upd : "", device ? "device" : "host",
           (long long)a.iterations, (long long)b.iterations);
    cmrs_solver_destroy(u), cmrs_solver_destroy(f);
    cmrs_matrix_destroy(Mu), cmrs_matrix_destroy(Mf);
    free(x), free(y), free(v);
}

/* A failure half way through a re-setup (level 0's new P, R and A_c
 * formed, its operators not yet refreshed). */
static void injected_failure(void)
{
    int64_t n = g_sys.A.rows;
    double *x = malloc((size_t)n * sizeof *x);
    double *v = times4();
    setup_opts o = {"amg", "full", NULL, "double", "graph", NULL, "100"};
    cmrs_matrix *M = matrix_with(NULL);
    cmrs_solver *s = make_solver(M, &o);
    solve(s, x);
    void *v_d = tapi_to_device(CMRS_VALUE_FLOAT64, v, g_sys.A.nnz);
    setenv("CMRS_TEST_FAIL_AMG_RESETUP", "0", 1);
    API_FAILS(g_gpu, cmrs_solver_update_values(s, v_d, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_DEVICE), CMRS_ERROR_NOMEM, "injected");
    API_FAILS(g_gpu, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "set up");
    unsetenv("CMRS_TEST_FAIL_AMG_RESETUP");
    memset(x, 0, (size_t)n * sizeof *x);
    CHECK(cmrs_solver_solve(s, g_sys.b, x) == CMRS_ERROR_USAGE, "a solve "
          "after a failed re-setup ran");
    API_OK(g_gpu, cmrs_solver_setup(s, M));
    cmrs_solve_info a = solve(s, x);
    CHECK(a.converged, "setup after a failed re-setup: not converged");
    CHECK(cudaFree(v_d) == cudaSuccess, "cudaFree");
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    free(x), free(v);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    if (!tapi_gpu_start(g_file, sizeof g_file, &g_sys, &g_gpu))
        return check_summary();
    every_format();
    more_levels();
    without_plans();
    for (int device = 0; device < 2; ++device) {
        keeps_graphs("amg", "frozen", device);
        keeps_graphs("amg", "full", device);
        keeps_graphs("chebyshev", NULL, device);
    }
    injected_failure();
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_gpu);
    return check_summary();
}
