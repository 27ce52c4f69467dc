/* Every public call's bad inputs return the documented status and a
 * non-empty one-line message, and never crash (also run under ASan and
 * UBSan by scripts/sanitize.sh). */
#include <math.h>
#include <stdint.h>

#include "tapi.h"

static int32_t g_ptr[TAPI_N + 1], g_idx[TAPI_NNZ];
static double g_val[TAPI_NNZ];

static cmrs_status make(cmrs_context *ctx, cmrs_matrix **A)
{
    return cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ, g_ptr, g_idx,
                                  CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64,
                                  A);
}

static void test_context(void)
{
    cmrs_context *ctx = NULL;
    API_FAILS(NULL, cmrs_context_create(CMRS_DEVICE_CPU, NULL),
              CMRS_ERROR_USAGE, "ctx is NULL");
    API_FAILS(NULL, cmrs_context_create(-7, &ctx), CMRS_ERROR_USAGE,
              "device -7");
    API_FAILS(NULL, cmrs_context_create(1000, &ctx), CMRS_ERROR_NODEVICE,
              "GPU 1000");
    CHECK(ctx == NULL, "no context after a failure");
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &ctx));
    CHECK(cmrs_context_device(ctx) == CMRS_DEVICE_CPU &&
              strcmp(cmrs_context_device_name(ctx), "cpu") == 0 &&
              strcmp(cmrs_last_error(ctx), "") == 0,
          "cpu context: device %d '%s'", cmrs_context_device(ctx),
          cmrs_context_device_name(ctx));
    CHECK(strcmp(cmrs_status_name(CMRS_ERROR_GPU), "ERROR_GPU") == 0 &&
              strcmp(cmrs_reason_name(CMRS_REASON_DIVERGED_MAXITS),
                     "DIVERGED_MAXITS") == 0,
          "names");
    cmrs_context_destroy(ctx);
    cmrs_context_destroy(NULL);
}

/* Bad CSR arrays: each with its one-line message; nothing created. */
static void test_bad_arrays(cmrs_context *ctx)
{
    cmrs_matrix *A = NULL;
    API_FAILS(NULL, cmrs_matrix_create_csr(NULL, 2, 2, 0, g_ptr, g_idx,
              CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_USAGE, "ctx is NULL");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, -1, 2, 0, g_ptr, g_idx,
              CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_USAGE, "negative size");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ, NULL,
              g_idx, CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_USAGE, "NULL");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ,
              g_ptr, g_idx, CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64,
              NULL), CMRS_ERROR_USAGE, "A is NULL");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ,
              g_ptr, g_idx, (cmrs_index_type)5, g_val, CMRS_VALUE_FLOAT64,
              &A), CMRS_ERROR_USAGE, "index type");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ - 1,
              g_ptr, g_idx, CMRS_INDEX_INT32, g_val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_INPUT, "nonzeros");
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, (int64_t)1 << 40,
              TAPI_NNZ, g_ptr, g_idx, CMRS_INDEX_INT32, g_val,
              CMRS_VALUE_FLOAT64, &A), CMRS_ERROR_LIMIT, "columns");
    CHECK(A == NULL, "no matrix after failures");
}

/* Index and value faults planted in a copy of the good arrays. */
static void test_bad_entries(cmrs_context *ctx)
{
    cmrs_matrix *A = NULL;
    g_idx[4] = 1; /* row 1: columns 0, 1, 1 -> duplicate */
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "row 1 has unsorted");
    g_idx[4] = 0; /* row 1: 0, 1, 0 -> unsorted */
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "unsorted");
    g_idx[4] = TAPI_N + 3;
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "out of range");
    g_idx[4] = 2;
    g_val[7] = NAN;
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "not finite");
    g_val[7] = INFINITY;
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "not finite");
    g_val[7] = -1.0;
    g_ptr[3] = g_ptr[2] - 1;
    API_FAILS(ctx, make(ctx, &A), CMRS_ERROR_INPUT, "indptr decreases");
    g_ptr[3] = g_ptr[2] + 3;
    API_OK(ctx, make(ctx, &A)); /* the arrays are whole again */
    cmrs_matrix_destroy(A);
}

/* int64 indices beyond int32, and an int64 indptr that disagrees. */
static void test_int64(cmrs_context *ctx)
{
    int64_t ptr[3] = {0, 1, 2}, idx[2] = {0, (int64_t)1 << 33};
    double val[2] = {1.0, 1.0};
    cmrs_matrix *A = NULL;
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, 2, 2, 2, ptr, idx,
              CMRS_INDEX_INT64, val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_INPUT, "8589934592");
    idx[1] = 1;
    ptr[2] = 3;
    API_FAILS(ctx, cmrs_matrix_create_csr(ctx, 2, 2, 2, ptr, idx,
              CMRS_INDEX_INT64, val, CMRS_VALUE_FLOAT64, &A),
              CMRS_ERROR_INPUT, "indptr[2]");
    CHECK(A == NULL, "no int64 matrix after failures");
    CHECK(cmrs_matrix_rows(NULL) == -1 && cmrs_matrix_nnz(NULL) == -1,
          "sizes of NULL");
}

static void test_files(cmrs_context *ctx)
{
    cmrs_matrix *A = NULL;
    double v[4];
    API_FAILS(ctx, cmrs_matrix_read(ctx, NULL, NULL, &A), CMRS_ERROR_USAGE,
              "path is NULL");
    API_FAILS(ctx, cmrs_matrix_read(ctx, "/nonexistent/x.h5", NULL, &A),
              CMRS_ERROR_INPUT, "/nonexistent/x.h5");
    API_FAILS(NULL, cmrs_matrix_read(NULL, "x", NULL, &A), CMRS_ERROR_USAGE,
              "ctx is NULL");
    API_FAILS(NULL, cmrs_matrix_file_vector(NULL, CMRS_FILE_RHS, v, NULL),
              CMRS_ERROR_USAGE, "A is NULL");
    API_OK(ctx, make(ctx, &A));
    API_FAILS(ctx, cmrs_matrix_file_vector(A, (cmrs_file_vector)9, v, NULL),
              CMRS_ERROR_USAGE, "which");
    API_FAILS(ctx, cmrs_matrix_file_vector(A, CMRS_FILE_X0, NULL, NULL),
              CMRS_ERROR_USAGE, "out is NULL");
    cmrs_matrix_destroy(A);
}

int main(void)
{
    cmrs_context *ctx = NULL;
    tapi_laplacian(g_ptr, g_idx, g_val);
    test_context();
    if (cmrs_context_create(CMRS_DEVICE_CPU, &ctx) != CMRS_SUCCESS)
        return check_summary();
    test_bad_arrays(ctx);
    test_bad_entries(ctx);
    test_int64(ctx);
    test_files(ctx);
    cmrs_context_destroy(ctx);
    return check_summary();
}
