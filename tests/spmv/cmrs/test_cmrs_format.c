/* Host tests of the basic CMRS format (spmv/cmrs/cmrs_format.h): the paper's
 * worked example, conversion invariants, exact round trip and the host
 * strip-algorithm product against the CSR reference for every height
 * 1..16, sorted and unsorted, on random and edge-case matrices; limits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_format.h"
#include "spmv/cmrs/cmrs_setup.h"
#include "spmv/ref.h"
#include "test_cmrs_matrices.h"
#include "test_cmrs_product.h"

/* Paper 000 §3: the 5 x 5 example, rows 0..4 with values 1..10. */
static void paper_matrix(cmrs_csr *A)
{
    static const int64_t ptr[] = {0, 2, 4, 6, 9, 10};
    static const int32_t idx[] = {0, 3, 1, 4, 2, 4, 2, 3, 4, 4};
    cmrs_csr_alloc(A, 5, 5, 10);
    memcpy(A->indptr, ptr, sizeof ptr);
    memcpy(A->indices, idx, sizeof idx);
    for (int k = 0; k < 10; ++k) A->values[k] = k + 1;
}

static void check_arrays(const cmrs_mat *m, const double *val,
                         const uint32_t *col, const uint32_t *row,
                         const char *what)
{
    static const uint32_t strip_ptr[] = {0, 4, 9, 10};
    int ok = m->strips == 3 && m->stored == 10 &&
             !memcmp(m->strip_ptr, strip_ptr, sizeof strip_ptr);
    for (int k = 0; ok && k < 10; ++k)
        ok = m->values[k] == val[k] && cmrs_col_of(m->colrow[k]) == col[k] &&
             cmrs_row_of(m->colrow[k]) == row[k];
    CHECK(ok, "paper example, %s: arrays differ from the paper's", what);
}

static void test_paper_example(void)
{
    cmrs_csr A;
    cmrs_mat m;
    paper_matrix(&A);
    CHECK_OK(cmrs_mat_from_csr(&A, 2, 0, &m));
    check_arrays(&m, (const double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                 (const uint32_t[]){0, 3, 1, 4, 2, 4, 2, 3, 4, 4},
                 (const uint32_t[]){0, 0, 1, 1, 0, 0, 1, 1, 1, 0}, "CSR order");
    CHECK(m.colrow[1] == (3u << 4 | 0u) && m.colrow[2] == (1u << 4 | 1u),
          "column and row packed as column << 4 | row");
    cmrs_mat_free(&m);
    CHECK_OK(cmrs_mat_from_csr(&A, 2, 1, &m));
    check_arrays(&m, (const double[]){1, 3, 2, 4, 5, 7, 8, 6, 9, 10},
                 (const uint32_t[]){0, 1, 3, 4, 2, 2, 3, 4, 4, 4},
                 (const uint32_t[]){0, 1, 0, 1, 0, 1, 1, 0, 1, 0}, "sorted");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

/* StripPtr[j] = RowPtr[j*h], RowInStrip = row % h, nothing else moved. */
static int strip_invariants(const cmrs_mat *m, const cmrs_csr *A)
{
    for (int64_t s = 0; s < m->strips; ++s)
        if (m->strip_ptr[s] != (uint32_t)A->indptr[s * m->height]) return 0;
    return m->strip_ptr[m->strips] == (uint32_t)A->nnz &&
           m->strips == (A->rows + m->height - 1) / m->height &&
           m->stored == A->nnz;
}

static void check_one(const cmrs_csr *A, const char *name, int h, int sorted)
{
    cmrs_mat m;
    cmrs_csr back;
    cmrs_code rc = cmrs_mat_from_csr(A, h, sorted, &m);
    CHECK(rc == CMRS_OK, "%s h=%d sorted=%d: %s", name, h, sorted,
          cmrs_error_message());
    if (rc != CMRS_OK) return;
    CHECK_OK(cmrs_mat_validate(&m));
    CHECK(strip_invariants(&m, A), "%s h=%d sorted=%d: strip pointers",
          name, h, sorted);
    CHECK(cmrs_mat_padding_ratio(&m) == 1.0, "%s: basic layout pads", name);
    rc = cmrs_mat_to_csr(&m, &back);
    CHECK(rc == CMRS_OK && test_csr_equal(A, &back), "%s h=%d sorted=%d: "
          "round trip is not exact", name, h, sorted);
    if (rc == CMRS_OK) cmrs_csr_free(&back);
    double e1 = test_cmrs_product_error(&m, A, 1.0, 0.0);
    double e2 = test_cmrs_product_error(&m, A, -1.5, 0.75);
    CHECK(e1 <= 1e-13 && e2 <= 1e-13, "%s h=%d sorted=%d: product error %g, "
          "%g", name, h, sorted, e1, e2);
    cmrs_mat_free(&m);
}

static void test_random_matrices(void)
{
    for (int i = 0; i < N_TEST_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_test_specs[i], 100 + (uint64_t)i, &A));
        for (int h = 1; h <= CMRS_MAX_HEIGHT; ++h)
            for (int sorted = 0; sorted <= 1; ++sorted)
                check_one(&A, k_test_specs[i].name, h, sorted);
        cmrs_csr_free(&A);
    }
}

