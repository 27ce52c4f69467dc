/* The default "cmrs" kernel (cmrs_pick_kernel): L lanes per row (L = 1,
 * 2, 4 or 8) taking B entries each per step with all their loads issued
 * first (cmrs_rows_defaults chooses both), over the CMRS arrays plus one
 * 16-bit offset per row inside its strip (the CMRS-O layout,
 * docs/CMRS.md).
 *
 * Why (measured on an H200, docs/BENCHMARKS.md): kernels that give a warp
 * a strip (or a tile of strips) must find, for every entry, which row it
 * belongs to, from the 4-bit row tags; that costs 2.4 warp instructions
 * per entry and leaves them issue-bound at eta+ 0.8, while a thread that
 * knows its row's range (CSR scalar) needs ~0.3 and reaches 0.84-0.93. A
 * strip pointer (32 bits per h rows) plus a 16-bit offset per row gives
 * every row its range with 2 + 4/h index bytes per row instead of CSR's 4,
 * so this kernel is CSR scalar (L = 1) or CSR vector with L lanes per row
 * (longer rows: each lane strides through the row, the L partial sums are
 * added by shuffles) over fewer index bytes.
 *
 * Row r lies in strip s = r / h and runs from strip_ptr[s] + off[r] to the
 * next row's start (strip_ptr[s + 1] for the strip's last row). Matrix and
 * x loads go through L1: neighbouring lanes read neighbouring rows, so a
 * warp's loads fall in lines L1 has just brought in; the matrix's carry an
 * L2 evict-first policy where x fits in L2 (load_hinted). B > 1 keeps B
 * gathers in flight per thread: that, not the offsets, is what the plain
 * loop lacked against csr-scalar (0.96 against 0.84 eta+ on the Poisson
 * 200^3, docs/BENCHMARKS.md).
 *
 * Strips of one width (CMRS-U, the default where rows are short and even,
 * cmrs_slice_takes) and sliced strips ("sl") take cmrs_rows_slice_kernel
 * below: a thread per row over strips stored column-major.
 *
 * DOT: y = A x and each block's partial sum of x[i] y[i] over the rows it
 * wrote (rows <= cols), for CG's p'q in the SpMV's epilogue; one wave of
 * blocks (dot_grid), so the solver adds few partials.
 */
#include <cstdint>
#include <cstring>
#include <type_traits>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

template <typename T, typename V>
struct rows_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint16_t *row_off;   /* rows: start of row r minus its strip's */
    const uint32_t *colrow;    /* column << 4 | row_in_strip */
    const V *val;              /* T, or float (values32) */
    const T *x;
    T *y;
    double *dot_partials;      /* DOT: one per block */
    const float *corr;         /* values32 (V != T): rows, c_r */
    unsigned rows, height;
    unsigned slice_width;         /* sliced strips of one width (su), else 0 */
    unsigned long long div_magic; /* ceil(2^40 / height): r / h exactly */
    T alpha, beta;
};

/* r / h for r < 2^31, h <= 16: the error of the fixed-point reciprocal,
 * below r / 2^40 < 1/512, cannot cross the next multiple of 1/h. */
template <typename T, typename V>
__device__ __forceinline__ unsigned strip_of(const rows_args<T, V> &a, unsigned r)
{
    return (unsigned)(((unsigned long long)r * a.div_magic) >> 40);
}

/* Row r's range as loaded: its strip's start, its offset and either the
 * next row's offset or (the strip's last row) the next strip's start.
 * Issued apart from their use, so the pipelined kernel keeps these loads
 * in flight over a whole row group. r >= rows: the empty range. */
struct range_raw {
    unsigned base, off, end;
    bool last;
};

