/* The launch shape of the solver's element-wise kernels (precond.cu,
 * update_gpu.cu, amg_handshake_gpu.cu): blocks of kThreads, one element
 * per thread per step of a grid-stride loop. */
#ifndef CMRS_SOLVER_DEV_GRID_CUH
#define CMRS_SOLVER_DEV_GRID_CUH

#include <cstdint>

#include "dev_args.h"

namespace cmrs_grid {

constexpr int kThreads = CMRS_DEV_THREADS;

/* Blocks for n elements: at least 1 (a zero-block launch is an error), at
 * most 2^20, which fills any GPU several times over; the grid-stride
 * loops cover larger n. */
inline unsigned grid_for(int64_t n)
{
    int64_t blocks = (n + kThreads - 1) / kThreads;
    return (unsigned)(blocks < 1 ? 1 : blocks < (1 << 20) ? blocks : (1 << 20));
}

} // namespace cmrs_grid

/* for (i = this thread's first element; i < n; i += the grid's threads) */
#define CMRS_GRID_LOOP(i, n)                                                \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;        \
         i < (n); i += (int64_t)gridDim.x * blockDim.x)

#endif
