/* Host tests of the CSR core: validation, sorting, transpose, statistics,
 * checked size arithmetic, and the status/traceback machinery. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "base/csr.h"

/* 3x3: [4 -1 0; -1 4 -1; 0 -1 4] */
static void make_tridiag(cmrs_csr *A)
{
    cmrs_csr_alloc(A, 3, 3, 7);
    int64_t ptr[] = {0, 2, 5, 7};
    int32_t idx[] = {0, 1, 0, 1, 2, 1, 2};
    double val[] = {4, -1, -1, 4, -1, -1, 4};
    memcpy(A->indptr, ptr, sizeof ptr);
    memcpy(A->indices, idx, sizeof idx);
    memcpy(A->values, val, sizeof val);
}

static void test_validate(void)
{
    cmrs_csr A;
    make_tridiag(&A);
    CHECK_OK(cmrs_csr_validate(&A, "t"));
    A.indptr[0] = 1;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "indptr[0]");
    A.indptr[0] = 0;
    A.indptr[2] = 1;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "decreases");
    A.indptr[2] = 5;
    A.indptr[3] = 6;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "nonzeros");
    A.indptr[3] = 7;
    A.indices[4] = 3;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "out of range");
    A.indices[4] = 2;
    A.values[3] = NAN;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "not finite");
    A.values[3] = 4;
    A.indices[1] = 0;
    CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, "duplicate");
    cmrs_csr_free(&A);
}

static void test_sort_and_transpose(void)
{
    cmrs_csr A, T;
    cmrs_csr_alloc(&A, 2, 3, 4);
    int64_t ptr[] = {0, 3, 4};
    int32_t idx[] = {2, 0, 2, 1};
    double val[] = {1, 2, 3, 5};
    memcpy(A.indptr, ptr, sizeof ptr);
    memcpy(A.indices, idx, sizeof idx);
    memcpy(A.values, val, sizeof val);
    CHECK_OK(cmrs_csr_sort_sum_duplicates(&A));
    CHECK(A.nnz == 3 && A.indices[0] == 0 && A.values[0] == 2 &&
              A.indices[1] == 2 && A.values[1] == 4 && A.indptr[2] == 3,
          "duplicates summed and sorted");
    CHECK_OK(cmrs_csr_transpose(&A, &T));
    CHECK(T.rows == 3 && T.cols == 2 && T.nnz == 3, "transpose shape");
    CHECK(T.indptr[1] == 1 && T.indices[0] == 0 && T.values[0] == 2 &&
              T.indptr[2] == 2 && T.indices[1] == 1 && T.values[1] == 5 &&
              T.indices[2] == 0 && T.values[2] == 4,
          "transpose entries");
    CHECK_OK(cmrs_csr_validate(&T, "T"));
    cmrs_csr_free(&A);
    cmrs_csr_free(&T);
}

static void test_stats(void)
{
    cmrs_csr A;
    cmrs_csr_stats s;
    make_tridiag(&A);
    cmrs_csr_stats_compute(&A, &s);
    CHECK(fabs(s.mu - 7.0 / 3) < 1e-12, "mu %g", s.mu);
    CHECK(s.min_row == 2 && s.max_row == 3 && s.empty_rows == 0, "row range");
    CHECK(s.symmetric && s.structurally_symmetric, "symmetric");
    CHECK(s.missing_diagonal == 0 && s.first_bad_diagonal == -1, "diagonal");
    CHECK(s.dominant_rows == 3 && s.strictly_dominant_rows == 3, "dominance");
    A.values[1] = -2; /* a_01 != a_10 */
    cmrs_csr_stats_compute(&A, &s);
    CHECK(!s.symmetric && s.structurally_symmetric, "values not symmetric");
    A.values[3] = -4;
    cmrs_csr_stats_compute(&A, &s);
    CHECK(s.nonpositive_diagonal == 1 && s.first_bad_diagonal == 1,
          "bad diagonal row %lld", (long long)s.first_bad_diagonal);
    cmrs_csr_free(&A);
}

static void test_limits(void)
{
    size_t out;
    CHECK(cmrs_mul_size(SIZE_MAX / 2, 3, &out) == -1, "mul overflow");
    CHECK(cmrs_add_size(SIZE_MAX, 1, &out) == -1, "add overflow");
    CHECK(cmrs_malloc_array(SIZE_MAX / 4, 8) == NULL, "huge alloc refused");
    cmrs_csr A;
    CHECK_FAILS(cmrs_csr_alloc(&A, 1, (int64_t)INT32_MAX + 1, 0), CMRS_E_LIMIT,
                "columns");
    CHECK_FAILS(cmrs_csr_alloc(&A, INT64_MAX / 2, 1, INT64_MAX / 2),
                CMRS_E_LIMIT, NULL);
}

static cmrs_code inner(void) { CMRS_FAIL(CMRS_E_INPUT, "deep %d", 42); }
static cmrs_code outer(void)
{
    CMRS_CHECK(inner());
    return CMRS_OK;
}

static void test_status(void)
{
    CHECK(outer() == CMRS_E_INPUT, "code propagates");
    CHECK(strcmp(cmrs_error_message(), "deep 42") == 0, "message");
    CHECK(strstr(cmrs_error_traceback(), "test_csr.c") &&
              strstr(cmrs_error_traceback(), " <- "),
          "traceback '%s'", cmrs_error_traceback());
    CHECK(cmrs_exit_code(CMRS_E_INPUT) == 2 && cmrs_exit_code(CMRS_E_GPU) == 4 &&
              cmrs_exit_code(CMRS_E_NOMEM) == 4,
          "exit codes");
}

int main(void)
{
    test_validate();
    test_sort_and_transpose();
    test_stats();
    test_limits();
    test_status();
    return check_summary();
}
