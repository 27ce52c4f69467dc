/* The "cmrs" kernel for strips whose rows start too far apart for the rows
 * kernel's 16-bit offsets (settle_kernel; the default for 1M rows or more
 * until the rows kernel's batched loads overtook it, 2026-11-23):
 * tiles of strips, E entries per lane with 16-byte loads, the whole tile's
 * loads issued before any reduction.
 *
 * Why (measured with the earlier kernels, docs/CMRS.md): a warp that takes
 * one strip of ~60 entries at a time keeps only ~0.8 KB in flight between
 * its dependent steps (strip pointer, matrix, x), so the SM runs out of
 * outstanding loads long before memory does. Here a warp takes a *tile* of
 * G consecutive strips (~250 entries, chosen at setup from the mean row
 * length), which is one contiguous run of the CMRS arrays:
 *   1. lanes 0..G read the tile's G+1 strip pointers into shared memory;
 *   2. lane i reads entries [base + E i, base + E i + E) of each 32E-entry
 *      chunk with 16-byte vector loads (base aligned down to E: the arrays
 *      are padded at setup so no load leaves them), then issues all E
 *      x gathers before using any;
 *   3. each entry's row in the tile is strip_in_tile * h + (colrow & 15);
 *      entries are in row order, so the lane sums its E products run by
 *      run in registers: a run that starts and ends inside the lane is a
 *      whole row and goes straight to the tile's row sums in shared memory;
 *      the lane's first (head) and last (tail) runs may continue in the
 *      neighbouring lanes, so the tails are combined by one 5-step
 *      segmented warp scan keyed by row (one scan per 32E entries, not per
 *      32), and exactly one lane adds each row's chunk total;
 *   4. after the tile's chunks, lanes write the tile's rows to y, coalesced
 *      (empty rows get alpha*0 + beta*y).
 * Every row of a chunk has exactly one writer and chunks are ordered by
 * __syncwarp, so results are bitwise repeatable. Loops over tiles and
 * chunks are warp-uniform: all lanes reach every full-mask shuffle.
 *
 * DOT: the same product, plus each block's partial sum of x[i] * y[i] over
 * the rows it wrote (rows <= cols), for CG's p'q without another pass over p
 * and q; one wave of blocks (dot_grid).
 */
#include <cmath>
#include <cstdint>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

constexpr int kKeyBefore = -1;      /* entries before the tile */
constexpr int kKeyAfter = 1 << 30;  /* entries after the tile */

template <typename T>
struct tile_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint32_t *colrow;    /* column << 4 | row_in_strip, row order,
                                  padded by CMRS_TILE_PAD entries */
    const T *val;              /* padded likewise */
    const T *x;
    T *y;
    double *dot_partials;      /* DOT: one per block */
    unsigned rows, strips, height, tile_strips, tiles;
    T alpha, beta;
};

/* Shared memory of one warp: the tile's row sums and strip pointers. */
template <typename T>
struct warp_smem {
    T row_sum[CMRS_TILE_MAX_ROWS];
    uint32_t ptr[CMRS_TILE_MAX_STRIPS + 1];
};

/* E consecutive elements (words or values) starting at p, 16-byte aligned,
 * with 16-byte loads. */
template <int E, bool STREAM, typename S>
__device__ __forceinline__ void load16(const S *p, S (&out)[E])
{
    constexpr int per = 16 / (int)sizeof(S);
    static_assert(E % per == 0, "whole 16-byte loads");
#pragma unroll
    for (int i = 0; i < E / per; ++i) {
        const uint4 u = load_matrix<STREAM>(reinterpret_cast<const uint4 *>(p) + i);
        memcpy(&out[per * i], &u, sizeof u);
    }
}

/* Adds v to the tile's row k unless k is a sentinel (outside the tile). */
template <typename T>
__device__ __forceinline__ void add_row(T *row_sum, int k, unsigned nrows, T v)
{
    if ((unsigned)k < nrows) row_sum[k] += v;
}

/* Where a lane is in the tile: its strip in the tile and the first entry
 * of the next strip. Lanes move forward only, so this is kept across the
 * chunks of a tile. */
struct strip_cursor {
    unsigned strip, next;
};

