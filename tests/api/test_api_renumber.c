/* The system renumbered once (option renumber, api/renumber.c) on the CPU
 * context: a randomly numbered 2-D Laplacian solved with renumber on and
 * off must give the same x in the caller's order (to the solve's
 * tolerance), the same iterations (+-1: the sums run in another order),
 * for every preconditioner, both methods, a non-zero x0, float arrays,
 * after host value updates and through apply_precond; B must be P A P^T
 * with its rows sorted; messages that name a row name the caller's; auto
 * leaves small or well numbered systems alone; on is refused where it
 * cannot run. */
#include <stdio.h>

#include "tren.h"

static cmrs_context *g_ctx;
static cmrs_csr g_A; /* 30 x 40 grid + 3 isolated rows, random order */

/* B = P A P^T: B's row r is A's row rows[r] with each entry j taken from
 * A's entries[j], columns renumbered, sorted within the row. */
static void check_b(const cmrs_solver *s, const cmrs_csr *A)
{
    cmrs_api_ren *ren = s->ren;
    const int32_t *entries = NULL;
    CHECK(ren != NULL, "renumber on: the solver holds a renumbering");
    if (!ren) return;
    CHECK_OK(cmrs_api_ren_entries(ren, &entries));
    if (!entries) return;
    const cmrs_csr *B = cmrs_api_ren_matrix(ren);
    const int32_t *rows = cmrs_api_ren_rows(ren);
    int32_t *new_of = malloc((size_t)A->rows * sizeof *new_of);
    int64_t bad = 0;
    for (int64_t r = 0; r < A->rows; ++r) new_of[rows[r]] = (int32_t)r;
    CHECK(B->rows == A->rows && B->nnz == A->nnz, "B's shape");
    for (int64_t r = 0; r < B->rows; ++r) {
        const int64_t i = rows[r];
        bad += B->indptr[r + 1] - B->indptr[r] !=
               A->indptr[i + 1] - A->indptr[i];
        for (int64_t j = B->indptr[r]; j < B->indptr[r + 1]; ++j) {
            const int64_t e = entries[j];
            bad += e < A->indptr[i] || e >= A->indptr[i + 1];
            bad += B->values[j] != A->values[e];
            bad += B->indices[j] != new_of[A->indices[e]];
            bad += j > B->indptr[r] && B->indices[j] <= B->indices[j - 1];
        }
    }
    CHECK(bad == 0, "B = P A P^T, rows sorted, maps consistent (%lld "
          "mismatches)", (long long)bad);
    free(new_of);
}

/* One solve of b from x0 (NULL: 0) with renumber `ren` and opts; x out. */
static cmrs_solve_info solve(const char *ren, const char *const *opts,
                             const double *b, const double *x0, double *x,
                             double *renumbered)
{
    cmrs_matrix *M = NULL;
    cmrs_solve_info info;
    cmrs_solver *s = tren_solver(g_ctx, &g_A, ren, opts, &M);
    const int64_t n = g_A.rows;
    if (x0) memcpy(x, x0, (size_t)n * sizeof *x);
    else memset(x, 0, (size_t)n * sizeof *x);
    API_OK(g_ctx, cmrs_solver_solve(s, b, x));
    API_OK(g_ctx, cmrs_solver_get_info(s, &info));
    if (strcmp(ren, "on") == 0) check_b(s, &g_A);
    if (renumbered) *renumbered = cmrs_solver_renumbered(s);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    return info;
}

