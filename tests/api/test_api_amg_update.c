/* Option amg-update (full | frozen) on the CPU back end, vessel_3k with
 * coarse levels down to 100 rows:
 *   - unchanged values: a frozen update, a full update and a fresh setup
 *     solve alike (iterations equal; frozen bit for bit, since it redoes
 *     level 0's D^-1 and power steps exactly as setup did);
 *   - drifted values (bench/loop_drift.h, 2%): the frozen solve converges to
 *     the requested true residual in a few iterations of the full one's;
 *   - the V-cycle after a frozen update differs both from the one before
 *     it (the fine smoother took the new values) and from a full update's
 *     (the coarse levels were kept);
 *   - the hierarchy's figures: level 0's rho that of a fresh setup on the
 *     new values, the coarse levels' unchanged;
 *   - bad values of the option refused, naming the valid ones. */
#include <math.h>

#include "api/api_internal.h"
#include "../../bench/loop_drift.h"
#include "solver/pc/precond.h"
#include "tapi_case.h"

#define RTOL 1e-8

static cmrs_context *g_ctx;
static cmrs_system g_sys;

static cmrs_solver *amg_solver(cmrs_matrix *M, const char *update)
{
    cmrs_solver *s = NULL;
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_OK(g_ctx, cmrs_solver_set_option(s, "precond", "amg"));
    API_OK(g_ctx, cmrs_solver_set_option(s, "amg-coarse", "100"));
    API_OK(g_ctx, cmrs_solver_set_option(s, "rtol", "1e-8"));
    if (update) API_OK(g_ctx, cmrs_solver_set_option(s, "amg-update", update));
    API_OK(g_ctx, cmrs_solver_setup(s, M));
    return s;
}

static char g_file[1024];

/* A matrix of its own (an update writes the matrix's values). */
static cmrs_matrix *matrix_of_file(void) { return tapi_read(g_ctx, g_file); }

static cmrs_solve_info solve(cmrs_solver *s, double *x)
{
    return tapi_solve(g_ctx, s, g_sys.b, g_sys.A.rows, x);
}

static double max_diff(const double *x, const double *y)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < g_sys.A.rows; ++i) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return m > 0 ? d / m : d;
}

static void test_unchanged(void)
{
    int64_t n = g_sys.A.rows;
    double *xf = malloc((size_t)n * sizeof *xf);
    double *xu = malloc((size_t)n * sizeof *xu);
    double *xz = malloc((size_t)n * sizeof *xz);
    cmrs_matrix *M = matrix_of_file();
    cmrs_solver *fresh = amg_solver(M, NULL);
    cmrs_solver *full = amg_solver(M, "full");
    cmrs_solver *frozen = amg_solver(M, "frozen");
    API_OK(g_ctx, cmrs_solver_update_values(full, g_sys.A.values,
           CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST));
    API_OK(g_ctx, cmrs_solver_update_values(frozen, g_sys.A.values,
           CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST));
    cmrs_solve_info a = solve(fresh, xf), b = solve(full, xu),
                    c = solve(frozen, xz);
    CHECK(a.converged && b.converged && c.converged, "unchanged: not "
          "converged (fresh %d, full %d, frozen %d)", a.converged,
          b.converged, c.converged);
    CHECK(a.iterations == b.iterations && a.iterations == c.iterations,
          "unchanged values: iterations fresh %lld, full %lld, frozen %lld",
          (long long)a.iterations, (long long)b.iterations,
          (long long)c.iterations);
    CHECK(max_diff(xz, xf) == 0, "unchanged values: frozen x differs from "
          "a fresh setup's by %g (relative)", max_diff(xz, xf));
    CHECK(max_diff(xu, xf) <= 1e-10, "unchanged values: full x differs "
          "from a fresh setup's by %g (relative)", max_diff(xu, xf));
    printf("unchanged values: %lld iterations (fresh, full, frozen)\n",
           (long long)a.iterations);
    cmrs_solver_destroy(fresh);
    cmrs_solver_destroy(full);
    cmrs_solver_destroy(frozen);
    cmrs_matrix_destroy(M);
    free(xf), free(xu), free(xz);
}