template <typename T, typename V>
__device__ __forceinline__ range_raw range_issue(const rows_args<T, V> &a,
                                                 unsigned r)
{
    range_raw q = {0u, 0u, 0u, true};
    if (r < a.rows) {
        const unsigned s = strip_of(a, r);
        q.last = r + 1 == a.rows || r + 1 - s * a.height == a.height;
        q.base = __ldg(a.strip_ptr + s);
        q.off = __ldg(a.row_off + r);
        q.end = q.last ? __ldg(a.strip_ptr + s + 1) : __ldg(a.row_off + r + 1);
    }
    return q;
}

/* [start, end) from the loaded words. */
__device__ __forceinline__ uint2 range_resolve(const range_raw &q)
{
    return make_uint2(q.base + q.off, q.last ? q.end : q.base + q.end);
}

/* [start, end) of row r < rows. */
template <typename T, typename V>
__device__ __forceinline__ uint2 row_range(const rows_args<T, V> &a, unsigned r)
{
    return range_resolve(range_issue(a, r));
}

/* Matrix loads through L1 (its line sharing between neighbouring rows is
 * what makes a thread per row fast) with, for L2FIRST, an evict-first
 * policy in L2, so a matrix read once per product does not push the
 * solver's vectors out of L2 (variant "l2first"). */
template <bool L2FIRST, typename S>
__device__ __forceinline__ S load_hinted(const S *p, uint64_t pol)
{
    if (!L2FIRST) return __ldg(p);
    S v;
    if constexpr (sizeof(S) == 8) {
        unsigned long long bits;
        asm("ld.global.nc.L2::cache_hint.b64 %0, [%1], %2;"
            : "=l"(bits) : "l"(p), "l"(pol));
        memcpy(&v, &bits, sizeof v);
    } else {
        unsigned bits;
        asm("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;"
            : "=r"(bits) : "l"(p), "l"(pol));
        memcpy(&v, &bits, sizeof v);
    }
    return v;
}

/* The policy load_hinted<L2FIRST> takes: L2 evict-first (0 for plain
 * loads, which ignore it). */
