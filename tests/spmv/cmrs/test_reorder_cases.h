/* The matrices both reordering tests (test_cmrs_reorder.c on the host,
 * test_gpu_cmrs_reorder.c on the GPU) build P A P^T of: random ones with a
 * long row, empty rows, scattered columns, n = 1 and no entries, and
 * Poisson systems in a chosen numbering. */
#ifndef CMRS_TEST_REORDER_CASES_H
#define CMRS_TEST_REORDER_CASES_H

#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "test_cmrs_matrices.h"

static const test_spec k_reorder_specs[] = {
    TEST_LONG_ROW("one row of 11000 among mu=3", 12000, 12000, 3, 1, 150,
                  11000, 1),
    TEST_EMPTY_ROWS("30% empty rows mu=4", 999, 999, 4, 1, 0.3),
    TEST_SCATTERED("scattered mu=6 sigma=3", 5000, 5000, 6, 3),
    TEST_SPEC_N1,
    TEST_EMPTY_ROWS("nnz=0 40x40", 40, 40, 0, 0, 1.0),
};
#define N_REORDER_SPECS (sizeof k_reorder_specs / sizeof k_reorder_specs[0])

/* The 7-point Poisson n^3 in `order` (seed 5 for the random one). */
static inline cmrs_system reorder_poisson(int64_t n, cmrs_order order)
{
    cmrs_system sys;
    cmrs_poisson_opts o = {n, 7, 0.0, 1};
    memset(&sys, 0, sizeof sys);
    CHECK_OK(cmrs_gen_poisson3d(&o, &sys));
    if (order != CMRS_ORDER_NATURAL) CHECK_OK(cmrs_reorder(&sys, order, 5));
    return sys;
}

/* The smallest n whose n^3 rows the rule reorders. */
static inline int64_t reorder_min_cube(void)
{
    int64_t n = 1;
    while (n * n * n < CMRS_REORDER_MIN_ROWS) ++n;
    return n;
}

#endif