/* On against off for each preconditioner and method, b and x0 given. */
static void test_same_solution(void)
{
    static const char *const pcs[] = {"jacobi", "none", "chebyshev", "amg"};
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n), *x0 = tren_rhs(n);
    double *x_on = malloc((size_t)n * 8), *x_off = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; ++i) x0[i] = 0.01 * (double)(i % 5);
    for (int m = 0; m < 2; ++m)
        for (size_t p = 0; p < sizeof pcs / sizeof *pcs; ++p) {
            const char *opts[] = {"precond", pcs[p], "rtol", "1e-10",
                                  "solver", m ? "bicgstab" : "cg", NULL};
            double t_on = -2, t_off = -2;
            cmrs_solve_info on = solve("on", opts, b, x0, x_on, &t_on);
            cmrs_solve_info off = solve("off", opts, b, x0, x_off, &t_off);
            const double d = tren_diff(x_on, x_off, n);
            /* BiCGStab's count moves with rounding (seen: 104 / 102,
             * 34 / 38): within a tenth */
            const int64_t di = llabs(on.iterations - off.iterations);
            const int64_t slack = m ? 1 + off.iterations / 10 : 1;
            CHECK(on.converged && off.converged && d < 1e-8 && di <= slack &&
                      on.true_relative_residual < 1e-9,
                  "%s + %s: renumbered x off by %.2e, iterations %lld / "
                  "%lld, true residual %.2e", m ? "bicgstab" : "cg", pcs[p],
                  d, (long long)on.iterations, (long long)off.iterations,
                  on.true_relative_residual);
            CHECK(t_on >= 0 && t_off == -1, "the setup says whether it "
                  "renumbered (%g, %g)", t_on, t_off);
        }
    CMRS_FREE_ALL(b, x0, x_on, x_off);
}

/* Auto on the CPU context keeps the caller's order, even with the floor
 * lowered to this system's rows (CMRS_RENUMBER_MIN_ROWS, which the GPU
 * test's default renumbers at). */
static void test_auto_cpu(void)
{
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n), *x = malloc((size_t)n * 8), t = 0;
    tren_set_floor(n);
    (void)solve("auto", NULL, b, NULL, x, &t);
    tren_set_floor(0);
    CHECK(t == -1, "auto renumbered a system of %lld rows on the CPU",
          (long long)n);
    CMRS_FREE_ALL(b, x);
}

/* The auto rule (the default) with a smaller row floor: a poorly
 * numbered system on a GPU context, not on the CPU's, not below the
 * floor, not a well numbered one; on and off as asked; never with parts;
 * the default options are auto. */
static void test_auto_rule(void)
{
    cmrs_opts o;
    cmrs_opts_default(&o);
    CHECK(o.renumber == 0, "the default is not auto (%d)", o.renumber);
    /* well numbered: the diagonal of g_A's size (its values unread) */
    const int64_t n = g_A.rows;
    int32_t *cols = malloc((size_t)n * sizeof *cols);
    int64_t *ptr = malloc(((size_t)n + 1) * sizeof *ptr);
    for (int64_t i = 0; i <= n; ++i) ptr[i] = i;
    for (int64_t i = 0; i < n; ++i) cols[i] = (int32_t)i;
    cmrs_csr natural = {n, n, n, ptr, cols, g_A.values};
    CHECK(cmrs_api_ren_rule(&o, &g_A, 1, 100) == 1, "auto: a shuffled grid "
          "on a GPU context is not renumbered");
    CHECK(cmrs_api_ren_rule(&o, &g_A, 0, 100) == 0, "auto: renumbered on a "
          "CPU context");
    CHECK(cmrs_api_ren_rule(&o, &g_A, 1, g_A.rows + 1) == 0, "auto: "
          "renumbered below the floor");
    CHECK(cmrs_api_ren_rule(&o, &natural, 1, 100) == 0, "auto: a diagonal "
          "matrix renumbered");
    CHECK(cmrs_api_ren_wanted(&o, &g_A, 1) == 0, "auto: %lld rows "
          "renumbered below CMRS_RENUMBER_MIN_ROWS", (long long)g_A.rows);
    o.renumber = 1;
    CHECK(cmrs_api_ren_rule(&o, &natural, 0, 1 << 30) == 1, "on: not "
          "renumbered");
    o.parts = 2;
    CHECK(cmrs_api_ren_rule(&o, &g_A, 1, 100) == 0, "renumbered with parts");
    o.parts = 0;
    o.renumber = -1;
    CHECK(cmrs_api_ren_rule(&o, &g_A, 1, 100) == 0, "off: renumbered");
    free(cols);
    free(ptr);
}

