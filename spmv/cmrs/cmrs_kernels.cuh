/* Device helpers shared by the CMRS kernels (cmrs_basic.cu, cmrs_mod.cu,
 * cmrs_rows.cu, cmrs_tile.cu, cmrs_seg.cu), and their launch setup.
 *
 * Warp rules these kernels keep (Volta+ independent thread scheduling):
 * every loop over strips is warp-uniform and blocks are whole warps, so all
 * 32 lanes reach every full-mask shuffle; no lane relies on another lane's
 * shared-memory write without a __syncwarp() in between. */
#ifndef CMRS_CMRS_KERNELS_CUH
#define CMRS_CMRS_KERNELS_CUH

#include <cstdint>

#include "cmrs_setup.h"
#include "base/gpu/cuda_check.h"

namespace cmrs_k {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int warp = 32;

/* Smallest power of two >= h (h in 1..16). */
__host__ __device__ constexpr int pow2_ceil(int h)
{
    return h <= 1 ? 1 : h <= 2 ? 2 : h <= 4 ? 4 : h <= 8 ? 8 : 16;
}

/* One stored entry: its row in the strip and v * x[column]. Matrix data is
 * read once per product, so by default it streams past the caches (__ldcs,
 * evict-first) and leaves L1/L2 to x, which goes through the read-only path
 * (__ldg). STREAM = false loads the matrix with __ldg too, so a matrix that
 * fits in L2 may stay there across the products of a solver. */
template <typename T>
struct entry {
    unsigned row;
    T prod;
};

template <bool STREAM, typename V>
__device__ __forceinline__ V load_matrix(const V *p)
{
    return STREAM ? __ldcs(p) : __ldg(p);
}

template <bool STREAM, typename T>
__device__ __forceinline__ entry<T>
load_entry(const uint32_t *__restrict__ colrow, const T *__restrict__ val,
           const T *__restrict__ x, unsigned j)
{
    const uint32_t cr = load_matrix<STREAM>(colrow + j);
    const T v = load_matrix<STREAM>(val + j);
    return entry<T>{cr & 15u, v * __ldg(x + (cr >> 4))};
}

/* One transpose step per level: lanes paired across bit OFFSET swap halves
 * of their LIVE leading values, each keeping (and summing) one half. */
template <int LIVE, int OFFSET, int N, typename T>
__device__ __forceinline__ void transpose_steps(T (&v)[N], unsigned lane)
{
    if constexpr (LIVE > 1) {
        constexpr int half = LIVE / 2;
        const bool upper = (lane & OFFSET) != 0;
#pragma unroll
        for (int i = 0; i < half; ++i) {
            const T give = upper ? v[i] : v[i + half];
            const T keep = upper ? v[i + half] : v[i];
            v[i] = keep + __shfl_xor_sync(full_mask, give, OFFSET);
        }
        transpose_steps<half, OFFSET / 2>(v, lane);
    }
}

/* Sums v[k] over the GROUP lanes of each aligned lane group (GROUP a power
 * of two <= 32, K a power of two <= GROUP) with K - 1 + log2(GROUP / K)
 * shuffles instead of K log2(GROUP): each step halves the array, a lane
 * keeping the half its partner gives away (a transpose). Returns, in every
 * lane, the group sum of v[k] for k = (lane % GROUP) / (GROUP / K). All 32
 * lanes must call it. v is clobbered. */
template <int K, int GROUP, typename T>
__device__ __forceinline__ T transpose_reduce(T (&v)[K], unsigned lane)
{
    static_assert(K >= 1 && K <= GROUP && GROUP <= warp, "bad reduction");
    transpose_steps<K, GROUP / 2>(v, lane);
    T sum = v[0];
#pragma unroll
    for (int offset = GROUP / (2 * K); offset >= 1; offset /= 2)
        sum += __shfl_xor_sync(full_mask, sum, offset);
    return sum;
}

/* y[row] = alpha*sum + beta*y[row]; y is not read when beta == 0. */
template <typename T>
__device__ __forceinline__ void store_row(T *__restrict__ y, unsigned row,
                                          T sum, T alpha, T beta)
{
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/* One partial sum of x'y per block (the apply_dot epilogue), the
 * threads' shares added in a fixed order (deterministic for a fixed grid);
 * every thread of the block must call it. */
__device__ __forceinline__ void write_dot_partial(double dot, double *partials)
{
    __shared__ double warp_dot_s[32];
    const unsigned lane = threadIdx.x % warp, w = threadIdx.x / warp;
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        dot += __shfl_down_sync(full_mask, dot, off);
    if (lane == 0) warp_dot_s[w] = dot;
    __syncthreads();
    if (threadIdx.x == 0) {
        double sum = 0.0;
        for (unsigned i = 0; i < blockDim.x / warp; ++i) sum += warp_dot_s[i];
        partials[blockIdx.x] = sum;
    }
}

/* Host: blocks of one wave of fn (at most `need`, at least 1): the grid of
 * the apply_dot kernels, whose per-block partials the solver's next kernel
 * adds in every block, so fewer is cheaper. */
template <typename F>
cmrs_code one_wave(F fn, int block, size_t smem, int64_t need, int *grid)
{
    int per_sm = 0, dev = 0, sms = 0;
    CMRS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block,
                                                            smem));
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int64_t wave = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
    *grid = (int)(need < wave ? (need > 0 ? need : 1) : wave);
    return CMRS_OK;
}

