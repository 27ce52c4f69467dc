/* The renumbered system's tests (api/renumber.c): matrices numbered at
 * random, and one solve of them through the public API with or without
 * option renumber, whose x (in the caller's order) the tests compare. */
#ifndef CMRS_TEST_TREN_H
#define CMRS_TEST_TREN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/csr.h"
#include "tapi.h"

/* A deterministic generator (xorshift64*). */
static inline uint64_t tren_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A random permutation of n (new_of_old). */
static inline int32_t *tren_perm(int64_t n, uint64_t seed)
{
    int32_t *p = malloc((size_t)n * sizeof *p);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int64_t i = 0; i < n; ++i) p[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; --i) {
        int64_t j = (int64_t)(tren_rand(&s) % (uint64_t)(i + 1));
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

/* The 5-point Laplacian of an nx x ny grid plus `shift` on the diagonal,
 * with `isolated` extra rows holding only their diagonal (2.0), every
 * row renumbered by a random permutation (seed), rows sorted: SPD for
 * shift > 0 or with a Dirichlet edge. A is allocated (cmrs_csr_free). */
static inline void tren_grid(int nx, int ny, int isolated, double shift,
                             uint64_t seed, cmrs_csr *A)
{
    const int64_t grid = (int64_t)nx * ny, n = grid + isolated;
    int32_t *perm = tren_perm(n, seed), *old_of = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; ++i) old_of[perm[i]] = (int32_t)i;
    CHECK_OK(cmrs_csr_alloc(A, n, n, 5 * grid + isolated));
    int64_t k = 0;
    A->indptr[0] = 0;
    for (int64_t r = 0; r < n; ++r) { /* row r of A is node old_of[r] */
        const int64_t v = old_of[r];
        int32_t cols[5];
        double vals[5];
        int m = 0;
        if (v >= grid) {
            cols[m] = (int32_t)r;
            vals[m++] = 2.0;
        } else {
            const int64_t x = v % nx, y = v / nx;
            const int64_t nb[4] = {x > 0 ? v - 1 : -1, x < nx - 1 ? v + 1 : -1,
                                   y > 0 ? v - nx : -1,
                                   y < ny - 1 ? v + nx : -1};
            cols[m] = (int32_t)r;
            vals[m++] = 4.0 + shift;
            for (int q = 0; q < 4; ++q)
                if (nb[q] >= 0) {
                    cols[m] = perm[nb[q]];
                    vals[m++] = -1.0;
                }
        }
        for (int a = 1; a < m; ++a) /* sort the row by column */
            for (int b = a; b > 0 && cols[b - 1] > cols[b]; --b) {
                int32_t c = cols[b];
                double w = vals[b];
                cols[b] = cols[b - 1];
                vals[b] = vals[b - 1];
                cols[b - 1] = c;
                vals[b - 1] = w;
            }
        for (int a = 0; a < m; ++a) {
            A->indices[k] = cols[a];
            A->values[k++] = vals[a];
        }
        A->indptr[r + 1] = k;
    }
    A->nnz = k;
    free(perm);
    free(old_of);
}

/* b_i = 1 + (i mod 7) / 7: not A times a vector of one value, so an x in
 * the wrong order shows. */
static inline double *tren_rhs(int64_t n)
{
    double *b = malloc((size_t)n * sizeof *b);
    for (int64_t i = 0; i < n; ++i) b[i] = 1.0 + (double)(i % 7) / 7.0;
    return b;
}

/* A as the caller's matrix on ctx (int32 arrays: cmrs_csr's offsets are
 * int64, its columns int32, and one index type covers both). */
static inline cmrs_matrix *tren_matrix(cmrs_context *ctx, const cmrs_csr *A)
{
    cmrs_matrix *M = NULL;
    int32_t *ptr = malloc(((size_t)A->rows + 1) * sizeof *ptr);
    for (int64_t i = 0; i <= A->rows; ++i) ptr[i] = (int32_t)A->indptr[i];
    API_OK(ctx, cmrs_matrix_create_csr(ctx, A->rows, A->cols, A->nnz, ptr,
                                       A->indices, CMRS_INDEX_INT32,
                                       A->values, CMRS_VALUE_FLOAT64, &M));
    free(ptr);
    return M;
}

/* A solver over A on ctx with the options (name, value pairs, NULL
 * ended) and renumber `ren` ("on", "off", "auto"); *M: its matrix. */
static inline cmrs_solver *tren_solver(cmrs_context *ctx, const cmrs_csr *A,
                                       const char *ren,
                                       const char *const *opts,
                                       cmrs_matrix **M)
{
    cmrs_solver *s = NULL;
    *M = tren_matrix(ctx, A);
    API_OK(ctx, cmrs_solver_create(ctx, &s));
    API_OK(ctx, cmrs_solver_set_option(s, "renumber", ren));
    for (int i = 0; opts && opts[i]; i += 2)
        API_OK(ctx, cmrs_solver_set_option(s, opts[i], opts[i + 1]));
    API_OK(ctx, cmrs_solver_setup(s, *M));
    return s;
}

/* The auto rule's floor for the solvers made next (CMRS_RENUMBER_MIN_ROWS;
 * rows 0: the library's own). */
static inline void tren_set_floor(int64_t rows)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)rows);
    if (rows > 0) setenv("CMRS_RENUMBER_MIN_ROWS", text, 1);
    else unsetenv("CMRS_RENUMBER_MIN_ROWS");
}

/* max |x - y| / max |y| over n. */
static inline double tren_diff(const double *x, const double *y, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; ++i) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return m > 0 ? d / m : d;
}

/* x (a renumbered solver's, after new values v) against a fresh setup's
 * solve of b on A with values v, not renumbered, same options. */
static inline void tren_against_fresh(cmrs_context *ctx, const cmrs_csr *A,
                                      double *v, const char *const *opts,
                                      const double *b, const double *x,
                                      const char *what)
{
    const int64_t n = A->rows;
    double *y = calloc((size_t)n, sizeof *y);
    cmrs_csr Anew = *A;
    Anew.values = v;
    cmrs_matrix *F = NULL;
    cmrs_solver *f = tren_solver(ctx, &Anew, "off", opts, &F);
    API_OK(ctx, cmrs_solver_solve(f, b, y));
    CHECK(tren_diff(x, y, n) < 1e-8, "%s: x off by %.2e", what,
          tren_diff(x, y, n));
    cmrs_solver_destroy(f);
    cmrs_matrix_destroy(F);
    free(y);
}

/* M, the caller's matrix, holds values v in its own order. */
static inline void tren_holds(cmrs_matrix *M, const double *v,
                              const char *what)
{
    const cmrs_csr *held = &cmrs_matrix_system(M)->A;
    CHECK(memcmp(held->values, v, (size_t)held->nnz * sizeof *v) == 0,
          "%s: the caller's matrix holds the new values in its order", what);
}

#endif