template <bool L2FIRST>
__device__ __forceinline__ uint64_t matrix_policy()
{
    uint64_t pol = 0;
    if (L2FIRST)
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

/* B entries of one lane, k0, k0 + L, ..., k0 + (B-1)L, loaded (column
 * words and values) but not yet used: past `end` they are 0. */
template <typename T, int B>
struct batch {
    uint32_t cr[B];
    T v[B];
};

template <typename T, typename V, int L, bool L2FIRST, int B>
__device__ __forceinline__ void batch_load(const rows_args<T, V> &a, unsigned k0,
                                           unsigned end, uint64_t pol,
                                           batch<V, B> &b)
{
#pragma unroll
    for (int j = 0; j < B; ++j) {
        const unsigned k = k0 + j * L;
        b.cr[j] = k < end ? load_hinted<L2FIRST>(a.colrow + k, pol) : 0u;
        b.v[j] = k < end ? load_hinted<L2FIRST>(a.val + k, pol) : V(0);
    }
}

/* The batch's products: all B x gathers first, then the B multiplies. */
template <typename T, typename V, int L, int B>
__device__ __forceinline__ T batch_sum(const rows_args<T, V> &a, unsigned k0,
                                       unsigned end, const batch<V, B> &b)
{
    T xv[B], sum = T(0);
#pragma unroll
    for (int j = 0; j < B; ++j)
        xv[j] = k0 + j * L < end ? __ldg(a.x + (b.cr[j] >> CMRS_ROW_BITS)) : T(0);
#pragma unroll
    for (int j = 0; j < B; ++j) sum += b.v[j] * xv[j];
    return sum;
}

/* This lane's share of row r: entries start + lane, start + lane + L, ...
 * B = 0: one loop step per entry (the compiler unrolls it by 4, remainder
 * first); B = 1: the same loop not unrolled (csr-scalar's shape); B > 1:
 * B entries per step, every lane issuing all B matrix loads and then all
 * B x loads before the first multiply (predicated past the row's end), so
 * a thread keeps B gathers in flight instead of one ("b8"). */
template <typename T, typename V, int L, bool L2FIRST, int B>
__device__ __forceinline__ T row_part(const rows_args<T, V> &a, uint2 range,
                                      unsigned lane, uint64_t pol)
{
    T sum = T(0);
    if constexpr (B <= 1) {
#pragma unroll(B == 1 ? 1 : 4)
        for (unsigned k = range.x + lane; k < range.y; k += L)
            sum += load_hinted<L2FIRST>(a.val + k, pol) *
                   __ldg(a.x + (load_hinted<L2FIRST>(a.colrow + k, pol) >>
                                CMRS_ROW_BITS));
    } else {
        for (unsigned k0 = range.x + lane; k0 < range.y; k0 += B * L) {
            batch<V, B> b;
            batch_load<T, V, L, L2FIRST, B>(a, k0, range.y, pol, b);
            sum += batch_sum<T, V, L, B>(a, k0, range.y, b);
        }
    }
    return sum;
}

/* y[r] = alpha * sum + beta * y[r] by the row's first lane; DOT adds
 * x[r] * y[r] to this thread's dot. Float values (V != T): the row's
 * correction c_r x_r first (cmrs_values32). */
template <typename T, typename V, bool DOT>
__device__ __forceinline__ void row_store(const rows_args<T, V> &a, unsigned r,
                                          bool writer, T sum, double &dot)
{
    if (!writer) return;
    if constexpr (!std::is_same<T, V>::value)
        sum += (T)__ldg(a.corr + r) * __ldg(a.x + r);
    const T yv = a.beta == T(0) ? a.alpha * sum : a.alpha * sum + a.beta * a.y[r];
    a.y[r] = yv;
    if (DOT) dot += (double)__ldg(a.x + r) * (double)yv;
}

/* Sum of the L lanes of each row (L consecutive lanes). */
template <typename T, int L>
__device__ __forceinline__ T lanes_sum(T sum)
{
#pragma unroll
    for (int off = L / 2; off > 0; off /= 2)
        sum += __shfl_xor_sync(full_mask, sum, off);
    return sum;
}

/* Warps stride over groups of 32/L rows, so the loop is warp-uniform and
 * the shuffles of L > 1 see all 32 lanes. */
template <typename T, typename V, int L, bool L2FIRST, int B, bool DOT>
__global__ void __launch_bounds__(1024) cmrs_rows_kernel(rows_args<T, V> a)
{
    constexpr unsigned rows_per_warp = warp / L;
    const uint64_t pol = matrix_policy<L2FIRST>();
    const unsigned lane = threadIdx.x % warp, sub = lane % L;
    const unsigned warps = gridDim.x * (blockDim.x / warp);
    double dot = 0.0;
    for (unsigned first = (blockIdx.x * (blockDim.x / warp) + threadIdx.x / warp) *
                          rows_per_warp;
         first < a.rows; first += warps * rows_per_warp) {
        const unsigned r = first + lane / L;
        const bool valid = r < a.rows;
        T sum = valid ? row_part<T, V, L, L2FIRST, B>(a, row_range(a, r), sub, pol)
                      : T(0);
        sum = lanes_sum<T, L>(sum);
        row_store<T, V, DOT>(a, r, valid && sub == 0, sum, dot);
    }
    if (DOT) write_dot_partial(dot, a.dot_partials);
}

/* The same products, software-pipelined over the row groups a warp walks
 * (one wave of blocks; variant "p1", "p2"): while a group's x gathers are
 * in flight, the loads of the groups after it are too. A thread-per-row
 * kernel otherwise waits on three dependent memory round trips per group
 * (range, matrix, x) with little in flight during the first and last, which
 * bounds it on short rows (vessel: 2.4 KB per warp and round trip, against
 * 3.2 KB on the 7-point Poisson). P = 1: the range two groups ahead;
 * P = 2: also the next group's first B entries per lane. Rows longer than
 * B*L entries finish with row_part. Blocks of at most
 * CMRS_ROWS_PIPE_MAX_BLOCK threads: two batches of 8 doubles per thread
 * do not fit in the 64 registers that 1024-thread blocks allow (ptxas
 * spilled them). */
template <typename T, typename V, int L, bool L2FIRST, int B, bool DOT, int P>
__global__ void __launch_bounds__(CMRS_ROWS_PIPE_MAX_BLOCK)
    cmrs_rows_pipe_kernel(rows_args<T, V> a)
{
    constexpr unsigned rows_per_warp = warp / L;
    const uint64_t pol = matrix_policy<L2FIRST>();
    const unsigned lane = threadIdx.x % warp, sub = lane % L;
    const unsigned step = gridDim.x * (blockDim.x / warp) * rows_per_warp;
    unsigned first = (blockIdx.x * (blockDim.x / warp) + threadIdx.x / warp) *
                     rows_per_warp;
    unsigned r = first + lane / L;
    double dot = 0.0;
    uint2 cur = range_resolve(range_issue(a, r));
    batch<V, B> now;
    if constexpr (P >= 2)
        batch_load<T, V, L, L2FIRST, B>(a, cur.x + sub, cur.y, pol, now);
    range_raw ahead = range_issue(a, r + step);
    for (; first < a.rows; first += step, r += step) {
        const uint2 next = range_resolve(ahead);
        ahead = range_issue(a, r + 2 * step);
        T sum;
        if constexpr (P >= 2) {
            batch<V, B> then; /* next group's batch, issued before our x */
            batch_load<T, V, L, L2FIRST, B>(a, next.x + sub, next.y, pol, then);
            sum = batch_sum<T, V, L, B>(a, cur.x + sub, cur.y, now);
            if (cur.x + sub + B * L < cur.y)
                sum += row_part<T, V, L, L2FIRST, B>(
                    a, make_uint2(cur.x + B * L, cur.y), sub, pol);
            now = then;
        } else {
            sum = row_part<T, V, L, L2FIRST, B>(a, cur, sub, pol);
        }
        sum = lanes_sum<T, L>(sum);
        row_store<T, V, DOT>(a, r, r < a.rows && sub == 0, sum, dot);
        cur = next;
    }
    if (DOT) write_dot_partial(dot, a.dot_partials);
}

/* Sliced strips (variant "sl", cmrs_mat_from_csr_sliced): a thread per
 * row over strips stored column-major, entry j of row r at strip_ptr[s] +
 * j * h_s + l (l = r - s h, h_s: the strip's rows). At every step the
 * lanes of a strip read neighbouring words, as in SELL (one or two lines
 * per load where a lane per row over the CSR-order layout touches ~10),
 * and the matrix loads wait only on the strip's two pointers (one line).
 * A slot below strip_ptr[s + 1] is one of row l's entries when its row tag
 * is l; padding slots carry another tag (cmrs_slice.c), so the kernel
 * reads no row lengths. The first B slots are loaded at once, then x's B
 * gathers; a strip wider than B finishes one slot at a time. UNI: every
 * strip has the width W = a.slice_width ("su"), so strip s starts at
 * s h W and the matrix loads wait on nothing (ELL's access pattern; the
 * strip pointers stay in the format, for the other kernels and the read
 * back). */
template <typename T, typename V, bool L2FIRST, int B, bool DOT, bool UNI>
__global__ void __launch_bounds__(1024) cmrs_rows_slice_kernel(rows_args<T, V> a)
{
    const uint64_t pol = matrix_policy<L2FIRST>();
    double dot = 0.0;
    CMRS_GRID_LOOP_AS(unsigned, r, 0, a.rows) {
        const unsigned s = strip_of(a, r), r0 = s * a.height, l = r - r0;
        const unsigned hs = min(a.height, a.rows - r0);
        const unsigned w = a.slice_width;
        const unsigned end = UNI ? (r0 + hs) * w : __ldg(a.strip_ptr + s + 1);
        const unsigned k0 = (UNI ? r0 * w : __ldg(a.strip_ptr + s)) + l;
        uint32_t cr[B];
        V v[B];
        T xv[B], sum = T(0);
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const unsigned k = k0 + j * hs;
            const bool in = UNI ? j < w : k < end;
            cr[j] = in ? load_hinted<L2FIRST>(a.colrow + k, pol) : ~l;
            v[j] = in ? load_hinted<L2FIRST>(a.val + k, pol) : V(0);
        }
#pragma unroll
        for (int j = 0; j < B; ++j)
            xv[j] = (cr[j] & CMRS_ROW_MASK) == l
                        ? __ldg(a.x + (cr[j] >> CMRS_ROW_BITS)) : T(0);
#pragma unroll
        for (int j = 0; j < B; ++j) sum += v[j] * xv[j];
        for (unsigned k = k0 + B * hs; k < end; k += hs) {
            const uint32_t word = load_hinted<L2FIRST>(a.colrow + k, pol);
            if ((word & CMRS_ROW_MASK) == l)
                sum += load_hinted<L2FIRST>(a.val + k, pol) *
                       __ldg(a.x + (word >> CMRS_ROW_BITS));
        }
        row_store<T, V, DOT>(a, r, true, sum, dot);
    }
    if (DOT) write_dot_partial(dot, a.dot_partials);
}

