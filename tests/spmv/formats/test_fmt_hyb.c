/* Host tests of the hyb conversion (spmv/formats/fmt_hyb.h): Bell & Garland's
 * width rule on hand-made row-length histograms, split invariants (every
 * entry once, column-major ELL, padding only after a row's end, COO sorted
 * by row), stored-entry counts, a host emulation of the two-kernel product
 * against the CSR reference, the value permutation (the conversion of A's
 * index pattern: same layout, values gathered bit for bit, one block for
 * both parts), and the refusals (padding, int32 rows). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "spmv/spmv.h"
#include "spmv/formats/fmt_hyb.h"
#include "spmv/ref.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "spmv/test_value_perm.h"
#include "tformats.h"

/* A matrix whose row r has len[r] entries on columns 0..len[r]-1. */
static void lengths_matrix(cmrs_csr *A, const int64_t *len, int64_t rows,
                           int64_t cols)
{
    int64_t nnz = 0;
    for (int64_t r = 0; r < rows; ++r) nnz += len[r];
    cmrs_csr_alloc(A, rows, cols, nnz);
    for (int64_t r = 0; r < rows; ++r) {
        A->indptr[r + 1] = A->indptr[r] + len[r];
        for (int64_t k = 0; k < len[r]; ++k) {
            A->indices[A->indptr[r] + k] = (int32_t)k;
            A->values[A->indptr[r] + k] = 1.0 + (double)(r % 7) + 0.5 * k;
        }
    }
}

static int32_t width_of(const int64_t *len, int64_t rows, int64_t breakeven)
{
    cmrs_csr A;
    int32_t K = -7;
    lengths_matrix(&A, len, rows, 64);
    CHECK_OK(cmrs_hyb_width(&A, breakeven, &K));
    cmrs_csr_free(&A);
    return K;
}

static void test_width_rule(void)
{
    static const int64_t nine[] = {1, 1, 1, 2, 2, 2, 3, 3, 9};
    /* threshold max(0, 9/3) = 3 rows: 3 rows have >= 3 entries, 1 >= 4 */
    CHECK(width_of(nine, 9, 0) == 3, "9 rows, breakeven 0: K should be 3");
    CHECK(width_of(nine, 9, 4) == 2, "breakeven 4: 6 rows have >= 2");
    CHECK(width_of(nine, 9, 10) == 0, "breakeven above rows: K = 0");
    int64_t zeros[5] = {0};
    CHECK(width_of(zeros, 5, 0) == 0, "all rows empty: K = 0");
    CHECK(width_of(zeros, 0, 0) == 0, "no rows: K = 0");
    /* 6000 rows: 5000 of length 4, 1000 of 10; threshold 4096 */
    int64_t *len = cmrs_malloc_array(15000, sizeof *len);
    for (int64_t r = 0; r < 6000; ++r) len[r] = r % 6 ? 4 : 10;
    CHECK(width_of(len, 6000, CMRS_HYB_BREAKEVEN_ROWS) == 4,
          "6000 rows of 4 or 10 entries: K should be 4");
    /* 15000 rows: rows/3 = 5000 beats 4096; 4999 rows have 8, rest 2 */
    for (int64_t r = 0; r < 15000; ++r) len[r] = r < 4999 ? 8 : 2;
    CHECK(width_of(len, 15000, CMRS_HYB_BREAKEVEN_ROWS) == 2,
          "15000 rows, 4999 long: K should be 2 (threshold rows/3)");
    len[4999] = 8; /* now 5000 rows reach 8 */
    CHECK(width_of(len, 15000, CMRS_HYB_BREAKEVEN_ROWS) == 8,
          "15000 rows, 5000 long: K should be 8");
    free(len);
}

/* Every CSR entry is found exactly once, in its ELL slot or in COO. */
static int split_is_exact(const cmrs_csr *A, const cmrs_hyb_host *h)
{
    int64_t c = 0;
    for (int64_t r = 0; r < A->rows; ++r) {
        int64_t len = A->indptr[r + 1] - A->indptr[r];
        for (int64_t k = 0; k < h->width; ++k) {
            int64_t slot = k * A->rows + r, j = A->indptr[r] + k;
            int ok = k < len ? h->ell_cols[slot] == A->indices[j] &&
                                   h->ell_vals[slot] == A->values[j]
                             : h->ell_cols[slot] == CMRS_HYB_PAD &&
                                   h->ell_vals[slot] == 0.0;
            if (!ok) return 0;
        }
        for (int64_t j = A->indptr[r] + h->width; j < A->indptr[r + 1]; ++j, ++c)
            if (c >= h->coo_nnz || h->coo_rows[c] != r ||
                h->coo_cols[c] != A->indices[j] || h->coo_vals[c] != A->values[j])
                return 0;
    }
    return c == h->coo_nnz;
}

/* The GPU product in plain loops: ELL pass writes y, COO pass adds. */
static void hyb_product(const cmrs_hyb_host *h, double alpha, const double *x,
                        double beta, double *y)
{
    for (int64_t r = 0; r < h->rows; ++r) {
        double sum = 0.0;
        for (int64_t k = 0; k < h->width; ++k) {
            int32_t c = h->ell_cols[k * h->rows + r];
            if (c == CMRS_HYB_PAD) break;
            sum += h->ell_vals[k * h->rows + r] * x[c];
        }
        y[r] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[r];
    }
    for (int64_t i = 0; i < h->coo_nnz; ++i)
        y[h->coo_rows[i]] += alpha * h->coo_vals[i] * x[h->coo_cols[i]];
}

