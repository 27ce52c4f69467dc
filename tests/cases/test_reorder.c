/* cmrs_reorder / cmrs_order_perm: random and RCM orders are permutations,
 * A' = P A P^T entry by entry with b and x0 moved alike, seeds are
 * reproducible, RCM restores a narrow band after a random shuffle and numbers
 * each connected component contiguously, natural is the identity. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "props.h"

static void copy_system(cmrs_system *dst, const cmrs_system *src)
{
    int64_t n = src->A.rows;
    memset(dst, 0, sizeof *dst);
    cmrs_csr_copy(&dst->A, &src->A);
    dst->b = malloc((size_t)n * sizeof(double));
    memcpy(dst->b, src->b, (size_t)n * sizeof(double));
    if (src->x0) {
        dst->x0 = malloc((size_t)n * sizeof(double));
        memcpy(dst->x0, src->x0, (size_t)n * sizeof(double));
    }
}

static int is_permutation(const int32_t *p, int64_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; ++i) {
        ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
        if (ok) seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

/* Value of a_ij in a sorted row, or NAN when not stored. */
static double entry(const cmrs_csr *A, int64_t i, int32_t j)
{
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        if (A->indices[k] == j) return A->values[k];
    return NAN;
}

/* new = P old P^T with row i of old at p[i] in new; b and x0 alike. */
static void check_permuted(const cmrs_system *old, const cmrs_system *new_,
                           const int32_t *p)
{
    const cmrs_csr *A = &old->A, *B = &new_->A;
    int64_t bad = 0, bad_len = 0, bad_vec = 0;
    CHECK_OK(cmrs_csr_validate(B, "permuted"));
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t len = A->indptr[i + 1] - A->indptr[i];
        if (B->indptr[p[i] + 1] - B->indptr[p[i]] != len) ++bad_len;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (entry(B, p[i], p[A->indices[k]]) != A->values[k]) ++bad;
        if (new_->b[p[i]] != old->b[i] || new_->x0[p[i]] != old->x0[i])
            ++bad_vec;
    }
    CHECK(B->nnz == A->nnz && bad == 0 && bad_len == 0, "P A P^T: %lld "
          "entries and %lld row lengths differ", (long long)bad,
          (long long)bad_len);
    CHECK(bad_vec == 0, "%lld entries of b or x0 not permuted",
          (long long)bad_vec);
}

static void check_order(const cmrs_system *s, cmrs_order order)
{
    int32_t *p = NULL, *p_again = NULL, *p_other = NULL;
    CHECK_OK(cmrs_order_perm(&s->A, order, 11, &p));
    CHECK_OK(cmrs_order_perm(&s->A, order, 11, &p_again));
    CHECK_OK(cmrs_order_perm(&s->A, order, 12, &p_other));
    if (!p || !p_again || !p_other) return;
    size_t bytes = (size_t)s->A.rows * sizeof *p;
    CHECK(is_permutation(p, s->A.rows), "order %d: not a permutation", order);
    CHECK(!memcmp(p, p_again, bytes), "order %d: seed not reproducible", order);
    if (order == CMRS_ORDER_RANDOM)
        CHECK(memcmp(p, p_other, bytes), "seeds 11 and 12 give one order");
    cmrs_system t;
    copy_system(&t, s);
    CHECK_OK(cmrs_reorder(&t, order, 11));
    if (t.b) check_permuted(s, &t, p);
    cmrs_system_free(&t);
    free(p);
    free(p_again);
    free(p_other);
}

static int64_t bandwidth(const cmrs_csr *A)
{
    int64_t bw = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            bw = llabs(A->indices[k] - i) > bw ? llabs(A->indices[k] - i) : bw;
    return bw;
}

