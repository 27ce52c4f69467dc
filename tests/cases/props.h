/* Property checks shared by the generator tests: row sums, sign patterns,
 * connectivity, b against A*1, a CPU solve, equality of systems. */
#ifndef CMRS_TEST_CASES_PROPS_H
#define CMRS_TEST_CASES_PROPS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "solver/solver.h"
#include "spmv/ref.h"

static inline double row_sum(const cmrs_csr *A, int64_t i)
{
    double s = 0;
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        s += A->values[k];
    return s;
}

static inline double row_diag(const cmrs_csr *A, int64_t i)
{
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        if (A->indices[k] == i) return A->values[k];
    return 0;
}

/* Number of off-diagonal entries that are > 0 (an M-matrix has none). */
static inline int64_t positive_offdiag(const cmrs_csr *A)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] != i && A->values[k] > 0) ++bad;
    return bad;
}

/* Rows whose sum is < -tol * |diagonal| (weak dominance with nonpositive
 * off-diagonals means every row sum is >= 0). Counts rows > tol in *pos. */
static inline int64_t negative_row_sums(const cmrs_csr *A, double tol,
                                        int64_t *pos)
{
    int64_t neg = 0;
    *pos = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double s = row_sum(A, i), d = fabs(row_diag(A, i));
        if (s < -tol * d) ++neg;
        if (s > tol * d) ++*pos;
    }
    return neg;
}

/* Rows not reached by a BFS (over A's pattern) from the rows with a
 * positive row sum (the Dirichlet rows): 0 means A is irreducibly dominant. */
static inline int64_t unreached_from_dirichlet(const cmrs_csr *A)
{
    int64_t n = A->rows, head = 0, tail = 0;
    size_t count = n > 0 ? (size_t)n : 1;
    int64_t *queue = malloc(count * sizeof *queue);
    char *seen = calloc(count, 1);
    for (int64_t i = 0; i < n; ++i)
        if (row_sum(A, i) > 1e-12 * fabs(row_diag(A, i))) {
            seen[i] = 1;
            queue[tail++] = i;
        }
    while (head < tail) {
        int64_t v = queue[head++];
        for (int64_t k = A->indptr[v]; k < A->indptr[v + 1]; ++k)
            if (!seen[A->indices[k]]) {
                seen[A->indices[k]] = 1;
                queue[tail++] = A->indices[k];
            }
    }
    free(queue);
    free(seen);
    return n - tail;
}

/* max |b - A*1| / max |b|: far from 0 when b is not the trivial A*1. */
static inline double distance_from_A1(const cmrs_system *s)
{
    int64_t n = s->A.rows;
    double *one = malloc((size_t)n * sizeof *one);
    double *a1 = malloc((size_t)n * sizeof *a1);
    for (int64_t i = 0; i < n; ++i) one[i] = 1;
    cmrs_ref_spmv(&s->A, 1.0, one, 0.0, a1);
    double err = cmrs_ref_rel_err(n, a1, s->b);
    free(one);
    free(a1);
    return err;
}

static inline int same_csr(const cmrs_csr *a, const cmrs_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           !memcmp(a->indptr, b->indptr,
                   (size_t)(a->rows + 1) * sizeof(int64_t)) &&
           !memcmp(a->indices, b->indices, (size_t)a->nnz * sizeof(int32_t)) &&
           !memcmp(a->values, b->values, (size_t)a->nnz * sizeof(double));
}

static inline int same_system(const cmrs_system *a, const cmrs_system *b)
{
    return same_csr(&a->A, &b->A) &&
           !memcmp(a->b, b->b, (size_t)a->A.rows * sizeof(double)) &&
           !a->x0 == !b->x0 &&
           (!a->x0 ||
            !memcmp(a->x0, b->x0, (size_t)a->A.rows * sizeof(double)));
}

/* Solves with the project's CPU back end (Jacobi-preconditioned CG or
 * BiCGStab) into x; returns the converged reason (CMRS_ITERATING when setup
 * or the solve failed) and the iteration count in *iters. */
static inline cmrs_ksp_reason solve_cpu(const cmrs_system *s, cmrs_method method,
                             double rtol, double *x, int64_t *iters)
{
    cmrs_backend *be = NULL;
    cmrs_ksp *solver = NULL;
    cmrs_ksp_opts o;
    cmrs_ksp_result r;
    cmrs_ksp_reason reason = CMRS_ITERATING;
    cmrs_ksp_opts_default(&o);
    o.method = method;
    o.rtol = rtol;
    if (cmrs_backend_cpu_create(&s->A, CMRS_PREC_DOUBLE, &be) == CMRS_OK &&
        cmrs_ksp_create(be, &s->A, &o, "gen", &solver) == CMRS_OK &&
        cmrs_ksp_set_rhs(solver, s->b, NULL) == CMRS_OK &&
        cmrs_ksp_solve(solver, &r) == CMRS_OK) {
        memcpy(x, r.x, (size_t)s->A.rows * sizeof *x);
        reason = r.reason;
        *iters = r.iterations;
    }
    cmrs_ksp_destroy(solver);
    cmrs_backend_destroy(be);
    return reason;
}

#endif
