/* The "cmrs-mod" format: the modified CMRS kernel of paper 000 §6.7 and its
 * appendix. Strips (height 16 by default) are zero-padded to whole 32-entry
 * chunks and ordered so that within a chunk no two lanes hit the same slot
 * (lane % MODULO, row_in_strip) of a MODULO x 16 shared buffer per warp
 * (cmrs_mod_layout.c builds it, cmrs_mat_validate checks it at setup).
 *
 * Every strip is whole chunks and starts at a multiple of 32, so all lanes
 * run the same number of trips and every read of Val/ColInd is an aligned,
 * fully used 128/256-byte line. The loop is warp-uniform, which makes the
 * __syncwarp() after each chunk legal: it orders one chunk's buffer updates
 * before the next chunk's (the paper relied on implicit warp synchrony). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "cmrs_kernels.cuh"
#include "cmrs_setup.h"

namespace {

using namespace cmrs_k;

constexpr int slots_rows = CMRS_MAX_HEIGHT; /* buffer rows, any height */

/* strip_args (cmrs_kernels.cuh): strip pointers are multiples of 32. */
template <typename T> using mod_args = strip_args<T>;

/* Buffer layout [row][M]: slot (m, r) at buf[r*M + m]; with M = 32 the lanes
 * of one update hit 32 distinct banks. The layout guarantees that the
 * lanes of one chunk update distinct slots; the __syncwarp() orders this
 * chunk's updates before the next chunk's. */
template <int M, typename T>
__device__ __forceinline__ void chunk_add(T *slot, entry<T> e)
{
    slot[e.row * M] += e.prod;
    __syncwarp();
}

/* Sums the 16 x M buffer per row: lane l reads buf[l + 32k] (row l/M +
 * 32k/M, slot l % M), then each group of M lanes reduces its M/2 values. */
template <int M, typename T>
__device__ __forceinline__ void strip_store(const mod_args<T> &a, const T *buf,
                                            unsigned s, unsigned lane)
{
    T part[M / 2];
#pragma unroll
    for (int k = 0; k < M / 2; ++k) part[k] = buf[lane + k * warp];
    const T sum = transpose_reduce<M / 2, M>(part, lane);
    const unsigned r = lane / M + (lane % M) / 2 * (warp / M);
    const unsigned row = s * a.height + r;
    if (lane % 2 == 0 && r < a.height && row < a.rows)
        store_row(a.y, row, sum, a.alpha, a.beta);
}

template <int M, typename T>
__global__ void __launch_bounds__(1024, 1) cmrs_mod_kernel(mod_args<T> a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const unsigned lane = threadIdx.x % warp;
    const unsigned warps_per_block = blockDim.x / warp;
    T *buf = reinterpret_cast<T *>(smem_raw) +
             (threadIdx.x / warp) * (slots_rows * M);
    T *slot = buf + lane % M;
    for (unsigned s = blockIdx.x * warps_per_block + threadIdx.x / warp;
         s < a.strips; s += gridDim.x * warps_per_block) {
#pragma unroll
        for (int k = 0; k < M / 2; ++k) buf[lane + k * warp] = T(0);
        __syncwarp();
        const unsigned end = __ldg(a.strip_ptr + s + 1);
        unsigned base = __ldg(a.strip_ptr + s);
        const auto load = [&a, lane](unsigned chunk) {
            return load_entry<true>(a.colrow, a.val, a.x, chunk + lane);
        };
        for (; base + warp < end; base += 2 * warp) { /* two chunks */
            const entry<T> e0 = load(base), e1 = load(base + warp);
            chunk_add<M>(slot, e0);
            chunk_add<M>(slot, e1);
        }
        if (base < end) chunk_add<M>(slot, load(base));
        strip_store<M>(a, buf, s, lane);
        __syncwarp(); /* buffer reads done before the next strip zeroes it */
    }
}

template <typename T>
using mod_fn = void (*)(mod_args<T>);

template <typename T>
mod_fn<T> kernel_for(int modulo)
{
    switch (modulo) {
    case 2: return cmrs_mod_kernel<2, T>;
    case 4: return cmrs_mod_kernel<4, T>;
    case 8: return cmrs_mod_kernel<8, T>;
    case 16: return cmrs_mod_kernel<16, T>;
    default: return cmrs_mod_kernel<32, T>; /* modulo checked at setup */
    }
}

template <typename T>
cmrs_code configure(cmrs_spmv *self, cmrs_impl *im)
{
    const int modulo = self->opts.modulo;
    im->smem = (size_t)(im->block / warp) * slots_rows * modulo * sizeof(T);
    CMRS_CHECK(launch_config(kernel_for<T>(modulo), im->block, im->smem,
                             self->strips, self->ops->name, &im->grid));
    return CMRS_OK;
}