static void test_drifted(void)
{
    int64_t n = g_sys.A.rows;
    double *x = malloc((size_t)n * sizeof *x);
    double *v = malloc((size_t)g_sys.A.nnz * sizeof *v);
    loop_drift(&g_sys.A, 0.02, 0.7, v);
    cmrs_matrix *Mu = matrix_of_file();
    cmrs_matrix *Mz = matrix_of_file();
    cmrs_solver *full = amg_solver(Mu, "full");
    cmrs_solver *frozen = amg_solver(Mz, "frozen");
    API_OK(g_ctx, cmrs_solver_update_values(full, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    API_OK(g_ctx, cmrs_solver_update_values(frozen, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    cmrs_solve_info b = solve(full, x), c = solve(frozen, x);
    CHECK(c.converged && c.true_relative_residual <= 2 * RTOL,
          "frozen after a drift: converged %d, true residual %g > 2 rtol",
          c.converged, c.true_relative_residual);
    CHECK(b.converged && c.iterations <= b.iterations + 3,
          "drift 2%%: frozen %lld iterations, full %lld",
          (long long)c.iterations, (long long)b.iterations);
    printf("drift 2%%: full %lld iterations, frozen %lld (true residual "
           "%.2e)\n", (long long)b.iterations, (long long)c.iterations,
           c.true_relative_residual);
    cmrs_solver_destroy(full);
    cmrs_solver_destroy(frozen);
    cmrs_matrix_destroy(Mu);
    cmrs_matrix_destroy(Mz);
    free(x), free(v);
}

static void vcycle(cmrs_solver *s, const double *r, double *z)
{
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
}

/* A large drift (30%): what frozen keeps and what it refreshes shows in
 * the V-cycle. */
static void test_what_frozen_keeps(void)
{
    int64_t n = g_sys.A.rows;
    double *r = malloc((size_t)n * sizeof *r), *v = NULL;
    double *z0 = malloc((size_t)n * sizeof *z0);
    double *zu = malloc((size_t)n * sizeof *zu);
    double *zz = malloc((size_t)n * sizeof *zz);
    for (int64_t i = 0; i < n; ++i) r[i] = sin(0.37 * (double)(i + 1));
    v = malloc((size_t)g_sys.A.nnz * sizeof *v);
    loop_drift(&g_sys.A, 0.3, 0.2, v);
    cmrs_matrix *Mu = matrix_of_file();
    cmrs_matrix *Mz = matrix_of_file();
    cmrs_solver *full = amg_solver(Mu, "full");
    cmrs_solver *frozen = amg_solver(Mz, "frozen");
    vcycle(frozen, r, z0);
    API_OK(g_ctx, cmrs_solver_update_values(full, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    API_OK(g_ctx, cmrs_solver_update_values(frozen, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    vcycle(full, r, zu);
    vcycle(frozen, r, zz);
    CHECK(max_diff(zz, z0) > 1e-3, "frozen: the V-cycle did not change "
          "with the values (%g)", max_diff(zz, z0));
    CHECK(max_diff(zz, zu) > 1e-3, "frozen: the V-cycle is the full "
          "update's (%g): the coarse levels were rebuilt",
          max_diff(zz, zu));
    cmrs_solver_destroy(full);
    cmrs_solver_destroy(frozen);
    cmrs_matrix_destroy(Mu);
    cmrs_matrix_destroy(Mz);
    free(r), free(v), free(z0), free(zu), free(zz);
}

static const cmrs_pc_info *pc_info(cmrs_solver *s)
{
    return &cmrs_ksp_precond(s->ksp)->info;
}

/* The hierarchy's own figures: frozen's level-0 rho is a fresh setup's on
 * the new values, bit for bit (D^-1 and the power steps redone), its
 * coarse levels' rho and nnz those of before the update (kept); full's
 * coarse rho moved (the control). */
static void test_rho(void)
{
    double *v = malloc((size_t)g_sys.A.nnz * sizeof *v);
    loop_drift(&g_sys.A, 0.3, 0.2, v);
    cmrs_matrix *Mz = matrix_of_file(), *Mu = matrix_of_file();
    cmrs_matrix *Mn = matrix_of_file();
    memcpy(cmrs_matrix_system(Mn)->A.values, v,
           (size_t)g_sys.A.nnz * sizeof *v);
    cmrs_solver *frozen = amg_solver(Mz, "frozen");
    cmrs_solver *full = amg_solver(Mu, "full");
    cmrs_solver *fresh = amg_solver(Mn, NULL);
    cmrs_pc_info before = *pc_info(frozen);
    API_OK(g_ctx, cmrs_solver_update_values(frozen, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    API_OK(g_ctx, cmrs_solver_update_values(full, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    const cmrs_pc_info *z = pc_info(frozen), *u = pc_info(full);
    const cmrs_pc_info *n = pc_info(fresh);
    CHECK(z->levels >= 3 && z->levels == before.levels, "levels %d, %d "
          "before the update", z->levels, before.levels);
    CHECK(z->level[0].rho == n->level[0].rho && z->level[0].rho !=
          before.level[0].rho, "frozen level-0 rho %.17g, fresh setup's "
          "%.17g, before %.17g", z->level[0].rho, n->level[0].rho,
          before.level[0].rho);
    for (int l = 1; l < z->levels; ++l)
        CHECK(z->level[l].rho == before.level[l].rho &&
                  z->level[l].nnz == before.level[l].nnz,
              "frozen level %d rebuilt (rho %g, before %g)", l,
              z->level[l].rho, before.level[l].rho);
    CHECK(u->level[1].rho != before.level[1].rho, "full: level 1 rho kept "
          "(%g)", u->level[1].rho);
    cmrs_solver_destroy(frozen), cmrs_solver_destroy(full);
    cmrs_solver_destroy(fresh);
    cmrs_matrix_destroy(Mz), cmrs_matrix_destroy(Mu), cmrs_matrix_destroy(Mn);
    free(v);
}

static void test_bad_values(void)
{
    cmrs_solver *s = NULL;
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_FAILS(g_ctx, cmrs_solver_set_option(s, "amg-update", "partial"),
              CMRS_ERROR_USAGE, "full|frozen");
    API_FAILS(g_ctx, cmrs_solver_set_option(s, "amg-update", ""),
              CMRS_ERROR_USAGE, "amg-update");
    API_OK(g_ctx, cmrs_solver_set_option(s, "amg-update", "frozen"));
    cmrs_solver_destroy(s);
}

int main(void)
{
    case_path("vessel_3k.h5", g_file, sizeof g_file);
    CHECK_OK(cmrs_system_read(g_file, NULL, &g_sys));
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &g_ctx));
    if (!g_ctx || !g_sys.A.rows || !g_sys.b) return check_summary();
    test_bad_values();
    test_unchanged();
    test_drifted();
    test_what_frozen_keeps();
    test_rho();
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_ctx);
    return check_summary();
}
