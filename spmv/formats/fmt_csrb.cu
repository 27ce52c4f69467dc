/* CSR-B (paper 003 §5.2): the nonzeros of a CSR matrix are cut into
 * fragments of F = block_size consecutive entries, one per thread block, so
 * every block does the same work whatever the row lengths. Two kernels:
 *   1. each block multiplies its F entries by x into shared memory, then
 *      sums them per row: rows strictly inside the fragment are finished
 *      and written to y; the (possibly partial) first and last rows go to
 *      part[2b], part[2b+1]. The block also writes the empty rows between
 *      the previous fragment's last row and its own first row.
 *   2. one thread per block merges the partials of rows cut by fragment
 *      boundaries (Table VI): the owner of a run of equal rows walks the
 *      following blocks while they continue that row, then writes y once.
 * Every row of y is written exactly once, so beta == 0 never reads y.
 * The values stay in CSR order and Bound depends on the pattern only, so
 * new values (cmrs_spmv_update_values) are a plain copy. */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"
#include "fmt_csrb.h"

namespace {

struct csrb_impl {
    cmrs_csr_dev csr;   /* int32 offsets: setup refuses nnz > INT32_MAX */
    int64_t blocks;     /* fragments = thread blocks of kernel 1 */
    int32_t *bound_d;   /* 2*blocks: first, last row of each fragment */
    void *part_d;       /* 2*blocks values: first-row, last-row partials */
};

/* y[row] = alpha*sum + beta*y[row]; y is not read when beta == 0. */
template <typename T>
__device__ __forceinline__ void store_row(T *y, int64_t row, T sum, T alpha,
                                          T beta)
{
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/* Empty rows [from, to) owned by this block: y = beta*y. */
template <typename T>
__device__ void store_empty_rows(T *y, int64_t from, int64_t to, T alpha,
                                 T beta)
{
    for (int64_t r = from + threadIdx.x; r < to; r += blockDim.x)
        store_row(y, r, T(0), alpha, beta);
}

/* Sums the fragment's products of each row in [first, last]. */
template <typename T>
__device__ void sum_rows(const int32_t *__restrict__ ptr, const T *prod,
                         int64_t start, int64_t count, int64_t first,
                         int64_t last, T alpha, T beta, T *y, T *part)
{
    for (int64_t r = first + threadIdx.x; r <= last; r += blockDim.x) {
        int64_t lo = ptr[r] > start ? ptr[r] : start;
        int64_t hi = ptr[r + 1] < start + count ? ptr[r + 1] : start + count;
        T sum = T(0);
        for (int64_t k = lo; k < hi; ++k) sum += prod[k - start];
        if (r == first)
            part[2 * blockIdx.x] = sum;
        else if (r == last)
            part[2 * blockIdx.x + 1] = sum;
        else
            store_row(y, r, sum, alpha, beta);
    }
}

template <typename T>
__global__ void csrb_block_kernel(int64_t rows, int64_t nnz,
                                  const int32_t *__restrict__ ptr,
                                  const int32_t *__restrict__ col,
                                  const T *__restrict__ val,
                                  const T *__restrict__ x,
                                  const int32_t *__restrict__ bound, T alpha,
                                  T beta, T *__restrict__ y,
                                  T *__restrict__ part)
{
    extern __shared__ __align__(8) unsigned char smem_raw[];
    T *prod = reinterpret_cast<T *>(smem_raw);
    const int64_t b = blockIdx.x, start = b * blockDim.x;
    const int64_t count =
        nnz - start < blockDim.x ? nnz - start : (int64_t)blockDim.x;
    if (threadIdx.x < count)
        prod[threadIdx.x] =
            val[start + threadIdx.x] * __ldg(&x[col[start + threadIdx.x]]);
    __syncthreads();
    const int64_t first = bound[2 * b], last = bound[2 * b + 1];
    sum_rows(ptr, prod, start, count, first, last, alpha, beta, y, part);
    store_empty_rows(y, b == 0 ? 0 : bound[2 * b - 1] + 1, first, alpha,
                     beta);
    if (b == gridDim.x - 1) store_empty_rows(y, last + 1, rows, alpha, beta);
}

/* Adds to sum the partials of `row` in blocks nb, nb+1, ... while they
 * continue it: a block whose last row is another row ends the run. */
template <typename T>
__device__ T walk_run(int64_t blocks, const int32_t *bound, const T *part,
                      int64_t nb, int32_t row, T sum)
{
    for (; nb < blocks && bound[2 * nb] == row; ++nb) {
        sum += part[2 * nb];
        if (bound[2 * nb + 1] != row) break;
    }
    return sum;
}

/* Runs of equal rows in the sequence (first_0, last_0, first_1, ...): the
 * block holding a run's first element writes that row. */
template <typename T>
__global__ void csrb_merge_kernel(int64_t blocks,
                                  const int32_t *__restrict__ bound,
                                  const T *__restrict__ part, T alpha, T beta,
                                  T *__restrict__ y)
{
    CMRS_GRID_LOOP(b, blocks) {
        const int32_t first = bound[2 * b], last = bound[2 * b + 1];
        if (last != first)
            store_row(y, last,
                      walk_run(blocks, bound, part, b + 1, last,
                               part[2 * b + 1]),
                      alpha, beta);
        if (b > 0 && bound[2 * b - 1] == first) continue; /* not its run */
        T sum = part[2 * b];
        if (last == first)
            sum = walk_run(blocks, bound, part, b + 1, first, sum);
        store_row(y, first, sum, alpha, beta);
    }
}

template <typename T>
void launch_typed(const cmrs_spmv *s, const csrb_impl *impl, double alpha,
                  const void *x_d, double beta, void *y_d)
{
    const int F = s->opts.block_size, merge_block = 256;
    T *y = (T *)y_d, *part = (T *)impl->part_d;
    csrb_block_kernel<T>
        <<<(unsigned)impl->blocks, F, F * sizeof(T), s->stream>>>(
            s->rows, s->nnz, (const int32_t *)impl->csr.indptr_d,
            impl->csr.indices_d, (const T *)impl->csr.values_d,
            (const T *)x_d, impl->bound_d, (T)alpha, (T)beta, y, part);
    csrb_merge_kernel<T><<<cmrs_grid::blocks(impl->blocks, merge_block),
                           merge_block, 0, s->stream>>>(
        impl->blocks, impl->bound_d, part, (T)alpha, (T)beta, y);
}

cmrs_code upload_bounds(csrb_impl *impl, const cmrs_csrb_bounds *h,
                        cmrs_prec prec)
{
    impl->blocks = h->blocks;
    if (h->blocks == 0) return CMRS_OK;
    CMRS_CHECK(cmrs_dev_upload(h->bound, (size_t)h->blocks * 2 *
                                             sizeof *h->bound,
                               (void **)&impl->bound_d));
    return cmrs_dev_alloc_values(h->blocks * 2, prec, &impl->part_d);
}

cmrs_code csrb_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    int F = self->opts.block_size ? self->opts.block_size
                                  : CMRS_CSRB_DEFAULT_FRAGMENT;
    memset(&self->opts, 0, sizeof self->opts); /* only block_size applies */
    self->opts.block_size = F;
    cmrs_csrb_bounds h;
    CMRS_CHECK(cmrs_csrb_bounds_build(A, F, &h));
    cmrs_code rc = CMRS_OK;
    csrb_impl *impl = (csrb_impl *)calloc(1, sizeof *impl);
    if (!impl)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "csrb: cannot allocate its state");
    self->impl = impl; /* destroy frees what follows on failure */
    CMRS_TRY(cmrs_csr_dev_upload(A, self->prec, &impl->csr));
    CMRS_TRY(upload_bounds(impl, &h, self->prec));
    self->strips = A->rows;
    self->stored_entries = A->nnz; /* no padding */
    self->device_bytes = impl->csr.bytes +
                         (size_t)h.blocks * 2 * sizeof(int32_t) +
                         (size_t)h.blocks * 2 * cmrs_prec_value_bytes(self->prec);
done:
    cmrs_csrb_bounds_free(&h);
    return rc;
}

