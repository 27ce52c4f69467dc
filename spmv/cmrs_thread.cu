/* The "thread per strip" CMRS kernel: each thread walks one strip of a
 * row-ordered CMRS matrix (sorted = off) and writes its h rows.
 *
 * Why: on Hopper, rows of ~5-7 entries are served best when neighbouring
 * threads read neighbouring runs of the matrix: a warp's loads then fall in
 * the same L1 lines, and each thread keeps several independent loads in
 * flight with no shuffles at all (the CSR scalar kernel reaches eta+ ~0.9
 * this way). CMRS keeps that pattern but needs one 4-byte pointer per strip
 * instead of per row, and recovers row boundaries from the row-in-strip bits
 * packed with each column. A row with no entries is still written (as
 * beta*y), so every y element is set exactly once. Matrix loads go through
 * the read-only cache, never evict-first (__ldcs): the pattern depends on
 * neighbouring threads hitting the lines their neighbours brought into L1
 * (measured on an H200: __ldcs made this kernel 3x slower). */
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "device.h"
#include "cuda_check.h"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

template <typename T>
struct tps_args {
    const uint32_t *strip_ptr; /* strips + 1 */
    const uint32_t *colrow;    /* column << 4 | row_in_strip, row order */
    const T *val;
    const T *x;
    T *y;
    unsigned rows, strips, height;
    T alpha, beta;
};

/* Writes rows [from, to) of the strip whose first row is row0: the first
 * with sum, the rest (rows with no entries) with zero. */
template <typename T>
__device__ __forceinline__ void flush_rows(const tps_args<T> &a, unsigned row0,
                                           unsigned from, unsigned to, T sum)
{
    for (unsigned r = from; r < to && row0 + r < a.rows; ++r) {
        store_row(a.y, row0 + r, sum, a.alpha, a.beta);
        sum = T(0);
    }
}

template <typename T>
__global__ void __launch_bounds__(1024) cmrs_tps_kernel(tps_args<T> a)
{
    for (unsigned s = blockIdx.x * blockDim.x + threadIdx.x; s < a.strips;
         s += gridDim.x * blockDim.x) {
        const unsigned end = __ldg(a.strip_ptr + s + 1), row0 = s * a.height;
        unsigned cur = 0; /* row being summed */
        T sum = T(0);
        for (unsigned k = __ldg(a.strip_ptr + s); k < end; ++k) {
            const entry<T> e = load_entry<false>(a.colrow, a.val, a.x, k);
            if (e.row != cur) { /* rows cur..e.row-1 are complete */
                flush_rows(a, row0, cur, e.row, sum);
                cur = e.row;
                sum = T(0);
            }
            sum += e.prod;
        }
        flush_rows(a, row0, cur, a.height, sum);
    }
}

template <typename T>
using tps_fn = void (*)(tps_args<T>);


/* Grid: enough blocks for one thread per strip, capped at a few waves
 * (threads then stride over strips). */
template <typename T>
cmrs_code tps_configure_t(cmrs_spmv *self, cmrs_impl *im)
{
    int per_sm = 0, dev = 0, sms = 0;
    const tps_fn<T> fn = cmrs_tps_kernel<T>;
    CMRS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn,
                                                            im->block, 0));
    CMRS_ENSURE(per_sm > 0, CMRS_E_USAGE, "%s: a block of %d threads does not "
                "fit on this GPU", self->ops->name, im->block);
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                     dev));
    const int64_t needed = (self->strips + im->block - 1) / im->block;
    const int64_t cap = 4 * (int64_t)sms * per_sm;
    im->grid = (int)(needed < cap ? needed : cap);
    im->smem = 0;
    return CMRS_OK;
}

template <typename T>
cmrs_code tps_launch_t(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    tps_args<T> a = {im->mat.strip_ptr_d, im->mat.colrow_d,
                     (const T *)im->mat.values_d, (const T *)x_d, (T *)y_d,
                     (unsigned)im->mat.rows, (unsigned)im->mat.strips,
                     (unsigned)im->mat.height, (T)alpha, (T)beta};
    cmrs_tps_kernel<T><<<im->grid, im->block, 0, self->stream>>>(a);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_tps_configure(cmrs_spmv *self)
{
    cmrs_impl *im = (cmrs_impl *)self->impl;
    if (self->prec == CMRS_PREC_SINGLE)
        CMRS_CHECK(tps_configure_t<float>(self, im));
    else
        CMRS_CHECK(tps_configure_t<double>(self, im));
    return CMRS_OK;
}

cmrs_code cmrs_tps_apply(cmrs_spmv *self, double alpha, const void *x_d,
                         double beta, void *y_d)
{
    if (self->prec == CMRS_PREC_SINGLE)
        CMRS_CHECK(tps_launch_t<float>(self, alpha, x_d, beta, y_d));
    else
        CMRS_CHECK(tps_launch_t<double>(self, alpha, x_d, beta, y_d));
    return CMRS_OK;
}
