/* The one-width sliced layout (variant "su", docs/CMRS.md) built on the
 * GPU from the CSR arrays cmrs_mat_dev_build has staged there: every
 * strip padded to the matrix's longest row W and stored column-major, so
 * strip s starts at s h W and entry j of its row l lies at s h W + j h_s + l
 * (h_s: the strip's rows). The same arrays as the host's
 * cmrs_mat_from_csr_sliced(A, h, 1, ...), bit for bit
 * (tests/spmv/cmrs/test_gpu_cmrs_convert.c), plus the permutation that value
 * updates and the read back go through. */
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "cmrs_format.h"
#include "cmrs_setup.h"

namespace {

constexpr int kBlock = 256;

/* *longest = max over rows of indptr[r + 1] - indptr[r] (starts at 0). */
__global__ void longest_kernel(int64_t rows, const int64_t *__restrict__ indptr,
                               unsigned long long *longest)
{
    unsigned long long mine = 0;
    CMRS_GRID_LOOP(r, rows) {
        const unsigned long long len = (unsigned long long)(indptr[r + 1] - indptr[r]);
        if (len > mine) mine = len;
    }
    for (int off = 16; off > 0; off /= 2) {
        const unsigned long long o = __shfl_down_sync(0xffffffffu, mine, off);
        if (o > mine) mine = o;
    }
    if (threadIdx.x % 32 == 0 && mine > 0) atomicMax(longest, mine);
}

/* One thread per row of [r0, r1): its W slots (entries, then padding
 * with the next row's tag and value 0), their permutation entries, and
 * the strip pointer where the row starts a strip (the last row also the
 * end). V: the values' bits (4 or 8 bytes), copied as staged; entry k of
 * A at cols[k - e0] and vals[k - e0] (a chunk's arrays, or e0 = 0). */
template <typename V>
__global__ void slice_kernel(int64_t r0, int64_t r1, int64_t rows,
                             unsigned height, unsigned width,
                             const int64_t *__restrict__ indptr,
                             const uint32_t *__restrict__ cols,
                             const V *__restrict__ vals, int64_t e0,
                             uint32_t *__restrict__ colrow, V *__restrict__ out,
                             int32_t *__restrict__ perm,
                             uint32_t *__restrict__ strip_ptr)
{
    CMRS_GRID_LOOP_AS(int64_t, r, r0, r1) {
        const int64_t s0 = r - r % height, hs = min((int64_t)height, rows - s0);
        const uint32_t l = (uint32_t)(r - s0); /* s0: the strip's first row */
        const int64_t begin = indptr[r], len = indptr[r + 1] - begin;
        const int64_t base = s0 * width + l;
        for (int64_t j = 0; j < width; ++j) {
            const int64_t at = base + j * hs;
            const bool in = j < len;
            colrow[at] = in ? cols[begin + j - e0] << CMRS_ROW_BITS | l
                            : (l + 1) & CMRS_ROW_MASK; /* column 0, another tag */
            out[at] = in ? vals[begin + j - e0] : V(0);
            perm[at] = in ? (int32_t)(begin + j) : -1;
        }
        if (l == 0) strip_ptr[s0 / height] = (uint32_t)(s0 * width);
        if (r == rows - 1)
            strip_ptr[(rows + height - 1) / height] = (uint32_t)(rows * width);
    }
}

/* A failed build's arrays and permutation, freed. */
void slice_free(cmrs_mat_dev *d, int32_t **perm_d)
{
    cmrs_mat_dev_free(d);
    cmrs_dev_free(*perm_d);
    *perm_d = NULL;
}

} // namespace

