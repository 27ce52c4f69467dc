/* ELLPACK-R / ELLR-T (paper 003): padded column-major storage plus the row
 * length array rl, T threads per row (layout in fmt_ellr.h). Each of a
 * row's T lanes strides over the row's true entries (never its padding),
 * then the T partial sums are combined with warp shuffles inside their
 * width-T segment (the paper uses shared memory; shuffles need no
 * __syncthreads and are safe under independent thread scheduling).
 * Setup converts A's index pattern, not A: the slots' "values" are then
 * the permutation that setup and value updates store the values through
 * (padding: none, value 0). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers (status, csr, spmv) with C
 * linkage; cuda_check.h then finds them already included. */
#include "base/device.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"
#include "fmt_ellr.h"

namespace {

constexpr unsigned k_full_mask = 0xffffffffu;
constexpr int k_default_block = 128; /* the paper's best block for ELLR-T */

struct ellr_impl {
    int32_t *rl_d;   /* rows row lengths */
    int32_t *col_d;  /* stored column indices */
    void *val_d;     /* stored values of the precision */
    int32_t *perm_d; /* stored slot -> CSR entry (-1: padding) */
};

/* One warp handles 32/TPR consecutive rows per step. The row loop's bound
 * depends only on the warp, so every lane reaches every shuffle; lanes of
 * rows past the end contribute zero and store nothing. */
template <typename T, int TPR>
__global__ void ellr_kernel(int64_t rows, const int32_t *__restrict__ rl,
                            const int32_t *__restrict__ col,
                            const T *__restrict__ val,
                            const T *__restrict__ x, T alpha, T beta,
                            T *__restrict__ y)
{
    const int lane = threadIdx.x & 31, sub = lane & (TPR - 1);
    const int64_t rows_per_warp = 32 / TPR, slab = rows * TPR;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t n_warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t first = warp * rows_per_warp; first < rows;
         first += n_warps * rows_per_warp) {
        const int64_t row = first + lane / TPR;
        T sum = T(0);
        if (row < rows) {
            const int32_t len = rl[row];
            int64_t s = row * TPR + sub; /* slot of entry k = sub */
            for (int32_t k = sub; k < len; k += TPR, s += slab)
                sum += val[s] * __ldg(&x[col[s]]);
        }
        for (int offset = TPR / 2; offset > 0; offset >>= 1)
            sum += __shfl_xor_sync(k_full_mask, sum, offset, TPR);
        if (sub == 0 && row < rows)
            y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <typename T, int TPR>
void launch_tpr(const cmrs_spmv *s, const ellr_impl *d, double alpha,
                const void *x_d, double beta, void *y_d)
{
    int block = s->opts.block_size;
    const unsigned grid = cmrs_grid::blocks(s->rows, block / TPR);
    ellr_kernel<T, TPR><<<grid, block, 0, s->stream>>>(
        s->rows, d->rl_d, d->col_d, (const T *)d->val_d, (const T *)x_d,
        (T)alpha, (T)beta, (T *)y_d);
}

template <typename T>
void launch_typed(const cmrs_spmv *s, const ellr_impl *d, double alpha,
                  const void *x_d, double beta, void *y_d)
{
    switch (s->opts.threads_per_row) {
    case 1: launch_tpr<T, 1>(s, d, alpha, x_d, beta, y_d); break;
    case 2: launch_tpr<T, 2>(s, d, alpha, x_d, beta, y_d); break;
    case 4: launch_tpr<T, 4>(s, d, alpha, x_d, beta, y_d); break;
    case 8: launch_tpr<T, 8>(s, d, alpha, x_d, beta, y_d); break;
    case 16: launch_tpr<T, 16>(s, d, alpha, x_d, beta, y_d); break;
    default: launch_tpr<T, 32>(s, d, alpha, x_d, beta, y_d); break;
    }
}

/* Uploads *E (a conversion of A's index pattern): row lengths, columns,
 * its values as the permutation; then stores A's values through it. */
cmrs_code upload(cmrs_spmv *self, const cmrs_ellr_host *E, const cmrs_csr *A,
                 ellr_impl *impl)
{
    size_t rl_bytes = (size_t)E->rows * sizeof(int32_t);
    size_t col_bytes = (size_t)E->stored * sizeof(int32_t);
    CMRS_CHECK(cmrs_dev_upload(E->rl, rl_bytes, (void **)&impl->rl_d));
    CMRS_CHECK(cmrs_dev_upload(E->col, col_bytes, (void **)&impl->col_d));
    CMRS_CHECK(cmrs_dev_perm_upload(E->val, E->stored, &impl->perm_d));
    CMRS_CHECK(cmrs_dev_alloc_values(E->stored, self->prec, &impl->val_d));
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, impl->perm_d,
                                     E->stored, self->prec, impl->val_d,
                                     "ellr: matrix values"));
    /* The permutation costs as much as the column indices. */
    self->device_bytes = rl_bytes + 2 * col_bytes +
                         (size_t)E->stored * cmrs_prec_value_bytes(self->prec);
    return CMRS_OK;
}

