/* Small page-locked host blocks (a back end's scalar and error words, a
 * device loop's state): slots of one slab that the
 * process keeps. cudaMallocHost of a few bytes costs 1.1-1.8 ms whenever
 * the driver has no pinned chunk to put it in, which is every back end or
 * solver made after the last one was freed (`cmrs compare`'s rows, a
 * library user's solvers; CUPTI trace, H100, 2026-11-27), against a few
 * us for a slot. The slab is made once (cmrs_pinned_small_warm: at CUDA's
 * start, in the thread that starts it beside the file read) and given
 * back at exit; a block larger than a slot, or one asked for with the
 * slab full, comes from cudaHostAlloc as before. Portable (every device
 * may use it), thread-safe; a free waits for the device, as cudaFreeHost
 * does, so no copy into a slot is pending when it is handed out again. */
#ifndef CMRS_BASE_GPU_PINNED_SMALL_H
#define CMRS_BASE_GPU_PINNED_SMALL_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest block a slot holds. */
#define CMRS_PINNED_SMALL_MAX 1024

/* cudaHostAlloc's contract (portable): *p page-locked, bytes (0: 1). */
cudaError_t cmrs_pinned_small_alloc(void **p, size_t bytes);
/* p back (NULL: nothing): to the slab, or cudaFreeHost where it came
 * from there. */
void cmrs_pinned_small_free(void *p);
/* The slab made now (nothing if it is there or cannot be made). */
void cmrs_pinned_small_warm(void);
/* Blocks the slab has handed out and not had back (tests). */
int cmrs_pinned_small_live(void);

#ifdef __cplusplus
}
#endif

#endif
