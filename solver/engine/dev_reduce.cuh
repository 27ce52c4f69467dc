/* Device helpers of the engines' kernels: grid-stride loops, a block sum
 * by warp shuffles, a deterministic grid sum (each block writes its sum,
 * the last block to finish adds them in block order), and the stopping
 * test of cmrs_krylov_test, on the device. */
#ifndef CMRS_SOLVER_DEV_REDUCE_CUH
#define CMRS_SOLVER_DEV_REDUCE_CUH

#include "base/gpu/cuda_check.h"
#include "base/gpu/grid.cuh"
#include "dev_args.h"
extern "C" {
#include "solver/solver.h"
}

namespace cmrs_dev {

constexpr int kThreads = CMRS_DEV_THREADS;
constexpr unsigned kFull = 0xffffffffu;

/* The engines' loops are `for (i = first_index(); i < n; i += stride())`:
 * CMRS_GRID_LOOP takes the step before the loop, the same work but other
 * machine code than these measured kernels were tuned with. */
using cmrs_grid::first_index;
using cmrs_grid::stride;

/* Sums v[0..N) over the block; the totals end in thread 0. The order of
 * additions depends only on the block size: deterministic. */
template <int N> __device__ void block_sum(double (&v)[N])
{
    __shared__ double part[N][kThreads / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = 0; i < N; ++i)
        for (int off = 16; off > 0; off >>= 1)
            v[i] += __shfl_down_sync(kFull, v[i], off);
    __syncthreads(); /* part may still be read by an earlier call */
    if (lane == 0)
        for (int i = 0; i < N; ++i) part[i][warp] = v[i];
    __syncthreads();
    if (warp == 0) {
        for (int i = 0; i < N; ++i) {
            v[i] = lane < (int)(blockDim.x / 32) ? part[i][lane] : 0.0;
            for (int off = 16; off > 0; off >>= 1)
                v[i] += __shfl_down_sync(kFull, v[i], off);
        }
    }
}

/* True in every thread of the last block of the grid to get here (an
 * atomic ticket); every block calls it once, after its last write the last
 * block must see and its last read of what the last block may write.
 * Resets the ticket for the next kernel. */
__device__ inline bool last_block(uint32_t *ticket)
{
    __shared__ bool is_last;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
        if (is_last) *ticket = 0;
    }
    __syncthreads();
    return is_last;
}

/* Grid-wide sums of v: true in thread 0 of the last block to finish, with
 * the totals in `total`; false everywhere else. The last block adds the
 * per-block sums in block order, so the result does not depend on which
 * block finished last. */
template <int N>
__device__ bool grid_sum(double (&v)[N], double *partials, uint32_t *ticket,
                         double (&total)[N])
{
    block_sum<N>(v);
    if (threadIdx.x == 0)
        for (int i = 0; i < N; ++i)
            partials[(size_t)i * gridDim.x + blockIdx.x] = v[i];
    if (!last_block(ticket)) return false;
    __threadfence();
    double acc[N];
    for (int i = 0; i < N; ++i) {
        acc[i] = 0.0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            acc[i] += __ldcg(&partials[(size_t)i * gridDim.x + b]);
    }
    block_sum<N>(acc);
    if (threadIdx.x != 0) return false;
    for (int i = 0; i < N; ++i) total[i] = acc[i];
    return true;
}

/* Programmatic dependent launch (sm_90): a grid kernel first waits until
 * the kernel before it has finished and its writes are visible, then lets
 * the next one launch, so launch latency overlaps the tail of the previous
 * kernel. Both are no-ops when the kernel was launched without PDL. */
__device__ inline void pdl_enter()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* This block's sums of v for the next kernel: partials[i * grid + block]
 * (no fence or atomic: the kernel boundary makes them visible). */
template <int N> __device__ void write_partials(double (&v)[N], double *partials)
{
    block_sum<N>(v);
    if (threadIdx.x == 0)
        for (int i = 0; i < N; ++i)
            partials[(size_t)i * gridDim.x + blockIdx.x] = v[i];
}

/* The totals of the per-block sums a previous kernel of `count` blocks
 * wrote, in every thread. Every block adds them in the same order, so all
 * blocks get the same bits and take the same decisions. */