/* Float host arrays: x rounded in the caller's order. */
static void test_float(void)
{
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n);
    float *bf = malloc((size_t)n * 4), *x[2];
    cmrs_solve_info info[2];
    for (int64_t i = 0; i < n; ++i) bf[i] = (float)b[i];
    for (int k = 0; k < 2; ++k) {
        cmrs_matrix *M = NULL;
        cmrs_solver *s = tren_solver(g_ctx, &g_A, k ? "on" : "off", NULL,
                                     &M);
        x[k] = calloc((size_t)n, 4);
        API_OK(g_ctx, cmrs_solver_solve_ex(s, bf, x[k], CMRS_VALUE_FLOAT32,
                                           CMRS_MEMORY_HOST));
        API_OK(g_ctx, cmrs_solver_get_info(s, &info[k]));
        cmrs_solver_destroy(s);
        cmrs_matrix_destroy(M);
    }
    double d = 0;
    for (int64_t i = 0; i < n; ++i) d = fmax(d, fabs(x[0][i] - x[1][i]));
    CHECK(d < 1e-5 && fabs(info[0].true_relative_residual -
                           info[1].true_relative_residual) < 1e-6,
          "float arrays: x differs by %.2e, true residuals %.3e / %.3e", d,
          info[0].true_relative_residual, info[1].true_relative_residual);
    CMRS_FREE_ALL(b, bf, x[0], x[1]);
}

/* New host values (diagonal x 1.5, the caller's order) on a renumbered
 * solver: its solve equals a fresh, not renumbered, setup's; the
 * matrix's own values are the new ones. */
static void test_update(void)
{
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n), *x = calloc((size_t)n, 8);
    double *v = malloc((size_t)g_A.nnz * 8);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = g_A.indptr[i]; k < g_A.indptr[i + 1]; ++k)
            v[k] = g_A.values[k] * (g_A.indices[k] == i ? 1.5 : 1.0);
    const char *opts[] = {"rtol", "1e-10", NULL};
    cmrs_matrix *M = NULL;
    cmrs_solver *s = tren_solver(g_ctx, &g_A, "on", opts, &M);
    API_OK(g_ctx, cmrs_solver_solve(s, b, x));
    API_OK(g_ctx, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    memset(x, 0, (size_t)n * 8);
    API_OK(g_ctx, cmrs_solver_solve(s, b, x));
    tren_against_fresh(g_ctx, &g_A, v, opts, b, x, "after an update");
    tren_holds(M, v, "host update");
    check_b(s, &cmrs_matrix_system(M)->A);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    CMRS_FREE_ALL(b, x, v);
}

/* apply_precond in the caller's order: Jacobi's z = D^-1 r bit for bit;
 * amg's hierarchy follows the numbering (its aggregates differ), so its
 * z only approximates the other's (both approximate A^-1 r: seen 5.6e-2
 * apart, where z in the wrong order is ~1 away). */
static void test_apply(void)
{
    const int64_t n = g_A.rows;
    double *r = tren_rhs(n), *z[2];
    static const char *const pcs[] = {"jacobi", "amg"};
    for (size_t p = 0; p < 2; ++p) {
        const char *opts[] = {"precond", pcs[p], NULL};
        for (int k = 0; k < 2; ++k) {
            cmrs_matrix *M = NULL;
            cmrs_solver *s = tren_solver(g_ctx, &g_A, k ? "on" : "off",
                                         opts, &M);
            z[k] = malloc((size_t)n * 8);
            API_OK(g_ctx, cmrs_solver_apply_precond(
                              s, r, z[k], CMRS_VALUE_FLOAT64,
                              CMRS_MEMORY_HOST));
            cmrs_solver_destroy(s);
            cmrs_matrix_destroy(M);
        }
        const double d = tren_diff(z[1], z[0], n);
        CHECK(p == 0 ? d == 0 : d < 0.2, "apply_precond %s: z off by %.2e",
              pcs[p], d);
        CMRS_FREE_ALL(z[0], z[1]);
    }
    free(r);
}

