/* Internal to the AMG host code (amg_aggregate.c, amg_prolong.c): the two
 * small CSR chores both building passes end with. */
#ifndef CMRS_SOLVER_AMG_CSR_H
#define CMRS_SOLVER_AMG_CSR_H

#include "../io/csr.h"

/* Sorts n column indices (rows are mostly short: insertion sort, qsort
 * past a few dozen entries). */
void cmrs_amg_sort_cols(int32_t *c, int64_t n);

/* Gives back the unused tail of arrays allocated for an upper bound of the
 * nonzeros. A failed shrink keeps the larger block, which is still valid. */
void cmrs_amg_shrink_csr(cmrs_csr *A);

#endif
