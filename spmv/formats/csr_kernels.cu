/* The classic CSR SpMV kernels of Bell & Garland (2008/2009), the baselines
 * paper 000 compares CMRS against:
 *   csr-scalar: one thread per row (uncoalesced reads of long rows);
 *   csr-vector: one warp per row, lanes stride through the row and the
 *               partial sums are combined with warp shuffles (the 2008
 *               volatile shared-memory reduction is unsafe since Volta's
 *               independent thread scheduling).
 * Both read x through the read-only cache (__ldg) and accumulate in the
 * precision of the values, as cuSPARSE does with a matching compute type. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers (status, csr, spmv) with C
 * linkage; cuda_check.h then finds them already included. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"

namespace {

constexpr unsigned k_full_mask = 0xffffffffu;

struct csr_impl {
    cmrs_csr_dev csr;
};

/* y[row] = alpha*sum + beta*y[row]; y is not read when beta == 0. */
template <typename T>
__device__ __forceinline__ void store_row(T *y, int64_t row, T sum, T alpha,
                                          T beta)
{
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

template <typename T, typename Off>
__global__ void csr_scalar_kernel(int64_t rows, const Off *__restrict__ ptr,
                                  const int32_t *__restrict__ col,
                                  const T *__restrict__ val,
                                  const T *__restrict__ x, T alpha, T beta,
                                  T *__restrict__ y)
{
    CMRS_GRID_LOOP(row, rows) {
        T sum = T(0);
        for (Off k = ptr[row]; k < ptr[row + 1]; ++k)
            sum += val[k] * __ldg(&x[col[k]]);
        store_row(y, row, sum, alpha, beta);
    }
}

/* Every lane of a warp works on the same row, so the loop bounds are
 * warp-uniform and the full-mask shuffles are safe. */
template <typename T, typename Off>
__global__ void csr_vector_kernel(int64_t rows, const Off *__restrict__ ptr,
                                  const int32_t *__restrict__ col,
                                  const T *__restrict__ val,
                                  const T *__restrict__ x, T alpha, T beta,
                                  T *__restrict__ y)
{
    const int lane = threadIdx.x & 31;
    int64_t n_warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
         row < rows; row += n_warps) {
        T sum = T(0);
        for (Off k = ptr[row] + lane; k < ptr[row + 1]; k += 32)
            sum += val[k] * __ldg(&x[col[k]]);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(k_full_mask, sum, offset);
        if (lane == 0) store_row(y, row, sum, alpha, beta);
    }
}

template <typename T, typename Off>
void launch_typed(bool vector, const cmrs_spmv *s, const cmrs_csr_dev *d,
                  double alpha, const void *x_d, double beta, void *y_d)
{
    int block = s->opts.block_size;
    const Off *ptr = (const Off *)d->indptr_d;
    const T *val = (const T *)d->values_d, *x = (const T *)x_d;
    if (vector)
        csr_vector_kernel<T, Off>
            <<<cmrs_grid::blocks(s->rows, block / 32), block, 0, s->stream>>>(
                s->rows, ptr, d->indices_d, val, x, (T)alpha, (T)beta,
                (T *)y_d);
    else
        csr_scalar_kernel<T, Off>
            <<<cmrs_grid::blocks(s->rows, block), block, 0, s->stream>>>(
                s->rows, ptr, d->indices_d, val, x, (T)alpha, (T)beta,
                (T *)y_d);
}

/* The block size checked and kept alone, the state allocated. */
cmrs_code csr_begin(cmrs_spmv *self, int default_block, csr_impl **out)
{
    int b = self->opts.block_size ? self->opts.block_size : default_block;
    CMRS_ENSURE(b >= 32 && b <= 1024 && b % 32 == 0, CMRS_E_USAGE,
                "%s: block size %d is not a multiple of 32 in [32, 1024]",
                self->ops->name, b);
    /* Only the block size applies: reports then show no foreign knobs. */
    memset(&self->opts, 0, sizeof self->opts);
    self->opts.block_size = b;
    csr_impl *impl = (csr_impl *)calloc(1, sizeof *impl);
    CMRS_ENSURE(impl, CMRS_E_NOMEM, "%s: cannot allocate its state",
                self->ops->name);
    self->impl = impl;
    *out = impl;
    return CMRS_OK;
}

