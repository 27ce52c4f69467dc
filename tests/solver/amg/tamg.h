/* What the host and GPU AMG tests share (header-only): the aggregation
 * parameters, and dense copies of small matrices for reference products. */
#ifndef CMRS_TEST_AMG_H
#define CMRS_TEST_AMG_H

#include <stdlib.h>

#include "base/csr.h"
#include "solver/amg/amg_host.h"

/* Plain aggregation at theta 0.08, the default until 2026-11-23, which the
 * aggregation tests (and the golden hashes) were written for; smoothed P
 * is asked for where a test needs it. */
static inline cmrs_amg_params amg_plain_params(cmrs_amg_agg agg, int size)
{
    cmrs_amg_params p;
    cmrs_amg_params_default(&p);
    p.theta = 0.08;
    p.smooth_p = 0;
    p.agg = agg;
    p.agg_size = size;
    return p;
}

/* M as a dense row-major array (duplicates summed; one spare entry, so
 * an empty M still allocates). The caller frees it. */
static inline double *csr_to_dense(const cmrs_csr *M)
{
    double *d = calloc((size_t)(M->rows * M->cols) + 1, sizeof *d);
    for (int64_t i = 0; i < M->rows; ++i)
        for (int64_t k = M->indptr[i]; k < M->indptr[i + 1]; ++k)
            d[i * M->cols + M->indices[k]] += M->values[k];
    return d;
}

#endif
