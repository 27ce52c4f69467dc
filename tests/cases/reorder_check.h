/* What the reordering tests share: whether a vector is a permutation, the
 * check of one order (a permutation, reproducible, P A P^T with b and x0
 * moved alike), locality measures (bandwidth, mean |i - j|, profile) and
 * the small graphs every order must number: random patterns, several
 * components, one row, empty rows. */
#ifndef CMRS_TEST_CASES_REORDER_CHECK_H
#define CMRS_TEST_CASES_REORDER_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "cases/rng.h"
#include "check.h"
#include "props.h"

static inline void copy_system(cmrs_system *dst, const cmrs_system *src)
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

static inline int is_permutation(const int32_t *p, int64_t n)
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
static inline double entry(const cmrs_csr *A, int64_t i, int32_t j)
{
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        if (A->indices[k] == j) return A->values[k];
    return NAN;
}

/* new = P old P^T with row i of old at p[i] in new; b and x0 alike. */
static inline void check_permuted(const cmrs_system *old,
                                  const cmrs_system *new_, const int32_t *p)
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

/* The order of s (which has b and x0) is a permutation, the same for the
 * same seed (random: another for another seed, from 10 rows on), and
 * cmrs_reorder applies exactly it. */
static inline void check_order(const cmrs_system *s, cmrs_order order)
{
    int32_t *p = NULL, *p_again = NULL, *p_other = NULL;
    CHECK_OK(cmrs_order_perm(&s->A, order, 11, &p));
    CHECK_OK(cmrs_order_perm(&s->A, order, 11, &p_again));
    CHECK_OK(cmrs_order_perm(&s->A, order, 12, &p_other));
    if (!p || !p_again || !p_other) return;
    size_t bytes = (size_t)s->A.rows * sizeof *p;
    CHECK(is_permutation(p, s->A.rows), "order %d: not a permutation", order);
    CHECK(!memcmp(p, p_again, bytes), "order %d: seed not reproducible", order);
    if (order == CMRS_ORDER_RANDOM && s->A.rows >= 10)
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

static inline int64_t bandwidth(const cmrs_csr *A)
{
    int64_t bw = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            bw = llabs(A->indices[k] - i) > bw ? llabs(A->indices[k] - i) : bw;
    return bw;
}

/* Mean |i - j| over the entries: how far, on average, an SpMV's x reads
 * are from its row (nested dissection keeps it small, not the bandwidth). */
static inline double mean_distance(const cmrs_csr *A)
{
    double sum = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            sum += (double)llabs(A->indices[k] - i);
    return A->nnz ? sum / (double)A->nnz : 0;
}

/* Sum over rows of i - (the row's first column), where that is below i. */
static inline int64_t profile(const cmrs_csr *A)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (A->indptr[i + 1] > A->indptr[i] && A->indices[A->indptr[i]] < i)
            sum += i - A->indices[A->indptr[i]];
    return sum;
}

/* The random-numbered 7-point Poisson n^3 (seed 5) renumbered by `order`:
 * the locality of the renumbered matrix in *after, the shuffled one's in
 * *shuffled, by `measure`. */
static inline void shuffled_then(cmrs_order order, int64_t n,
                                 double (*measure)(const cmrs_csr *),
                                 double *shuffled, double *after)
{
    cmrs_poisson_opts o = {n, 7, 0.0, 1};
    cmrs_system s;
    *shuffled = *after = -1;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    CHECK_OK(cmrs_reorder(&s, CMRS_ORDER_RANDOM, 5));
    *shuffled = measure(&s.A);
    CHECK_OK(cmrs_reorder(&s, order, 0));
    if (s.b) *after = measure(&s.A);
    cmrs_system_free(&s);
}

static inline double bandwidth_of(const cmrs_csr *A)
{
    return (double)bandwidth(A);
}

static inline double profile_of(const cmrs_csr *A)
{
    return (double)profile(A);
}

