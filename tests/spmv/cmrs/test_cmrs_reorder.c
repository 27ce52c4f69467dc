/* Host tests of the cmrs format's locality reordering (spmv/cmrs/cmrs_reorder.h):
 * the rule's count on natural and random numberings, the rule itself, and
 * B = P A P^T with its row and entry maps (checked entry by entry against
 * A, on random matrices with empty rows and one long row, n = 1 and a
 * matrix of no entries). No GPU needed. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "test_reorder_cases.h"

/* Natural and RCM numberings keep neighbouring rows' columns close; a
 * random one does not. The rule takes only the random one, and only from
 * CMRS_REORDER_MIN_ROWS rows. */
static void test_rule(void)
{
    const int64_t n = reorder_min_cube();
    cmrs_system nat = reorder_poisson(n, CMRS_ORDER_NATURAL);
    cmrs_system rnd = reorder_poisson(n, CMRS_ORDER_RANDOM);
    cmrs_system rcm = reorder_poisson(n, CMRS_ORDER_RCM);
    const double s_nat = cmrs_reorder_near_share(&nat.A);
    const double s_rnd = cmrs_reorder_near_share(&rnd.A);
    const double s_rcm = cmrs_reorder_near_share(&rcm.A);
    CHECK(s_nat > 0.95 && s_rcm > 0.9 && s_rnd < 0.05,
          "near shares: natural %g, rcm %g, random %g", s_nat, s_rcm, s_rnd);
    const cmrs_csr *R = &rnd.A, *N = &nat.A;
    CHECK(cmrs_reorder_wanted(-1, R->rows, R->cols, R->nnz, s_rnd) &&
              !cmrs_reorder_wanted(-1, N->rows, N->cols, N->nnz, s_nat) &&
              !cmrs_reorder_wanted(0, R->rows, R->cols, R->nnz, s_rnd) &&
              cmrs_reorder_wanted(1, N->rows, N->cols, N->nnz, s_nat),
          "rule on n^3: random, natural, noreorder, reorder");
    CHECK(!cmrs_reorder_wanted(-1, CMRS_REORDER_MIN_ROWS - 1,
                               CMRS_REORDER_MIN_ROWS - 1,
                               7 * CMRS_REORDER_MIN_ROWS, 0.0) &&
              !cmrs_reorder_wanted(1, 100, 101, 300, 0.0) &&
              !cmrs_reorder_wanted(1, 1, 1, 1, 0.0) &&
              cmrs_reorder_wanted(1, 2, 2, 0, 1.0),
          "rule: small, rectangular, n = 1, two empty rows");
    cmrs_system_free(&nat);
    cmrs_system_free(&rnd);
    cmrs_system_free(&rcm);
}

/* B's row r is A's row old_of_new[r], its columns renumbered, its
 * entries in A's order; every entry's value and column come from A's
 * entry entry_of[j]. */
static void check_build(const cmrs_csr *A, const char *name)
{
    cmrs_reordered r;
    cmrs_code rc = cmrs_reordered_build(A, &r);
    CHECK(rc == CMRS_OK, "%s: build: %s", name, cmrs_error_message());
    if (rc != CMRS_OK) return;
    const cmrs_csr *B = &r.B;
    int64_t bad = 0;
    char *seen = calloc((size_t)(A->nnz > 0 ? A->nnz : 1), 1);
    for (int64_t i = 0; i < A->rows; ++i)
        bad += r.old_of_new[r.new_of_old[i]] != i;
    for (int64_t row = 0; row < B->rows; ++row) {
        const int64_t i = r.old_of_new[row];
        bad += B->indptr[row + 1] - B->indptr[row] !=
               A->indptr[i + 1] - A->indptr[i];
        for (int64_t j = B->indptr[row]; j < B->indptr[row + 1]; ++j) {
            const int64_t e = r.entry_of[j];
            const int ok = e >= A->indptr[i] && e < A->indptr[i + 1] &&
                           !seen[e] &&
                           B->indices[j] == r.new_of_old[A->indices[e]] &&
                           !memcmp(&B->values[j], &A->values[e],
                                   sizeof(double)) &&
                           (j == B->indptr[row] || r.entry_of[j - 1] < e);
            if (ok) seen[e] = 1;
            bad += !ok;
        }
    }
    CHECK(bad == 0 && B->nnz == A->nnz && B->rows == A->rows,
          "%s: %lld maps, rows or entries of P A P^T wrong", name,
          (long long)bad);
    free(seen);
    cmrs_reordered_free(&r);
}

static void test_build(void)
{
    for (size_t i = 0; i < N_REORDER_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_reorder_specs[i], 40 + i, &A));
        check_build(&A, k_reorder_specs[i].name);
        cmrs_csr_free(&A);
    }
    cmrs_system rnd = reorder_poisson(12, CMRS_ORDER_RANDOM);
    check_build(&rnd.A, "random-order Poisson 12^3");
    cmrs_system_free(&rnd);
    cmrs_csr R;
    CHECK_OK(cmrs_csr_alloc(&R, 3, 4, 0));
    memset(R.indptr, 0, 4 * sizeof *R.indptr);
    cmrs_reordered r;
    CHECK_FAILS(cmrs_reordered_build(&R, &r), CMRS_E_INTERNAL, "square");
    cmrs_csr_free(&R);
}

/* The order itself on a small graph: components 0-3-5 and 2-4, row 1
 * isolated (its diagonal only). One search from 0 numbers 0, 3, 5; the
 * next takes the two lowest unnumbered nodes, 2 and 4, as seeds; the
 * isolated row comes last. */
static void test_order(void)
{
    static const int64_t ptr[] = {0, 2, 3, 5, 8, 10, 12};
    static const int32_t col[] = {0, 3, 1, 2, 4, 0, 3, 5, 2, 4, 3, 5};
    static const int32_t want[] = {0, 3, 5, 2, 4, 1};
    cmrs_csr A;
    CHECK_OK(cmrs_csr_alloc(&A, 6, 6, 12));
    memcpy(A.indptr, ptr, sizeof ptr);
    memcpy(A.indices, col, sizeof col);
    for (int k = 0; k < 12; ++k) A.values[k] = k + 1;
    cmrs_reordered r;
    CHECK_OK(cmrs_reordered_build(&A, &r));
    CHECK(r.old_of_new && !memcmp(r.old_of_new, want, sizeof want),
          "order of the 6-node graph: %d %d %d %d %d %d",
          r.old_of_new ? r.old_of_new[0] : -1, r.old_of_new ? r.old_of_new[1] : -1,
          r.old_of_new ? r.old_of_new[2] : -1, r.old_of_new ? r.old_of_new[3] : -1,
          r.old_of_new ? r.old_of_new[4] : -1, r.old_of_new ? r.old_of_new[5] : -1);
    cmrs_reordered_free(&r);
    check_build(&A, "6-node graph");
    cmrs_csr_free(&A);
}

int main(void)
{
    test_rule();
    test_build();
    test_order();
    return check_summary();
}
