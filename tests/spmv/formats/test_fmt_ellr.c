/* Host tests of the ELLPACK-R / ELLR-T conversion (spmv/formats/fmt_ellr.h): the
 * paper's column-major layout on a small example for T = 1 and 2, layout
 * invariants and padding counts on random matrices for every T, the
 * refusal of the long-row matrix by cmrs_check_padding, the choice and
 * validation of T, a host emulation of the kernel (T lanes striding over
 * a row, then the xor-shuffle tree) against the CSR reference, and the
 * value permutation (the conversion of A's index pattern: same layout,
 * values gathered bit for bit). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "spmv/spmv.h"
#include "spmv/formats/fmt_ellr.h"
#include "spmv/ref.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "spmv/test_value_perm.h"
#include "tformats.h"

/* 4 x 4: rows of length 2, 3, 0, 1; values 1..6 in CSR order. */
static void small_matrix(cmrs_csr *A)
{
    static const int64_t ptr[] = {0, 2, 5, 5, 6};
    static const int32_t idx[] = {0, 3, 0, 1, 2, 3};
    cmrs_csr_alloc(A, 4, 4, 6);
    memcpy(A->indptr, ptr, sizeof ptr);
    memcpy(A->indices, idx, sizeof idx);
    for (int k = 0; k < 6; ++k) A->values[k] = k + 1;
}

static void check_small(const cmrs_csr *A, int T, int64_t width,
                        const double *val, const int32_t *col)
{
    cmrs_ellr_host E;
    CHECK_OK(cmrs_ellr_build(A, T, &E));
    int ok = E.width == width && E.stored == 4 * width;
    for (int64_t s = 0; ok && s < E.stored; ++s)
        ok = E.val[s] == val[s] && E.col[s] == col[s];
    CHECK(ok, "small example, T=%d: arrays differ from the expected layout", T);
    CHECK(E.rl[0] == 2 && E.rl[1] == 3 && E.rl[2] == 0 && E.rl[3] == 1,
          "small example, T=%d: row lengths", T);
    cmrs_ellr_host_free(&E);
}

static void test_small_layout(void)
{
    cmrs_csr A;
    small_matrix(&A);
    /* T=1: paper Table II, A[k*rows + r]: column k of all rows in turn. */
    check_small(&A, 1, 3,
                (const double[]){1, 3, 0, 6, 2, 4, 0, 0, 0, 5, 0, 0},
                (const int32_t[]){0, 0, 0, 3, 3, 1, 0, 0, 0, 2, 0, 0});
    /* T=2: pairs of a row's entries side by side, rows in turn, then the
     * next pair: slot = (k/2)*rows*2 + r*2 + k%2; width 3 rounds up to 4. */
    check_small(&A, 2, 4,
                (const double[]){1, 2, 3, 4, 0, 0, 6, 0,
                                 0, 0, 5, 0, 0, 0, 0, 0},
                (const int32_t[]){0, 3, 0, 1, 0, 0, 3, 0,
                                  0, 0, 2, 0, 0, 0, 0, 0});
    cmrs_csr_free(&A);
}

static int64_t longest_row(const cmrs_csr *A)
{
    int64_t m = 0;
    for (int64_t r = 0; r < A->rows; ++r)
        if (A->indptr[r + 1] - A->indptr[r] > m)
            m = A->indptr[r + 1] - A->indptr[r];
    return m;
}

/* Every CSR entry at its slot, rl right, padding zero, counts right. */
static int layout_ok(const cmrs_csr *A, const cmrs_ellr_host *E)
{
    int64_t lmax = longest_row(A), filled = 0;
    if (E->width % E->T || E->width < lmax || E->width >= lmax + E->T ||
        E->stored != A->rows * E->width)
        return 0;
    for (int64_t r = 0; r < A->rows; ++r) {
        int64_t b = A->indptr[r], len = A->indptr[r + 1] - b;
        if (E->rl[r] != len) return 0;
        for (int64_t k = 0; k < len; ++k) {
            int64_t s = cmrs_ellr_slot(A->rows, E->T, r, k);
            if (E->col[s] != A->indices[b + k] || E->val[s] != A->values[b + k])
                return 0;
        }
    }
    for (int64_t s = 0; s < E->stored; ++s) filled += E->val[s] != 0.0;
    return filled <= A->nnz; /* padding slots hold zeros */
}

/* The kernel on the host: lane j of a row sums entries k = j, j+T, ...,
 * then lanes combine by xor pairs (offset T/2 .. 1), as __shfl_xor_sync. */
static void emulate(const cmrs_ellr_host *E, double alpha, const double *x,
                    double beta, double *y)
{
    double lane[CMRS_ELLR_MAX_T];
    for (int64_t r = 0; r < E->rows; ++r) {
        for (int j = 0; j < E->T; ++j) {
            lane[j] = 0.0;
            for (int64_t k = j; k < E->rl[r]; k += E->T) {
                int64_t s = cmrs_ellr_slot(E->rows, E->T, r, k);
                lane[j] += E->val[s] * x[E->col[s]];
            }
        }
        for (int off = E->T / 2; off > 0; off >>= 1) {
            double next[CMRS_ELLR_MAX_T];
            for (int j = 0; j < E->T; ++j) next[j] = lane[j] + lane[j ^ off];
            memcpy(lane, next, sizeof next);
        }
        y[r] = beta == 0.0 ? alpha * lane[0] : alpha * lane[0] + beta * y[r];
    }
}