static void check_product(const cmrs_csr *A, const cmrs_hyb_host *h,
                          const char *name)
{
    product_vectors v = product_vectors_make(A);
    cmrs_random_vector(v.x, A->cols, 3);
    cmrs_random_vector(v.y, A->rows, 4);
    memcpy(v.ref, v.y, (size_t)A->rows * sizeof *v.y);
    hyb_product(h, -1.5, v.x, 0.75, v.y);
    cmrs_ref_spmv(A, -1.5, v.x, 0.75, v.ref);
    double err = cmrs_ref_rel_err(A->rows, v.y, v.ref);
    CHECK(err <= 1e-13, "%s K=%d: product rel err %g", name, h->width, err);
    for (int64_t r = 0; r < A->rows; ++r) v.y[r] = NAN; /* beta 0: unread */
    hyb_product(h, 2.0, v.x, 0.0, v.y);
    cmrs_ref_spmv(A, 2.0, v.x, 0.0, v.ref);
    err = cmrs_ref_rel_err(A->rows, v.y, v.ref);
    CHECK(err <= 1e-13, "%s K=%d: beta=0 product rel err %g", name,
          h->width, err);
    product_vectors_free(&v);
}

/* Setup converts A's index pattern: the same split, and its value block
 * (ELL then COO) is the permutation that gathers h's values exactly. */
static void check_permutation(const cmrs_csr *A, const cmrs_hyb_host *h,
                              const char *name)
{
    cmrs_csr idx;
    cmrs_hyb_host p;
    size_t ell_n = (size_t)h->rows * (size_t)h->width;
    int64_t stored = cmrs_hyb_stored(h);
    CHECK_OK(cmrs_csr_index_pattern(A, &idx));
    CHECK_OK(cmrs_hyb_build(&idx, h->width, &p));
    int same = p.width == h->width && p.coo_nnz == h->coo_nnz &&
               !memcmp(p.ell_cols, h->ell_cols, ell_n * sizeof *p.ell_cols) &&
               !memcmp(p.coo_rows, h->coo_rows,
                       (size_t)h->coo_nnz * sizeof *p.coo_rows) &&
               !memcmp(p.coo_cols, h->coo_cols,
                       (size_t)h->coo_nnz * sizeof *p.coo_cols);
    CHECK(same, "%s K=%d: the index pattern converts to another layout",
          name, h->width);
    CHECK(h->coo_vals == h->ell_vals + ell_n &&
              p.coo_vals == p.ell_vals + ell_n,
          "%s K=%d: ELL and COO values are not one block", name, h->width);
    const char *why = same ? test_value_perm_check(A, p.ell_vals, h->ell_vals,
                                                   stored)
                           : "layouts differ";
    CHECK(!why, "%s K=%d: value permutation: %s", name, h->width, why);
    cmrs_hyb_host_free(&p);
    free(idx.values);
}

static void check_split(const cmrs_csr *A, int32_t K, const char *name)
{
    cmrs_hyb_host h;
    CHECK_OK(cmrs_hyb_build(A, K, &h));
    if (h.width != K) return; /* build failed, reported above */
    CHECK(split_is_exact(A, &h), "%s K=%d: split loses or moves entries",
          name, K);
    CHECK(cmrs_hyb_stored(&h) == A->rows * (int64_t)K + h.coo_nnz &&
              cmrs_hyb_stored(&h) >= A->nnz,
          "%s K=%d: stored %lld", name, K, (long long)cmrs_hyb_stored(&h));
    check_product(A, &h, name);
    check_permutation(A, &h, name);
    cmrs_hyb_host_free(&h);
}

static void test_random_splits(void)
{
    for (int i = 0; i < N_TEST_SPECS; ++i) {
        const test_spec *g = &k_test_specs[i];
        cmrs_csr A;
        CHECK_OK(test_random_csr(g, 100 + (uint64_t)i, &A));
        int32_t K = -1, K0 = -1;
        CHECK_OK(cmrs_hyb_width(&A, CMRS_HYB_BREAKEVEN_ROWS, &K));
        CHECK(K == 0, "%s: under 4096 rows the default K must be 0", g->name);
        CHECK_OK(cmrs_hyb_width(&A, 0, &K0));
        static const int32_t widths[] = {0, 1, 3, 5};
        for (int w = 0; w < 4; ++w) check_split(&A, widths[w], g->name);
        check_split(&A, K0, g->name);
        cmrs_csr_free(&A);
    }
}

/* One row of 10000 among rows of ~3: K = 10000 pads every row to it. */
static void test_refusals(void)
{
    const test_spec *g = NULL;
    for (int i = 0; i < N_TEST_SPECS; ++i)
        if (strstr(k_test_specs[i].name, "one row of")) g = &k_test_specs[i];
    cmrs_csr A;
    cmrs_hyb_host h;
    CHECK_OK(test_random_csr(g, 5, &A));
    CHECK_FAILS(cmrs_hyb_build(&A, 10000, &h), CMRS_E_LIMIT, "hyb: padding");
    CHECK(h.ell_cols == NULL && h.coo_vals == NULL, "refused build holds data");
    int32_t K = -1;
    CHECK_OK(cmrs_hyb_width(&A, 0, &K));
    CHECK(K > 0 && K < 10, "long row must not widen the ELL part: K=%d", K);
    check_split(&A, K, "long row, own K"); /* the long row goes to COO */
    cmrs_csr_free(&A);
    cmrs_csr big = {(int64_t)INT32_MAX + 1, 1, 0, NULL, NULL, NULL};
    CHECK_FAILS(cmrs_hyb_build(&big, 0, &h), CMRS_E_LIMIT, "int32 row");
}

int main(void)
{
    test_width_rule();
    test_random_splits();
    test_refusals();
    return check_summary();
}
