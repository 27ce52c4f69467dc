/* Internal to the AMG host code (amg_aggregate.c, amg_prolong.c,
 * amg_handshake.c, amg_mis2.c): the small chores its passes share. */
#ifndef CMRS_SOLVER_AMG_CSR_H
#define CMRS_SOLVER_AMG_CSR_H

#include "base/csr.h"

/* Sorts n column indices (rows are mostly short: insertion sort, qsort
 * past a few dozen entries). */
void cmrs_amg_sort_cols(int32_t *c, int64_t n);

/* Gives back the unused tail of arrays allocated for an upper bound of the
 * nonzeros. A failed shrink keeps the larger block, which is still valid. */
void cmrs_amg_shrink_csr(cmrs_csr *A);

/* A host aggregation's workspace in one block (*block, for free()): *w,
 * one double per entry of A (at least one), then `count` arrays of
 * A->rows elements of size[k] bytes each, at arr[k] (8-byte aligned).
 * One allocation, so a failure leaves nothing half made; CMRS_E_NOMEM
 * names `what`. */
cmrs_code cmrs_amg_workspace(const cmrs_csr *A, const char *what, int count,
                             const size_t *size, void **block, double **w,
                             void **arr);

/* a_ii (0 when missing) and sqrt|a_ii| per row of M (malloc'd). */
cmrs_code cmrs_amg_diagonal(const cmrs_csr *M, double **d_out,
                            double **s_out);

/* Mc = Q^T M Q for the 0/1 aggregate matrix Q (agg: nc aggregates), rows
 * sorted, sums in a fixed order (amg_aggregate.c); pattern_only: columns
 * only, unsorted, values unset. */
cmrs_code cmrs_amg_coarsen(const cmrs_csr *M, const int32_t *agg, int64_t nc,
                           int pattern_only, cmrs_csr *Mc);

#endif
