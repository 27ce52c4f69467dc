/* Shared by the distributed tests: small matrices whose partitions are
 * known, and the methods to loop over. Header-only. */
#ifndef CMRS_TEST_TDIST_H
#define CMRS_TEST_TDIST_H

#include "dist/dist.h"
#include "solver/systems.h"

static const int k_parts[] = {1, 2, 3, 4, 7};
#define N_PARTS_CASES 5

/* The methods this build has (metis only when compiled in). */
static inline int method_count(void) { return cmrs_part_have_metis() ? 3 : 2; }

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

/* x_i: distinct, not round, so a wrong gather shows in any product. */
static inline void fill_x(int64_t n, double *x)
{
    for (int64_t i = 0; i < n; ++i) x[i] = 1.0 / (double)(i + 3) + 0.25;
}

#endif
