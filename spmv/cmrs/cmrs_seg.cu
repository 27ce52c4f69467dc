/* A measurement variant (CMRS_CMRS_VARIANT=seg|seg1; the default until the
 * rows kernel replaced it, docs/CMRS.md "The earlier kernels"): one warp per
 * strip, the strip's entries kept in row order (CSR order, i.e. sorted =
 * off), and the per-row sums formed by a segmented warp scan instead of
 * per-row partial sums.
 *
 * Why: with rows of ~5 entries (pressure matrices) a strip of h rows has only
 * h*mu ~ 50 entries. Keeping h partial sums per lane (the paper's buffer, or
 * registers) costs h selects per entry plus h reductions per strip; here each
 * 32-entry chunk costs one 5-step segmented scan whatever h is. Rows are
 * contiguous runs of equal row-in-strip index in a chunk, so a Hillis-Steele
 * scan that adds a neighbour's sum only when its row index matches gives, at
 * the last lane of each run, the run's total; that lane adds it to the row's
 * accumulator in shared memory (one writer per row per chunk, ordered across
 * chunks by __syncwarp). All loops are warp-uniform: every lane reaches every
 * full-mask shuffle (correct under independent thread scheduling).
 *
 * The default ("seg") reads two consecutive entries per lane (8/16-byte
 * loads, 64-entry chunks); the default height makes strips fill whole
 * chunks (cmrs_default_height). "seg1" reads one entry per lane. Measured
 * on an H200: pairs beat seg1 by 1.07-1.24x (docs/BENCHMARKS.md). */
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

constexpr int max_warps_per_block = 32; /* block <= 1024 threads */

/* strip_args (cmrs_kernels.cuh): a strip's entries in row order. */
template <typename T> using seg_args = strip_args<T>;

/* Entry k of the chunk, or a product of 0 with a row key no real entry has
 * (16 + lane), so padding lanes never join a run. */
template <bool STREAM, typename T>
__device__ __forceinline__ entry<T> chunk_entry(const seg_args<T> &a,
                                                unsigned k, unsigned end,
                                                unsigned lane)
{
    if (k < end) return load_entry<STREAM>(a.colrow, a.val, a.x, k);
    return entry<T>{16u + lane, T(0)};
}

/* Inclusive segmented sum over runs of equal e.row. */
template <typename T>
__device__ __forceinline__ T run_sum(entry<T> e, unsigned lane)
{
    T p = e.prod;
#pragma unroll
    for (int d = 1; d < warp; d *= 2) {
        const T t = __shfl_up_sync(full_mask, p, d);
        const unsigned r = __shfl_up_sync(full_mask, e.row, d);
        if (lane >= (unsigned)d && r == e.row) p += t;
    }
    return p;
}

/* Two consecutive entries k, k+1 per lane (k even), so a chunk covers 64
 * entries with 8/16-byte loads: r0/p0 the first, r1/p1 the second. Halves
 * outside [start, end) are neutral (product 0, merged into the other half's
 * row); a lane with neither gets a row key no entry has. Vector loads only
 * when both halves are in range, so nothing is read past the arrays. */
template <typename T>
struct entry_pair {
    unsigned r0, r1;
    T p0, p1;
};

template <typename T> struct vec2;
template <> struct vec2<float> { using type = float2; };
template <> struct vec2<double> { using type = double2; };

template <bool STREAM, typename T>
__device__ __forceinline__ entry_pair<T>
load_pair(const seg_args<T> &a, unsigned k, unsigned start, unsigned end,
          unsigned lane)
{
    const bool in0 = k >= start && k < end, in1 = k + 1 >= start && k + 1 < end;
    if (in0 && in1) {
        using V = typename vec2<T>::type;
        const uint2 cr = load_matrix<STREAM>(
            reinterpret_cast<const uint2 *>(a.colrow + k));
        const V v = load_matrix<STREAM>(reinterpret_cast<const V *>(a.val + k));
        return entry_pair<T>{cr.x & 15u, cr.y & 15u,
                             v.x * __ldg(a.x + (cr.x >> 4)),
                             v.y * __ldg(a.x + (cr.y >> 4))};
    }
    if (in0 || in1) {
        const entry<T> e = load_entry<STREAM>(a.colrow, a.val, a.x, in0 ? k : k + 1);
        return entry_pair<T>{e.row, e.row, in0 ? e.prod : T(0),
                             in0 ? T(0) : e.prod};
    }
    return entry_pair<T>{16u + lane, 16u + lane, T(0), T(0)};
}

/* Adds one 64-entry chunk into row_sum. The lane's second row r1 is the
 * scan key (the first half joins it when r0 == r1); when r0 != r1, row r0
 * ends inside this lane: its total is p0 plus the run that the previous
 * lane ended with, if that run is row r0. */
