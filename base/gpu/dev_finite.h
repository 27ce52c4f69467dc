/* The first non-finite value of a device array, found on the device: the
 * check a host-values update makes before it touches the matrix, once the
 * values are uploaded (api/update.c), so the scan runs at the GPU's
 * bandwidth instead of one host thread's. */
#ifndef CMRS_DEV_FINITE_H
#define CMRS_DEV_FINITE_H

#include <stdint.h>

#include "base/device.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *first = the smallest k < n with values_d[k] NaN or +-Inf, -1 when
 * none. bad_d: one device word of scratch (the caller's, so the check
 * allocates nothing). Queued on `stream`, then waits for it. */
cmrs_code cmrs_dev_first_nonfinite(const double *values_d, int64_t n,
                                   unsigned long long *bad_d,
                                   cmrs_stream stream, int64_t *first);

#ifdef __cplusplus
}
#endif

#endif