template <typename T, typename V>
using rows_fn = void (*)(rows_args<T, V>);

/* The plain kernel (P = 0) or the pipelined one. */
template <typename T, typename V, int L, bool L2FIRST, int B, bool DOT, int P>
constexpr rows_fn<T, V> kernel_of()
{
    if constexpr (P > 0)
        return cmrs_rows_pipe_kernel<T, V, L, L2FIRST, B, DOT, P>;
    else
        return cmrs_rows_kernel<T, V, L, L2FIRST, B, DOT>;
}

template <typename T, typename V, bool L2FIRST, int B, bool DOT, int P>
rows_fn<T, V> pick_lanes(int lanes)
{
    switch (lanes) {
    case 2: return kernel_of<T, V, 2, L2FIRST, B, DOT, P>();
    case 4: return kernel_of<T, V, 4, L2FIRST, B, DOT, P>();
    case 8: return kernel_of<T, V, 8, L2FIRST, B, DOT, P>();
    default: return kernel_of<T, V, 1, L2FIRST, B, DOT, P>();
    }
}

/* Pipelining (row_pipe 1, 2) takes batches of 4, 6 or 8 (checked by
 * rows_configure_t). */
template <typename T, typename V, bool L2FIRST, int B, bool DOT>
rows_fn<T, V> pick_pipe(int pipe, int lanes)
{
    return pipe == 1 ? pick_lanes<T, V, L2FIRST, B, DOT, 1>(lanes)
                     : pick_lanes<T, V, L2FIRST, B, DOT, 2>(lanes);
}