template <typename T>
__device__ __forceinline__ void add_pairs(entry_pair<T> e, unsigned lane,
                                          T *row_sum)
{
    const T run = run_sum(entry<T>{e.r1, e.r0 == e.r1 ? e.p0 + e.p1 : e.p1},
                          lane);
    const T prev_run = __shfl_up_sync(full_mask, run, 1);
    const unsigned prev_row = __shfl_up_sync(full_mask, e.r1, 1);
    const unsigned next_first = __shfl_down_sync(full_mask, e.r0, 1);
    if (e.r0 != e.r1 && e.r0 < CMRS_MAX_HEIGHT)
        row_sum[e.r0] += e.p0 + (lane > 0 && prev_row == e.r0 ? prev_run : T(0));
    if (e.r1 < CMRS_MAX_HEIGHT && (lane == warp - 1 || next_first != e.r1))
        row_sum[e.r1] += run;
}

template <typename T>
__device__ __forceinline__ void store_strip(const seg_args<T> &a, unsigned s,
                                            unsigned lane, const T *row_sum)
{
    const unsigned row = s * a.height + lane;
    if (lane < a.height && row < a.rows)
        store_row(a.y, row, row_sum[lane], a.alpha, a.beta);
}

/* One 32-entry chunk, one entry per lane ("seg1"). */
template <bool STREAM, typename T>
__device__ __forceinline__ void add_chunk(const seg_args<T> &a, unsigned k,
                                          unsigned end, unsigned lane,
                                          T *row_sum)
{
    const entry<T> e = chunk_entry<STREAM>(a, k, end, lane);
    const T p = run_sum(e, lane);
    const unsigned next = __shfl_down_sync(full_mask, e.row, 1);
    if (e.row < CMRS_MAX_HEIGHT && (lane == warp - 1 || next != e.row))
        row_sum[e.row] += p;
}

/* PAIRS: two entries per lane, 64-entry chunks (the default); else one.
 * (Loading the next strip's first chunk ahead was tried: 4% slower on the
 * H200.) */
template <typename T, bool STREAM, bool PAIRS>
__global__ void __launch_bounds__(1024) cmrs_seg_kernel(seg_args<T> a)
{
    __shared__ T sums_s[max_warps_per_block][CMRS_MAX_HEIGHT];
    const unsigned lane = threadIdx.x % warp, w = threadIdx.x / warp;
    const unsigned warps_per_block = blockDim.x / warp;
    constexpr unsigned chunk = PAIRS ? 2 * warp : warp;
    T *row_sum = sums_s[w];
    for (unsigned s = blockIdx.x * warps_per_block + w; s < a.strips;
         s += gridDim.x * warps_per_block) {
        if (lane < CMRS_MAX_HEIGHT) row_sum[lane] = T(0);
        __syncwarp();
        const unsigned start = __ldg(a.strip_ptr + s);
        const unsigned end = __ldg(a.strip_ptr + s + 1);
        /* Pairs start at an even entry so their vector loads are aligned. */
        for (unsigned base = PAIRS ? start & ~1u : start; base < end;
             base += chunk) {
            if (PAIRS)
                add_pairs(load_pair<STREAM>(a, base + 2 * lane, start, end,
                                            lane),
                          lane, row_sum);
            else
                add_chunk<STREAM>(a, base + lane, end, lane, row_sum);
            __syncwarp();
        }
        store_strip(a, s, lane, row_sum);
        __syncwarp(); /* the reads above before the next strip's reset */
    }
}

template <typename T>
using seg_fn = void (*)(seg_args<T>);

template <typename T>
seg_fn<T> seg_kernel(const cmrs_variant &v)
{
    if (v.pairs)
        return v.stream ? cmrs_seg_kernel<T, true, true>
                        : cmrs_seg_kernel<T, false, true>;
    return v.stream ? cmrs_seg_kernel<T, true, false>
                    : cmrs_seg_kernel<T, false, false>;
}

template <typename T>
cmrs_code seg_configure_t(cmrs_spmv *self, cmrs_impl *im)
{
    im->smem = 0; /* static shared memory only */
    CMRS_CHECK(launch_config(seg_kernel<T>(im->variant), im->block, 0,
                             self->strips, self->ops->name, &im->grid));
    return CMRS_OK;
}

template <typename T>
cmrs_code seg_launch_t(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    seg_kernel<T>(im->variant)<<<im->grid, im->block, 0, self->stream>>>(
        strip_args_of<T>(im, alpha, x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_seg_configure(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(seg_configure_t<T>(self, im)));
    return CMRS_OK;
}

cmrs_code cmrs_seg_apply(cmrs_spmv *self, double alpha, const void *x_d,
                         double beta, void *y_d)
{
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(seg_launch_t<T>(self, alpha, x_d, beta,
                                                  y_d)));
    return CMRS_OK;
}