/* The lane's E stored entries of a chunk, as loaded. */
template <typename T, int E>
struct lane_matrix {
    uint32_t cr[E];
    T v[E];
};

/* 1 if the lane's window [q0, q0 + E) holds entries of [start, end). */
template <int E>
__device__ __forceinline__ bool window_in(unsigned q0, unsigned start,
                                          unsigned end)
{
    return q0 < end && q0 + E > start;
}

/* The lane's window of the chunk, 16-byte loads straight into registers
 * (zeros when the window holds no entry of the tile). */
template <typename T, int E, bool STREAM>
__device__ __forceinline__ lane_matrix<T, E>
load_direct(const tile_args<T> &a, unsigned q0, unsigned start, unsigned end)
{
    lane_matrix<T, E> m;
    if (window_in<E>(q0, start, end)) {
        load16<E, STREAM>(a.colrow + q0, m.cr);
        load16<E, STREAM>(a.val + q0, m.v);
    } else {
#pragma unroll
        for (int e = 0; e < E; ++e) {
            m.cr[e] = 0;
            m.v[e] = T(0);
        }
    }
    return m;
}

/* The lane's entries: row keys (sentinels outside [start, end)) and
 * products, all x gathers issued before any is used. */
template <typename T, int E>
__device__ __forceinline__ void lane_entries(const tile_args<T> &a,
                                             const lane_matrix<T, E> &m,
                                             unsigned q0, unsigned start,
                                             unsigned end, const uint32_t *sp,
                                             strip_cursor &cur, int (&key)[E],
                                             T (&prod)[E])
{
    T xv[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const bool in = q0 + e >= start && q0 + e < end;
        xv[e] = in ? __ldg(a.x + (m.cr[e] >> CMRS_ROW_BITS)) : T(0);
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const unsigned q = q0 + e;
        if (q < start) {
            key[e] = kKeyBefore;
        } else if (q >= end) {
            key[e] = kKeyAfter;
        } else {
            /* sp[ns] = end > q stops this within the tile. */
            while (q >= cur.next) cur.next = sp[++cur.strip + 1];
            key[e] = (int)(cur.strip * a.height + (m.cr[e] & CMRS_ROW_MASK));
        }
        prod[e] = m.v[e] * xv[e];
    }
}

/* The lane's runs: whole rows inside the lane go to row_sum now; returns
 * the head run (first key, its sum, whether it ended inside the lane) and
 * the tail run (last key and sum). */
template <typename T>
struct lane_runs {
    int head_key, tail_key;
    T head, tail;
    bool head_closed;
};

template <typename T, int E>
__device__ __forceinline__ lane_runs<T>
sum_runs(const int (&key)[E], const T (&prod)[E], T *row_sum, unsigned nrows)
{
    lane_runs<T> r{key[0], key[0], T(0), prod[0], false};
#pragma unroll
    for (int e = 1; e < E; ++e) {
        if (key[e] == r.tail_key) {
            r.tail += prod[e];
            continue;
        }
        if (r.head_closed) add_row(row_sum, r.tail_key, nrows, r.tail);
        else r.head = r.tail;
        r.head_closed = true;
        r.tail_key = key[e];
        r.tail = prod[e];
    }
    return r;
}

/* One 32E-entry chunk into the tile's row sums: lane runs, then the tails
 * joined across lanes by a segmented scan keyed by row (keys never
 * decrease along the chunk, so equal keys of two lanes mean every lane
 * between holds only that row). */
template <typename T, int E>
__device__ __forceinline__ void add_chunk(const tile_args<T> &a,
                                          const lane_matrix<T, E> &m,
                                          unsigned q0, unsigned start,
                                          unsigned end, const uint32_t *sp,
                                          strip_cursor &cur, T *row_sum,
                                          unsigned nrows, unsigned lane)
{
    int key[E];
    T prod[E];
    lane_entries<T, E>(a, m, q0, start, end, sp, cur, key, prod);
    const lane_runs<T> r = sum_runs<T, E>(key, prod, row_sum, nrows);
    T run = r.tail;
#pragma unroll
    for (int d = 1; d < warp; d *= 2) {
        const T t = __shfl_up_sync(full_mask, run, d);
        const int k = __shfl_up_sync(full_mask, r.tail_key, d);
        if (lane >= (unsigned)d && k == r.tail_key) run += t;
    }
    const T prev_run = __shfl_up_sync(full_mask, run, 1);
    const int prev_key = __shfl_up_sync(full_mask, r.tail_key, 1);
    const int next_head = __shfl_down_sync(full_mask, r.head_key, 1);
    if (r.head_closed)
        add_row(row_sum, r.head_key, nrows,
                r.head + (lane > 0 && prev_key == r.head_key ? prev_run : T(0)));
    if (lane == warp - 1 || next_head != r.tail_key)
        add_row(row_sum, r.tail_key, nrows, run);
}

