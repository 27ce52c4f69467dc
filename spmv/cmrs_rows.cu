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
 * DOT: y = A x and each block's partial sum of x[i] y[i] over the rows it
 * wrote (square A), for CG's p'q in the SpMV's epilogue; one wave of
 * blocks (dot_grid), so the solver adds few partials.
 */
#include <cstdint>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "device.h"
#include "cuda_check.h"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

template <typename T>
struct rows_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint16_t *row_off;   /* rows: start of row r minus its strip's */
    const uint32_t *colrow;    /* column << 4 | row_in_strip */
    const T *val;
    const T *x;
    T *y;
    double *dot_partials;      /* DOT: one per block */
    unsigned rows, height;
    unsigned long long div_magic; /* ceil(2^40 / height): r / h exactly */
    T alpha, beta;
};

/* r / h for r < 2^31, h <= 16: the error of the fixed-point reciprocal,
 * below r / 2^40 < 1/512, cannot cross the next multiple of 1/h. */
template <typename T>
__device__ __forceinline__ unsigned strip_of(const rows_args<T> &a, unsigned r)
{
    return (unsigned)(((unsigned long long)r * a.div_magic) >> 40);
}

/* [start, end) of row r. */
template <typename T>
__device__ __forceinline__ uint2 row_range(const rows_args<T> &a, unsigned r)
{
    const unsigned s = strip_of(a, r);
    const unsigned base = __ldg(a.strip_ptr + s);
    const unsigned start = base + __ldg(a.row_off + r);
    const bool last = r + 1 == a.rows || r + 1 - s * a.height == a.height;
    const unsigned end = last ? __ldg(a.strip_ptr + s + 1)
                              : base + __ldg(a.row_off + r + 1);
    return make_uint2(start, end);
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

/* This lane's share of row r: entries start + lane, start + lane + L, ...
 * B = 0: one loop step per entry (the compiler unrolls it by 4, remainder
 * first); B = 1: the same loop not unrolled (csr-scalar's shape); B > 1:
 * B entries per step, every lane issuing all B matrix loads and then all
 * B x loads before the first multiply (predicated past the row's end), so
 * a thread keeps B gathers in flight instead of one ("b8"). */
template <typename T, int L, bool L2FIRST, int B>
__device__ __forceinline__ T row_part(const rows_args<T> &a, uint2 range,
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
            uint32_t cr[B];
            T v[B], xv[B];
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const unsigned k = k0 + j * L;
                cr[j] = k < range.y ? load_hinted<L2FIRST>(a.colrow + k, pol) : 0u;
                v[j] = k < range.y ? load_hinted<L2FIRST>(a.val + k, pol) : T(0);
            }
#pragma unroll
            for (int j = 0; j < B; ++j)
                xv[j] = k0 + j * L < range.y ? __ldg(a.x + (cr[j] >> CMRS_ROW_BITS))
                                             : T(0);
#pragma unroll
            for (int j = 0; j < B; ++j) sum += v[j] * xv[j];
        }
    }
    return sum;
}

/* Warps stride over groups of 32/L rows, so the loop is warp-uniform and
 * the shuffles of L > 1 see all 32 lanes. */
template <typename T, int L, bool L2FIRST, int B, bool DOT>
__global__ void __launch_bounds__(1024) cmrs_rows_kernel(rows_args<T> a)
{
    constexpr unsigned rows_per_warp = warp / L;
    uint64_t pol = 0;
    if (L2FIRST)
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    const unsigned lane = threadIdx.x % warp, sub = lane % L;
    const unsigned warps = gridDim.x * (blockDim.x / warp);
    double dot = 0.0;
    for (unsigned first = (blockIdx.x * (blockDim.x / warp) + threadIdx.x / warp) *
                          rows_per_warp;
         first < a.rows; first += warps * rows_per_warp) {
        const unsigned r = first + lane / L;
        const bool valid = r < a.rows;
        T sum = valid ? row_part<T, L, L2FIRST, B>(a, row_range(a, r), sub, pol)
                      : T(0);
#pragma unroll
        for (int off = L / 2; off > 0; off /= 2)
            sum += __shfl_xor_sync(full_mask, sum, off);
        if (valid && sub == 0) {
            const T yv = a.beta == T(0) ? a.alpha * sum
                                        : a.alpha * sum + a.beta * a.y[r];
            a.y[r] = yv;
            if (DOT) dot += (double)__ldg(a.x + r) * (double)yv;
        }
    }
    if (DOT) write_dot_partial(dot, a.dot_partials);
}

template <typename T>
using rows_fn = void (*)(rows_args<T>);

