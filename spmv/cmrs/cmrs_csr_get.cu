/* The cmrs format's matrix back as device CSR arrays (cmrs_spmv_csr_get_d,
 * spmv.h), read from the layout on the device: the basic layout keeps
 * CSR order, so the values (double) are a copy, each column is its packed
 * word's high 28 bits, and a row's start is its strip's start plus the
 * number of the strip's entries in rows above it (a binary search on the
 * 4-bit rows, which increase along a strip in CSR order). Stored as
 * B = P A P^T (the locality reordering), B's rows are read that way and
 * put back through the row and entry maps. The one-width sliced layout
 * (su) counts each row's entries by their row tags, scans the counts into
 * the row offsets and puts every entry back through the permutation. What
 * the AMG setup reads
 * instead of uploading the back end's A a second time. */
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "spmv/prec.cuh"
#include "cmrs_format.h"
#include "cmrs_setup.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"

namespace {

constexpr int kBlock = 256;

/* indptr[r] for every row r (and indptr[rows] = nnz). */
__global__ void k_indptr(int64_t rows, int height, int64_t nnz,
                         const uint32_t *__restrict__ strip_ptr,
                         const uint32_t *__restrict__ colrow,
                         int32_t *__restrict__ indptr)
{
    CMRS_GRID_LOOP(r, rows + 1) {
        if (r == rows) {
            indptr[r] = (int32_t)nnz;
            continue;
        }
        const int64_t s = r / height;
        const uint32_t j = (uint32_t)(r - s * height);
        uint32_t lo = strip_ptr[s], hi = strip_ptr[s + 1];
        while (lo < hi) { /* first entry of the strip in row >= j */
            const uint32_t mid = lo + (hi - lo) / 2;
            if ((colrow[mid] & CMRS_ROW_MASK) < j) lo = mid + 1;
            else hi = mid;
        }
        indptr[r] = (int32_t)lo;
    }
}

__global__ void k_columns(int64_t nnz, const uint32_t *__restrict__ colrow,
                          int32_t *__restrict__ indices)
{
    CMRS_GRID_LOOP(k, nnz)
        indices[k] = (int32_t)(colrow[k] >> CMRS_ROW_BITS);
}

/* Each stored entry of B back to its place in A, its column renumbered. */
template <typename V>
__global__ void k_scatter(int64_t nnz, const uint32_t *__restrict__ colrow,
                          const V *__restrict__ values,
                          const int32_t *__restrict__ entry_of,
                          const int32_t *__restrict__ old_of_new,
                          int32_t *__restrict__ indices,
                          double *__restrict__ a_values)
{
    CMRS_GRID_LOOP(k, nnz) {
        const int32_t e = entry_of[k];
        indices[e] = old_of_new[colrow[k] >> CMRS_ROW_BITS];
        a_values[e] = (double)values[k];
    }
}

/* Entries of each row of the one-width sliced layout (slots whose row tag
 * is the row's own); lengths[rows] = 0 for the scan's total. */
__global__ void k_slice_lengths(int64_t rows, unsigned height, unsigned width,
                                const uint32_t *__restrict__ colrow,
                                int32_t *__restrict__ lengths)
{
    CMRS_GRID_LOOP(r, rows + 1) {
        int32_t n = 0;
        if (r < rows) {
            const int64_t r0 = r - r % height;
            const int64_t hs = min((int64_t)height, rows - r0);
            const uint32_t l = (uint32_t)(r - r0);
            for (unsigned j = 0; j < width; ++j)
                n += (colrow[r0 * width + l + j * hs] & CMRS_ROW_MASK) == l;
        }
        lengths[r] = n;
    }
}

/* Each stored entry to its CSR place (perm; padding: -1). */
template <typename V>
__global__ void k_slice_scatter(int64_t stored, const uint32_t *__restrict__ colrow,
                                const V *__restrict__ values,
                                const int32_t *__restrict__ perm,
                                int32_t *__restrict__ indices,
                                double *__restrict__ a_values)
{
    CMRS_GRID_LOOP(k, stored) {
        const int32_t e = perm[k];
        if (e < 0) continue;
        indices[e] = (int32_t)(colrow[k] >> CMRS_ROW_BITS);
        a_values[e] = (double)values[k];
    }
}

/* Single precision's values widened (exactly) to double, in place. */
__global__ void k_widen(int64_t nnz, const float *__restrict__ values,
                        double *__restrict__ a_values)
{
    CMRS_GRID_LOOP(k, nnz) a_values[k] = (double)values[k];
}

} // namespace