template <typename T, typename V, bool L2FIRST, bool DOT>
rows_fn<T, V> pick_batch(const cmrs_variant &v)
{
    const int lanes = v.row_lanes;
    if (v.row_pipe > 0)
        return v.row_batch == 4   ? pick_pipe<T, V, L2FIRST, 4, DOT>(v.row_pipe, lanes)
               : v.row_batch == 6 ? pick_pipe<T, V, L2FIRST, 6, DOT>(v.row_pipe, lanes)
                                  : pick_pipe<T, V, L2FIRST, 8, DOT>(v.row_pipe, lanes);
    switch (v.row_batch) {
    case 1: return pick_lanes<T, V, L2FIRST, 1, DOT, 0>(lanes);
    case 4: return pick_lanes<T, V, L2FIRST, 4, DOT, 0>(lanes);
    case 6: return pick_lanes<T, V, L2FIRST, 6, DOT, 0>(lanes);
    case 8: return pick_lanes<T, V, L2FIRST, 8, DOT, 0>(lanes);
    default: return pick_lanes<T, V, L2FIRST, 0, DOT, 0>(lanes); /* b0 */
    }
}

template <typename T, typename V, bool L2FIRST, bool DOT, bool UNI>
rows_fn<T, V> pick_slice_b(int batch)
{
    switch (batch) {
    case 4: return cmrs_rows_slice_kernel<T, V, L2FIRST, 4, DOT, UNI>;
    case 5: return cmrs_rows_slice_kernel<T, V, L2FIRST, 5, DOT, UNI>;
    case 6: return cmrs_rows_slice_kernel<T, V, L2FIRST, 6, DOT, UNI>;
    case 7: return cmrs_rows_slice_kernel<T, V, L2FIRST, 7, DOT, UNI>;
    default: return cmrs_rows_slice_kernel<T, V, L2FIRST, 8, DOT, UNI>;
    }
}