/* y for the tile's rows, coalesced; returns this lane's share of x'y
 * (DOT). */
template <typename T, bool DOT>
__device__ __forceinline__ double store_tile(const tile_args<T> &a,
                                             unsigned row0, unsigned nrows,
                                             const T *row_sum, unsigned lane)
{
    double dot = 0.0;
    for (unsigned r = lane; r < nrows; r += warp) {
        const unsigned row = row0 + r;
        const T yv = a.beta == T(0) ? a.alpha * row_sum[r]
                                    : a.alpha * row_sum[r] + a.beta * a.y[row];
        a.y[row] = yv;
        if (DOT) dot += (double)__ldg(a.x + row) * (double)yv;
    }
    return dot;
}

/* The first strip and the strip count of tile t. */
struct tile_span {
    unsigned s0, ns;
};

template <typename T>
__device__ __forceinline__ tile_span span_of(const tile_args<T> &a, unsigned t)
{
    const unsigned s0 = t * a.tile_strips;
    return tile_span{s0, min(a.tile_strips, a.strips - s0)};
}

/* Lane l <= ns holds strip_ptr[s0 + l] of tile t (0 past the tiles). The
 * next tile's pointers are loaded while this one is processed, so a tile
 * starts with two dependent loads (matrix, x), not three. */
template <typename T>
__device__ __forceinline__ uint32_t tile_pointer(const tile_args<T> &a,
                                                 unsigned t, unsigned lane)
{
    if (t >= a.tiles) return 0;
    const tile_span sp = span_of(a, t);
    return lane <= sp.ns ? __ldg(a.strip_ptr + sp.s0 + lane) : 0u;
}

/* What a warp keeps of its current tile. */
struct tile_state {
    unsigned row0, nrows, start, end;
    strip_cursor cur;
};

/* Makes tile t current: its pointers (held in ptr) into sp, the next
 * tile's (t + stride) loading into ptr, row sums zeroed. */
template <typename T>
__device__ __forceinline__ void begin_tile(const tile_args<T> &a, unsigned t,
                                           unsigned stride, unsigned lane,
                                           uint32_t &ptr, uint32_t *sp,
                                           T *row_sum, tile_state &ts)
{
    const tile_span span = span_of(a, t);
    ts.row0 = span.s0 * a.height;
    ts.nrows = min(span.ns * a.height, a.rows - ts.row0);
    if (lane <= span.ns) sp[lane] = ptr;
    ptr = tile_pointer(a, t + stride, lane);
    for (unsigned r = lane; r < ts.nrows; r += warp) row_sum[r] = T(0);
    __syncwarp();
    ts.start = sp[0];
    ts.end = sp[span.ns];
    ts.cur = strip_cursor{0u, sp[1]};
}

/* 16 entries per lane need more than the 64 registers a 1024-thread block
 * leaves: that variant takes blocks of at most 512 threads. */
#define CMRS_TILE_BOUNDS(E) __launch_bounds__((E) >= 16 ? 512 : 1024, 1)

