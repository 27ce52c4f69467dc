/* Host tests of the modified CMRS layout (paper 000 §6.7, format cmrs-mod):
 * strips padded to whole aligned 32-entry chunks, no two lanes of a chunk
 * on one (lane % modulo, row) buffer slot (checked here independently of
 * cmrs_mat_validate), the least number of chunks, exact round trip and the
 * host product with the modulo buffer against the CSR reference, for every
 * modulo and several heights, sorted and unsorted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_format.h"
#include "spmv/ref.h"
#include "test_cmrs_matrices.h"
#include "test_cmrs_product.h"

/* No two lanes l1 != l2 of a chunk with l1 % M == l2 % M and one row. */
static int collision_free(const cmrs_mat *m)
{
    for (int64_t c = 0; c < m->stored / 32; ++c)
        for (int l1 = 0; l1 < 32; ++l1)
            for (int l2 = l1 + m->modulo; l2 < 32; l2 += m->modulo)
                if (cmrs_row_of(m->colrow[32 * c + l1]) ==
                    cmrs_row_of(m->colrow[32 * c + l2]))
                    return 0;
    return 1;
}

/* The fewest chunks strip s can take: ceil(n/32), and ceil(len/M) for each
 * row, as a chunk holds at most M entries of a row. */
static int64_t least_chunks(const cmrs_csr *A, int h, int M, int64_t s)
{
    int64_t r0 = s * h, r1 = r0 + h < A->rows ? r0 + h : A->rows;
    int64_t best = (A->indptr[r1] - A->indptr[r0] + 31) / 32;
    for (int64_t r = r0; r < r1; ++r) {
        int64_t need = (A->indptr[r + 1] - A->indptr[r] + M - 1) / M;
        if (need > best) best = need;
    }
    return best;
}

static int layout_ok(const cmrs_mat *m, const cmrs_csr *A)
{
    for (int64_t s = 0; s < m->strips; ++s) {
        int64_t len = m->strip_ptr[s + 1] - m->strip_ptr[s];
        if (m->strip_ptr[s] % 32 || len != 32 * least_chunks(A, m->height,
                                                             m->modulo, s))
            return 0;
    }
    for (int64_t j = 0; j < m->stored; ++j) /* padding adds nothing */
        if (cmrs_mat_is_padding(m, j) && m->values[j] != 0) return 0;
    return m->stored % 32 == 0 && m->stored >= m->nnz && collision_free(m);
}

static void check_one(const cmrs_csr *A, const char *name, int h, int M,
                      int sorted)
{
    cmrs_mat m;
    cmrs_csr back;
    cmrs_code rc = cmrs_mat_from_csr_mod(A, h, M, sorted, &m);
    CHECK(rc == CMRS_OK, "%s h=%d M=%d sorted=%d: %s", name, h, M, sorted,
          cmrs_error_message());
    if (rc != CMRS_OK) return;
    CHECK_OK(cmrs_mat_validate(&m));
    CHECK(layout_ok(&m, A), "%s h=%d M=%d sorted=%d: bad padded layout",
          name, h, M, sorted);
    rc = cmrs_mat_to_csr(&m, &back);
    CHECK(rc == CMRS_OK && test_csr_equal(A, &back), "%s h=%d M=%d "
          "sorted=%d: round trip is not exact", name, h, M, sorted);
    if (rc == CMRS_OK) cmrs_csr_free(&back);
    double e1 = test_cmrs_product_error(&m, A, 1.0, 0.0);
    double e2 = test_cmrs_product_error(&m, A, -1.5, 0.75);
    CHECK(e1 <= 1e-13 && e2 <= 1e-13, "%s h=%d M=%d sorted=%d: product "
          "error %g, %g", name, h, M, sorted, e1, e2);
    if (h == 16 && sorted) /* the overhead table of docs/CMRS.md */
        printf("  %-30s M=%2d: stored/nnz = %.3f\n", name, M,
               cmrs_mat_padding_ratio(&m));
    cmrs_mat_free(&m);
}

