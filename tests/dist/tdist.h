/* Shared by the distributed tests: small matrices whose partitions are
 * known, and the methods to loop over. Header-only. */
#ifndef CMRS_TEST_TDIST_H
#define CMRS_TEST_TDIST_H

#include <stdio.h>
#include <stdlib.h>

#include "base/csr_metis.h"
#include "check.h"
#include "dist/dist.h"
#include "solver/solver.h"
#include "solver/systems.h"
#include "spmv/ref.h"

static const int k_parts[] = {1, 2, 3, 4, 7};
#define N_PARTS_CASES 5

/* The methods this build has (metis only when compiled in). */
static inline int method_count(void) { return cmrs_metis_built() ? 3 : 2; }

/* Lower bidiagonal plus diagonal: a pattern that is not symmetric, so a
 * part receives from a neighbour that receives nothing back. */
static inline void lower_bidiag(cmrs_csr *A, int64_t n)
{
    tbuild t;
    tb_init(&t, A, n, 2 * n);
    for (int64_t i = 0; i < n; ++i) {
        if (i > 0) tb_put(&t, i - 1, -1.0 - 0.01 * (double)(i % 7));
        tb_put(&t, i, 3.0 + 0.1 * (double)(i % 5));
        tb_end_row(&t, i);
    }
    tb_done(&t);
}

/* A matrix a test sweeps its partitions over: kind and size. */
typedef enum dist_kind { DIST_LAP2D, DIST_UPWIND, DIST_BIDIAG } dist_kind;
typedef struct dist_matrix {
    dist_kind kind;
    int64_t m; /* the grid's side (lap2d, upwind: c = 2.5), or rows */
} dist_matrix;

/* Runs sweep(A, name) on each matrix (made, then freed), named as
 * "lap2d 23", "upwind 11", "bidiag 40". */
static inline void sweep_matrices(void (*sweep)(cmrs_csr *A,
                                                const char *name),
                                  const dist_matrix *mats, size_t count)
{
    static const char *const names[] = {"lap2d", "upwind", "bidiag"};
    for (size_t i = 0; i < count; ++i) {
        cmrs_csr A = {0};
        char name[64];
        if (mats[i].kind == DIST_LAP2D) lap2d(&A, mats[i].m);
        if (mats[i].kind == DIST_UPWIND) upwind2d(&A, mats[i].m, 2.5);
        if (mats[i].kind == DIST_BIDIAG) lower_bidiag(&A, mats[i].m);
        snprintf(name, sizeof name, "%s %lld", names[mats[i].kind],
                 (long long)mats[i].m);
        sweep(&A, name);
        cmrs_csr_free(&A);
    }
}

/* The lower bidiagonal of 9 rows in 3 blocks: part 1 receives from 0
 * only, 0 from nobody, and the cut counts each coupling once. */
static inline void bidiag_in_blocks(cmrs_csr *A, cmrs_partition *pt)
{
    lower_bidiag(A, 9);
    CHECK_OK(cmrs_partition_build(A, 3, CMRS_PART_BLOCK, pt));
}

/* x_i: distinct, not round, so a wrong gather shows in any product. */
static inline void fill_x(int64_t n, double *x)
{
    for (int64_t i = 0; i < n; ++i) x[i] = 1.0 / (double)(i + 3) + 0.25;
}

/* New values through cmrs_ksp_update_values: A doubled (then restored:
 * powers of two are exact), x of the same b halves within tol. be is
 * borrowed; op's preconditioner is rebuilt or updated by the solver. */
static inline void check_doubled(cmrs_backend *be, cmrs_csr *A,
                                 const cmrs_ksp_opts *op, const double *b,
                                 double tol, const char *name)
{
    int64_t n = A->rows;
    double *half = malloc((size_t)n * sizeof *half);
    cmrs_ksp *s = NULL;
    cmrs_ksp_result r;
    CHECK_OK(cmrs_ksp_create(be, A, op, "test", &s));
    if (!s || !half) goto out;
    CHECK_OK(cmrs_ksp_set_rhs(s, b, NULL));
    CHECK_OK(cmrs_ksp_solve(s, &r));
    for (int64_t i = 0; i < n; ++i) half[i] = 0.5 * r.x[i];
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] *= 2.0;
    CHECK_OK(cmrs_ksp_update_values(s, A));
    CHECK_OK(cmrs_ksp_set_rhs(s, b, NULL));
    CHECK_OK(cmrs_ksp_solve(s, &r));
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] *= 0.5;
    CHECK(cmrs_ref_rel_err(n, r.x, half) < tol, "%s: x after new values "
          "off its half by %g", name, cmrs_ref_rel_err(n, r.x, half));
out:
    cmrs_ksp_destroy(s);
    free(half);
}

#endif
