/* The coarsest level's solve: the exact inverse of a few hundred rows,
 * formed once on the host in double (Cholesky, then L^-T L^-1) and applied
 * as one dense product, which keeps the V-cycle symmetric and needs no
 * triangular solves on the GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

/* Lower Cholesky factor of the dense symmetric a (in place, row-major). */
static int cholesky(int64_t n, double *a)
{
    for (int64_t j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int64_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0) || !isfinite(d)) return -1;
        double ljj = sqrt(d);
        a[j * n + j] = ljj;
        for (int64_t i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int64_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / ljj;
        }
    }
    return 0;
}

/* lt = (L^-1)^T: row c of lt is column c of L^-1, found by forward
 * substitution; stored transposed so every inner loop runs over
 * contiguous memory (the coarsest level has up to 2000 rows). */
static void lower_inverse_t(int64_t n, const double *l, double *lt)
{
    memset(lt, 0, (size_t)(n * n) * sizeof *lt);
    for (int64_t c = 0; c < n; ++c) {
        double *y = lt + c * n;
        y[c] = 1.0 / l[c * n + c];
        for (int64_t i = c + 1; i < n; ++i) {
            double s = 0;
            for (int64_t k = c; k < i; ++k) s += l[i * n + k] * y[k];
            y[i] = -s / l[i * n + i];
        }
    }
}

int cmrs_amg_dense_inverse(const cmrs_csr *A, double *inv)
{
    int64_t n = A->rows;
    double *a = calloc((size_t)(n * n), sizeof *a);
    double *li = malloc((size_t)(n * n) * sizeof *li);
    int bad = !a || !li;
    for (int64_t i = 0; !bad && i < n; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            a[i * n + A->indices[k]] = A->values[k];
    if (!bad) bad = cholesky(n, a) != 0;
    if (!bad) {
        lower_inverse_t(n, a, li);
        for (int64_t i = 0; i < n; ++i) /* inv = L^-T L^-1, symmetric */
            for (int64_t j = 0; j <= i; ++j) {
                const double *ri = li + i * n, *rj = li + j * n;
                double s = 0;
                for (int64_t k = i; k < n; ++k) s += ri[k] * rj[k];
                inv[i * n + j] = inv[j * n + i] = s;
            }
    }
    free(a);
    free(li);
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