static void test_random_matrices(void)
{
    static const int heights[] = {16, 1, 4, 7, 13};
    for (int i = 0; i < N_TEST_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_test_specs[i], 200 + (uint64_t)i, &A));
        for (int M = 2; M <= 32; M *= 2)
            for (int k = 0; k < 5; ++k)
                for (int sorted = 0; sorted <= 1; ++sorted)
                    check_one(&A, k_test_specs[i].name, heights[k], M, sorted);
        cmrs_csr_free(&A);
    }
}

/* Tridiagonal, h = 16, M = 8 (the paper's case): rows of <= 3 entries fit
 * consecutive chunks, so only each strip's last chunk is padded. */
static void test_tridiagonal_no_extra_padding(void)
{
    cmrs_csr A;
    cmrs_mat m;
    int64_t n = 1000, k = 0;
    cmrs_csr_alloc(&A, n, n, 3 * n - 2);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j)
            if (j >= 0 && j < n) {
                A.indices[k] = (int32_t)j;
                A.values[k++] = j == i ? 2.0 : -1.0;
            }
        A.indptr[i + 1] = k;
    }
    CHECK_OK(cmrs_mat_from_csr_mod(&A, 16, 8, 1, &m));
    int64_t expect = 0;
    for (int64_t s = 0; s < m.strips; ++s)
        expect += 32 * ((A.indptr[s * 16 + 16 < n ? s * 16 + 16 : n] -
                         A.indptr[s * 16] + 31) / 32);
    CHECK(m.stored == expect, "tridiagonal: %lld stored, expected %lld",
          (long long)m.stored, (long long)expect);
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

/* One row of 100 entries with M = 2: 50 chunks of 2 real entries each. */
static void test_long_row_forces_padding(void)
{
    cmrs_csr A;
    cmrs_mat m;
    cmrs_csr_alloc(&A, 1, 100, 100);
    for (int k = 0; k < 100; ++k) {
        A.indices[k] = k;
        A.values[k] = k + 1;
    }
    A.indptr[1] = 100;
    CHECK_OK(cmrs_mat_from_csr_mod(&A, 1, 2, 0, &m));
    CHECK(m.stored == 50 * 32 && cmrs_mat_padding_ratio(&m) == 16.0,
          "long row, M=2: %lld stored", (long long)m.stored);
    CHECK(collision_free(&m), "long row, M=2: lanes collide");
    int scratch = 1; /* h = 1: padding can use rows 1..15, never reduced */
    for (int64_t j = 0; j < m.stored; ++j)
        scratch &= !cmrs_mat_is_padding(&m, j) || cmrs_row_of(m.colrow[j]) >= 1;
    CHECK(scratch, "padding sits in never-reduced rows when h < 16");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

static void test_validate_catches_collision(void)
{
    cmrs_csr A;
    cmrs_mat m;
    CHECK_OK(test_random_csr(&k_test_specs[1], 3, &A));
    CHECK_OK(cmrs_mat_from_csr_mod(&A, 16, 4, 1, &m));
    m.colrow[4] = m.colrow[0]; /* lane 4 now shares lane 0's slot */
    CHECK_FAILS(cmrs_mat_validate(&m), CMRS_E_INTERNAL, "collides");
    cmrs_mat_free(&m);
    cmrs_csr_free(&A);
}

static void test_bad_options(void)
{
    cmrs_csr A;
    cmrs_mat m;
    CHECK_OK(test_random_csr(&k_test_specs[0], 4, &A));
    CHECK_FAILS(cmrs_mat_from_csr_mod(&A, 16, 3, 1, &m), CMRS_E_USAGE,
                "modulo 3");
    CHECK_FAILS(cmrs_mat_from_csr_mod(&A, 16, 64, 1, &m), CMRS_E_USAGE,
                "modulo 64");
    CHECK_FAILS(cmrs_mat_from_csr_mod(&A, 17, 8, 1, &m), CMRS_E_USAGE,
                "height 17");
    cmrs_csr_free(&A);
}

int main(void)
{
    test_random_matrices();
    test_tridiagonal_no_extra_padding();
    test_long_row_forces_padding();
    test_validate_catches_collision();
    test_bad_options();
    return check_summary();
}