template <typename T, typename V, bool L2FIRST, bool DOT>
rows_fn<T, V> pick_slice(const cmrs_variant &v)
{
    return v.row_sliced == 2 ? pick_slice_b<T, V, L2FIRST, DOT, true>(v.row_batch)
                             : pick_slice_b<T, V, L2FIRST, DOT, false>(v.row_batch);
}

template <typename T, typename V, bool DOT>
rows_fn<T, V> pick_l2(const cmrs_variant &v)
{
    if (v.row_sliced > 0)
        return v.l2first > 0 ? pick_slice<T, V, true, DOT>(v)
                             : pick_slice<T, V, false, DOT>(v);
    return v.l2first > 0 ? pick_batch<T, V, true, DOT>(v) : pick_batch<T, V, false, DOT>(v);
}

template <typename T, typename V>
rows_fn<T, V> rows_kernel(const cmrs_variant &v, bool dot)
{
    return dot ? pick_l2<T, V, true>(v) : pick_l2<T, V, false>(v);
}

/* Plain products: enough blocks for every row group (one pass, like CSR
 * scalar); pipelined, or with x'y: one wave (one_wave). */
template <typename T, typename V>
cmrs_code rows_configure_t(cmrs_spmv *self, cmrs_impl *im)
{
    const int lanes = im->variant.row_lanes, block = im->block;
    CMRS_ENSURE(im->variant.row_pipe == 0 ||
                    im->variant.row_batch >= CMRS_ROWS_PIPE_MIN_BATCH,
                CMRS_E_USAGE, "CMRS_CMRS_VARIANT: p1 and p2 pipeline batches "
                "of 4, 6 or 8 entries (b4, b6, b8), not b0 or b1");
    CMRS_ENSURE(im->variant.row_pipe == 0 || block <= CMRS_ROWS_PIPE_MAX_BLOCK,
                CMRS_E_USAGE, "%s: the pipelined rows kernel (p1, p2) takes "
                "blocks of at most %d threads, not %d", self->ops->name,
                CMRS_ROWS_PIPE_MAX_BLOCK, block);
    CMRS_ENSURE(im->variant.row_sliced <= 0 ||
                    (lanes == 1 && im->variant.row_pipe == 0 &&
                     im->variant.row_batch >= CMRS_ROWS_PIPE_MIN_BATCH),
                CMRS_E_USAGE, "CMRS_CMRS_VARIANT: sl (sliced strips) takes a "
                "lane per row, batches of 4 to 8 and no pipelining (rows1, "
                "b4..b8, p0)");
    const int odd = im->variant.row_batch == 5 || im->variant.row_batch == 7;
    CMRS_ENSURE(im->variant.row_sliced > 0 || !odd, CMRS_E_USAGE,
                "CMRS_CMRS_VARIANT: b5 and b7 go with sl (sliced strips) "
                "only");
    const int64_t rows_per_block = (int64_t)block / lanes;
    const unsigned need = cmrs_grid::blocks(self->rows, rows_per_block);
    int per_sm = 0;
    im->smem = 0;
    CMRS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, rows_kernel<T, V>(im->variant, false), block, 0));
    CMRS_ENSURE(per_sm > 0, CMRS_E_USAGE, "%s: a block of %d threads does not "
                "fit on this GPU; use a smaller block size", self->ops->name,
                block);
    im->grid = (int)need;
    if (im->variant.row_pipe > 0) /* warps walk many groups: one wave */
        CMRS_CHECK(one_wave(rows_kernel<T, V>(im->variant, false), block, 0,
                            need, &im->grid));
    CMRS_CHECK(one_wave(rows_kernel<T, V>(im->variant, true), block, 0, need,
                        &im->dot_grid));
    cap_grids(self, im);
    return CMRS_OK;
}

