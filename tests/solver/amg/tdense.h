/* Helpers of the coarse dense-inverse tests (test_amg_dense.c, the host
 * Cholesky; test_gpu_amg_dense.c, the device sweep): SPD and non-SPD test
 * matrices and the checks every inverse must pass. */
#ifndef CMRS_TEST_TDENSE_H
#define CMRS_TEST_TDENSE_H

#include <math.h>

#include "solver/systems.h"

/* max_ij |(A inv - I)_ij|: the inverse's defect (inv dense row-major). */
static inline double inverse_defect(const cmrs_csr *A, const double *inv)
{
    int64_t n = A->rows;
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = i == j ? -1.0 : 0.0;
            for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
                s += A->values[k] * inv[A->indices[k] * n + j];
            if (!(fabs(s) <= worst)) worst = fabs(s); /* NaN sticks */
        }
    return worst;
}

/* 1 when inv is exactly symmetric (bit for bit). */
static inline int exactly_symmetric(int64_t n, const double *inv)
{
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < i; ++j)
            if (inv[i * n + j] != inv[j * n + i]) return 0;
    return 1;
}

/* The test matrices: k = 0: 1 x 1; 1: a tridiagonal with a varying
 * diagonal (7 rows); 2, 3: 2-D Laplacians of 400 and 900 rows (the size of
 * a coarsest AMG level); 4: an indefinite one (a negative diagonal entry,
 * Cholesky must refuse it); 5-7: tridiagonals of 32, 33 and 100 rows (the
 * GPU sweep's block width 32: one block, one more row, three and a short
 * fourth); 8: the 100 rows with a negative diagonal entry at row 70 (the
 * third block's pivots); 9: the same at row 99 (the short last block's).
 * Returns 0 past the last. */
static inline int dense_case(int k, cmrs_csr *A, int *spd)
{
    double d[100];
    for (int i = 0; i < 100; ++i) d[i] = 2.5 + 0.5 * sin(0.7 * i);
    const double d7[7] = {2.5, 3, 4, 2.2, 5, 3.3, 2.1};
    for (int i = 0; i < 7; ++i) d[i] = d7[i];
    *spd = 1;
    switch (k) {
    case 0: d[0] = 4.0; tridiag(A, 1, d, 0.0); return 1;
    case 1: tridiag(A, 7, d, -1.0); return 1;
    case 2: lap2d(A, 20); return 1;
    case 3: lap2d(A, 30); return 1;
    case 4:
        d[3] = -1.0;
        *spd = 0;
        tridiag(A, 7, d, -1.0);
        return 1;
    case 5: tridiag(A, 32, d, -1.0); return 1;
    case 6: tridiag(A, 33, d, -1.0); return 1;
    case 7: tridiag(A, 100, d, -1.0); return 1;
    case 8:
    case 9:
        d[k == 8 ? 70 : 99] = -1.0;
        *spd = 0;
        tridiag(A, 100, d, -1.0);
        return 1;
    default: return 0;
    }
}

#endif