static void test_sorted_order(void)
{
    cmrs_csr A;
    cmrs_mat m;
    CHECK_OK(test_random_csr(&k_test_specs[1], 7, &A));
    CHECK_OK(cmrs_mat_from_csr(&A, 6, 1, &m));
    int ok = 1;
    for (int64_t s = 0; s < m.strips; ++s)
        for (uint32_t j = m.strip_ptr[s] + 1; j < m.strip_ptr[s + 1]; ++j)
            ok &= m.colrow[j - 1] < m.colrow[j]; /* by column, then row */
    CHECK(ok, "sorted strips are ordered by (column, row)");
    m.colrow[m.strip_ptr[1]] = m.colrow[m.strip_ptr[1] + 1]; /* corrupt */
    CHECK_FAILS(cmrs_mat_validate(&m), CMRS_E_INTERNAL, "not sorted");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

/* Only the sizes are read before the check: no huge allocation needed. */
static void test_limits(void)
{
    cmrs_csr fake = {10, CMRS_MAX_COLS + 1, 10, NULL, NULL, NULL};
    cmrs_mat m;
    CHECK_FAILS(cmrs_mat_from_csr(&fake, 4, 1, &m), CMRS_E_LIMIT, "28 bits");
    CHECK_FAILS(cmrs_mat_from_csr_mod(&fake, 16, 8, 1, &m), CMRS_E_LIMIT,
                "268435455");
    fake.cols = CMRS_MAX_COLS;
    fake.nnz = CMRS_MAX_ENTRIES + 1;
    CHECK_FAILS(cmrs_mat_from_csr(&fake, 4, 1, &m), CMRS_E_LIMIT, "32-bit");
    fake.nnz = 10;
    fake.rows = (int64_t)INT32_MAX + 1;
    CHECK_FAILS(cmrs_mat_check_limits(&fake, "cmrs"), CMRS_E_LIMIT, "rows");
    fake.rows = 10;
    CHECK_OK(cmrs_mat_check_limits(&fake, "cmrs"));

    cmrs_csr A;
    CHECK_OK(test_random_csr(&k_test_specs[0], 1, &A));
    CHECK_FAILS(cmrs_mat_from_csr(&A, 0, 1, &m), CMRS_E_USAGE, "height 0");
    CHECK_FAILS(cmrs_mat_from_csr(&A, 17, 1, &m), CMRS_E_USAGE, "1..16");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

/* The largest column index packs and unpacks unharmed. */
static void test_packing(void)
{
    uint32_t top = (uint32_t)CMRS_MAX_COLS - 1;
    CHECK(cmrs_col_of(cmrs_pack(top, 15)) == top &&
              cmrs_row_of(cmrs_pack(top, 15)) == 15 &&
              cmrs_col_of(cmrs_pack(0, 0)) == 0,
          "28-bit column / 4-bit row packing");
}

/* Sliced strips (variant sl) of the paper's example, h = 2, checked by
 * hand: each strip padded to its longest row, column-major; a row longer
 * than the 16-bit lengths refused. */
static void test_sliced(void)
{
    static const uint32_t ptr[] = {0, 4, 10, 11};
    static const double val[] = {1, 3, 2, 4, 5, 7, 6, 8, 0, 9, 10};
    static const uint32_t col[] = {0, 1, 3, 4, 2, 2, 4, 3, 0, 4, 4};
    static const uint32_t row[] = {0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0};
    cmrs_csr A;
    cmrs_mat m;
    paper_matrix(&A);
    CHECK_OK(cmrs_mat_from_csr_sliced(&A, 2, 0, &m));
    int ok = m.strips == 3 && m.stored == 11 && m.nnz == 10 &&
             !memcmp(m.strip_ptr, ptr, sizeof ptr);
    for (int k = 0; ok && k < 11; ++k)
        ok = m.values[k] == val[k] && cmrs_col_of(m.colrow[k]) == col[k] &&
             cmrs_row_of(m.colrow[k]) == row[k];
    CHECK(ok && m.slice_width == 0,
          "sliced paper example: arrays differ from the hand-made ones");
    cmrs_mat_free(&m);
    /* one width (su): every strip padded to the longest row, 3 */
    static const uint32_t uptr[] = {0, 6, 12, 15};
    static const double uval[] = {1, 3, 2, 4, 0, 0, 5, 7, 6, 8, 0, 9, 10, 0, 0};
    static const uint32_t urow[] = {0, 1, 0, 1, 1, 2, 0, 1, 0, 1, 1, 1, 0, 1, 1};
    CHECK_OK(cmrs_mat_from_csr_sliced(&A, 2, 1, &m));
    ok = m.strips == 3 && m.stored == 15 && m.slice_width == 3 &&
         !memcmp(m.strip_ptr, uptr, sizeof uptr);
    for (int k = 0; ok && k < 15; ++k)
        ok = m.values[k] == uval[k] && cmrs_row_of(m.colrow[k]) == urow[k];
    CHECK(ok, "sliced paper example, one width: arrays differ from the "
          "hand-made ones");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
    CHECK_OK(cmrs_csr_alloc(&A, 1, CMRS_SLICE_MAX_ROW + 1, CMRS_SLICE_MAX_ROW + 1));
    A.indptr[0] = 0;
    A.indptr[1] = CMRS_SLICE_MAX_ROW + 1;
    for (int32_t k = 0; k <= CMRS_SLICE_MAX_ROW; ++k) {
        A.indices[k] = k;
        A.values[k] = 1.0;
    }
    CHECK_FAILS(cmrs_mat_from_csr_sliced(&A, 4, 0, &m), CMRS_E_USAGE, "at most 65535");
    cmrs_csr_free(&A);
    CHECK_OK(cmrs_csr_alloc(&A, 3, 3, 0));
    memset(A.indptr, 0, 4 * sizeof *A.indptr);
    CHECK_OK(cmrs_mat_from_csr_sliced(&A, 2, 0, &m));
    CHECK(m.stored == 1 && m.strip_ptr[2] == 0, "sliced, no entries: one "
          "padding slot, empty strips (%lld)", (long long)m.stored);
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

/* The rule for strips of one width: padding up to CMRS_SLICE_MAX_PAD of
 * nnz; su always, within the 32-bit strip pointers; nosl never. */
static void test_slice_rule(void)
{
    CHECK(cmrs_slice_takes(-1, 100, 500, 5) && cmrs_slice_takes(-1, 100, 480, 5) &&
              !cmrs_slice_takes(-1, 100, 470, 5) && !cmrs_slice_takes(0, 100, 500, 5) &&
              !cmrs_slice_takes(-1, 100, 0, 0) && !cmrs_slice_takes(-1, 0, 0, 0) &&
              cmrs_slice_takes(2, 100, 1, 50) && cmrs_slice_takes(2, 100, 0, 0) &&
              !cmrs_slice_takes(2, (int64_t)1 << 31, 1 << 20, 4),
          "cmrs_slice_takes: the rule's answers");
}

int main(void)
{
    test_paper_example();
    test_sliced();
    test_slice_rule();
    test_random_matrices();
    test_sorted_order();
    test_limits();
    test_packing();
    return check_summary();
}
