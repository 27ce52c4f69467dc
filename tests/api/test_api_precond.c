/* cmrs_solver_apply_precond on the CPU back end: jacobi and none exactly
 * (D^-1 r, r), float host arrays, the AMG V-cycle as an operator (linear,
 * symmetric, positive definite, r left alone, the info untouched), a PCG
 * written here around it that needs the iterations of the library's own
 * AMG-PCG, and every refusal (not set up, z = r, NaN, device memory on a
 * CPU context, a bad value type). */
#include <math.h>

#include "tapi_case.h"

static cmrs_context *g_ctx;
static cmrs_system g_sys;

static cmrs_solver *solver_with(cmrs_matrix *M, const char *precond)
{
    cmrs_solver *s = NULL;
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_OK(g_ctx, cmrs_solver_set_option(s, "precond", precond));
    API_OK(g_ctx, cmrs_solver_setup(s, M));
    return s;
}

static double dot(int64_t n, const double *x, const double *y)
{
    double d = 0.0;
    for (int64_t i = 0; i < n; ++i) d += x[i] * y[i];
    return d;
}

static void spmv(const cmrs_csr *A, const double *x, double *y)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        double v = 0.0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            v += A->values[k] * x[A->indices[k]];
        y[i] = v;
    }
}

/* r_i: a fixed, irregular vector (seed k). */
static void vector(int k, int64_t n, double *r)
{
    for (int64_t i = 0; i < n; ++i)
        r[i] = sin(0.37 * (double)(i + 1) * (k + 1)) + 0.1 * k;
}

/* The 1-D Laplacian: jacobi is r / 2 exactly, none r, float rounded. */
static void test_jacobi_and_none(void)
{
    int32_t indptr[TAPI_N + 1], indices[TAPI_NNZ];
    double values[TAPI_NNZ], r[TAPI_N], z[TAPI_N];
    float rf[TAPI_N], zf[TAPI_N];
    cmrs_matrix *M = NULL;
    tapi_laplacian(indptr, indices, values);
    API_OK(g_ctx, cmrs_matrix_create_csr(g_ctx, TAPI_N, TAPI_N, TAPI_NNZ,
           indptr, indices, CMRS_INDEX_INT32, values, CMRS_VALUE_FLOAT64,
           &M));
    vector(0, TAPI_N, r);
    for (int i = 0; i < TAPI_N; ++i) rf[i] = (float)r[i];
    cmrs_solver *s = solver_with(M, "jacobi");
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    int same = 1;
    for (int i = 0; i < TAPI_N; ++i) same &= z[i] == r[i] / 2.0;
    CHECK(same, "jacobi: z != r / diag");
    API_OK(g_ctx, cmrs_solver_apply_precond(s, rf, zf, CMRS_VALUE_FLOAT32,
                                            CMRS_MEMORY_HOST));
    same = 1;
    for (int i = 0; i < TAPI_N; ++i) same &= zf[i] == (float)(rf[i] / 2.0);
    CHECK(same, "jacobi, float: z != r / diag rounded");
    cmrs_solver_destroy(s);
    s = solver_with(M, "none");
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    CHECK(memcmp(r, z, sizeof r) == 0, "none: z != r");
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
}

/* The V-cycle on vessel_3k: linear, symmetric, positive; r unchanged;
 * repeatable; the solver's info still says no solve. */
