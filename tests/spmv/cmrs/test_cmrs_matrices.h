/* Random CSR matrices for the CMRS and format tests (host and GPU): row
 * lengths drawn from a normal distribution N(mu, sigma) (rounded, clipped
 * to [0, cols]) or, by `kind`, fixed at mu, uniform in [mu/2, 3mu/2) or
 * exponential with mean mu (skewed),
 * a fraction of empty rows, optionally one long row; columns distinct and
 * sorted, drawn from a window around the diagonal (like a mesh numbering)
 * or, with scatter, from the whole range. Deterministic for a seed. */
#ifndef CMRS_TEST_CMRS_MATRICES_H
#define CMRS_TEST_CMRS_MATRICES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr.h"
#include "spmv/verify.h"

typedef enum test_len_kind {
    TEST_LEN_NORMAL = 0, TEST_LEN_FIXED, TEST_LEN_UNIFORM, TEST_LEN_SKEWED
} test_len_kind;

typedef struct test_spec {
    const char *name;
    int64_t rows, cols;
    double mu, sigma, empty_frac;
    int64_t long_row, long_len; /* long_row < 0: none */
    int scatter;                /* columns from the whole range */
    test_len_kind kind;         /* default normal */
} test_spec;

/* Table rows, naming only what a row varies. An r x c matrix of row
 * lengths N(mu, sigma), columns near the diagonal (TEST_NORMAL), from the
 * whole range (TEST_SCATTERED), or with the fraction `empty` of its rows
 * empty (TEST_EMPTY_ROWS); one with row `at` of `len` entries
 * (TEST_LONG_ROW, scatter 1: columns from the whole range); one of lengths
 * of another kind, FIXED, UNIFORM or SKEWED, of mean mu (TEST_KIND). */
#define TEST_NORMAL(name, r, c, mu, sigma)                                  \
    {name, r, c, mu, sigma, 0, -1, 0, 0, TEST_LEN_NORMAL}
#define TEST_SCATTERED(name, r, c, mu, sigma)                               \
    {name, r, c, mu, sigma, 0, -1, 0, 1, TEST_LEN_NORMAL}
#define TEST_EMPTY_ROWS(name, r, c, mu, sigma, empty)                       \
    {name, r, c, mu, sigma, empty, -1, 0, 0, TEST_LEN_NORMAL}
#define TEST_LONG_ROW(name, r, c, mu, sigma, at, len, scatter)              \
    {name, r, c, mu, sigma, 0, at, len, scatter, TEST_LEN_NORMAL}
