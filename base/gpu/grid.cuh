/* Grid-stride launches, shared by the element-wise kernels of spmv/ and
 * solver/: a loop that gives each thread every (grid's threads)-th index,
 * and the block count that launches it. The loop covers any n, so the grid
 * may be capped; each caller keeps its own cap (they differ by design:
 * spmv's setup kernels 65536, solver's 2^20, the SpMV baselines none). */
#ifndef CMRS_BASE_GPU_GRID_CUH
#define CMRS_BASE_GPU_GRID_CUH

#include <cstdint>

namespace cmrs_grid {

/* This thread's first index and the grid's thread count, in int64_t: a
 * grid of 2^31 threads or an n past 2^31 would overflow 32-bit indices. */
__device__ inline int64_t first_index()
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ inline int64_t stride() { return (int64_t)gridDim.x * blockDim.x; }

/* Blocks of per_block items for `items`: at least 1 (a zero-block launch
 * is an error), at most max_blocks (the grid-stride loop covers the rest;
 * the default is CUDA's limit on gridDim.x that a signed int can hold). */
inline unsigned blocks(int64_t items, int64_t per_block,
                       int64_t max_blocks = INT32_MAX)
{
    const int64_t b = (items + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b < max_blocks ? b : max_blocks);
}

} // namespace cmrs_grid

/* for (i = first + this thread's index; i < end; i += the grid's threads),
 * i of `type`: unsigned where the kernel's indices are 32-bit by design
 * (cheaper arithmetic in a hot loop), else CMRS_GRID_LOOP's int64_t. The
 * step is taken once, before the loop (i_step), as the hand-written loops
 * did: nvcc then emits the same code as for them. */
#define CMRS_GRID_LOOP_AS(type, i, first, end)                              \
    for (type i##_step = (type)gridDim.x * blockDim.x,                      \
              i = (type)(first) + (type)blockIdx.x * blockDim.x +           \
                  threadIdx.x;                                              \
         i < (end); i += i##_step)

/* for (i = this thread's first element; i < n; i += the grid's threads) */
#define CMRS_GRID_LOOP(i, n) CMRS_GRID_LOOP_AS(int64_t, i, 0, n)

#endif