extern "C" cmrs_code cmrs_dev_longest_row(const int64_t *indptr_d, int64_t rows,
                                          int64_t *longest)
{
    cmrs_code rc = CMRS_OK;
    unsigned long long *out_d = NULL, out = 0;
    *longest = 0;
    if (rows <= 0) return CMRS_OK;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&out_d, sizeof *out_d));
    CMRS_CUDA_TRY(cudaMemset(out_d, 0, sizeof *out_d));
    longest_kernel<<<cmrs_dev_stride_grid(rows, kBlock), kBlock>>>(rows, indptr_d,
                                                                  out_d);
    CMRS_LAUNCH_TRY();
    CMRS_CUDA_TRY(cudaMemcpy(&out, out_d, sizeof out, cudaMemcpyDeviceToHost));
    *longest = (int64_t)out;
done:
    cmrs_dev_free(out_d);
    return rc;
}

extern "C" cmrs_code cmrs_mat_dev_slice_alloc(int64_t rows, int height,
                                              int64_t width, cmrs_prec prec,
                                              cmrs_mat_dev *d, int32_t **perm_d)
{
    cmrs_code rc = CMRS_OK;
    const int64_t strips = (rows + height - 1) / height;
    const int64_t stored = rows * width;
    const size_t sv = cmrs_prec_value_bytes(prec);
    memset(d, 0, sizeof *d);
    *perm_d = NULL;
    CMRS_ENSURE(rows > 0 && width > 0 && stored <= CMRS_MAX_ENTRIES,
                CMRS_E_LIMIT, "cmrs: su (strips of one width) would store "
                "%lld entries; 32-bit strip pointers hold 1..%lld",
                (long long)stored, (long long)CMRS_MAX_ENTRIES);
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&d->strip_ptr_d,
                             ((size_t)strips + 1) * sizeof(uint32_t)));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&d->colrow_d, (size_t)stored * sizeof(uint32_t)));
    CMRS_CUDA_TRY(cmrs_dev_malloc(&d->values_d, (size_t)stored * sv));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)perm_d, (size_t)stored * sizeof(int32_t)));
    d->rows = rows;
    d->strips = strips;
    d->height = height;
    d->slice_width = (int)width;
done:
    if (rc != CMRS_OK) slice_free(d, perm_d);
    return rc;
}

extern "C" cmrs_code cmrs_mat_dev_slice_rows(const int64_t *indptr_d,
                                             const uint32_t *cols_d,
                                             const void *vals_d, int64_t r0,
                                             int64_t r1, int64_t e0,
                                             cmrs_prec prec, cmrs_mat_dev *d,
                                             int32_t *perm_d,
                                             cudaStream_t stream)
{
    if (r1 <= r0) return CMRS_OK;
    const unsigned grid = cmrs_dev_stride_grid(r1 - r0, kBlock);
    const unsigned h = (unsigned)d->height, w = (unsigned)d->slice_width;
    if (cmrs_prec_value_bytes(prec) == 8)
        slice_kernel<uint64_t><<<grid, kBlock, 0, stream>>>(
            r0, r1, d->rows, h, w, indptr_d, cols_d, (const uint64_t *)vals_d,
            e0, d->colrow_d, (uint64_t *)d->values_d, perm_d, d->strip_ptr_d);
    else
        slice_kernel<uint32_t><<<grid, kBlock, 0, stream>>>(
            r0, r1, d->rows, h, w, indptr_d, cols_d, (const uint32_t *)vals_d,
            e0, d->colrow_d, (uint32_t *)d->values_d, perm_d, d->strip_ptr_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_mat_dev_slice(const int64_t *indptr_d,
                                        const uint32_t *cols_d,
                                        const void *vals_d, int64_t rows,
                                        int height, int64_t width,
                                        cmrs_prec prec, cmrs_mat_dev *d,
                                        int32_t **perm_d)
{
    cmrs_code rc = CMRS_OK;
    CMRS_CHECK(cmrs_mat_dev_slice_alloc(rows, height, width, prec, d, perm_d));
    CMRS_TRY(cmrs_mat_dev_slice_rows(indptr_d, cols_d, vals_d, 0, rows, 0,
                                     prec, d, *perm_d, 0));
done:
    if (rc != CMRS_OK) slice_free(d, perm_d);
    return rc;
}
