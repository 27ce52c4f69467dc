/* The AMG setup's scratch pool: device memory for SpGEMM work buffers and
 * the aggregation's arrays, allocated and freed in stream order
 * (cudaMallocFromPoolAsync / cudaFreeAsync) from a pool of cmrs's own
 * that keeps what is freed until trimmed. cudaMalloc and cudaFree of the
 * same buffers (SpGEMM's run to GBs at 5M rows) cost milliseconds per
 * product and cudaFree waits for the whole device; the pool is trimmed
 * (amg_pool_trim) when a level's setup ends, so a hierarchy holds no
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
 * the driver down to nothing (what is still allocated stays). Leaves
 * cmrs's error state alone (it runs on failure paths). */
void amg_pool_trim(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