/* y = alpha A x + beta y over values val_d of type V (mat.values_d, or
 * the float copy with its corrections corr_d). */
template <typename T, typename V>
cmrs_code rows_launch_t(cmrs_spmv *self, double alpha, const void *x_d,
                        double beta, void *y_d, double *partials_d,
                        const V *val_d, const float *corr_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    const unsigned h = (unsigned)im->mat.height;
    const bool dot = partials_d != nullptr;
    rows_args<T, V> a = {im->mat.strip_ptr_d, im->mat.row_off_d,
                         im->mat.colrow_d, val_d, (const T *)x_d, (T *)y_d,
                         partials_d, corr_d, (unsigned)im->mat.rows, h,
                         (unsigned)im->mat.slice_width,
                         ((1ull << 40) + h - 1) / h, (T)alpha, (T)beta};
    rows_kernel<T, V>(im->variant, dot)<<<dot ? im->dot_grid : im->grid,
                                          im->block, 0, self->stream>>>(a);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_rows_configure(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    if (self->opts.values32 > 0 && self->prec == CMRS_PREC_DOUBLE)
        CMRS_CHECK((rows_configure_t<double, float>(self, im)));
    else
        CMRS_PREC_DISPATCH(self->prec, T,
                           CMRS_CHECK((rows_configure_t<T, T>(self, im))));
    return CMRS_OK;
}

cmrs_code cmrs_rows_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d, double *partials_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    if (im->v32.values_d) {
        CMRS_CHECK((rows_launch_t<double, float>(self, alpha, x_d, beta, y_d,
                                                 partials_d, im->v32.values_d,
                                                 im->v32.corr_d)));
        return CMRS_OK;
    }
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK((rows_launch_t<T, T>(
                           self, alpha, x_d, beta, y_d, partials_d,
                           (const T *)im->mat.values_d, nullptr))));
    return CMRS_OK;
}

/* The narrowing's flag, waited for: a value beyond float is refused as
 * single precision refuses it (its CSR index: through the layout's
 * permutation where it has one), not rounded to infinity. */
static cmrs_code narrow_check(cmrs_spmv *self)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    unsigned long long bad = 0;
    double v = 0;
    int32_t csr = 0;
    CMRS_CUDA(cudaMemcpyAsync(&bad, im->v32.bad_d, sizeof bad,
                              cudaMemcpyDeviceToHost, self->stream));
    CMRS_CUDA(cudaStreamSynchronize(self->stream));
    if (bad == ~0ull) return CMRS_OK;
    CMRS_CUDA(cudaMemcpy(&v, (const double *)im->mat.values_d + bad,
                         sizeof v, cudaMemcpyDeviceToHost));
    if (im->perm_d)
        CMRS_CUDA(cudaMemcpy(&csr, im->perm_d + bad, sizeof csr,
                             cudaMemcpyDeviceToHost));
    const long long at = im->perm_d ? (long long)csr : (long long)bad;
    CMRS_ENSURE(isfinite(v), CMRS_E_INPUT, "%s: value %g at index %lld is "
                "not finite", self->ops->name, v, at);
    CMRS_FAIL(CMRS_E_INPUT, "%s: value %g at index %lld does not fit a "
              "float, which float values under double vectors (values32, "
              "--mixed values) need", self->ops->name, v, at);
}