static void test_amg_operator(cmrs_matrix *M)
{
    int64_t n = g_sys.A.rows;
    double *r1 = malloc((size_t)n * sizeof *r1), *r2 = malloc((size_t)n * 8);
    double *z1 = malloc((size_t)n * 8), *z2 = malloc((size_t)n * 8), *z3 = malloc((size_t)n * 8);
    double *keep = malloc((size_t)n * 8);
    cmrs_solve_info info;
    cmrs_solver *s = solver_with(M, "amg");
    vector(1, n, r1);
    vector(2, n, r2);
    memcpy(keep, r1, (size_t)n * 8);
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r1, z1, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    CHECK(memcmp(keep, r1, (size_t)n * 8) == 0, "amg: r was modified");
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r1, z3, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    CHECK(memcmp(z1, z3, (size_t)n * 8) == 0, "amg: two applies differ");
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r2, z2, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    /* symmetric: r2' M r1 = r1' M r2 (rounding only) */
    double a = dot(n, r2, z1), b = dot(n, r1, z2);
    double scale = sqrt(dot(n, r1, z1) * dot(n, r2, z2));
    CHECK(fabs(a - b) <= 1e-10 * scale, "amg: not symmetric: %.17g vs %.17g",
          a, b);
    CHECK(dot(n, r1, z1) > 0 && dot(n, r2, z2) > 0, "amg: not positive");
    /* linear: M(r1 + 3 r2) = M r1 + 3 M r2 */
    for (int64_t i = 0; i < n; ++i) keep[i] = r1[i] + 3.0 * r2[i];
    API_OK(g_ctx, cmrs_solver_apply_precond(s, keep, z3, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    double err = 0.0, ref = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double w = z1[i] + 3.0 * z2[i];
        err += (z3[i] - w) * (z3[i] - w);
        ref += w * w;
    }
    CHECK(sqrt(err) <= 1e-10 * sqrt(ref), "amg: not linear (%g)",
          sqrt(err / ref));
    API_OK(g_ctx, cmrs_solver_get_info(s, &info));
    CHECK(info.reason == CMRS_REASON_NONE, "apply changed the info: %s",
          cmrs_reason_name(info.reason));
    cmrs_solver_destroy(s);
    free(r1), free(r2), free(z1), free(z2), free(z3), free(keep);
}

/* PCG written here with the library's V-cycle as M: the iterations of the
 * library's own AMG-PCG (same operator; the sums' order may differ). */
static void test_hand_pcg(cmrs_matrix *M)
{
    const cmrs_csr *A = &g_sys.A;
    int64_t n = A->rows, its = 0;
    double *x = calloc((size_t)n, 8), *r = malloc((size_t)n * 8), *z = malloc((size_t)n * 8);
    double *p = malloc((size_t)n * 8), *q = malloc((size_t)n * 8);
    cmrs_solver *s = solver_with(M, "amg");
    memcpy(r, g_sys.b, (size_t)n * 8);
    double bnorm = sqrt(dot(n, r, r)), rz = 0.0;
    API_OK(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    memcpy(p, z, (size_t)n * 8);
    rz = dot(n, r, z);
    while (sqrt(dot(n, r, r)) > 1e-8 * bnorm && its < 1000) {
        spmv(A, p, q);
        double alpha = rz / dot(n, p, q);
        for (int64_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        API_OK(g_ctx, cmrs_solver_apply_precond(
                          s, r, z, CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST));
        double rz_new = dot(n, r, z);
        for (int64_t i = 0; i < n; ++i) p[i] = z[i] + rz_new / rz * p[i];
        rz = rz_new;
        ++its;
    }
    cmrs_solver_destroy(s);
    const char *opts[] = {"precond", "amg", NULL};
    outcome lib = api_solve(g_ctx, M, opts, g_sys.b, NULL, NULL);
    CHECK(llabs(its - lib.iterations) <= 1 && its < 100, "hand PCG with "
          "the V-cycle: %lld iterations, the library's AMG-PCG %lld",
          (long long)its, (long long)lib.iterations);
    outcome jac = api_solve(g_ctx, M, NULL, g_sys.b, NULL, NULL);
    CHECK(its * 3 < jac.iterations, "AMG %lld its vs Jacobi %lld",
          (long long)its, (long long)jac.iterations);
    free(lib.x), free(jac.x);
    free(x), free(r), free(z), free(p), free(q);
}

static void test_refusals(cmrs_matrix *M)
{
    int64_t n = g_sys.A.rows;
    double *r = calloc((size_t)n, 8), *z = calloc((size_t)n, 8);
    cmrs_solver *s = NULL;
    API_FAILS(NULL, cmrs_solver_apply_precond(NULL, r, z, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "s is NULL");
    API_OK(g_ctx, cmrs_solver_create(g_ctx, &s));
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "not set up");
    API_OK(g_ctx, cmrs_solver_setup(s, M));
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, r, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, "same array");
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, NULL,
              CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST), CMRS_ERROR_USAGE,
              "NULL");
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, z, (cmrs_value_type)7,
              CMRS_MEMORY_HOST), CMRS_ERROR_USAGE, NULL);
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_DEVICE), CMRS_ERROR_USAGE, "CPU context");
    r[7] = NAN;
    API_FAILS(g_ctx, cmrs_solver_apply_precond(s, r, z, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_HOST), CMRS_ERROR_INPUT, "r[7]");
    cmrs_solver_destroy(s);
    free(r);
    free(z);
}

int main(void)
{
    char file[1024];
    cmrs_matrix *M = NULL;
    case_path("vessel_3k.h5", file, sizeof file);
    CHECK_OK(cmrs_system_read(file, NULL, &g_sys));
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &g_ctx));
    if (!g_ctx || !g_sys.A.rows) return check_summary();
    API_OK(g_ctx, cmrs_matrix_read(g_ctx, file, NULL, &M));
    test_jacobi_and_none();
    test_amg_operator(M);
    test_hand_pcg(M);
    test_refusals(M);
    cmrs_matrix_destroy(M);
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_ctx);
    return check_summary();
}
