/* cmrs_reordered_sort_rows_dev and cmrs_reordered_build_sorted_gpu
 * (cmrs_reorder.h): B's rows sorted by column for a caller that hands B on
 * as a cmrs_csr (api/renumber.c). One stable radix sort of row << col_bits
 * | col over the bits the matrix uses, the entry map as payload; B's
 * values then gathered from M's by the sorted map. */
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>

/* device.h first: it declares the C headers with C linkage. */
#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "spmv/device.h"
#include "base/memory.h"
#include "base/thread.h"
#include "spmv/csr_view.h"
#include "cmrs_reorder.h"

namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 1 << 16;

int bits_for(uint64_t v)
{
    int b = 0;
    while (v >> b) ++b;
    return b > 0 ? b : 1;
}

/* keys[j] = row(j) << col_bits | col(j), the row found by a binary search
 * of the offsets (one thread an entry: long rows cost nothing extra). */
__global__ void keys_kernel(int64_t rows, int64_t nnz,
                            const int32_t *__restrict__ indptr,
                            const int32_t *__restrict__ indices, int col_bits,
                            uint64_t *__restrict__ keys)
{
    CMRS_GRID_LOOP(j, nnz) {
        int64_t lo = 0, hi = rows; /* indptr[lo] <= j < indptr[hi] */
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            if (indptr[mid] <= j) lo = mid;
            else hi = mid;
        }
        keys[j] = (uint64_t)lo << col_bits | (uint32_t)indices[j];
    }
}

/* The sorted keys' columns, the entry map, and B's values from M's. */
__global__ void unpack_kernel(int64_t nnz, int col_bits,
                              const uint64_t *__restrict__ keys,
                              const int32_t *__restrict__ entry_of,
                              const double *__restrict__ m_values,
                              int32_t *__restrict__ indices,
                              int32_t *__restrict__ entry_out,
                              double *__restrict__ values)
{
    const uint64_t mask = ((uint64_t)1 << col_bits) - 1;
    CMRS_GRID_LOOP(j, nnz) {
        const int32_t e = entry_of[j];
        indices[j] = (int32_t)(keys[j] & mask);
        entry_out[j] = e;
        values[j] = m_values[e];
    }
}

struct scratch {
    uint64_t *keys = nullptr, *sorted = nullptr;
    int32_t *entry_sorted = nullptr;
    void *temp = nullptr;
    ~scratch() { CMRS_GPU_FREE_ALL(keys, sorted, entry_sorted, temp); }
};

} // namespace

cmrs_code cmrs_reordered_sort_rows_dev(cmrs_reordered_d *r,
                                       const cmrs_csr_view_d *M,
                                       cudaStream_t stream)
{
    const int64_t n = r->B.rows, nnz = r->B.nnz;
    if (nnz <= 0) return CMRS_OK;
    const int col_bits = bits_for((uint64_t)(r->B.cols - 1));
    const int end_bit = col_bits + bits_for((uint64_t)(n - 1));
    const unsigned grid = cmrs_grid::blocks(nnz, kBlock, kMaxBlocks);
    scratch w;
    CMRS_CUDA(cmrs_dev_malloc((void **)&w.keys, (size_t)nnz * 8));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w.sorted, (size_t)nnz * 8));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w.entry_sorted, (size_t)nnz * 4));
    keys_kernel<<<grid, kBlock, 0, stream>>>(n, nnz, r->B.indptr_d,
                                             r->B.indices_d, col_bits, w.keys);
    CMRS_LAUNCH_CHECK();
    size_t bytes = 0;
    CMRS_CUDA(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, w.keys, w.sorted, r->entry_of_d, w.entry_sorted, nnz,
        0, end_bit, stream));
    CMRS_CUDA(cmrs_dev_malloc(&w.temp, bytes));
    CMRS_CUDA(cub::DeviceRadixSort::SortPairs(
        w.temp, bytes, w.keys, w.sorted, r->entry_of_d, w.entry_sorted, nnz,
        0, end_bit, stream));
    /* in place: the unpack reads the sorted copies only */
    unpack_kernel<<<grid, kBlock, 0, stream>>>(
        nnz, col_bits, w.sorted, w.entry_sorted, M->values_d,
        (int32_t *)r->B.indices_d, r->entry_of_d, (double *)r->B.values_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaStreamSynchronize(stream));
    return CMRS_OK;
}