cmrs_code cmrs_rows_narrow(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    cmrs_values32 *v = &im->v32;
    /* the stored entries only: the rows kernel reads no padding past them
     * (the float copy's CMRS_TILE_PAD tail stays zero from its creation) */
    const int64_t n = im->mat.rows, stored = self->stored_entries;
    const double *vals_d = (const double *)im->mat.values_d;
    cudaStream_t st = self->stream;
    if (n == 0) return CMRS_OK;
    /* sums = A 1 - fl(A) 1: the fl(A) product adds corr_d's c_r x_r, so
     * corr_d is zeroed first. */
    CMRS_CHECK((rows_launch_t<double, double>(self, 1.0, v->ones_d, 0.0,
                                              v->sums_d, nullptr, vals_d,
                                              nullptr)));
    /* the values rounded to float, one beyond its range flagged */
    CMRS_CUDA(cudaMemsetAsync(v->bad_d, 0xff, sizeof *v->bad_d, st));
    CMRS_CHECK(cmrs_dev_store_values_on(vals_d, NULL, stored,
                                        CMRS_PREC_SINGLE, v->values_d,
                                        v->bad_d, st));
    CMRS_CUDA(cudaMemsetAsync(v->corr_d, 0, (size_t)n * sizeof(float), st));
    CMRS_CHECK((rows_launch_t<double, float>(self, -1.0, v->ones_d, 1.0,
                                             v->sums_d, nullptr, v->values_d,
                                             v->corr_d)));
    CMRS_CHECK(cmrs_dev_store_values_on(v->sums_d, NULL, n, CMRS_PREC_SINGLE,
                                        v->corr_d, NULL, st));
    CMRS_CHECK(narrow_check(self));
    return CMRS_OK;
}

void cmrs_values32_free(cmrs_values32 *v)
{
    if (!v) return;
    CMRS_GPU_FREE_ALL(v->values_d, v->corr_d, v->ones_d, v->sums_d,
                      v->bad_d);
    memset(v, 0, sizeof *v);
}

__global__ void k_fill_ones(double *x, int64_t n)
{
    CMRS_GRID_LOOP(i, n) x[i] = 1.0;
}

cmrs_code cmrs_rows_values32_take(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    if (self->opts.values32 <= 0) return CMRS_OK;
    CMRS_ENSURE(im->variant.kernel == CMRS_KERNEL_ROWS, CMRS_E_USAGE,
                "%s: float values under double vectors go with "
                "the rows kernel only (this matrix took another: rows too long "
                "for its 16-bit offsets, or a CMRS_CMRS_VARIANT)",
                self->ops->name);
    cmrs_values32 *v = &im->v32;
    const int64_t n = im->mat.rows;
    const size_t len = (size_t)self->stored_entries + CMRS_TILE_PAD;
    CMRS_CUDA(cmrs_dev_malloc((void **)&v->values_d, len * sizeof(float)));
    CMRS_CUDA(cudaMemsetAsync(v->values_d, 0, len * sizeof(float),
                              self->stream));
    CMRS_CUDA(cmrs_dev_malloc((void **)&v->corr_d,
                         (size_t)(n > 0 ? n : 1) * sizeof(float)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&v->ones_d,
                         (size_t)(n > 0 ? n : 1) * sizeof(double)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&v->sums_d,
                         (size_t)(n > 0 ? n : 1) * sizeof(double)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&v->bad_d, sizeof *v->bad_d));
    if (n > 0) {
        k_fill_ones<<<cmrs_grid::blocks(n, 256), 256, 0, self->stream>>>(
            v->ones_d, n);
        CMRS_LAUNCH_CHECK();
    }
    self->device_bytes += len * sizeof(float) +
                          (size_t)n * (sizeof(float) + 2 * sizeof(double));
    CMRS_CHECK(cmrs_rows_narrow(self));
    return CMRS_OK;
}
