/* The coarsest level's solve: the exact inverse of a few hundred rows,
 * formed once in double (Cholesky, then U^-1 U^-T) and applied as one
 * dense product, which keeps the V-cycle symmetric and needs no triangular
 * solves on the GPU. The GPU back end forms it by a blocked sweep on the
 * device instead (amg_dense_gpu.c); this host version serves the CPU back
 * end.
 *
 * Every inner loop is an axpy over a contiguous row (right-looking
 * Cholesky on the upper factor, row-oriented substitution, the product as
 * a sum of outer products), so the compiler vectorises it without
 * reassociating a reduction: the dot-product form this replaced ran at
 * scalar speed (23 ms at 367 rows, ~0.2 s at 900 on the H200's host). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* a = A as a dense row-major n x n array (zeros where A stores nothing;
 * the GPU's twin is amg_dense_gpu.cu's scatter). */
static void dense_fill(const cmrs_csr *A, double *a)
{
    int64_t n = A->rows;
    memset(a, 0, (size_t)(n * n) * sizeof *a);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            a[i * n + A->indices[k]] = A->values[k];
}

/* A = U^T U: U overwrites the upper triangle of a (row-major; the lower
 * triangle is read never and left as is). -1 at a pivot that is not
 * positive: A is not numerically SPD. */
static int cholesky_upper(int64_t n, double *a)
{
    for (int64_t k = 0; k < n; ++k) {
        double *rk = a + k * n;
        double d = rk[k];
        if (!(d > 0) || !isfinite(d)) return -1;
        double u = sqrt(d);
        rk[k] = u;
        for (int64_t j = k + 1; j < n; ++j) rk[j] /= u;
        for (int64_t i = k + 1; i < n; ++i) {
            double f = rk[i], *ri = a + i * n;
            for (int64_t j = i; j < n; ++j) ri[j] -= f * rk[j];
        }
    }
    return 0;
}

/* x = L^-1 with L = U^T (lower), row by row: row i of x is (e_i - sum_{k<i}
 * l_ik x_k) / l_ii, and row k of x is nonzero in columns 0..k only. */
static void lower_inverse(int64_t n, const double *u, double *x)
{
    memset(x, 0, (size_t)(n * n) * sizeof *x);
    for (int64_t i = 0; i < n; ++i) {
        double *xi = x + i * n;
        xi[i] = 1.0;
        for (int64_t k = 0; k < i; ++k) {
            double f = u[k * n + i]; /* l_ik */
            const double *xk = x + k * n;
            for (int64_t j = 0; j <= k; ++j) xi[j] -= f * xk[j];
        }
        double d = u[i * n + i];
        for (int64_t j = 0; j <= i; ++j) xi[j] /= d;
    }
}

int cmrs_amg_dense_inverse(const cmrs_csr *A, double *inv)
{
    int64_t n = A->rows;
    double *a = malloc((size_t)(n * n) * sizeof *a);
    double *x = malloc((size_t)(n * n) * sizeof *x);
    int bad = !a || !x;
    if (!bad) {
        dense_fill(A, a);
        bad = cholesky_upper(n, a) != 0;
    }
    if (!bad) {
        lower_inverse(n, a, x);
        /* inv = A^-1 = X^T X = sum_k x_k^T x_k over the rows x_k of X:
         * the lower triangle by axpys, then mirrored (exactly symmetric). */
        memset(inv, 0, (size_t)(n * n) * sizeof *inv);
        for (int64_t k = 0; k < n; ++k) {
            const double *xk = x + k * n;
            for (int64_t i = 0; i <= k; ++i) {
                double f = xk[i], *vi = inv + i * n;
                for (int64_t j = 0; j <= i; ++j) vi[j] += f * xk[j];
            }
        }
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < i; ++j) inv[j * n + i] = inv[i * n + j];
    }
    free(a);
    free(x);
    return bad ? -1 : 0;
}

cmrs_code cmrs_amg_dense_csr(int64_t n, const double *inv, cmrs_csr *M)
{
    CMRS_CHECK(cmrs_csr_alloc(M, n, n, n * n));
    for (int64_t i = 0; i < n; ++i) {
        M->indptr[i + 1] = (i + 1) * n;
        for (int64_t j = 0; j < n; ++j) {
            M->indices[i * n + j] = (int32_t)j;
            M->values[i * n + j] = inv[i * n + j];
        }
    }
    return CMRS_OK;
}