/* From device arrays (the kernel choice's candidates, the AMG's levels):
 * the layout built on the GPU, with no host copy. */
cmrs_code mod_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    CMRS_CHECK(cmrs_impl_setup_mod_dev(self, M));
    cmrs_impl *im = (cmrs_impl *)self->impl;
    CMRS_PREC_DISPATCH(self->prec, T, CMRS_CHECK(configure<T>(self, im)));
    return CMRS_OK;
}

/* The host's build of the layout (cmrs_mat_from_csr_mod, one CPU thread:
 * 0.47-4.4 s on 0.4M-5M rows, H100 machine, 2026-11-26), then uploaded. */
cmrs_code mod_setup_host(cmrs_spmv *self, const cmrs_csr *A)
{
    CMRS_CHECK(cmrs_impl_setup(self, A, 1));
    cmrs_impl *im = (cmrs_impl *)self->impl;
    CMRS_PREC_DISPATCH(self->prec, T, CMRS_CHECK(configure<T>(self, im)));
    return CMRS_OK;
}

/* From a host A: A uploaded as a device CSR (row offsets narrowed to
 * int32, values in double), its diagonal found there where asked
 * (cmrs_spmv_diag_tap), the layout built there (mod_setup_dev), the
 * upload freed. The host's build stays for 64-bit offsets, for a GPU
 * without room for the build's scratch, and as the reference the device
 * build is tested against (CMRS_MOD_HOST_BUILD=1,
 * tests/spmv/test_gpu_spmv_dev.c). */
cmrs_code mod_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    const char *host = getenv("CMRS_MOD_HOST_BUILD");
    if (A->nnz > INT32_MAX || (host && strcmp(host, "1") == 0))
        return mod_setup_host(self, A);
    cmrs_csr_dev d;
    CMRS_CHECK(cmrs_csr_dev_upload(A, CMRS_PREC_DOUBLE, &d));
    const cmrs_csr_view_d v = {A->rows, A->cols, A->nnz,
                               (const int32_t *)d.indptr_d, d.indices_d,
                               (const double *)d.values_d};
    cmrs_code rc = cmrs_spmv_diag_tap(self, d.indptr_d, 0, d.indices_d,
                                      v.values_d);
    const char *fail = getenv("CMRS_TEST_FAIL_MOD_BUILD"); /* the fallback's test */
    if (rc == CMRS_OK && fail && strcmp(fail, "1") == 0)
        rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cmrs-mod: "
                            "CMRS_TEST_FAIL_MOD_BUILD");
    else if (rc == CMRS_OK)
        rc = mod_setup_dev(self, &v);
    cmrs_csr_dev_free(&d);
    if (rc == CMRS_E_NOMEM) {
        /* A's upload and the build's scratch (about 56 bytes an entry)
         * did not fit beside the layout: the host's build needs the
         * layout only (the diagonal found above stays) */
        (void)cudaGetLastError();
        cmrs_error_clear();
        cmrs_impl_destroy(self);
        return mod_setup_host(self, A);
    }
    CMRS_CHECK(rc);
    return CMRS_OK;
}

template <typename T>
cmrs_code launch(cmrs_spmv *self, double alpha, const void *x_d, double beta,
                 void *y_d)
{
    const cmrs_impl *im = (const cmrs_impl *)self->impl;
    kernel_for<T>(self->opts.modulo)
        <<<im->grid, im->block, im->smem, self->stream>>>(
            strip_args_of<T>(im, alpha, x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code mod_apply(cmrs_spmv *self, double alpha, const void *x_d,
                    double beta, void *y_d)
{
    if (self->strips == 0) return CMRS_OK; /* no rows: nothing to compute */
    CMRS_PREC_DISPATCH(self->prec, T,
                       CMRS_CHECK(launch<T>(self, alpha, x_d, beta, y_d)));
    return CMRS_OK;
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_cmrs_mod = {
    .name = "cmrs-mod",
    .summary = "modified CMRS (paper 000 6.7): strips zero-padded to 32-entry chunks, "
        "modulo-sized shared buffer",
    .setup = mod_setup,
    .apply = mod_apply,
    .destroy = cmrs_impl_destroy,
    .value_store = cmrs_impl_value_store,
    .apply_dot = nullptr,
    .setup_dev = mod_setup_dev,
    .csr_get_d = nullptr,
    .values32 = 0,
};
