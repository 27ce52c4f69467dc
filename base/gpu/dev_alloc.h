/* Device allocations of the AMG setup's long-lived arrays (level
 * operators in their SpMV formats, vectors, dense factors) from a memory
 * pool instead of cudaMalloc. cudaMalloc costs 30-100 us a call and the
 * setup of a hierarchy makes ~150 of them (vessel 0.5M, H100: ~5 ms of a
 * 15-20 ms setup, CUPTI trace); an allocation from a pool costs a few us
 * (.device-measured: 36 allocations 1.2-2.5 ms by cudaMalloc, 0.2-0.6 ms
 * from a pool that had to grow for each, 0.1 ms from one that had not).
 *
 * Only inside a scope (cmrs_dev_pool_scope, per thread: the AMG setup's
 * hold, amg_kit_gpu.c) do allocations come from the pool; elsewhere
 * cmrs_dev_malloc is cudaMalloc. A pool allocation is made on the
 * calling thread's per-thread stream, which is then synchronised, so the
 * memory is ready for any stream when the call returns, as cudaMalloc's
 * is. cudaFree of pool memory does not wait for the work queued on it
 * (test_gpu_amg_pool saw it return first), so every such array is freed
 * by cmrs_dev_free, which waits for the device first, as cudaFree does
 * for cudaMalloc's memory. The pool keeps nothing freed (release
 * threshold 0): no memory held back from cuSPARSE or the caller. One
 * pool per device, made on first use, never destroyed; a device without
 * pools, or a pool that cannot serve a request, falls back to
 * cudaMalloc. */
#ifndef CMRS_BASE_GPU_DEV_ALLOC_H
#define CMRS_BASE_GPU_DEV_ALLOC_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "base/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMalloc's contract (bytes 0: *p NULL); from the pool in a scope. */
cudaError_t cmrs_dev_malloc(void **p, size_t bytes);
/* cudaFree's contract (NULL: nothing) for memory of either kind: the
 * device's work waited for, then freed. */
cudaError_t cmrs_dev_free(void *p);
/* on = 1: this thread's allocations from the pool until the matching
 * on = 0 (nested scopes count). */
void cmrs_dev_pool_scope(int on);
/* A pool per device, made on first use, never destroyed: the table of
 * one kind of pool (this file's long-lived arrays, the AMG setup's
 * scratch) and the freed bytes its pools keep (release threshold; 0:
 * none, UINT64_MAX: all). A zeroed table with `keep` set is ready. */
typedef struct cmrs_dev_pools {
    uint64_t keep;
    cudaMemPool_t pool[CMRS_MAX_DEVICES];
    int state[CMRS_MAX_DEVICES]; /* 0 untried, 1 made, 2 none */
} cmrs_dev_pools;
/* The current device (-1: none, or past CMRS_MAX_DEVICES); never an
 * error. */
int cmrs_dev_current(void);
/* t's pool on the current device, made first where `make` and not tried
 * yet; NULL where there is none (yet), the device has no pools or the
 * pool cannot be made (never an error: the caller falls back). */
cudaMemPool_t cmrs_dev_pools_current(cmrs_dev_pools *t, int make);
/* Allocations this thread made from the pool since the last call
 * (tests: the scope is seen). */
size_t cmrs_dev_pool_allocations(void);

#ifdef __cplusplus
}

template <class T> inline cudaError_t cmrs_dev_malloc(T **p, size_t bytes)
{
    return cmrs_dev_malloc(reinterpret_cast<void **>(p), bytes);
}
#endif

#endif
