/* The "cmrs" format: the basic CMRS layout of paper 000, its setup and
 * kernel dispatch. The default kernel gives L lanes to each row, found from
 * its strip pointer and a 16-bit offset in the strip (cmrs_rows.cu); tiles
 * of strips per warp (cmrs_tile.cu), the segmented scans (cmrs_seg.cu) and
 * the paper's own scheme below are variants kept for measurement
 * (CMRS_CMRS_VARIANT), the latter also serving the column-sorted layout.
 *
 * The paper's scheme (Algorithm 1 and the appendix), rebuilt for Hopper:
 * one warp per strip, warps striding over strips. Lane i adds the entries
 * start+i, start+i+32, ... into per-row partial sums, then the warp reduces
 * the h rows and lanes write y. Where the 2013 kernel kept a 32 x h buffer
 * in shared memory and reduced it with volatile warp-synchronous code, the
 * default here keeps the partial sums in registers (acc[r], indexed only by
 * compile-time constants, so nothing spills to local memory) and reduces
 * them with shuffles (transpose_reduce). Variants (CMRS_CMRS_VARIANT, see
 * cmrs_setup.h): smem = the paper's per-lane shared-memory buffer, align =
 * the paper's aligned reads. Kernels are templated on h so the per-row
 * loops unroll. */
#include <cstdint>
#include <cstdlib>
#include <utility>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"
#include "spmv/csr_view.h"

namespace {

using namespace cmrs_k;

template <typename T>
struct basic_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint32_t *colrow;    /* column << 4 | row_in_strip */
    const T *val;
    const T *x;
    T *y;
    unsigned rows, strips;
    int aligned; /* chunks start at multiples of 32 entries */
    T alpha, beta;
};

/* Registers: a predicated add per row, so acc[] needs no dynamic index.
 * Shared memory: the lane's own column, row r at col[32 r] (no other lane
 * touches it, so no synchronisation is needed). */
template <int H, int P, typename T, bool SMEM>
__device__ __forceinline__ void add_entry(T (&acc)[P], T *col, entry<T> e)
{
    if (SMEM) {
        col[e.row * warp] += e.prod;
    } else {
#pragma unroll
        for (int r = 0; r < H; ++r)
            if (e.row == (unsigned)r) acc[r] += e.prod;
    }
}

/* The lane's partial sums over entries [start, end) of one strip; two
 * entries per trip so each lane has more loads in flight. */
template <int H, int P, typename T, bool SMEM, bool STREAM>
__device__ __forceinline__ void strip_partials(const basic_args<T> &a,
                                               unsigned start, unsigned end,
                                               unsigned lane, T (&acc)[P],
                                               T *col)
{
    const auto load = [&a](unsigned k) {
        return load_entry<STREAM>(a.colrow, a.val, a.x, k);
    };
    unsigned j = (a.aligned ? start & ~(unsigned)(warp - 1) : start) + lane;
    if (j >= start && j < end) add_entry<H, P, T, SMEM>(acc, col, load(j));
    for (j += warp; j + warp < end; j += 2 * warp) {
        const entry<T> e0 = load(j), e1 = load(j + warp);
        add_entry<H, P, T, SMEM>(acc, col, e0);
        add_entry<H, P, T, SMEM>(acc, col, e1);
    }
    if (j < end) add_entry<H, P, T, SMEM>(acc, col, load(j));
}

template <int H, typename T, bool SMEM, bool STREAM>
__global__ void __launch_bounds__(1024, 1) cmrs_basic_kernel(basic_args<T> a)
{
    constexpr int P = pow2_ceil(H); /* rows H..P-1 stay zero */
    constexpr unsigned per_row = warp / P; /* lanes holding each row sum */
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const unsigned lane = threadIdx.x % warp;
    const unsigned warps_per_block = blockDim.x / warp;
    T *col = SMEM ? reinterpret_cast<T *>(smem_raw) +
                        (threadIdx.x / warp) * (H * warp) + lane
                  : nullptr;
    for (unsigned s = blockIdx.x * warps_per_block + threadIdx.x / warp;
         s < a.strips; s += gridDim.x * warps_per_block) {
        T acc[P];
#pragma unroll
        for (int r = 0; r < P; ++r) acc[r] = T(0);
        if (SMEM) {
#pragma unroll
            for (int r = 0; r < H; ++r) col[r * warp] = T(0);
        }
        strip_partials<H, P, T, SMEM, STREAM>(
            a, __ldg(a.strip_ptr + s), __ldg(a.strip_ptr + s + 1), lane, acc,
            col);
        if (SMEM) {
#pragma unroll
            for (int r = 0; r < H; ++r) acc[r] = col[r * warp];
        }
        const T sum = transpose_reduce<P, warp>(acc, lane);
        const unsigned r = lane / per_row, row = s * H + r;
        if (lane % per_row == 0 && r < H && row < a.rows)
            store_row(a.y, row, sum, a.alpha, a.beta);
    }
}

template <typename T>
using basic_fn = void (*)(basic_args<T>);

