/* The launch shape of the solver's element-wise kernels (precond.cu,
 * update_gpu.cu, amg_handshake_gpu.cu): blocks of kThreads, one element
 * per thread per step of a grid-stride loop (CMRS_GRID_LOOP, from
 * base/gpu/grid.cuh). */
#ifndef CMRS_SOLVER_DEV_GRID_CUH
#define CMRS_SOLVER_DEV_GRID_CUH

#include <cstdint>

#include "base/gpu/grid.cuh"
#include "dev_args.h"

namespace cmrs_grid {

constexpr int kThreads = CMRS_DEV_THREADS;

/* Blocks for n elements: at least 1, at most 2^20, which fills any GPU
 * several times over; the grid-stride loops cover larger n. */
inline unsigned grid_for(int64_t n) { return blocks(n, kThreads, 1 << 20); }

} // namespace cmrs_grid

#endif
