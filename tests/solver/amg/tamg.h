/* AMG parameters the host and GPU aggregation tests share (header-only). */
#ifndef CMRS_TEST_AMG_H
#define CMRS_TEST_AMG_H

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

#endif