template <typename T, bool SMEM, bool STREAM, int... I>
basic_fn<T> pick(int h, std::integer_sequence<int, I...>)
{
    const basic_fn<T> fns[] = {cmrs_basic_kernel<I + 1, T, SMEM, STREAM>...};
    return fns[h - 1];
}

template <typename T>
basic_fn<T> kernel_for(int h, const cmrs_variant &v)
{
    using heights = std::make_integer_sequence<int, CMRS_MAX_HEIGHT>;
    if (v.smem)
        return v.stream ? pick<T, true, true>(h, heights{})
                        : pick<T, true, false>(h, heights{});
    return v.stream ? pick<T, false, true>(h, heights{})
                    : pick<T, false, false>(h, heights{});
}

template <typename T>
cmrs_code configure(cmrs_spmv *self, cmrs_impl *im)
{
    const int h = self->opts.height;
    im->smem = im->variant.smem
                   ? (size_t)(im->block / warp) * h * warp * sizeof(T)
                   : 0;
    CMRS_CHECK(launch_config(kernel_for<T>(h, im->variant), im->block,
                             im->smem, self->strips, self->ops->name,
                             &im->grid));
    return CMRS_OK;
}

/* Tiles of strips: as many strips as fill a chunk (or g=N), for mean row
 * length mu. */
cmrs_code tile_setup(cmrs_spmv *self, double mu, cmrs_impl *im)
{
    const int h = self->opts.height;
    im->variant.tile_entries =
        cmrs_tile_entries(&im->variant, self->prec, self->opts.block_size);
    int g = im->variant.tile_strips;
    if (g == 0) g = cmrs_tile_strips(mu, h, im->variant.tile_entries);
    if (g * h > CMRS_TILE_MAX_ROWS) g = CMRS_TILE_MAX_ROWS / h;
    im->tile_strips = g;
    im->tiles = (self->strips + g - 1) / g;
    CMRS_CHECK(cmrs_tile_configure(self));
    return CMRS_OK;
}

/* The chosen kernel's launch configuration, once the matrix is on the
 * device. Reads only A's counts, so a matrix set up from device arrays
 * (basic_setup_dev) is configured the same way. */
cmrs_code configure_kernel(cmrs_spmv *self, const cmrs_csr *A)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    const double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
    switch (im->variant.kernel) {
    case CMRS_KERNEL_ROWS: {
        int dev = 0, l2 = 0;
        CMRS_CUDA(cudaGetDevice(&dev));
        CMRS_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        cmrs_rows_defaults(A, self->prec, (size_t)l2,
                           self->opts.context_vectors, self->opts.block_size,
                           &im->variant);
        CMRS_CHECK(cmrs_rows_configure(self));
        break;
    }
    case CMRS_KERNEL_TILE: CMRS_CHECK(tile_setup(self, mu, im)); break;
    case CMRS_KERNEL_SEG: CMRS_CHECK(cmrs_seg_configure(self)); break;
    case CMRS_KERNEL_REG:
        CMRS_PREC_DISPATCH(self->prec, T, CMRS_CHECK(configure<T>(self, im)));
        break;
    case CMRS_KERNEL_AUTO: /* resolved by cmrs_impl_setup */
        CMRS_FAIL(CMRS_E_INTERNAL, "cmrs: kernel not chosen at setup");
    }
    return CMRS_OK;
}

cmrs_code basic_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    CMRS_CHECK(cmrs_impl_setup(self, A, 0));
    CMRS_CHECK(configure_kernel(self, A));
    CMRS_CHECK(cmrs_rows_values32_take(self));
    return CMRS_OK;
}

/* From device arrays (the AMG's P, R and A_c): the CSR-order layout, which
 * every kernel but the sorted strips' takes, is built on the GPU with no
 * host copy (cmrs_impl_setup_dev). Sorted strips are reordered by the
 * host conversion, so for them (opts.sorted > 0, never the AMG's choice)
 * M is downloaded and set up by basic_setup. */
cmrs_code basic_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    if (self->opts.sorted > 0) {
        CMRS_CHECK(cmrs_spmv_setup_host_copy(self, M));
        return CMRS_OK;
    }
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    CMRS_CHECK(cmrs_impl_setup_dev(self, M));
    CMRS_CHECK(configure_kernel(self, &counts));
    CMRS_CHECK(cmrs_rows_values32_take(self));
    return CMRS_OK;
}

template <typename T>
cmrs_code launch(cmrs_spmv *self, double alpha, const void *x_d, double beta,
                 void *y_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    basic_args<T> a = {im->mat.strip_ptr_d, im->mat.colrow_d,
                       (const T *)im->mat.values_d, (const T *)x_d, (T *)y_d,
                       (unsigned)im->mat.rows, (unsigned)im->mat.strips,
                       im->variant.aligned, (T)alpha, (T)beta};
    kernel_for<T>(im->mat.height, im->variant)
        <<<im->grid, im->block, im->smem, self->stream>>>(a);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* y = alpha*A*x + beta*y by the chosen kernel over the stored matrix. */
cmrs_code kernel_apply(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    switch (((const cmrs_impl *)self->impl)->variant.kernel) {
    case CMRS_KERNEL_ROWS:
        CMRS_CHECK(cmrs_rows_apply(self, alpha, x_d, beta, y_d, nullptr));
        return CMRS_OK;
    case CMRS_KERNEL_TILE:
        CMRS_CHECK(cmrs_tile_apply(self, alpha, x_d, beta, y_d, nullptr));
        return CMRS_OK;
    case CMRS_KERNEL_SEG:
        CMRS_CHECK(cmrs_seg_apply(self, alpha, x_d, beta, y_d));
        return CMRS_OK;
    case CMRS_KERNEL_REG: break;
    case CMRS_KERNEL_AUTO:
        CMRS_FAIL(CMRS_E_INTERNAL, "cmrs: kernel not chosen at setup");
    }
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(launch<T>(self, alpha, x_d, beta, y_d)));
    return CMRS_OK;
}

