/* One setup, many solves (the time loop the API exists for), on the CPU
 * back end with vessel_3k: several right-hand sides against fresh setups,
 * update_values against a fresh setup on the new values (jacobi and amg),
 * float host arrays, the residual history, and a solver that outlives the
 * caller's matrix handle. */
#include <math.h>

#include "tapi_case.h"

static cmrs_context *g_ctx;
static cmrs_system g_sys;
static char g_file[1024];

/* b_k: a different right-hand side per k (k = 0: the file's). */
static void rhs(int k, double *b)
{
    for (int64_t i = 0; i < g_sys.A.rows; ++i)
        b[i] = k == 0 ? g_sys.b[i] : sin(0.01 * (double)(i * k)) + k;
}

static void test_many_rhs(cmrs_matrix *M)
{
    int64_t n = g_sys.A.rows;
    double *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_OK(g_ctx, cmrs_solver_setup(s, M));
    for (int k = 0; k < 3 && s; ++k) {
        rhs(k, b);
        memset(x, 0, (size_t)n * sizeof *x);
        API_OK(g_ctx, cmrs_solver_solve(s, b, x));
        API_OK(g_ctx, cmrs_solver_get_info(s, &info));
        outcome o = {info.iterations, info.relative_residual,
                     info.true_relative_residual, x};
        outcome fresh = api_solve(g_ctx, M, NULL, b, NULL, NULL);
        expect_same("reused setup vs fresh", o, fresh);
        CHECK(cmrs_ref_rel_err(n, x, fresh.x) == 0.0, "rhs %d: x differs", k);
        CHECK(info.converged && info.reason == CMRS_REASON_CONVERGED_RTOL,
              "rhs %d: %s", k, cmrs_reason_name(info.reason));
        free(fresh.x);
    }
    cmrs_solver_destroy(s);
    free(b);
    free(x);
}

/* A matrix from the arrays of A (int64 indices). */
static cmrs_matrix *matrix_of(const cmrs_csr *A)
{
    cmrs_matrix *M = NULL;
    int64_t *idx = malloc((size_t)A->nnz * sizeof *idx);
    for (int64_t k = 0; k < A->nnz; ++k) idx[k] = A->indices[k];
    API_OK(g_ctx, cmrs_matrix_create_csr(g_ctx, A->rows, A->cols, A->nnz,
           A->indptr, idx, CMRS_INDEX_INT64, A->values, CMRS_VALUE_FLOAT64,
           &M));
    free(idx);
    return M;
}

/* A solve on a set-up solver from x = 0, as an outcome (x: x_buf). */
static outcome solve_again(cmrs_solver *s, double *x_buf)
{
    cmrs_solve_info info;
    memset(x_buf, 0, (size_t)g_sys.A.rows * sizeof *x_buf);
    API_OK(g_ctx, cmrs_solver_solve(s, g_sys.b, x_buf));
    API_OK(g_ctx, cmrs_solver_get_info(s, &info));
    return (outcome){info.iterations, info.relative_residual,
                     info.true_relative_residual, x_buf};
}

/* New values (same pattern, diagonal raised by half): update_values on a
 * set-up solver equals a fresh setup on a matrix of the new values --
 * exactly where the preconditioner is rebuilt from the values alone; AMG
 * keeps its aggregates (chosen on the old values), so there the update
 * must solve the new system as well as the fresh setup does, in as many
 * iterations. */