template <typename T, bool L2FIRST, int B, bool DOT>
rows_fn<T> pick_lanes(int lanes)
{
    switch (lanes) {
    case 2: return cmrs_rows_kernel<T, 2, L2FIRST, B, DOT>;
    case 4: return cmrs_rows_kernel<T, 4, L2FIRST, B, DOT>;
    case 8: return cmrs_rows_kernel<T, 8, L2FIRST, B, DOT>;
    default: return cmrs_rows_kernel<T, 1, L2FIRST, B, DOT>;
    }
}

template <typename T, bool L2FIRST, bool DOT>
rows_fn<T> pick_batch(int lanes, int batch)
{
    switch (batch) {
    case 1: return pick_lanes<T, L2FIRST, 1, DOT>(lanes);
    case 4: return pick_lanes<T, L2FIRST, 4, DOT>(lanes);
    case 8: return pick_lanes<T, L2FIRST, 8, DOT>(lanes);
    default: return pick_lanes<T, L2FIRST, 0, DOT>(lanes); /* b0 */
    }
}

template <typename T, bool DOT>
rows_fn<T> pick_l2(const cmrs_variant &v)
{
    return v.l2first > 0 ? pick_batch<T, true, DOT>(v.row_lanes, v.row_batch)
                     : pick_batch<T, false, DOT>(v.row_lanes, v.row_batch);
}

template <typename T>
rows_fn<T> rows_kernel(const cmrs_variant &v, bool dot)
{
    return dot ? pick_l2<T, true>(v) : pick_l2<T, false>(v);
}

/* Plain products: enough blocks for every row group (one pass, like CSR
 * scalar). With x'y: one wave (one_wave). */
template <typename T>
cmrs_code rows_configure_t(cmrs_spmv *self, cmrs_impl *im)
{
    const int lanes = im->variant.row_lanes, block = im->block;
    const int64_t rows_per_block = (int64_t)block / lanes;
    int64_t need = (self->rows + rows_per_block - 1) / rows_per_block;
    int per_sm = 0;
    im->smem = 0;
    CMRS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, rows_kernel<T>(im->variant, false), block, 0));
    CMRS_ENSURE(per_sm > 0, CMRS_E_USAGE, "%s: a block of %d threads does not "
                "fit on this GPU; use a smaller block size", self->ops->name,
                block);
    if (need < 1) need = 1;
    im->grid = (int)(need < INT32_MAX ? need : INT32_MAX);
    CMRS_CHECK(one_wave(rows_kernel<T>(im->variant, true), block, 0, need,
                        &im->dot_grid));
    if (im->variant.grid_cap > 0) {
        if (im->grid > im->variant.grid_cap) im->grid = im->variant.grid_cap;
        if (im->dot_grid > im->variant.grid_cap)
            im->dot_grid = im->variant.grid_cap;
    }
    self->dot_parts = self->rows == self->cols ? im->dot_grid : 0;
    return CMRS_OK;
}

template <typename T>
cmrs_code rows_launch_t(cmrs_spmv *self, double alpha, const void *x_d,
                        double beta, void *y_d, double *partials_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    const unsigned h = (unsigned)im->mat.height;
    const bool dot = partials_d != nullptr;
    rows_args<T> a = {im->mat.strip_ptr_d, im->mat.row_off_d, im->mat.colrow_d,
                      (const T *)im->mat.values_d, (const T *)x_d, (T *)y_d,
                      partials_d, (unsigned)im->mat.rows, h,
                      ((1ull << 40) + h - 1) / h, (T)alpha, (T)beta};
    rows_kernel<T>(im->variant, dot)<<<dot ? im->dot_grid : im->grid,
                                       im->block, 0, self->stream>>>(a);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

int cmrs_row_lanes(double mu)
{
    return mu < CMRS_ROWS_LANES2_MU ? 1 : mu < CMRS_ROWS_LANES8_MU ? 2 : 8;
}

cmrs_code cmrs_rows_configure(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    if (self->prec == CMRS_PREC_SINGLE)
        CMRS_CHECK(rows_configure_t<float>(self, im));
    else
        CMRS_CHECK(rows_configure_t<double>(self, im));
    return CMRS_OK;
}

cmrs_code cmrs_rows_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d)
{
    if (self->prec == CMRS_PREC_SINGLE)
        CMRS_CHECK(rows_launch_t<float>(self, alpha, x_d, beta, y_d, nullptr));
    else
        CMRS_CHECK(rows_launch_t<double>(self, alpha, x_d, beta, y_d, nullptr));
    return CMRS_OK;
}

cmrs_code cmrs_rows_apply_dot(cmrs_spmv *self, const void *x_d, void *y_d,
                              double *partials_d)
{
    if (self->prec == CMRS_PREC_SINGLE)
        CMRS_CHECK(rows_launch_t<float>(self, 1.0, x_d, 0.0, y_d, partials_d));
    else
        CMRS_CHECK(rows_launch_t<double>(self, 1.0, x_d, 0.0, y_d, partials_d));
    return CMRS_OK;
}