#define TEST_KIND(name, r, c, kind, mu)                                     \
    {name, r, c, mu, 0, 0, -1, 0, 0, TEST_LEN_##kind}

/* Rows several tables hold: n = 0 and 1, a row count that is no multiple
 * of any strip height, and a row long enough to need the tile kernels. */
#define TEST_SPEC_N0 TEST_NORMAL("n=0", 0, 0, 0, 0)
#define TEST_SPEC_N1 TEST_NORMAL("n=1", 1, 1, 1, 0)
#define TEST_SPEC_ROWS17 TEST_NORMAL("rows=17 mu=3", 17, 17, 3, 1)
#define TEST_SPEC_LONG_ROW                                                  \
    TEST_LONG_ROW("one row of 10000 among mu=3", 300, 12000, 3, 1, 150, 10000, \
                  1)

static const test_spec k_test_specs[] = {
    TEST_NORMAL("mu=5 sigma=0.2 (aorta-like)", 1000, 1000, 5, 0.2),
    TEST_NORMAL("mu=7 sigma=2", 777, 777, 7, 2),
    TEST_SCATTERED("mu=3 sigma=3 scattered", 500, 500, 3, 3),
    TEST_NORMAL("mu=27 sigma=5", 300, 300, 27, 5),
    TEST_NORMAL("mu=40 sigma=20", 200, 200, 40, 20),
    TEST_SCATTERED("mu=1 sigma=0.5", 333, 333, 1, 0.5),
    TEST_EMPTY_ROWS("30% empty rows mu=4", 400, 400, 4, 1, 0.3),
    TEST_EMPTY_ROWS("all rows empty", 50, 50, 0, 0, 1.0),
    TEST_SPEC_LONG_ROW,
    TEST_SPEC_ROWS17,
    TEST_SPEC_N1,
    TEST_SPEC_N0,
    TEST_NORMAL("wide 70x190 mu=9", 70, 190, 9, 3),
    TEST_SCATTERED("tall 190x30 mu=4", 190, 30, 4, 2),
};
#define N_TEST_SPECS (int)(sizeof k_test_specs / sizeof k_test_specs[0])

/* Fixed, uniform or skewed lengths (one draw first, always: the draw
 * order fixes the matrices the GPU format tests were written against). */
static inline int64_t test_row_length_mu(const test_spec *g, int64_t i,
                                         uint64_t *rng)
{
    double u = cmrs_rng_uniform(rng), len = g->mu;
    if (i == g->long_row) return g->long_len;
    if (cmrs_rng_uniform(rng) < g->empty_frac) return 0;
    if (g->kind == TEST_LEN_UNIFORM) len = g->mu * (0.5 + u);
    if (g->kind == TEST_LEN_SKEWED) len = -g->mu * log(1.0 - u);
    int64_t n = (int64_t)floor(len + 0.5);
    return n < g->cols ? n : g->cols;
}

static inline int64_t test_row_length(const test_spec *g, int64_t i,
                                      uint64_t *rng)
{
    if (g->kind != TEST_LEN_NORMAL) return test_row_length_mu(g, i, rng);
    if (i == g->long_row) return g->long_len;
    if (cmrs_rng_uniform(rng) < g->empty_frac) return 0;
    double u1 = cmrs_rng_uniform(rng), u2 = cmrs_rng_uniform(rng);
    double gauss = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
    int64_t n = (int64_t)floor(g->mu + g->sigma * gauss + 0.5);
    return n < 0 ? 0 : n < g->cols ? n : g->cols;
}

/* len distinct sorted columns in [c0, c0 + w) by selection sampling. */
static inline void test_fill_row(const test_spec *g, int64_t i, int64_t len,
                                 uint64_t *rng, int32_t *cols, double *vals)
{
    int64_t w = g->scatter ? g->cols : (len * 4 > 64 ? len * 4 : 64);
    if (w > g->cols) w = g->cols;
    int64_t centre = g->rows > 1 ? i * (g->cols - 1) / (g->rows - 1) : 0;
    int64_t c0 = centre - w / 2;
    if (c0 > g->cols - w) c0 = g->cols - w;
    if (c0 < 0) c0 = 0;
    int64_t need = len, k = 0;
    for (int64_t c = c0; c < c0 + w && need > 0; ++c) {
        if (cmrs_rng_uniform(rng) * (double)(c0 + w - c) >= (double)need)
            continue;
        cols[k] = (int32_t)c;
        vals[k++] = 2.0 * cmrs_rng_uniform(rng) - 1.0;
        --need;
    }
}

static inline cmrs_code test_random_csr(const test_spec *g, uint64_t seed,
                                        cmrs_csr *A)
{
    uint64_t rng = seed;
    int64_t *len = cmrs_malloc_array((size_t)g->rows, sizeof *len), nnz = 0;
    CMRS_ENSURE(len, CMRS_E_NOMEM, "test: out of memory");
    for (int64_t i = 0; i < g->rows; ++i)
        nnz += len[i] = test_row_length(g, i, &rng);
    cmrs_code rc = cmrs_csr_alloc(A, g->rows, g->cols, nnz);
    if (rc == CMRS_OK) {
        for (int64_t i = 0; i < g->rows; ++i) {
            A->indptr[i + 1] = A->indptr[i] + len[i];
            test_fill_row(g, i, len[i], &rng, A->indices + A->indptr[i],
                          A->values + A->indptr[i]);
        }
        rc = cmrs_csr_validate(A, g->name);
    }
    free(len);
    return rc;
}

/* 1 if A and B are the same matrix bit for bit. */
static inline int test_csr_equal(const cmrs_csr *A, const cmrs_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           !memcmp(A->indptr, B->indptr, ((size_t)A->rows + 1) * 8) &&
           !memcmp(A->indices, B->indices, (size_t)A->nnz * 4) &&
           !memcmp(A->values, B->values, (size_t)A->nnz * 8);
}

#endif