static void check_rcm_band(void)
{
    cmrs_poisson_opts o = {10, 7, 0.0, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    CHECK_OK(cmrs_reorder(&s, CMRS_ORDER_RANDOM, 5));
    int64_t shuffled = bandwidth(&s.A);
    CHECK_OK(cmrs_reorder(&s, CMRS_ORDER_RCM, 0));
    int64_t rcm = bandwidth(&s.A);
    /* natural order has bandwidth n^2 = 100; RCM's level sets of a cube
     * are diagonal planes of up to ~n^2 * 3/4 nodes */
    CHECK(shuffled > 800 && rcm <= 160, "bandwidth shuffled %lld, rcm %lld",
          (long long)shuffled, (long long)rcm);
    cmrs_system_free(&s);
}

/* Two disjoint grids side by side: RCM numbers each one contiguously. */
static void check_rcm_components(void)
{
    cmrs_poisson_opts o = {3, 7, 0.0, 1};
    cmrs_system g;
    cmrs_csr A;
    CHECK_OK(cmrs_gen_poisson3d(&o, &g));
    if (!g.b) return;
    int64_t n = g.A.rows, nnz = g.A.nnz;
    CHECK_OK(cmrs_csr_alloc(&A, 2 * n, 2 * n, 2 * nnz));
    for (int half = 0; half < 2; ++half) {
        for (int64_t i = 0; i <= n; ++i)
            A.indptr[half * n + i] = half * nnz + g.A.indptr[i];
        for (int64_t k = 0; k < nnz; ++k) {
            A.indices[half * nnz + k] = (int32_t)(half * n + g.A.indices[k]);
            A.values[half * nnz + k] = g.A.values[k];
        }
    }
    int32_t *p = NULL;
    CHECK_OK(cmrs_order_perm(&A, CMRS_ORDER_RCM, 0, &p));
    if (p) {
        int split = 1;
        for (int64_t i = 1; i < n; ++i)
            split &= (p[i] < n) == (p[0] < n) && (p[n + i] < n) == (p[n] < n);
        CHECK(is_permutation(p, 2 * n) && split && (p[0] < n) != (p[n] < n),
              "RCM mixes two components");
    }
    free(p);
    cmrs_csr_free(&A);
    cmrs_system_free(&g);
}

static void check_not_square(void)
{
    cmrs_csr A;
    int32_t *p = NULL;
    CHECK_OK(cmrs_csr_alloc(&A, 2, 3, 0));
    A.indptr[1] = A.indptr[2] = 0;
    CHECK_FAILS(cmrs_order_perm(&A, CMRS_ORDER_RCM, 0, &p), CMRS_E_INPUT,
                "not square");
    CHECK(p == NULL, "permutation returned on failure");
    cmrs_csr_free(&A);
}

/* A bad permutation is refused before anything moves. */
static void check_bad_perm(void)
{
    cmrs_poisson_opts o = {3, 7, 0.0, 1};
    cmrs_system s, t;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    copy_system(&t, &s);
    int32_t p[27];
    for (int i = 0; i < 27; ++i) p[i] = (int32_t)((i * 5) % 27);
    p[26] = p[0]; /* a duplicate */
    CHECK_FAILS(cmrs_permute_system(&t, p), CMRS_E_INPUT, "no permutation");
    CHECK(t.b && same_system(&s, &t), "system changed by a refused perm");
    p[26] = 27;
    CHECK_FAILS(cmrs_permute_system(&t, p), CMRS_E_INPUT, "no permutation");
    cmrs_system_free(&t);
    cmrs_system_free(&s);
}

int main(void)
{
    cmrs_vessel_opts vo = {1000, 1};
    cmrs_system s, t;
    CHECK_OK(cmrs_gen_vessel(&vo, &s));
    if (!s.b) return check_summary();
    s.x0 = malloc((size_t)s.A.rows * sizeof(double));
    for (int64_t i = 0; i < s.A.rows; ++i) s.x0[i] = 3.0 + 0.5 * (double)i;
    check_order(&s, CMRS_ORDER_RANDOM);
    check_order(&s, CMRS_ORDER_RCM);
    copy_system(&t, &s);
    CHECK_OK(cmrs_reorder(&t, CMRS_ORDER_NATURAL, 3));
    CHECK(same_system(&s, &t), "natural order changed the system");
    cmrs_system_free(&t);
    cmrs_system_free(&s);
    check_rcm_band();
    check_rcm_components();
    check_not_square();
    check_bad_perm();
    return check_summary();
}