static void test_update(const char *precond, int exact)
{
    const char *opts[] = {"precond", precond, NULL};
    cmrs_csr B;
    cmrs_solver *s = NULL;
    CHECK_OK(cmrs_csr_copy(&B, &g_sys.A));
    for (int64_t i = 0; i < B.rows; ++i)
        for (int64_t k = B.indptr[i]; k < B.indptr[i + 1]; ++k)
            if (B.indices[k] == i) B.values[k] *= 1.5;
    cmrs_matrix *M = matrix_of(&g_sys.A), *M2 = matrix_of(&B);
    outcome old = api_solve(g_ctx, M, opts, g_sys.b, NULL, &s);
    outcome fresh = api_solve(g_ctx, M2, opts, g_sys.b, NULL, NULL);
    API_OK(g_ctx, cmrs_solver_update_values(s, B.values, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    double *x = malloc((size_t)B.rows * sizeof *x);
    outcome updated = solve_again(s, x);
    if (exact) {
        expect_same(precond, updated, fresh);
        CHECK(cmrs_ref_rel_err(B.rows, x, fresh.x) <= 1e-12, "%s: x differs by %g",
              precond, cmrs_ref_rel_err(B.rows, x, fresh.x));
    } else {
        CHECK(updated.iterations <= fresh.iterations + 1 &&
                  updated.true_rel <= 1e-8 && fresh.true_rel <= 1e-8,
              "%s: %lld its (true %g) vs fresh %lld (true %g)", precond,
              (long long)updated.iterations, updated.true_rel,
              (long long)fresh.iterations, fresh.true_rel);
    }
    CHECK(cmrs_ref_rel_err(B.rows, x, old.x) > 1e-3, "%s: the update changed "
          "nothing", precond);
    free(x);
    free(old.x);
    free(fresh.x);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    cmrs_matrix_destroy(M2);
    cmrs_csr_free(&B);
}

/* Float host arrays: the double solve of the rounded b, x rounded, the
 * true residual of the rounded x. */
static void test_float_host(cmrs_matrix *M)
{
    int64_t n = g_sys.A.rows;
    float *bf = malloc((size_t)n * sizeof *bf), *xf = calloc((size_t)n, 4);
    double *bd = malloc((size_t)n * sizeof *bd);
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    for (int64_t i = 0; i < n; ++i) bd[i] = bf[i] = (float)g_sys.b[i];
    outcome want = api_solve(g_ctx, M, NULL, bd, NULL, &s);
    API_OK(g_ctx, cmrs_solver_solve_ex(s, bf, xf, CMRS_VALUE_FLOAT32,
                                       CMRS_MEMORY_HOST));
    API_OK(g_ctx, cmrs_solver_get_info(s, &info));
    int same_x = 1;
    for (int64_t i = 0; i < n; ++i) same_x &= xf[i] == (float)want.x[i];
    CHECK(info.iterations == want.iterations && same_x, "float host: %lld "
          "its vs %lld, x %s", (long long)info.iterations,
          (long long)want.iterations, same_x ? "same" : "differs");
    /* the true residual is that of the float x returned, not of the
     * double solution it was rounded from */
    const cmrs_csr *A = &g_sys.A;
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double r = bd[i];
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            r -= A->values[k] * (double)xf[A->indices[k]];
        rr += r * r;
        bb += bd[i] * bd[i];
    }
    CHECK(fabs(info.true_relative_residual - sqrt(rr / bb)) <=
              1e-12 * sqrt(rr / bb) && info.true_relative_residual >
              want.true_rel, "float host: true residual %.17g, of the "
          "float x %.17g, of the double x %.17g",
          info.true_relative_residual, sqrt(rr / bb), want.true_rel);
    cmrs_solver_destroy(s);
    free(want.x);
    free(bf);
    free(xf);
    free(bd);
}

/* History on: iterations + 1 relative residuals, 1 first (x0 = 0), the
 * last at most rtol; a short buffer gets its first entries. */
static void test_history(cmrs_matrix *M)
{
    const char *opts[] = {"history", "on", "rtol", "1e-6", NULL};
    cmrs_solver *s = NULL;
    outcome o = api_solve(g_ctx, M, opts, g_sys.b, NULL, &s);
    int64_t count = 0;
    double h[4096], h2[3];
    API_OK(g_ctx, cmrs_solver_history(s, h, 4096, &count));
    CHECK(count == o.iterations + 1 && count <= 4096 &&
              fabs(h[0] - 1.0) < 1e-12 && h[count - 1] <= 1e-6 &&
              h[count - 1] == o.res_rel, "history: %lld entries, %g .. %g",
          (long long)count, h[0], count > 0 ? h[count - 1] : NAN);
    API_OK(g_ctx, cmrs_solver_history(s, h2, 3, &count));
    CHECK(count == o.iterations + 1 && h2[2] == h[2], "short history");
    cmrs_solver_destroy(s);
    free(o.x);
    o = api_solve(g_ctx, M, NULL, g_sys.b, NULL, &s);
    API_FAILS(g_ctx, cmrs_solver_history(s, h, 4096, &count),
              CMRS_ERROR_USAGE, "history on");
    cmrs_solver_destroy(s);
    free(o.x);
}

/* The caller destroys its matrix handle after setup: the solver's
 * reference keeps it, and solves still give the same answer. */
static void test_refcount(void)
{
    cmrs_matrix *M = matrix_of(&g_sys.A);
    cmrs_solver *s = NULL;
    outcome first = api_solve(g_ctx, M, NULL, g_sys.b, NULL, &s);
    cmrs_matrix_destroy(M);
    double *x = malloc((size_t)g_sys.A.rows * sizeof *x);
    outcome again = solve_again(s, x);
    expect_same("after the matrix's destroy", again, first);
    CHECK(cmrs_ref_rel_err(g_sys.A.rows, x, first.x) == 0.0, "refcount: x differs");
    cmrs_solver_destroy(s);
    free(x);
    free(first.x);
}

int main(void)
{
    cmrs_matrix *M = NULL;
    case_path("vessel_3k.h5", g_file, sizeof g_file);
    CHECK_OK(cmrs_system_read(g_file, NULL, &g_sys));
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &g_ctx));
    if (!g_ctx || !g_sys.A.rows) return check_summary();
    M = matrix_of(&g_sys.A);
    test_many_rhs(M);
    test_update("jacobi", 1);
    test_update("chebyshev", 1);
    test_update("none", 1);
    test_update("amg", 0);
    test_float_host(M);
    test_history(M);
    test_refcount();
    cmrs_matrix_destroy(M);
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_ctx);
    return check_summary();
}