cmrs_code resolve_opts(cmrs_spmv *self, const cmrs_csr *A)
{
    int b = self->opts.block_size ? self->opts.block_size : k_default_block;
    CMRS_ENSURE(b >= 32 && b <= 1024 && b % 32 == 0, CMRS_E_USAGE,
                "ellr: block size %d is not a multiple of 32 in [32, 1024]",
                b);
    int T = 0;
    CMRS_CHECK(cmrs_ellr_resolve_T(self->opts.threads_per_row, A, &T));
    /* Only these knobs apply: reports then show no foreign ones. */
    memset(&self->opts, 0, sizeof self->opts);
    self->opts.block_size = b;
    self->opts.threads_per_row = T;
    return CMRS_OK;
}

cmrs_code ellr_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    CMRS_CHECK(resolve_opts(self, A));
    cmrs_code rc = CMRS_OK;
    cmrs_ellr_host E;
    cmrs_csr idx;
    ellr_impl *impl = NULL;
    memset(&E, 0, sizeof E);
    CMRS_CHECK(cmrs_csr_index_pattern(A, &idx));
    /* The conversion runs once, on the index pattern (same layout as A). */
    CMRS_TRY(cmrs_ellr_build(&idx, self->opts.threads_per_row, &E));
    impl = (ellr_impl *)calloc(1, sizeof *impl);
    if (!impl) CMRS_TRY_FAIL(CMRS_E_NOMEM, "ellr: cannot allocate its state");
    self->impl = impl; /* destroy frees a partial upload */
    CMRS_TRY(upload(self, &E, A, impl));
    self->strips = A->rows; /* one rl entry per row */
    self->stored_entries = E.stored;
done:
    free(idx.values);
    cmrs_ellr_host_free(&E);
    return rc;
}

cmrs_code ellr_apply(cmrs_spmv *self, double alpha, const void *x_d,
                     double beta, void *y_d)
{
    const ellr_impl *impl = (const ellr_impl *)self->impl;
    if (self->rows == 0) return CMRS_OK; /* a zero-block grid is an error */
    if (self->stored_entries == 0) /* no entries: y = beta*y */
        return cmrs_dev_scale(self->prec, self->rows, beta, y_d, self->stream);
    CMRS_PREC_DISPATCH(self->prec, T,
                       launch_typed<T>(self, impl, alpha, x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

void ellr_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    ellr_impl *impl = (ellr_impl *)self->impl;
    st->values_d = impl->val_d;
    st->perm_d = impl->perm_d;
    st->stored = self->stored_entries;
}

void ellr_destroy(cmrs_spmv *self)
{
    ellr_impl *impl = (ellr_impl *)self->impl;
    if (!impl) return;
    CMRS_GPU_FREE_ALL(impl->rl_d, impl->col_d, impl->val_d, impl->perm_d);
    free(impl);
    self->impl = NULL;
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_ellr = {
    .name = "ellr",
    .summary = "ELLPACK-R / ELLR-T: padded column-major rows, T threads per row",
    .setup = ellr_setup,
    .apply = ellr_apply,
    .destroy = ellr_destroy,
    .value_store = ellr_value_store,
    .apply_dot = nullptr,
    .setup_dev = nullptr,
    .csr_get_d = nullptr,
    .values32 = 0,
};