/* B's row for A's row `row` under the renumbering of A (made here). */
static int64_t b_row_of(const cmrs_csr *A, int64_t row)
{
    cmrs_api_ren *ren = NULL;
    int64_t r = -1;
    CHECK_OK(cmrs_api_ren_make(A, 0, &ren));
    for (int64_t k = 0; ren && k < A->rows; ++k)
        if (cmrs_api_ren_rows(ren)[k] == row) r = k;
    cmrs_api_ren_free(ren);
    return r;
}

/* A renumbered solver's setup on A fails naming `want`. */
static void setup_fails(const cmrs_csr *A, const char *want)
{
    cmrs_matrix *M = tren_matrix(g_ctx, A);
    cmrs_solver *s = NULL;
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_OK(g_ctx, cmrs_solver_set_option(s, "renumber", "on"));
    API_FAILS(g_ctx, cmrs_solver_setup(s, M), CMRS_ERROR_INPUT, want);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
}

/* Messages name the caller's row: a negative diagonal and an empty row at
 * setup (the empty one first, as without renumbering), a negative
 * diagonal in new host values; on is refused with parts. */
static void test_messages(void)
{
    cmrs_csr A;
    char want[64];
    const int64_t row = 37, empty = 50;
    tren_grid(8, 8, 0, 0.1, 7, &A);
    const int64_t moved = b_row_of(&A, row);
    CHECK(moved >= 0 && moved != row, "row %lld is B's row %lld: the test "
          "sees a renumbered row", (long long)row, (long long)moved);
    double *v = malloc((size_t)A.nnz * sizeof *v);
    memcpy(v, A.values, (size_t)A.nnz * sizeof *v);
    for (int64_t k = A.indptr[row]; k < A.indptr[row + 1]; ++k)
        if (A.indices[k] == row) A.values[k] = -3.0;
    snprintf(want, sizeof want, "row %lld (0-based) has a negative",
             (long long)row);
    setup_fails(&A, want);
    /* the same values as an update of a good setup */
    cmrs_csr G = A;
    G.values = v;
    cmrs_matrix *M = NULL;
    cmrs_solver *s = tren_solver(g_ctx, &G, "on", NULL, &M);
    API_FAILS(g_ctx, cmrs_solver_update_values(s, A.values,
                                               CMRS_VALUE_FLOAT64,
                                               CMRS_MEMORY_HOST),
              CMRS_ERROR_INPUT, want);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    /* row `empty` emptied (its entries dropped; columns elsewhere stay;
     * G shares these arrays and is not used again) */
    const int64_t gone = A.indptr[empty + 1] - A.indptr[empty];
    for (int64_t k = A.indptr[empty + 1]; k < A.nnz; ++k) {
        A.indices[k - gone] = A.indices[k];
        A.values[k - gone] = A.values[k];
    }
    for (int64_t i = empty + 1; i <= A.rows; ++i) A.indptr[i] -= gone;
    A.nnz -= gone;
    snprintf(want, sizeof want, "row %lld has no entries", (long long)empty);
    setup_fails(&A, want);
    M = tren_matrix(g_ctx, &g_A);
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_OK(g_ctx, cmrs_solver_set_option(s, "renumber", "on"));
    API_FAILS(g_ctx, cmrs_solver_set_option(s, "renumber", "maybe"),
              CMRS_ERROR_USAGE, "--renumber");
    API_OK(g_ctx, cmrs_solver_set_option(s, "parts", "2"));
    API_FAILS(g_ctx, cmrs_solver_setup(s, M), CMRS_ERROR_USAGE,
              "--renumber on");
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    free(v);
    cmrs_csr_free(&A);
}

int main(void)
{
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &g_ctx));
    tren_grid(30, 40, 3, 0.0, 1, &g_A);
    int rc = CHECK_RUN(test_same_solution, test_auto_cpu, test_auto_rule,
                       test_float,
                       test_update, test_apply, test_messages);
    cmrs_csr_free(&g_A);
    cmrs_context_destroy(g_ctx);
    return rc;
}
