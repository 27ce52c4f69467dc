/* hyb: Bell & Garland's hybrid ELL + COO format (see docs/formats/hyb.md).
 * Apply = two launches on self->stream: the ELL kernel (one thread per
 * row) writes y = alpha*ELL*x + beta*y for every row, then the COO kernel
 * (one thread per remaining entry) adds alpha*a_ij*x_j with atomicAdd.
 * The atomics make the order of the additions, and so the last bits of y,
 * vary between runs. Setup converts A's index pattern, not A: where the
 * values would be, the ELL and COO parts then hold the permutation that
 * setup and value updates store the values through (one array for both
 * parts, ELL first). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "base/device.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"
#include "fmt_hyb.h"

namespace {

struct hyb_impl {
    int32_t width;
    int64_t coo_nnz;
    int64_t stored;      /* rows*width + coo_nnz */
    int32_t *ell_cols_d; /* rows*width, column-major, CMRS_HYB_PAD = none */
    int32_t *coo_rows_d, *coo_cols_d;
    void *vals_d;        /* stored values: rows*width ELL, then COO */
    int32_t *perm_d;     /* stored value -> CSR entry (-1: ELL padding) */
};

/* A row's entries fill its first slots, so the first pad ends the row. */
template <typename T>
__global__ void ell_kernel(int64_t rows, int32_t width,
                           const int32_t *__restrict__ cols,
                           const T *__restrict__ vals,
                           const T *__restrict__ x, T alpha, T beta,
                           T *__restrict__ y)
{
    CMRS_GRID_LOOP(row, rows) {
        T sum = T(0);
        for (int32_t k = 0; k < width; ++k) {
            int32_t c = cols[(int64_t)k * rows + row];
            if (c == CMRS_HYB_PAD) break;
            sum += vals[(int64_t)k * rows + row] * __ldg(&x[c]);
        }
        y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <typename T>
__global__ void coo_kernel(int64_t n, const int32_t *__restrict__ rows,
                           const int32_t *__restrict__ cols,
                           const T *__restrict__ vals,
                           const T *__restrict__ x, T alpha, T *y)
{
    CMRS_GRID_LOOP(i, n)
        atomicAdd(&y[rows[i]], alpha * vals[i] * __ldg(&x[cols[i]]));
}

template <typename T>
cmrs_code launch_typed(const cmrs_spmv *s, const hyb_impl *h, double alpha,
                  const void *x_d, double beta, void *y_d)
{
    int block = s->opts.block_size;
    const T *x = (const T *)x_d;
    const T *ell_vals = (const T *)h->vals_d;
    const T *coo_vals = ell_vals + (h->stored - h->coo_nnz);
    T *y = (T *)y_d;
    ell_kernel<T><<<cmrs_grid::blocks(s->rows, block), block, 0, s->stream>>>(
        s->rows, h->width, h->ell_cols_d, ell_vals, x, (T)alpha, (T)beta, y);
    CMRS_LAUNCH_CHECK();
    if (h->coo_nnz == 0) return CMRS_OK;
    coo_kernel<T><<<cmrs_grid::blocks(h->coo_nnz, block), block, 0,
                    s->stream>>>(
        h->coo_nnz, h->coo_rows_d, h->coo_cols_d, coo_vals, x, (T)alpha, y);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code upload_index(const int32_t *v_h, size_t n, int32_t **v_d,
                       size_t *bytes)
{
    CMRS_CHECK(cmrs_dev_upload(v_h, n * sizeof(int32_t), (void **)v_d));
    *bytes += n * sizeof(int32_t);
    return CMRS_OK;
}

/* Uploads the index arrays of *h (a conversion of A's index pattern) and
 * its values as the permutation, allocates the value array and stores A's
 * values through the permutation; impl's pointers are freed by destroy. */
cmrs_code upload(cmrs_spmv *self, const cmrs_hyb_host *h, const cmrs_csr *A,
                 hyb_impl *impl)
{
    size_t ell_n = (size_t)h->rows * (size_t)h->width, bytes = 0;
    impl->width = h->width;
    impl->coo_nnz = h->coo_nnz;
    impl->stored = cmrs_hyb_stored(h);
    CMRS_CHECK(upload_index(h->ell_cols, ell_n, &impl->ell_cols_d, &bytes));
    CMRS_CHECK(upload_index(h->coo_rows, (size_t)h->coo_nnz,
                            &impl->coo_rows_d, &bytes));
    CMRS_CHECK(upload_index(h->coo_cols, (size_t)h->coo_nnz,
                            &impl->coo_cols_d, &bytes));
    CMRS_CHECK(cmrs_dev_perm_upload(h->ell_vals, impl->stored, &impl->perm_d));
    bytes += (size_t)impl->stored * sizeof(int32_t);
    CMRS_CHECK(cmrs_dev_alloc_values(impl->stored, self->prec, &impl->vals_d));
    bytes += (size_t)impl->stored * cmrs_prec_value_bytes(self->prec);
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, impl->perm_d,
                                     impl->stored, self->prec, impl->vals_d,
                                     "hyb: matrix values"));
    self->device_bytes = bytes;
    return CMRS_OK;
}

cmrs_code hyb_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    int b = self->opts.block_size ? self->opts.block_size : 256;
    CMRS_ENSURE(b >= 32 && b <= 1024 && b % 32 == 0, CMRS_E_USAGE,
                "hyb: block size %d is not a multiple of 32 in [32, 1024]", b);
    memset(&self->opts, 0, sizeof self->opts); /* only the block applies */
    self->opts.block_size = b;
    hyb_impl *impl = (hyb_impl *)calloc(1, sizeof *impl);
    CMRS_ENSURE(impl, CMRS_E_NOMEM, "hyb: cannot allocate its state");
    self->impl = impl;
    cmrs_code rc = CMRS_OK;
    int32_t K = 0;
    cmrs_hyb_host h;
    cmrs_csr idx;
    memset(&h, 0, sizeof h);
    idx.values = NULL;
    CMRS_TRY(cmrs_hyb_width(A, CMRS_HYB_BREAKEVEN_ROWS, &K));
    /* The conversion runs once, on the index pattern (same split as A). */
    CMRS_TRY(cmrs_csr_index_pattern(A, &idx));
    CMRS_TRY(cmrs_hyb_build(&idx, K, &h));
    CMRS_TRY(upload(self, &h, A, impl));
    /* No row pointers: the ELL part is implicit, COO stores a row index
     * per entry. As for CSR, count one pointer per row in beta+-. */
    self->strips = A->rows;
    self->stored_entries = cmrs_hyb_stored(&h);
done:
    free(idx.values);
    cmrs_hyb_host_free(&h);
    return rc;
}