/* The tile kernel. */
template <typename T, int E, bool STREAM, bool DOT>
__global__ void CMRS_TILE_BOUNDS(E) cmrs_tile_kernel(tile_args<T> a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const unsigned lane = threadIdx.x % warp, w = threadIdx.x / warp;
    const unsigned stride = gridDim.x * (blockDim.x / warp);
    warp_smem<T> *ws = reinterpret_cast<warp_smem<T> *>(smem_raw) + w;
    tile_state ts;
    double dot = 0.0;
    unsigned t = blockIdx.x * (blockDim.x / warp) + w;
    uint32_t ptr = tile_pointer(a, t, lane);
    for (; t < a.tiles; t += stride) {
        begin_tile(a, t, stride, lane, ptr, ws->ptr, ws->row_sum, ts);
        for (unsigned base = ts.start & ~(unsigned)(E - 1); base < ts.end;
             base += warp * E) {
            const unsigned q0 = base + lane * E;
            add_chunk<T, E>(a, load_direct<T, E, STREAM>(a, q0, ts.start, ts.end),
                            q0, ts.start, ts.end, ws->ptr, ts.cur, ws->row_sum,
                            ts.nrows, lane);
            __syncwarp(); /* this chunk's row sums before the next's */
        }
        dot += store_tile<T, DOT>(a, ts.row0, ts.nrows, ws->row_sum, lane);
        __syncwarp(); /* reads of row_sum and sp before the next tile */
    }
    if (DOT) write_dot_partial(dot, a.dot_partials);
}

template <typename T>
using tile_fn = void (*)(tile_args<T>);

template <typename T, int E, bool DOT>
tile_fn<T> pick_stream(const cmrs_variant &v)
{
    return v.stream ? cmrs_tile_kernel<T, E, true, DOT>
                    : cmrs_tile_kernel<T, E, false, DOT>;
}

template <typename T, bool DOT>
tile_fn<T> pick_entries(const cmrs_variant &v)
{
    if (v.tile_entries == 4) return pick_stream<T, 4, DOT>(v);
    if constexpr (sizeof(T) == 4)
        if (v.tile_entries == 16) return pick_stream<T, 16, DOT>(v);
    return pick_stream<T, 8, DOT>(v);
}

/* 4 or 8 entries per lane; 16 in single precision only (the same 16-byte
 * loads per lane as 8 in double). */
template <typename T>
tile_fn<T> tile_kernel(const cmrs_variant &v, bool dot)
{
    return dot ? pick_entries<T, true>(v) : pick_entries<T, false>(v);
}

/* Shared memory of a block: per warp the tile's row sums and pointers. */
template <typename T>
size_t smem_bytes(int block)
{
    return (size_t)(block / warp) * sizeof(warp_smem<T>);
}

template <typename T>
cmrs_code tile_configure_t(cmrs_spmv *self, cmrs_impl *im)
{
    im->smem = smem_bytes<T>(im->block);
    CMRS_CHECK(launch_config(tile_kernel<T>(im->variant, false), im->block,
                             im->smem, im->tiles, self->ops->name, &im->grid));
    const tile_fn<T> dot_fn = tile_kernel<T>(im->variant, true);
    const int64_t warps = im->block / warp;
    CMRS_CHECK(cmrs_allow_smem((const void *)dot_fn, im->smem, self->ops->name));
    CMRS_CHECK(one_wave(dot_fn, im->block, im->smem,
                        (im->tiles + warps - 1) / warps, &im->dot_grid));
    cap_grids(self, im);
    return CMRS_OK;
}

template <typename T>
tile_args<T> make_args(const cmrs_impl *im, double alpha, const void *x_d,
                       double beta, void *y_d, double *partials_d)
{
    return tile_args<T>{im->mat.strip_ptr_d, im->mat.colrow_d,
                        (const T *)im->mat.values_d, (const T *)x_d, (T *)y_d,
                        partials_d, (unsigned)im->mat.rows,
                        (unsigned)im->mat.strips, (unsigned)im->mat.height,
                        (unsigned)im->tile_strips, (unsigned)im->tiles,
                        (T)alpha, (T)beta};
}

template <typename T>
cmrs_code tile_launch_t(cmrs_spmv *self, double alpha, const void *x_d,
                        double beta, void *y_d, double *partials_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    const bool dot = partials_d != nullptr;
    tile_kernel<T>(im->variant, dot)<<<dot ? im->dot_grid : im->grid,
                                       im->block, im->smem, self->stream>>>(
        make_args<T>(im, alpha, x_d, beta, y_d, partials_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_tile_configure(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(tile_configure_t<T>(self, im)));
    return CMRS_OK;
}

cmrs_code cmrs_tile_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d, double *partials_d)
{
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(tile_launch_t<T>(self, alpha, x_d, beta, y_d,
                                                   partials_d)));
    return CMRS_OK;
}