static void check_product(const cmrs_csr *A, const cmrs_ellr_host *E,
                          const char *name)
{
    product_vectors v = product_vectors_make(A);
    for (int64_t j = 0; j < A->cols; ++j)
        v.x[j] = 1.0 + 0.01 * (double)(j % 97);
    for (int64_t i = 0; i < A->rows; ++i)
        v.y[i] = v.ref[i] = 0.5 - 0.003 * (double)i;
    cmrs_ref_spmv(A, -1.5, v.x, 0.75, v.ref);
    emulate(E, -1.5, v.x, 0.75, v.y);
    CHECK(cmrs_ref_rel_err(A->rows, v.y, v.ref) < 1e-13, "%s, T=%d: product "
          "rel err %g", name, E->T, cmrs_ref_rel_err(A->rows, v.y, v.ref));
    for (int64_t i = 0; i < A->rows; ++i) v.y[i] = NAN; /* beta 0: unread */
    cmrs_ref_spmv(A, 2.0, v.x, 0.0, v.ref);
    emulate(E, 2.0, v.x, 0.0, v.y);
    CHECK(cmrs_ref_rel_err(A->rows, v.y, v.ref) < 1e-13,
          "%s, T=%d: beta=0 product reads y", name, E->T);
    product_vectors_free(&v);
}

/* Setup converts A's index pattern: the same layout, and its values are
 * the permutation that gathers E's values exactly. */
static void check_permutation(const cmrs_csr *A, const cmrs_ellr_host *E,
                              const char *name)
{
    cmrs_csr idx;
    cmrs_ellr_host P;
    CHECK_OK(cmrs_csr_index_pattern(A, &idx));
    CHECK_OK(cmrs_ellr_build(&idx, E->T, &P));
    int same = P.width == E->width && P.stored == E->stored &&
               !memcmp(P.rl, E->rl, (size_t)E->rows * sizeof *P.rl) &&
               !memcmp(P.col, E->col, (size_t)E->stored * sizeof *P.col);
    char what[160];
    snprintf(what, sizeof what, "%s, T=%d", name, E->T);
    check_pattern_perm(A, same, P.val, E->val, E->stored, what);
    cmrs_ellr_host_free(&P);
    free(idx.values);
}

/* Builds A for T; expects a refusal exactly when padding exceeds the limit. */
static void check_one(const cmrs_csr *A, int T, const char *name)
{
    int64_t width = (longest_row(A) + T - 1) / T * T;
    int refuse = (double)(A->rows * width) >
                 CMRS_MAX_PADDING_RATIO * (double)A->nnz + 1024.0;
    cmrs_ellr_host E;
    if (refuse) {
        CHECK_FAILS(cmrs_ellr_build(A, T, &E), CMRS_E_LIMIT, "ellr: padding");
        CHECK(!E.rl && !E.col && !E.val, "%s: refusal leaves nothing", name);
        return;
    }
    CHECK_OK(cmrs_ellr_build(A, T, &E));
    CHECK(layout_ok(A, &E), "%s, T=%d: layout invariants", name, T);
    check_product(A, &E, name);
    check_permutation(A, &E, name);
    cmrs_ellr_host_free(&E);
}

static void test_random(void)
{
    for (int i = 0; i < N_TEST_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_test_specs[i], 1234 + (uint64_t)i, &A));
        for (int T = 1; T <= CMRS_ELLR_MAX_T; T *= 2)
            check_one(&A, T, k_test_specs[i].name);
        cmrs_csr_free(&A);
    }
}

static void test_long_row_refused(void)
{
    const test_spec *g = &k_test_specs[8]; /* one row of 10000 among mu=3 */
    cmrs_csr A;
    cmrs_ellr_host E;
    CHECK(g->long_row >= 0, "spec 8 is the long-row matrix");
    CHECK_OK(test_random_csr(g, 7, &A));
    CHECK_FAILS(cmrs_ellr_build(&A, 1, &E), CMRS_E_LIMIT, "use cmrs");
    cmrs_csr_free(&A);
}

static void test_choose_T(void)
{
    static const struct { double mu; int T; } want[] = {
        {0, 1}, {1, 1}, {4, 1}, {5, 2}, {7, 2}, {8, 2}, {9, 4},
        {27, 8}, {64, 16}, {100, 32}, {1000, 32}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        cmrs_csr A = {100, 2000, (int64_t)(want[i].mu * 100), 0, 0, 0};
        int T = -1;
        CHECK_OK(cmrs_ellr_resolve_T(0, &A, &T));
        CHECK(T == want[i].T, "mean %g: default T %d, expected %d",
              want[i].mu, T, want[i].T);
    }
    cmrs_csr empty = {0, 0, 0, 0, 0, 0};
    int T = -1;
    CHECK_OK(cmrs_ellr_resolve_T(16, &empty, &T));
    CHECK(T == 16, "explicit T kept");
    static const int bad[] = {-1, 3, 6, 12, 33, 64};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        CHECK_FAILS(cmrs_ellr_resolve_T(bad[i], &empty, &T), CMRS_E_USAGE,
                    "threads per row");
}

int main(void)
{
    test_small_layout();
    test_random();
    test_long_row_refused();
    test_choose_T();
    return check_summary();
}