namespace {

/* M over A uploaded (cmrs_csr_dev_upload: int32 offsets, entries being
 * at most INT32_MAX), freed with it. */
struct upload {
    cmrs_csr_dev d = {};
    cmrs_csr_view_d M = {};
    ~upload() { cmrs_csr_dev_free(&d); }
};

cmrs_code upload_csr(const cmrs_csr *A, upload *u)
{
    CMRS_CHECK(cmrs_csr_dev_upload(A, CMRS_PREC_DOUBLE, &u->d));
    u->M = cmrs_csr_view_d{.rows = A->rows, .cols = A->cols, .nnz = A->nnz,
                           .indptr_d = (const int32_t *)u->d.indptr_d,
                           .indices_d = u->d.indices_d,
                           .values_d = (const double *)u->d.values_d};
    return CMRS_OK;
}

/* The host arrays the build comes down into, allocated first and their
 * pages touched by a helper thread while the GPU works (at 5M rows the
 * download into fresh pages took 149-192 ms of a 0.22-0.24 s
 * renumbering, H100): B's CSR, its int32 offsets' staging and the row
 * map old_of_new (new_of_old and entry_of stay NULL; entry_of: the
 * caller's device copy, downloaded where a host step needs it). */
struct host_side {
    int32_t *indptr32 = nullptr;
    cmrs_touch touch = {};
    ~host_side()
    {
        cmrs_touch_join(&touch); /* before anything it touches is freed */
        free(indptr32);
    }
};

cmrs_code host_start(const cmrs_csr *A, cmrs_reordered *out, host_side *h)
{
    const size_t n = (size_t)A->rows, nnz = (size_t)A->nnz;
    CMRS_CHECK(cmrs_csr_alloc(&out->B, A->rows, A->cols, A->nnz));
    h->indptr32 = (int32_t *)cmrs_malloc_array(n + 1, 4);
    out->old_of_new = (int32_t *)cmrs_malloc_array(n, 4);
    CMRS_ENSURE(h->indptr32 && out->old_of_new, CMRS_E_NOMEM, "cannot "
                "allocate the renumbering's row maps (%lld rows)",
                (long long)n);
    cmrs_touch *t = &h->touch;
    t->r[0] = {out->B.values, nnz * sizeof(double)};
    t->r[1] = {out->B.indices, nnz * sizeof(int32_t)};
    t->r[2] = {out->B.indptr, (n + 1) * sizeof(int64_t)};
    t->r[3] = {h->indptr32, (n + 1) * 4};
    t->r[4] = {out->old_of_new, n * 4};
    t->n = 5;
    cmrs_touch_start(t);
    return CMRS_OK;
}

/* B and the row map into the touched arrays. */
cmrs_code host_finish(const cmrs_reordered_d *d, host_side *h,
                      cmrs_reordered *out)
{
    cmrs_touch_join(&h->touch);
    CMRS_CHECK(cmrs_csr_view_download_into(&d->B, 0, h->indptr32, &out->B));
    CMRS_CUDA(cudaMemcpy(out->old_of_new, d->old_of_new_d,
                         (size_t)d->B.rows * 4, cudaMemcpyDeviceToHost));
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_reordered_build_sorted_gpu(const cmrs_csr *A,
                                          cmrs_reordered *out,
                                          cmrs_reordered_d *maps)
{
    cmrs_code rc = CMRS_OK;
    cmrs_reordered_d d = {};
    upload u;
    *out = cmrs_reordered{};
    CMRS_ENSURE(A->rows == A->cols && A->rows >= 1 && A->nnz <= INT32_MAX,
                CMRS_E_INTERNAL, "cmrs: reordering needs a square matrix of "
                "at most %d entries, not %lld x %lld with %lld", INT32_MAX,
                (long long)A->rows, (long long)A->cols, (long long)A->nnz);
    {
        host_side h;
        CMRS_TRY(host_start(A, out, &h));
        CMRS_TRY(upload_csr(A, &u));
        CMRS_TRY(cmrs_reordered_build_dev(&u.M, &d));
        CMRS_TRY(cmrs_reordered_sort_rows_dev(&d, &u.M, 0));
        CMRS_TRY(host_finish(&d, &h, out));
    }
    *maps = cmrs_reordered_d{}; /* the maps are the caller's now */
    maps->old_of_new_d = d.old_of_new_d;
    maps->new_of_old_d = d.new_of_old_d;
    maps->entry_of_d = d.entry_of_d;
    d.old_of_new_d = d.new_of_old_d = d.entry_of_d = nullptr;
done:
    cmrs_reordered_dev_free(&d);
    if (rc != CMRS_OK) cmrs_reordered_free(out);
    return rc;
}
