/* The value permutation of the formats that reorder or pad entries (hyb,
 * ellr, sell, argcsr): setup converts cmrs_csr_index_pattern(A) instead of
 * A, and what the conversion leaves where the values would be (CSR index
 * + 1, or 0 for padding) is the permutation new values are gathered
 * through on the GPU. This checks, on the host, that gathering A's values
 * through it gives exactly (bit for bit) the values the conversion of A
 * itself stores, and that it names every entry of A exactly once. */
#ifndef CMRS_TEST_VALUE_PERM_H
#define CMRS_TEST_VALUE_PERM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr.h"
#include "check.h"

/* NULL when idx_vals (stored entries of the converted index pattern) is
 * such a permutation for vals (the same conversion of A), else what is
 * wrong. */
static inline const char *test_value_perm_check(const cmrs_csr *A,
                                                const double *idx_vals,
                                                const double *vals,
                                                int64_t stored)
{
    const char *why = NULL;
    unsigned char *seen = calloc((size_t)A->nnz + 1, 1);
    if (!seen) return "out of memory";
    for (int64_t i = 0; i < stored && !why; ++i) {
        double p = idx_vals[i], want = 0.0;
        if (p != (double)(int64_t)p || p < 0 || p > (double)A->nnz)
            why = "a stored entry is neither padding nor a CSR index + 1";
        else if (p > 0 && seen[(int64_t)p - 1]++)
            why = "a CSR entry is stored twice";
        else if (p > 0)
            want = A->values[(int64_t)p - 1];
        if (!why && memcmp(&want, &vals[i], sizeof want) != 0)
            why = "the gathered value differs from the converted value";
    }
    for (int64_t k = 0; k < A->nnz && !why; ++k)
        if (!seen[k]) why = "a CSR entry is not stored";
    free(seen);
    return why;
}

/* Checks that a setup from A's index pattern built the layout the
 * conversion of A did (same_layout) and stores there such a permutation
 * for vals; `what` names the case in the failure line. */
static inline void check_pattern_perm(const cmrs_csr *A, int same_layout,
                                      const double *idx_vals,
                                      const double *vals, int64_t stored,
                                      const char *what)
{
    const char *why =
        same_layout ? test_value_perm_check(A, idx_vals, vals, stored)
                    : "the index pattern converts to another layout";
    CHECK(!why, "%s: value permutation: %s", what, why);
}

#endif