extern "C" cmrs_code cmrs_mat_dev_csr_get_sliced(const cmrs_mat_dev *d,
                                                 const int32_t *perm_d,
                                                 cmrs_prec prec,
                                                 cudaStream_t stream,
                                                 int32_t *indptr_d,
                                                 int32_t *indices_d,
                                                 double *values_d)
{
    cmrs_code rc = CMRS_OK;
    const int64_t n = d->rows, stored = n * d->slice_width;
    int32_t *lengths_d = NULL;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&lengths_d, ((size_t)n + 1) * 4));
    k_slice_lengths<<<cmrs_dev_stride_grid(n + 1, kBlock), kBlock, 0, stream>>>(
        n, (unsigned)d->height, (unsigned)d->slice_width, d->colrow_d,
        lengths_d);
    CMRS_LAUNCH_TRY();
    CMRS_TRY(cmrs_dev_offsets_from_lengths(lengths_d, n, indptr_d, stream));
    if (stored > 0) {
        CMRS_PREC_DISPATCH(prec, V,
            k_slice_scatter<V><<<cmrs_dev_stride_grid(stored, kBlock), kBlock,
                                 0, stream>>>(stored, d->colrow_d,
                                              (const V *)d->values_d, perm_d,
                                              indices_d, values_d));
        CMRS_LAUNCH_TRY();
    }
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream)); /* before the frees */
done:
    cmrs_dev_free(lengths_d);
    return rc;
}

extern "C" cmrs_code cmrs_mat_dev_csr_get_reordered(
    const cmrs_mat_dev *d, const cmrs_reorder_dev *r,
    const int32_t *entry_of_d, int64_t nnz, cmrs_prec prec,
    cudaStream_t stream,
    int32_t *indptr_d, int32_t *indices_d, double *values_d)
{
    cmrs_code rc = CMRS_OK;
    const int64_t n = d->rows;
    int32_t *b_indptr_d = NULL;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&b_indptr_d, ((size_t)n + 1) * 4));
    k_indptr<<<cmrs_dev_stride_grid(n + 1, kBlock), kBlock, 0, stream>>>(
        n, d->height, nnz, d->strip_ptr_d, d->colrow_d, b_indptr_d);
    CMRS_LAUNCH_TRY();
    CMRS_TRY(cmrs_reorder_indptr(n, b_indptr_d, r->new_of_old_d, indptr_d,
                                 stream));
    if (nnz > 0) {
        CMRS_PREC_DISPATCH(prec, V,
            k_scatter<V><<<cmrs_dev_stride_grid(nnz, kBlock), kBlock, 0,
                           stream>>>(nnz, d->colrow_d, (const V *)d->values_d,
                                     entry_of_d, r->old_of_new_d, indices_d,
                                     values_d));
        CMRS_LAUNCH_TRY();
    }
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream)); /* before the frees */
done:
    cmrs_dev_free(b_indptr_d);
    return rc;
}

extern "C" cmrs_code cmrs_mat_dev_csr_get(const cmrs_mat_dev *d, int64_t nnz,
                                          cmrs_prec prec, cudaStream_t stream,
                                          int32_t *indptr_d,
                                          int32_t *indices_d,
                                          double *values_d)
{
    k_indptr<<<cmrs_dev_stride_grid(d->rows + 1, kBlock), kBlock, 0,
               stream>>>(d->rows, d->height, nnz, d->strip_ptr_d,
                         d->colrow_d, indptr_d);
    CMRS_LAUNCH_CHECK();
    if (nnz == 0) return CMRS_OK;
    k_columns<<<cmrs_dev_stride_grid(nnz, kBlock), kBlock, 0, stream>>>(
        nnz, d->colrow_d, indices_d);
    CMRS_LAUNCH_CHECK();
    if (prec == CMRS_PREC_SINGLE) {
        k_widen<<<cmrs_dev_stride_grid(nnz, kBlock), kBlock, 0, stream>>>(
            nnz, (const float *)d->values_d, values_d);
        CMRS_LAUNCH_CHECK();
        return CMRS_OK;
    }
    CMRS_CUDA(cudaMemcpyAsync(values_d, d->values_d,
                              (size_t)nnz * sizeof(double),
                              cudaMemcpyDeviceToDevice, stream));
    return CMRS_OK;
}