cmrs_code csrb_apply(cmrs_spmv *self, double alpha, const void *x_d,
                     double beta, void *y_d)
{
    const csrb_impl *impl = (const csrb_impl *)self->impl;
    if (impl->blocks == 0) /* no nonzeros: y = beta*y (rows may be 0) */
        return cmrs_dev_scale(self->prec, self->rows, beta, y_d,
                              self->stream);
    CMRS_PREC_DISPATCH(self->prec, T,
                       launch_typed<T>(self, impl, alpha, x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

void csrb_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    st->values_d = ((csrb_impl *)self->impl)->csr.values_d;
    st->stored = self->nnz;
}

void csrb_destroy(cmrs_spmv *self)
{
    csrb_impl *impl = (csrb_impl *)self->impl;
    if (!impl) return;
    cmrs_csr_dev_free(&impl->csr);
    cmrs_dev_free(impl->bound_d);
    cmrs_dev_free(impl->part_d);
    free(impl);
    self->impl = NULL;
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_csrb = {
    .name = "csrb",
    .summary = "CSR-B: fixed nnz fragments per block + boundary-row merge",
    .setup = csrb_setup,
    .apply = csrb_apply,
    .destroy = csrb_destroy,
    .value_store = csrb_value_store,
    .apply_dot = nullptr,
    .setup_dev = nullptr,
    .csr_get_d = nullptr,
    .values32 = 0,
};
