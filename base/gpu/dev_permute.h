/* Permutations of device arrays by an int32 map: what a renumbered system
 * (api/renumber.c) needs at its boundary -- b and x0 into the solver's
 * order, x back into the caller's, new matrix values into the order of
 * the renumbered matrix's entries. The elements are copied as bits (4 or
 * 8 bytes), so one kernel serves both precisions and the entry map. */
#ifndef CMRS_DEV_PERMUTE_H
#define CMRS_DEV_PERMUTE_H

#include <stdint.h>

#include "base/device.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst_d[i] = src_d[map_d[i]] for i < n (elem_bytes 4 or 8), queued on
 * `stream`, not waited for. dst_d and src_d must not overlap. */
cmrs_code cmrs_dev_gather(int64_t n, const int32_t *map_d, const void *src_d,
                          void *dst_d, int elem_bytes, cmrs_stream stream);
/* dst_d[map_d[i]] = src_d[i] for i < n (map_d a permutation of 0 .. n-1),
 * the same way. */
cmrs_code cmrs_dev_scatter(int64_t n, const int32_t *map_d,
                           const void *src_d, void *dst_d, int elem_bytes,
                           cmrs_stream stream);

#ifdef __cplusplus
}
#endif

#endif