void csr_finish(cmrs_spmv *self, const csr_impl *impl, int64_t rows,
                int64_t nnz)
{
    self->strips = rows;
    self->stored_entries = nnz;
    self->device_bytes = impl->csr.bytes;
}

cmrs_code csr_setup(cmrs_spmv *self, const cmrs_csr *A, int default_block)
{
    csr_impl *impl = NULL;
    CMRS_CHECK(csr_begin(self, default_block, &impl));
    CMRS_CHECK(cmrs_csr_dev_upload(A, self->prec, &impl->csr));
    csr_finish(self, impl, A->rows, A->nnz);
    return CMRS_OK;
}

/* From a device CSR: copied on the device (the AMG's coarse inverse, n^2
 * entries, comes this way with no host copy). */
cmrs_code csr_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M,
                        int default_block)
{
    csr_impl *impl = NULL;
    CMRS_CHECK(csr_begin(self, default_block, &impl));
    CMRS_CHECK(cmrs_csr_dev_copy_d(M, self->prec, &impl->csr));
    csr_finish(self, impl, M->rows, M->nnz);
    return CMRS_OK;
}

cmrs_code csr_apply(bool vector, cmrs_spmv *self, double alpha,
                    const void *x_d, double beta, void *y_d)
{
    const csr_impl *impl = (const csr_impl *)self->impl;
    if (self->rows == 0) return CMRS_OK; /* a zero-block grid is an error */
    const cmrs_csr_dev *d = &impl->csr;
    if (d->offsets64)
        CMRS_PREC_DISPATCH(self->prec, T,
                           launch_typed<T, int64_t>(vector, self, d, alpha,
                                                    x_d, beta, y_d));
    else
        CMRS_PREC_DISPATCH(self->prec, T,
                           launch_typed<T, int32_t>(vector, self, d, alpha,
                                                    x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* CSR order: the buffer the kernels read, no permutation. */
void csr_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    st->values_d = ((csr_impl *)self->impl)->csr.values_d;
    st->stored = self->nnz;
}

void csr_destroy(cmrs_spmv *self)
{
    csr_impl *impl = (csr_impl *)self->impl;
    if (!impl) return;
    cmrs_csr_dev_free(&impl->csr);
    free(impl);
    self->impl = NULL;
}

/* Defaults: a thread per row wants more rows per block; a warp per row is
 * the paper's tuned block of 128. */
cmrs_code scalar_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    return csr_setup(self, A, 256);
}
cmrs_code vector_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    return csr_setup(self, A, 128);
}
cmrs_code scalar_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    return csr_setup_dev(self, M, 256);
}
cmrs_code vector_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    return csr_setup_dev(self, M, 128);
}
cmrs_code scalar_apply(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    return csr_apply(false, self, alpha, x_d, beta, y_d);
}
cmrs_code vector_apply(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    return csr_apply(true, self, alpha, x_d, beta, y_d);
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_csr_scalar = {
    .name = "csr-scalar",
    .summary = "CSR, one thread per row (Bell & Garland scalar kernel)",
    .setup = scalar_setup,
    .apply = scalar_apply,
    .destroy = csr_destroy,
    .value_store = csr_value_store,
    .apply_dot = nullptr,
    .setup_dev = scalar_setup_dev,
    .csr_get_d = nullptr,
    .values32 = 0,
};
extern "C" const cmrs_spmv_ops cmrs_spmv_csr_vector = {
    .name = "csr-vector",
    .summary = "CSR, one warp per row with shuffle reduction",
    .setup = vector_setup,
    .apply = vector_apply,
    .destroy = csr_destroy,
    .value_store = csr_value_store,
    .apply_dot = nullptr,
    .setup_dev = vector_setup_dev,
    .csr_get_d = nullptr,
    .values32 = 0,
};