/* Stored as B = P A P^T (cmrs_reorder.h): xp = P x, yp = B xp, then y
 * from yp. */
cmrs_code basic_apply(cmrs_spmv *self, double alpha, const void *x_d,
                      double beta, void *y_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    if (self->strips == 0) return CMRS_OK; /* no rows: nothing to compute */
    if (!im->reorder.xp_d) return kernel_apply(self, alpha, x_d, beta, y_d);
    CMRS_CHECK(cmrs_reorder_gather_x(&im->reorder, self->prec, self->rows,
                                     x_d, self->stream));
    CMRS_CHECK(kernel_apply(self, 1.0, im->reorder.xp_d, 0.0,
                            im->reorder.yp_d));
    CMRS_CHECK(cmrs_reorder_put_y(&im->reorder, self->prec, self->rows, alpha,
                                  beta, y_d, self->stream));
    return CMRS_OK;
}

/* The rows and tile kernels carry the x'y epilogue (self->dot_parts > 0;
 * cmrs_spmv_apply_dot checks it before calling). Reordered, the kernel
 * sums xp'yp, the same terms as x'y in another order. */
cmrs_code basic_apply_dot(cmrs_spmv *self, const void *x_d, void *y_d,
                          double *partials_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    const bool reordered = im->reorder.xp_d != nullptr;
    const void *in_d = reordered ? im->reorder.xp_d : x_d;
    void *out_d = reordered ? im->reorder.yp_d : y_d;
    if (reordered)
        CMRS_CHECK(cmrs_reorder_gather_x(&im->reorder, self->prec, self->rows,
                                         x_d, self->stream));
    if (im->variant.kernel == CMRS_KERNEL_ROWS)
        CMRS_CHECK(cmrs_rows_apply(self, 1.0, in_d, 0.0, out_d, partials_d));
    else
        CMRS_CHECK(cmrs_tile_apply(self, 1.0, in_d, 0.0, out_d, partials_d));
    if (reordered)
        CMRS_CHECK(cmrs_reorder_put_y(&im->reorder, self->prec, self->rows,
                                      1.0, 0.0, y_d, self->stream));
    return CMRS_OK;
}

} // namespace

/* The basic layout in CSR order (values widened in single): the CSR arrays come back
 * from it on the device (cmrs_mat_dev_csr_get), from B = P A P^T through
 * its maps (cmrs_mat_dev_csr_get_reordered) and from the one-width sliced
 * layout through its permutation (cmrs_mat_dev_csr_get_sliced). */
cmrs_code basic_csr_get_d(cmrs_spmv *self, int32_t *indptr_d,
                          int32_t *indices_d, double *values_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    const bool reordered = im->reorder.xp_d != nullptr;
    const bool sliced = im->mat.slice_width > 0;
    CMRS_ENSURE((!im->perm_d || reordered || sliced) &&
                    self->nnz <= INT32_MAX,
                CMRS_E_USAGE, "cmrs: the matrix comes back on the device "
                "only from the CSR-order or one-width layouts");
    if (sliced)
        CMRS_CHECK(cmrs_mat_dev_csr_get_sliced(&im->mat, im->perm_d,
                                               self->prec, self->stream, indptr_d,
                                               indices_d, values_d));
    else if (reordered)
        CMRS_CHECK(cmrs_mat_dev_csr_get_reordered(
            &im->mat, &im->reorder, im->perm_d, self->nnz, self->prec,
            self->stream,
            indptr_d, indices_d, values_d));
    else
        CMRS_CHECK(cmrs_mat_dev_csr_get(&im->mat, self->nnz, self->prec,
                                        self->stream,
                                        indptr_d, indices_d, values_d));
    return CMRS_OK;
}

extern "C" const cmrs_spmv_ops cmrs_spmv_cmrs_basic = {
    .name = "cmrs",
    .summary = "CMRS (paper 000): strips of h rows, packed column/row words; short "
        "even rows as strips of one width (CMRS-U), else lanes per row from "
        "strip pointers + 16-bit row offsets (CMRS-O)",
    .setup = basic_setup,
    .apply = basic_apply,
    .destroy = cmrs_impl_destroy,
    .value_store = cmrs_impl_value_store,
    .apply_dot = basic_apply_dot,
    .setup_dev = basic_setup_dev,
    .csr_get_d = basic_csr_get_d,
    .values32 = 1,
};
