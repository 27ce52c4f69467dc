/* Host tests of the CSR core: validation, sorting, transpose, statistics,
 * checked size arithmetic, and the status/traceback machinery. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/csr.h"
#include "base/memory.h"
#include "solver/systems.h"

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

/* One entry of make_tridiag's matrix spoiled, and the message that
 * validation must then give. */
typedef enum csr_array { IN_INDPTR, IN_INDICES, IN_VALUES } csr_array;
typedef struct csr_spoil {
    csr_array array;
    int64_t at;
    double bad;
    const char *want;
} csr_spoil;

static void test_validate(void)
{
    static const csr_spoil spoils[] = {
        {IN_INDPTR, 0, 1, "indptr[0]"},    {IN_INDPTR, 2, 1, "decreases"},
        {IN_INDPTR, 3, 6, "nonzeros"},     {IN_INDICES, 4, 3, "out of range"},
        {IN_VALUES, 3, NAN, "not finite"}, {IN_INDICES, 1, 0, "duplicate"},
    };
    cmrs_csr A;
    make_tridiag(&A);
    CHECK_OK(cmrs_csr_validate(&A, "t"));
    cmrs_csr_free(&A);
    for (size_t i = 0; i < sizeof spoils / sizeof *spoils; ++i) {
        const csr_spoil *c = &spoils[i];
        make_tridiag(&A);
        if (c->array == IN_INDPTR) A.indptr[c->at] = (int64_t)c->bad;
        if (c->array == IN_INDICES) A.indices[c->at] = (int32_t)c->bad;
        if (c->array == IN_VALUES) A.values[c->at] = c->bad;
        CHECK_FAILS(cmrs_csr_validate(&A, "t"), CMRS_E_INPUT, c->want);
        cmrs_csr_free(&A);
    }
}

/* A long tridiagonal matrix (n rows) with two spoiled rows, split into
 * chunks of a few rows (CMRS_HOST_THREADS=7, CMRS_PARALLEL_GRAIN=1): the
 * first violation in row order is the one reported, whichever chunk
 * finds a violation first; cmrs_csr_first_row names that row. */
static int row_has_index(const cmrs_csr *A, int64_t i, const void *ctx)
{
    const int32_t *want = ctx;
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        if (A->indices[k] == *want) return 1;
    return 0;
}

