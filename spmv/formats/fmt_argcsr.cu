/* ArgCSR (Heller & Oberhuber, paper 002): adaptive row-grouped CSR. One warp
 * per group of <= 32 rows; lane l sums its chunk (entries offset + 32*j + l,
 * stopping at the first padding column -1, as the paper's listing does),
 * then the lanes of each row are summed by the row's own lane. The paper's
 * block-wide __syncthreads and shared group info become per-warp: the group
 * info is read by every lane (one broadcast load), the row boundaries come
 * from a shuffle, and the partial sums go through shared memory behind a
 * __syncwarp. Conversion: fmt_argcsr.c, run on A's index pattern, so the
 * values it leaves are the permutation that setup and value updates store
 * the values through (padding: none, value 0). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "base/device.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/prec.cuh"
#include "fmt_argcsr.h"

namespace {

constexpr unsigned k_full_mask = 0xffffffffu;
constexpr int k_max_block = 1024;

struct argcsr_impl {
    int64_t n_groups;
    cmrs_argcsr_group *groups_d;
    uint8_t *row_end_d;
    int32_t *cols_d;
    void *vals_d;
    int32_t *perm_d; /* stored entry -> CSR entry (-1: padding) */
};

/* Sum of lane's chunk; the padding of a chunk is at its end, so the first
 * column -1 ends it. */
template <typename T>
__device__ __forceinline__ T chunk_sum(const cmrs_argcsr_group &g, int lane,
                                       const int32_t *__restrict__ col,
                                       const T *__restrict__ val,
                                       const T *__restrict__ x)
{
    T sum = T(0);
    int64_t k = (int64_t)g.offset + lane;
    for (int i = 0; i < g.chunk; ++i, k += CMRS_ARGCSR_LANES) {
        int32_t c = col[k];
        if (c < 0) break;
        sum += val[k] * __ldg(&x[c]);
    }
    return sum;
}

/* Groups are whole warps (the block size is a multiple of 32), so the
 * early return and the full-mask shuffle are warp-uniform. */
template <typename T>
__global__ void argcsr_kernel(int64_t n_groups,
                              const cmrs_argcsr_group *__restrict__ groups,
                              const uint8_t *__restrict__ row_end,
                              const int32_t *__restrict__ col,
                              const T *__restrict__ val,
                              const T *__restrict__ x, T alpha, T beta,
                              T *__restrict__ y)
{
    __shared__ T partial[k_max_block];
    const int lane = threadIdx.x & 31;
    int64_t gi = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (gi >= n_groups) return;
    const cmrs_argcsr_group g = groups[gi];
    T *part = partial + (threadIdx.x & ~31u);
    part[lane] = chunk_sum(g, lane, col, val, x);
    int end = lane < g.size ? (int)row_end[g.first_row + lane] : 0;
    int begin = __shfl_up_sync(k_full_mask, end, 1);
    if (lane == 0) begin = 0;
    __syncwarp();
    if (lane < g.size) {
        T sum = T(0);
        for (int i = begin; i < end; ++i) sum += part[i];
        int64_t row = (int64_t)g.first_row + lane;
        y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

template <typename T>
void launch_typed(const cmrs_spmv *s, const argcsr_impl *m, double alpha,
                  const void *x_d, double beta, void *y_d)
{
    int block = s->opts.block_size;
    int64_t groups_per_block = block / 32;
    unsigned grid =
        (unsigned)((m->n_groups + groups_per_block - 1) / groups_per_block);
    argcsr_kernel<T><<<grid, block, 0, s->stream>>>(
        m->n_groups, m->groups_d, m->row_end_d, m->cols_d,
        (const T *)m->vals_d, (const T *)x_d, (T)alpha, (T)beta, (T *)y_d);
}

/* Uploads *h (a conversion of A's index pattern): groups, row ends,
 * columns and its values as the permutation; then stores A's values
 * through it. */
cmrs_code upload(const cmrs_argcsr *h, const cmrs_csr *A, cmrs_prec prec,
                 argcsr_impl *m)
{
    m->n_groups = h->n_groups;
    CMRS_CHECK(cmrs_dev_upload(h->groups, (size_t)h->n_groups * sizeof *h->groups,
                               (void **)&m->groups_d));
    CMRS_CHECK(cmrs_dev_upload(h->row_end, (size_t)h->rows, (void **)&m->row_end_d));
    CMRS_CHECK(cmrs_dev_upload(h->cols, (size_t)h->stored * sizeof *h->cols,
                               (void **)&m->cols_d));
    CMRS_CHECK(cmrs_dev_perm_upload(h->vals, h->stored, &m->perm_d));
    CMRS_CHECK(cmrs_dev_alloc_values(h->stored, prec, &m->vals_d));
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, m->perm_d, h->stored,
                                     prec, m->vals_d, "argcsr: matrix values"));
    return CMRS_OK;
}