cmrs_code hyb_apply(cmrs_spmv *self, double alpha, const void *x_d,
                    double beta, void *y_d)
{
    const hyb_impl *impl = (const hyb_impl *)self->impl;
    if (self->rows == 0) return CMRS_OK; /* a zero-block grid is an error */
    cmrs_code rc = CMRS_OK;
    CMRS_PREC_DISPATCH(self->prec, T,
                       rc = launch_typed<T>(self, impl, alpha, x_d, beta, y_d));
    return rc;
}

void hyb_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    hyb_impl *impl = (hyb_impl *)self->impl;
    st->values_d = impl->vals_d;
    st->perm_d = impl->perm_d;
    st->stored = impl->stored;
}

void hyb_destroy(cmrs_spmv *self)
{
    hyb_impl *impl = (hyb_impl *)self->impl;
    if (!impl) return;
    CMRS_GPU_FREE_ALL(impl->ell_cols_d, impl->coo_rows_d, impl->coo_cols_d,
                      impl->vals_d, impl->perm_d);
    free(impl);
    self->impl = NULL;
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_hyb = {
    .name = "hyb",
    .summary = "ELL (width from the row-length histogram) + COO remainder "
        "(Bell & Garland HYB)",
    .setup = hyb_setup,
    .apply = hyb_apply,
    .destroy = hyb_destroy,
    .value_store = hyb_value_store,
    .apply_dot = nullptr,
    .setup_dev = nullptr,
    .csr_get_d = nullptr,
    .values32 = 0,
};