static void test_validate_chunks(void)
{
    enum { n = 1000 };
    double d[n];
    for (int i = 0; i < n; ++i) d[i] = 4.0;
    cmrs_csr A;
    tridiag(&A, n, d, -1.0);
    setenv("CMRS_HOST_THREADS", "7", 1);
    setenv("CMRS_PARALLEL_GRAIN", "1", 1);
    CHECK_OK(cmrs_csr_validate(&A, "long"));
    const int32_t col = 900;
    CHECK(cmrs_csr_first_row(&A, row_has_index, &col) == 899, "first row "
          "holding column 900: %lld", (long long)cmrs_csr_first_row(
                                          &A, row_has_index, &col));
    A.values[A.indptr[950] + 1] = NAN;          /* row 950, a late chunk */
    A.indices[A.indptr[120] + 1] = (int32_t)n;  /* row 120, an early one */
    CHECK_FAILS(cmrs_csr_validate(&A, "long"), CMRS_E_INPUT, "row 120");
    A.indices[A.indptr[120] + 1] = 120;
    CHECK_FAILS(cmrs_csr_validate(&A, "long"), CMRS_E_INPUT, "row 950");
    unsetenv("CMRS_HOST_THREADS");
    unsetenv("CMRS_PARALLEL_GRAIN");
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

/* The serial transpose, as base/csr.c had it: the reference. */
static void transpose_ref(const cmrs_csr *A, cmrs_csr *T)
{
    cmrs_csr_alloc(T, A->cols, A->rows, A->nnz);
    memset(T->indptr, 0, ((size_t)T->rows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < A->nnz; ++k) ++T->indptr[A->indices[k] + 1];
    for (int64_t j = 0; j < T->rows; ++j) T->indptr[j + 1] += T->indptr[j];
    int64_t *next = malloc(((size_t)T->rows + 1) * sizeof *next);
    memcpy(next, T->indptr, ((size_t)T->rows + 1) * sizeof *next);
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t dst = next[A->indices[k]]++;
            T->indices[dst] = (int32_t)i;
            T->values[dst] = A->values[k];
        }
    free(next);
}

/* The transpose by threads (CMRS_HOST_THREADS=4, 4.5M entries: 4 of its
 * chunks) gives the serial one's bits: a random 600000 x 30000 matrix
 * (rows of 0-15 entries, some columns twice in a row, whose order must
 * stay the row's), and the same by one thread. */
static void test_transpose_threads(void)
{
    cmrs_csr A, T, R;
    int64_t rows = 600000, cols = 30000, nnz = 0;
    uint64_t s = 12345;
    cmrs_csr_alloc(&A, rows, cols, rows * 16);
    for (int64_t i = 0; i < rows; ++i) {
        A.indptr[i] = nnz;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int len = (int)((s >> 33) % 16);
        for (int e = 0; e < len; ++e) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            A.indices[nnz] = e == 3 ? A.indices[nnz - 1]
                                    : (int32_t)((s >> 33) % (uint64_t)cols);
            A.values[nnz++] = (double)(s >> 11) * 0x1p-53;
        }
    }
    A.indptr[rows] = nnz;
    A.nnz = nnz;
    transpose_ref(&A, &R);
    for (int threads = 1; threads <= 4; threads += 3) {
        setenv("CMRS_HOST_THREADS", threads == 1 ? "1" : "4", 1);
        CHECK_OK(cmrs_csr_transpose(&A, &T));
        int same = T.rows == R.rows && T.nnz == R.nnz &&
                   !memcmp(T.indptr, R.indptr, (size_t)(R.rows + 1) * 8) &&
                   !memcmp(T.indices, R.indices, (size_t)R.nnz * 4) &&
                   !memcmp(T.values, R.values, (size_t)R.nnz * 8);
        CHECK(same, "transpose of %lld entries by %d threads: not the "
              "serial one's bits", (long long)nnz, threads);
        cmrs_csr_free(&T);
    }
    unsetenv("CMRS_HOST_THREADS");
    cmrs_csr_free(&R);
    cmrs_csr_free(&A);
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

/* cmrs_csr_alloc_pinned: page-locked where a GPU gives it, else malloc
 * (the CI machine): either way usable arrays, the same size limits, freed
 * by cmrs_csr_free; CMRS_FREE_ALL takes NULL entries. */
static void test_pinned_alloc(void)
{
    cmrs_csr A;
    CHECK_OK(cmrs_csr_alloc_pinned(&A, 3, 3, 5));
    CHECK(A.indptr && A.indices && A.values && A.indptr[0] == 0 &&
              A.rows == 3 && A.nnz == 5,
          "pinned (or fallback) arrays");
    for (int k = 0; k < 5; ++k) {
        A.indices[k] = k % 3;
        A.values[k] = 1.0 + k;
    }
    cmrs_csr_free(&A);
    CHECK(A.indptr == NULL && A.values == NULL, "freed and zeroed");
    CHECK_FAILS(cmrs_csr_alloc_pinned(&A, 1, (int64_t)INT32_MAX + 1, 0),
                CMRS_E_LIMIT, "columns");
    cmrs_host_free(NULL);
    void *a = malloc(16), *b = NULL, *c = malloc(32);
    CMRS_FREE_ALL(a, b, c); /* leaks or double frees: the sanitizers' */
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
    test_validate_chunks();
    test_sort_and_transpose();
    test_transpose_threads();
    test_stats();
    test_limits();
    test_pinned_alloc();
    test_status();
    return check_summary();
}