/* Columns and permutation are 4 bytes per stored entry each. */
size_t device_bytes(const cmrs_argcsr *h, cmrs_prec prec)
{
    return (size_t)h->n_groups * sizeof(cmrs_argcsr_group) + (size_t)h->rows +
           (size_t)h->stored *
               (2 * sizeof(int32_t) + cmrs_prec_value_bytes(prec));
}

cmrs_code resolve_opts(cmrs_spmv *self)
{
    /* The paper's best block of 128 threads: 4 groups per block. */
    int b = self->opts.block_size ? self->opts.block_size : 128;
    CMRS_ENSURE(b >= 32 && b <= k_max_block && b % 32 == 0, CMRS_E_USAGE,
                "%s: block size %d is not a multiple of 32 in [32, %d]",
                self->ops->name, b, k_max_block);
    memset(&self->opts, 0, sizeof self->opts);
    self->opts.block_size = b;
    return CMRS_OK;
}

cmrs_code argcsr_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    cmrs_code rc = CMRS_OK;
    cmrs_argcsr h;
    cmrs_csr idx;
    memset(&h, 0, sizeof h);
    idx.values = NULL;
    CMRS_CHECK(resolve_opts(self));
    argcsr_impl *m = (argcsr_impl *)calloc(1, sizeof *m);
    CMRS_ENSURE(m, CMRS_E_NOMEM, "%s: cannot allocate its state",
                self->ops->name);
    self->impl = m;
    /* The conversion runs once, on the index pattern (same layout as A). */
    CMRS_TRY(cmrs_csr_index_pattern(A, &idx));
    CMRS_TRY(cmrs_argcsr_build(&idx, CMRS_ARGCSR_DESIRED_CHUNK, &h));
    CMRS_TRY(cmrs_check_padding(self->ops->name, h.stored, A->nnz, A->rows));
    CMRS_TRY(upload(&h, A, self->prec, m));
    self->strips = h.n_groups;
    self->stored_entries = h.stored;
    self->device_bytes = device_bytes(&h, self->prec);
done:
    free(idx.values);
    cmrs_argcsr_free(&h);
    return rc;
}

cmrs_code argcsr_apply(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d)
{
    const argcsr_impl *m = (const argcsr_impl *)self->impl;
    if (m->n_groups == 0) return CMRS_OK; /* rows == 0: nothing to write */
    CMRS_PREC_DISPATCH(self->prec, T,
                       launch_typed<T>(self, m, alpha, x_d, beta, y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

void argcsr_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    argcsr_impl *m = (argcsr_impl *)self->impl;
    st->values_d = m->vals_d;
    st->perm_d = m->perm_d;
    st->stored = self->stored_entries;
}

void argcsr_destroy(cmrs_spmv *self)
{
    argcsr_impl *m = (argcsr_impl *)self->impl;
    if (!m) return;
    CMRS_GPU_FREE_ALL(m->groups_d, m->row_end_d, m->cols_d, m->vals_d,
                      m->perm_d);
    free(m);
    self->impl = NULL;
}

} // namespace

extern "C" const cmrs_spmv_ops cmrs_spmv_argcsr = {
    .name = "argcsr",
    .summary = "ArgCSR: adaptive row-grouped CSR, a warp per <= 32 rows (Heller & Oberhuber)",
    .setup = argcsr_setup,
    .apply = argcsr_apply,
    .destroy = argcsr_destroy,
    .value_store = argcsr_value_store,
    .apply_dot = nullptr,
    .setup_dev = nullptr,
    .csr_get_d = nullptr,
    .values32 = 0,
};
