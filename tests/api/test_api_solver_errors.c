/* The solver's bad calls: NULLs, call order, options, sizes and memory
 * kinds; each returns its status and a one-line message, and the solver
 * stays usable afterwards. */
#include <math.h>
#include <stdint.h>

#include "tapi.h"

static int32_t g_ptr[TAPI_N + 1], g_idx[TAPI_NNZ];
static double g_val[TAPI_NNZ], g_b[TAPI_N], g_x[TAPI_N];

static void test_null_handles(void)
{
    cmrs_solve_info info;
    int64_t count = 0;
    API_FAILS(NULL, cmrs_solver_create(NULL, NULL), CMRS_ERROR_USAGE,
              "ctx is NULL");
    API_FAILS(NULL, cmrs_solver_set_option(NULL, "rtol", "1e-6"),
              CMRS_ERROR_USAGE, "s is NULL");
    API_FAILS(NULL, cmrs_solver_setup(NULL, NULL), CMRS_ERROR_USAGE, NULL);
    API_FAILS(NULL, cmrs_solver_solve(NULL, g_b, g_x), CMRS_ERROR_USAGE,
              NULL);
    API_FAILS(NULL, cmrs_solver_update_values(NULL, g_val,
              CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, NULL);
    API_FAILS(NULL, cmrs_solver_get_info(NULL, &info), CMRS_ERROR_USAGE,
              NULL);
    API_FAILS(NULL, cmrs_solver_history(NULL, NULL, 0, &count),
              CMRS_ERROR_USAGE, NULL);
    cmrs_solver_destroy(NULL);
}

/* Every option include/cmrs.h lists takes a valid value (on a scratch
 * solver: the values are not meant to solve well together). */
static void test_every_option(cmrs_context *ctx)
{
    static const char *const pairs[] = {
        "solver", "bicgstab", "precond", "amg", "rtol", "1e-7", "atol",
        "1e-12", "maxiter", "500", "spmv", "cusparse", "height", "auto",
        "height", "8", "engine", "cublas", "precision", "double",
        "check-every", "16", "cheb-degree", "4", "cheb-ratio", "20",
        "amg-agg", "greedy", "amg-agg-size", "4", "amg-prolong", "smoothed",
        "amg-theta", "0.1", "amg-sweeps", "3", "amg-smoother", "chebyshev",
        "amg-coarse", "200", "amg-levels", "5", "amg-format", "auto",
        "block-size", "256", "modulo", "8", "tune-budget", "0.5", "history",
        "off", NULL};
    cmrs_solver *s = NULL;
    API_OK(ctx, cmrs_solver_create(ctx, &s));
    for (int i = 0; s && pairs[i]; i += 2)
        API_OK(ctx, cmrs_solver_set_option(s, pairs[i], pairs[i + 1]));
    cmrs_solver_destroy(s);
}

/* Unknown names and bad values: USAGE naming the option. */
static void test_options(cmrs_context *ctx, cmrs_solver *s)
{
    API_FAILS(ctx, cmrs_solver_set_option(s, "tolerance", "1"),
              CMRS_ERROR_USAGE, "unknown option 'tolerance'");
    API_FAILS(ctx, cmrs_solver_set_option(s, "rtol", "abc"),
              CMRS_ERROR_USAGE, "--rtol");
    API_FAILS(ctx, cmrs_solver_set_option(s, "rtol", "2"), CMRS_ERROR_USAGE,
              "out of range");
    API_FAILS(ctx, cmrs_solver_set_option(s, "precond", "ilu"),
              CMRS_ERROR_USAGE, "ilu");
    API_FAILS(ctx, cmrs_solver_set_option(s, "height", "17"),
              CMRS_ERROR_USAGE, "--height");
    API_FAILS(ctx, cmrs_solver_set_option(s, "spmv", "nope"),
              CMRS_ERROR_USAGE, "--spmv");
    API_FAILS(ctx, cmrs_solver_set_option(s, "amg-agg-size", "3"),
              CMRS_ERROR_USAGE, "--amg-agg-size");
    API_FAILS(ctx, cmrs_solver_set_option(s, "history", "yes"),
              CMRS_ERROR_USAGE, "--history");
    API_FAILS(ctx, cmrs_solver_set_option(s, NULL, "1"), CMRS_ERROR_USAGE,
              "name");
    API_FAILS(ctx, cmrs_solver_set_option(s, "rtol", NULL), CMRS_ERROR_USAGE,
              "--rtol");
    API_OK(ctx, cmrs_solver_set_option(s, "rtol", "1e-10"));
    API_OK(ctx, cmrs_solver_set_option(s, "history", "on"));
}

/* Matrices a solver cannot take: not square, empty, another context's. */
static void test_bad_shapes(cmrs_context *ctx, cmrs_solver *s)
{
    int32_t ptr[3] = {0, 1, 2}, idx[2] = {0, 2};
    double val[2] = {1.0, 1.0};
    cmrs_matrix *R = NULL, *E = NULL, *O = NULL;
    cmrs_context *other = NULL;
    API_OK(ctx, cmrs_matrix_create_csr(ctx, 2, 3, 2, ptr, idx,
           CMRS_INDEX_INT32, val, CMRS_VALUE_FLOAT64, &R));
    API_OK(ctx, cmrs_matrix_create_csr(ctx, 0, 0, 0, ptr, idx,
           CMRS_INDEX_INT32, val, CMRS_VALUE_FLOAT64, &E));
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &other));
    API_OK(other, cmrs_matrix_create_csr(other, 1, 1, 1, ptr, idx,
           CMRS_INDEX_INT32, val, CMRS_VALUE_FLOAT64, &O));
    API_FAILS(ctx, cmrs_solver_setup(s, R), CMRS_ERROR_INPUT, "2 x 3");
    API_FAILS(ctx, cmrs_solver_setup(s, E), CMRS_ERROR_INPUT, "square");
    API_FAILS(ctx, cmrs_solver_setup(s, O), CMRS_ERROR_USAGE,
              "another context");
    cmrs_matrix_destroy(R);
    cmrs_matrix_destroy(E);
    cmrs_matrix_destroy(O);
    cmrs_context_destroy(other);
}

