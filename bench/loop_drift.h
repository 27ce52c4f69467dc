/* Drifted values of an SPD matrix: the time-loop benchmark's steps and the
 * amg-update tests' (tests/api/test_api_amg_update.c) (docs/AMG.md, "Frozen
 * hierarchy"): off-diagonal a_ij times 1 + eps s_ij, s_ij = s_ji =
 * sin(phase + pi (i + j) / n), |eps| < 1, and the diagonal moved so that A
 * stays SPD:
 *   - a diagonally dominant M-matrix (a diffusion operator: a_ij <= 0,
 *     a_ii >= sum |a_ij|): a conductivity drift; a_ii -= sum eps s_ij a_ij
 *     keeps each row's sum, so the new matrix has positive couplings
 *     |a_ij| (1 + eps s_ij) and the same diagonal excess: still weakly
 *     dominant with the same pattern and excess, SPD as before;
 *   - any other SPD matrix: a_ii += sum |eps s_ij a_ij|, adding a
 *     symmetric diagonally dominant matrix with a non-negative diagonal
 *     (positive semi-definite).
 * Returns 1 for the first kind, 0 for the second. */
#ifndef CMRS_BENCH_LOOP_DRIFT_H
#define CMRS_BENCH_LOOP_DRIFT_H

#include <math.h>
#include <stdlib.h>

#include "base/csr.h"

static inline int loop_m_matrix(const cmrs_csr *A)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        double d = 0, off = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            if (A->indices[k] == i) d = A->values[k];
            else if (A->values[k] > 0) return 0;
            else off -= A->values[k];
        }
        if (d < off) return 0;
    }
    return 1;
}

static inline int loop_drift(const cmrs_csr *A, double eps, double phase,
                             double *v)
{
    const double pi = 3.14159265358979323846;
    int m = loop_m_matrix(A);
    for (int64_t i = 0; i < A->rows; ++i) {
        double shift = 0;
        int64_t diag = -1;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t j = A->indices[k];
            v[k] = A->values[k];
            if (j == i) {
                diag = k;
                continue;
            }
            double s = sin(phase + pi * (double)(i + j) / (double)A->rows);
            double delta = eps * s * A->values[k];
            v[k] += delta;
            shift += m ? -delta : fabs(delta);
        }
        if (diag >= 0) v[diag] += shift;
    }
    return m;
}

/* The same drift with the spatial part sin/cos(pi (i + j) / n) of each
 * entry computed once (sn, cs: nnz each, 0 on the diagonal), so a step
 * costs no sin() per entry: sin(phase + t) = sin phase cos t + cos phase
 * sin t (equal to loop_drift's up to rounding). m: loop_m_matrix(A). */
static inline void loop_basis(const cmrs_csr *A, double *sn, double *cs)
{
    const double pi = 3.14159265358979323846;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            double t = pi * (double)(i + A->indices[k]) / (double)A->rows;
            sn[k] = sin(t);
            cs[k] = cos(t);
        }
}

static inline void loop_drift_basis(const cmrs_csr *A, const double *sn,
                                    const double *cs, int m, double eps,
                                    double phase, double *v)
{
    double sp = sin(phase), cp = cos(phase);
    for (int64_t i = 0; i < A->rows; ++i) {
        double shift = 0;
        int64_t diag = -1;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            v[k] = A->values[k];
            if (A->indices[k] == i) {
                diag = k;
                continue;
            }
            double delta = eps * (sp * cs[k] + cp * sn[k]) * A->values[k];
            v[k] += delta;
            shift += m ? -delta : fabs(delta);
        }
        if (diag >= 0) v[diag] += shift;
    }
}

#endif