/* Host: the grid for kernel fn with `block` threads and `smem` bytes of
 * dynamic shared memory per block (opting in above 48 KB), from its
 * occupancy on this GPU. */
template <typename F>
cmrs_code launch_config(F fn, int block, size_t smem, int64_t strips,
                        const char *what, int *grid)
{
    int per_sm = 0;
    CMRS_CHECK(cmrs_allow_smem((const void *)fn, smem, what));
    CMRS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block,
                                                            smem));
    CMRS_CHECK(cmrs_grid_size(strips, block, per_sm, what, grid));
    return CMRS_OK;
}

/* The argument of the kernels that give each warp whole strips of the
 * CSR-order layout (cmrs_mod.cu, cmrs_seg.cu): y = alpha*A*x + beta*y. */
template <typename T>
struct strip_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint32_t *colrow;    /* column << 4 | row_in_strip */
    const T *val;
    const T *x;
    T *y;
    unsigned rows, strips, height;
    T alpha, beta;
};

/* Host: strip_args over the matrix im holds. */
template <typename T>
strip_args<T> strip_args_of(const cmrs_impl *im, double alpha, const void *x_d,
                            double beta, void *y_d)
{
    return strip_args<T>{im->mat.strip_ptr_d, im->mat.colrow_d,
                         (const T *)im->mat.values_d, (const T *)x_d,
                         (T *)y_d, (unsigned)im->mat.rows,
                         (unsigned)im->mat.strips, (unsigned)im->mat.height,
                         (T)alpha, (T)beta};
}

/* Host: the end of the rows and tile kernels' configuration, once grid
 * and dot_grid are set: both held to the variant's grid=N (tests reach the
 * grid-stride loops on small matrices), then the x'y partials apply_dot
 * offers: one per dot_grid block, where rows <= cols (x'y over x's first
 * rows entries: a square A, or a part's local matrix of the distributed
 * back end, its owned columns first and its ghosts after them). */
inline void cap_grids(cmrs_spmv *self, cmrs_impl *im)
{
    const int cap = im->variant.grid_cap;
    if (cap > 0) {
        if (im->grid > cap) im->grid = cap;
        if (im->dot_grid > cap) im->dot_grid = cap;
    }
    self->dot_parts = self->rows <= self->cols ? im->dot_grid : 0;
}

} // namespace cmrs_k

#endif