template <int N>
__device__ void sum_partials(const double *partials, int count,
                             double (&tot)[N])
{
    __shared__ double out[N];
    double acc[N];
    for (int i = 0; i < N; ++i) {
        acc[i] = 0.0;
        for (int b = threadIdx.x; b < count; b += blockDim.x)
            acc[i] += partials[(size_t)i * count + b];
    }
    block_sum<N>(acc);
    if (threadIdx.x == 0)
        for (int i = 0; i < N; ++i) out[i] = acc[i];
    __syncthreads();
    for (int i = 0; i < N; ++i) tot[i] = out[i];
}

/* cmrs_krylov_test on the device: converged reason, NaN/Inf, or 0. */
__device__ inline int stop_reason(const cmrs_dstate *st, double rnorm)
{
    if (!isfinite(rnorm)) return CMRS_DIVERGED_NANORINF;
    if (rnorm <= st->rtol_b) return CMRS_CONVERGED_RTOL;
    if (rnorm <= st->atol) return CMRS_CONVERGED_ATOL;
    return CMRS_ITERATING;
}

__device__ inline void stop(cmrs_dstate *st, int reason)
{
    st->done = 1;
    st->reason = reason;
}

/* Records ||r|| as history entry k and stops if it passes the test. */
template <typename T>
__device__ void record(cmrs_dstate *st, void *history, int64_t k,
                       double rnorm)
{
    st->k = k;
    st->rnorm = rnorm;
    ((T *)history)[k] = (T)rnorm;
    int why = stop_reason(st, rnorm);
    if (why != CMRS_ITERATING) stop(st, why);
}

/* Stops unless v is finite and > 0 (CG's curvature and r'z). */
__device__ inline void require_positive(cmrs_dstate *st, double v)
{
    if (!isfinite(v))
        stop(st, CMRS_DIVERGED_NANORINF);
    else if (!(v > 0))
        stop(st, CMRS_DIVERGED_BREAKDOWN);
}

/* Element i of z = M^-1 r (dinv NULL: no preconditioner). */
template <typename T>
__device__ inline T precond(const T *__restrict__ dinv, T r, int64_t i)
{
    return dinv ? r * dinv[i] : r;
}

} // namespace cmrs_dev

/* A kernel of the reduction grid (see kThreads). */
#define CMRS_DEV_KERNEL                                                     \
    __global__ void __launch_bounds__(cmrs_dev::kThreads)

namespace cmrs_dev {
/* `blocks` blocks of kernel on a's stream, with the PDL attribute
 * (pdl_enter). */
inline cmrs_code launch_blocks(void (*kernel)(cmrs_dev_args),
                               const cmrs_dev_args *a, int blocks)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3(kThreads);
    cfg.stream = a->stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CMRS_CUDA(cudaLaunchKernelEx(&cfg, kernel, *a));
    return CMRS_OK;
}

/* One grid kernel (a->grid blocks). */
inline cmrs_code launch_grid(void (*kernel)(cmrs_dev_args),
                             const cmrs_dev_args *a)
{
    return launch_blocks(kernel, a, a->grid);
}
} // namespace cmrs_dev

/* `extern "C" cmrs_code fn(const cmrs_dev_args *)`: one launch of kernel on
 * the reduction grid. */
#define CMRS_DEV_GRID_ENTRY(fn, kernel)                                     \
    extern "C" cmrs_code fn(const cmrs_dev_args *a)                         \
    {                                                                       \
        CMRS_DEV_LAUNCH(a, kernel);                                         \
        return CMRS_OK;                                                     \
    }

/* `extern "C" cmrs_code fn(const cmrs_dev_args *)`: one block of kernel
 * (a sum of one part's partials). */
#define CMRS_DEV_BLOCK_ENTRY(fn, kernel)                                    \
    extern "C" cmrs_code fn(const cmrs_dev_args *a)                         \
    {                                                                       \
        CMRS_CHECK(cmrs_dev::launch_blocks((a)->prec == CMRS_PREC_SINGLE    \
                                               ? kernel<float>              \
                                               : kernel<double>,            \
                                           a, 1));                          \
        return CMRS_OK;                                                     \
    }

/* Launches kernel<float> or kernel<double> on the reduction grid. */
#define CMRS_DEV_LAUNCH(a, kernel)                                          \
    CMRS_CHECK(cmrs_dev::launch_grid((a)->prec == CMRS_PREC_SINGLE          \
                                         ? kernel<float>                    \
                                         : kernel<double>,                  \
                                     a))

#endif
