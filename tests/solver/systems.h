/* Small test systems built inline (header-only, for the solver tests):
 * Laplacians, an upwind convection-diffusion operator, and matrices made to
 * break solvers. Each returns a valid CSR (sorted rows). */
#ifndef CMRS_TEST_SYSTEMS_H
#define CMRS_TEST_SYSTEMS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr.h"
#include "spmv/ref.h"

/* Row-by-row builder: entries must be appended in column order. */
typedef struct tbuild {
    cmrs_csr *A;
    int64_t k;
} tbuild;

/* A test matrix that cannot be allocated ends the test (a failure, not a
 * crash on the NULL arrays). */
static inline void tb_init(tbuild *t, cmrs_csr *A, int64_t n, int64_t nnz)
{
    if (cmrs_csr_alloc(A, n, n, nnz) != CMRS_OK) {
        fprintf(stderr, "FAIL: test matrix of %lld rows, %lld entries: %s\n",
                (long long)n, (long long)nnz, cmrs_error_message());
        exit(1);
    }
    t->A = A;
    t->k = 0;
}
static inline void tb_put(tbuild *t, int64_t j, double v)
{
    t->A->indices[t->k] = (int32_t)j;
    t->A->values[t->k++] = v;
}
static inline void tb_end_row(tbuild *t, int64_t i)
{
    t->A->indptr[i + 1] = t->k;
}
static inline void tb_done(tbuild *t) { t->A->nnz = t->k; }

/* 2-D convection-diffusion on an m x m grid, Dirichlet: -lap(u) + c
 * du/dx with first-order upwinding (c >= 0; c = 0 is the SPD 5-point
 * Laplacian). Scaled so the diagonal is 4 + c. */
static inline void upwind2d(cmrs_csr *A, int64_t m, double c)
{
    tbuild t;
    tb_init(&t, A, m * m, 5 * m * m);
    for (int64_t i = 0; i < m * m; ++i) {
        int64_t x = i % m, y = i / m;
        if (y > 0) tb_put(&t, i - m, -1.0);
        if (x > 0) tb_put(&t, i - 1, -1.0 - c);
        tb_put(&t, i, 4.0 + c);
        if (x < m - 1) tb_put(&t, i + 1, -1.0);
        if (y < m - 1) tb_put(&t, i + m, -1.0);
        tb_end_row(&t, i);
    }
    tb_done(&t);
}

static inline void lap2d(cmrs_csr *A, int64_t m) { upwind2d(A, m, 0.0); }

/* Tridiagonal n x n with the given diagonal d[i] and off-diagonals o. */
static inline void tridiag(cmrs_csr *A, int64_t n, const double *d, double o)
{
    tbuild t;
    tb_init(&t, A, n, 3 * n);
    for (int64_t i = 0; i < n; ++i) {
        if (i > 0) tb_put(&t, i - 1, o);
        tb_put(&t, i, d[i]);
        if (i < n - 1) tb_put(&t, i + 1, o);
        tb_end_row(&t, i);
    }
    tb_done(&t);
}

/* Arrow n x n: row 0 holds every column (diagonal d0, a_0j = off - step
 * j), every other row i only a_i0 = off - step i and its diagonal 2. */
static inline void arrow(cmrs_csr *A, int64_t n, double d0, double off,
                         double step)
{
    tbuild t;
    tb_init(&t, A, n, 3 * n - 2);
    for (int64_t j = 0; j < n; ++j) tb_put(&t, j, j == 0 ? d0 : off - step * j);
    tb_end_row(&t, 0);
    for (int64_t i = 1; i < n; ++i) {
        tb_put(&t, 0, off - step * i);
        tb_put(&t, i, 2.0);
        tb_end_row(&t, i);
    }
    tb_done(&t);
}

/* Row r's diagonal entry (if stored) set to v: a bad diagonal for the
 * Jacobi setups to refuse. */
static inline void set_diagonal(cmrs_csr *A, int64_t r, double v)
{
    for (int64_t k = A->indptr[r]; k < A->indptr[r + 1]; ++k)
        if (A->indices[k] == r) A->values[k] = v;
}

/* 1-D Neumann Laplacian (singular: constants are its null space). */
static inline void neumann1d(cmrs_csr *A, int64_t n)
{
    double *d = malloc((size_t)n * sizeof *d);
    for (int64_t i = 0; i < n; ++i) d[i] = (i == 0 || i == n - 1) ? 1 : 2;
    tridiag(A, n, d, -1.0);
    free(d);
}

/* b = A * xs with a smooth, nonconstant xs (kept for comparison). */
static inline double *rhs_for(const cmrs_csr *A, double **xs_out)
{
    double *xs = malloc((size_t)A->rows * sizeof *xs);
    double *b = malloc((size_t)A->rows * sizeof *b);
    for (int64_t i = 0; i < A->rows; ++i)
        xs[i] = 1.0 + sin(0.1 * (double)i) + 0.01 * (double)(i % 7);
    cmrs_ref_spmv(A, 1.0, xs, 0.0, b);
    if (xs_out) *xs_out = xs;
    else free(xs);
    return b;
}

/* ||b - A x|| / ||b||, computed here independently of the solver. */
static inline double rel_residual(const cmrs_csr *A, const double *b,
                                  const double *x)
{
    double *r = malloc((size_t)A->rows * sizeof *r);
    memcpy(r, b, (size_t)A->rows * sizeof *r);
    cmrs_ref_spmv(A, -1.0, x, 1.0, r);
    double rn = cmrs_ref_nrm2(A->rows, r), bn = cmrs_ref_nrm2(A->rows, b);
    free(r);
    return bn > 0 ? rn / bn : rn;
}

#endif