/* Calls before setup, and setups that cannot work. */
static void test_order(cmrs_context *ctx, cmrs_solver *s, cmrs_matrix *A)
{
    cmrs_solve_info info;
    int64_t count = 0;
    API_FAILS(ctx, cmrs_solver_solve(s, g_b, g_x), CMRS_ERROR_USAGE,
              "not set up");
    API_FAILS(ctx, cmrs_solver_update_values(s, g_val, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "not set up");
    API_FAILS(ctx, cmrs_solver_history(s, NULL, 0, &count), CMRS_ERROR_USAGE,
              "no solve");
    API_OK(ctx, cmrs_solver_get_info(s, &info));
    CHECK(info.reason == CMRS_REASON_NONE && info.iterations == 0,
          "info before a solve");
    API_FAILS(ctx, cmrs_solver_setup(s, NULL), CMRS_ERROR_USAGE,
              "A is NULL");
    test_bad_shapes(ctx, s);
    API_OK(ctx, cmrs_solver_set_option(s, "precision", "single"));
    API_FAILS(ctx, cmrs_solver_setup(s, A), CMRS_ERROR_USAGE, "double only");
    API_OK(ctx, cmrs_solver_set_option(s, "precision", "double"));
    API_OK(ctx, cmrs_solver_set_option(s, "engine", "fused"));
    API_FAILS(ctx, cmrs_solver_setup(s, A), CMRS_ERROR_USAGE, "GPU only");
    API_OK(ctx, cmrs_solver_set_option(s, "engine", "auto"));
}

/* After setup: options frozen, wrong arguments refused, solves still go. */
static void test_after_setup(cmrs_context *ctx, cmrs_solver *s)
{
    API_FAILS(ctx, cmrs_solver_set_option(s, "rtol", "1e-6"),
              CMRS_ERROR_USAGE, "after setup");
    API_FAILS(ctx, cmrs_solver_solve(s, NULL, g_x), CMRS_ERROR_USAGE,
              "NULL");
    API_FAILS(ctx, cmrs_solver_solve_ex(s, g_b, g_x, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_DEVICE), CMRS_ERROR_USAGE, "CPU context");
    API_FAILS(ctx, cmrs_solver_solve_ex(s, g_b, g_x, (cmrs_value_type)7,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "value type");
    API_FAILS(ctx, cmrs_solver_solve_ex(s, g_b, g_x, CMRS_VALUE_FLOAT64,
              (cmrs_memory)3), CMRS_ERROR_USAGE, "memory");
    API_FAILS(ctx, cmrs_solver_update_values(s, g_val, (cmrs_value_type)9,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "value type");
    API_FAILS(ctx, cmrs_solver_update_values(s, g_val, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_DEVICE), CMRS_ERROR_USAGE, "CPU context");
    API_FAILS(ctx, cmrs_solver_update_values(s, NULL, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "values is NULL");
    API_OK(ctx, cmrs_solver_solve(s, g_b, g_x));
}

/* Bad new values: NaN leaves everything as it was; a zero diagonal
 * (Jacobi cannot) leaves the solver not set up until the next setup. */
static void test_bad_update(cmrs_context *ctx, cmrs_solver *s)
{
    double v[TAPI_NNZ];
    memcpy(v, g_val, sizeof v);
    v[3] = NAN;
    API_FAILS(ctx, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_INPUT, "not finite");
    API_OK(ctx, cmrs_solver_solve(s, g_b, g_x));
    v[3] = 0.0; /* the diagonal of row 1 */
    API_FAILS(ctx, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_INPUT, "row 1");
    API_FAILS(ctx, cmrs_solver_solve(s, g_b, g_x), CMRS_ERROR_USAGE,
              "not set up");
}

int main(void)
{
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL;
    tapi_laplacian(g_ptr, g_idx, g_val);
    for (int i = 0; i < TAPI_N; ++i) g_b[i] = 1.0;
    test_null_handles();
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &ctx));
    API_OK(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ, g_ptr,
           g_idx, CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64, &A));
    API_OK(ctx, cmrs_solver_create(ctx, &s));
    if (!ctx || !A || !s) return check_summary();
    test_every_option(ctx);
    test_options(ctx, s);
    test_order(ctx, s, A);
    API_OK(ctx, cmrs_solver_setup(s, A));
    test_after_setup(ctx, s);
    test_bad_update(ctx, s);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    return check_summary();
}