/* A graph to number: n nodes, each in one of `components` groups (groups
 * interleaved in the numbering), about `degree` random edges a node within
 * its group, symmetric unless asked; the diagonal where `diagonal`; nodes
 * i with i % isolate_every == 1 (isolate_every > 1) have no entry at all
 * (an empty row). Values 1. */
typedef struct graph_spec {
    int64_t n;
    int components, degree, diagonal, symmetric, isolate_every;
    uint64_t seed;
} graph_spec;

static inline int isolated(const graph_spec *g, int64_t i)
{
    return g->isolate_every > 1 && i % g->isolate_every == 1;
}

/* The spec's pattern as an n x n adjacency of bytes (small n only). */
static inline char *graph_adjacency(const graph_spec *g)
{
    int64_t n = g->n;
    char *adj = calloc((size_t)(n * n) + 1, 1);
    int *group = malloc((size_t)n * sizeof *group + 1);
    cmrs_rng rng = cmrs_rng_make(g->seed);
    for (int64_t i = 0; i < n; ++i)
        group[i] = (int)cmrs_rng_below(&rng, (uint64_t)g->components);
    for (int64_t i = 0; i < n; ++i) {
        if (isolated(g, i)) continue;
        adj[i * n + i] = (char)g->diagonal;
        for (int e = 0; e < g->degree; ++e) {
            int64_t j = (int64_t)cmrs_rng_below(&rng, (uint64_t)n);
            if (j == i || group[j] != group[i] || isolated(g, j)) continue;
            adj[i * n + j] = 1;
            if (g->symmetric) adj[j * n + i] = 1;
        }
    }
    free(group);
    return adj;
}

/* The spec's matrix with b = 1..n and x0 = -(1..n) (CHECKed; s->b NULL
 * when it could not be made). */
static inline void graph_system(const graph_spec *g, cmrs_system *s)
{
    int64_t n = g->n, nnz = 0;
    char *adj = graph_adjacency(g);
    memset(s, 0, sizeof *s);
    for (int64_t k = 0; k < n * n; ++k) nnz += adj[k];
    CHECK_OK(cmrs_csr_alloc(&s->A, n, n, nnz));
    nnz = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j)
            if (adj[i * n + j]) {
                s->A.indices[nnz] = (int32_t)j;
                s->A.values[nnz++] = 1.0;
            }
        s->A.indptr[i + 1] = nnz;
    }
    free(adj);
    s->b = malloc((size_t)n * sizeof(double) + 1);
    s->x0 = malloc((size_t)n * sizeof(double) + 1);
    for (int64_t i = 0; i < n; ++i) {
        s->b[i] = (double)(i + 1);
        s->x0[i] = -(double)(i + 1);
    }
}

/* The graphs every order is checked on: random symmetric patterns with
 * and without a diagonal, several interleaved components, empty rows
 * (isolated nodes), a nonsymmetric pattern, one row with and without its
 * diagonal, and none at all. */
static const graph_spec k_graphs[] = {
    {60, 1, 4, 1, 1, 0, 1},   {200, 1, 3, 0, 1, 0, 2},
    {150, 4, 5, 1, 1, 0, 3},  {120, 3, 3, 1, 1, 7, 4},
    {90, 1, 4, 0, 1, 3, 5},   {80, 2, 3, 1, 0, 0, 6},
    {1, 1, 1, 1, 1, 0, 7},    {1, 1, 0, 0, 1, 0, 8},
    {0, 1, 0, 1, 1, 0, 9},    {40, 40, 2, 1, 1, 0, 10}};
#define GRAPH_COUNT (sizeof k_graphs / sizeof k_graphs[0])

/* check_order on every graph of k_graphs. */
static inline void check_order_on_graphs(cmrs_order order)
{
    for (size_t g = 0; g < GRAPH_COUNT; ++g) {
        cmrs_system s;
        graph_system(&k_graphs[g], &s);
        if (s.b) check_order(&s, order);
        cmrs_system_free(&s);
    }
}

#endif
