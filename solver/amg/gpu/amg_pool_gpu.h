/* The AMG setup's scratch pool: device memory for SpGEMM work buffers and
 * the aggregation's arrays, allocated and freed in stream order
 * (cudaMallocFromPoolAsync / cudaFreeAsync) from a pool of cmrs's own
 * that keeps what is freed until trimmed. cudaMalloc and cudaFree of the
 * same buffers (SpGEMM's run to GBs at 5M rows) cost milliseconds per
 * product and cudaFree waits for the whole device; the pool is trimmed
 * (amg_pool_trim) when a level's setup ends, or, while a hold is on
 * (amg_pool_hold: a whole hierarchy's setup), once when the hold ends:
 * each level's scratch then reuses the previous level's memory instead
 * of the driver mapping and unmapping GBs per level. A hierarchy holds no
 * scratch. One pool per device, made on first use, never destroyed (a
 * cudaDeviceReset by the host program invalidates it); a device without
 * memory pools gets cudaMalloc and cudaFree. */
#ifndef CMRS_SOLVER_AMG_POOL_GPU_H
#define CMRS_SOLVER_AMG_POOL_GPU_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *p = bytes (at least 1) of the current device's pool, ordered on
 * `stream`; CMRS_E_NOMEM-like CUDA errors as cudaMalloc's. */
cmrs_code amg_pool_alloc(void **p, size_t bytes, cudaStream_t stream);
/* p (NULL: nothing) back to the pool after `stream`'s work so far. */
void amg_pool_free(void *p, cudaStream_t stream);
/* `stream` synchronised, then the current device's pool released to
 * the driver down to nothing (what is still allocated stays); nothing at
 * all while a hold is on (amg_pool_hold). Leaves cmrs's error state
 * alone (it runs on failure paths). */
void amg_pool_trim(cudaStream_t stream);
/* on = 1: trims on the current device deferred (nested holds count);
 * on = 0: one hold ended, the pool trimmed (on `stream`) after the last.
 * The hold is the device's, not the stream's: setups in two threads on
 * one device defer each other's trims, and the last one's trim waits for
 * its own stream only, so scratch another thread frees later stays in
 * the pool (reused, and given back at the next trim). */
void amg_pool_hold(int on, cudaStream_t stream);
/* cudaMalloc (bytes 0: 1) that, out of memory, trims the pool even under
 * a hold and tries once more: level matrices are cudaMalloc'd beside the
 * held scratch. */
cmrs_code amg_dev_malloc(void **p, size_t bytes);
/* Bytes the current device's pool holds from the driver (0: no pool):
 * for tests of the hold and of "a hierarchy holds no scratch". */
size_t amg_pool_reserved(void);
/* Trims a hold has deferred so far, in this process (for tests). */
size_t amg_pool_deferred(void);

#ifdef __cplusplus
}
#endif

#endif
