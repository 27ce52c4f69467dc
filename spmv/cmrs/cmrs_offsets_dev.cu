/* cmrs_row_offsets_fit for a matrix on the device (cmrs_setup.h): the rows
 * kernel keeps each row's start in its strip in 16 bits, so setup moves a
 * matrix with a longer strip to the tile kernel. The host function walks
 * the strips of the host copy (strided reads: 3.5 ms at 5M rows); on the
 * device a kernel takes the largest offset over the strips, by the same
 * rule (cmrs_strip_last_row, CMRS_ROW_OFFSET_MAX): for a matrix with no
 * host copy, and for the host build's staged row offsets. */
#include <climits>
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "cmrs_setup.h"

namespace {

/* *max_offset = max over strips of indptr[last row] - indptr[first row]
 * (lowered from 0, so it must start at 0): each thread over its strips,
 * then a warp maximum, then one atomic per warp. */
template <typename I>
__global__ void max_offset_kernel(int64_t rows, int height,
                                  const I *__restrict__ indptr,
                                  int *max_offset)
{
    const int64_t strips = (rows + height - 1) / height;
    int local = 0;
    CMRS_GRID_LOOP(s, strips) {
        const int64_t r0 = s * height;
        const int64_t span =
            (int64_t)indptr[cmrs_strip_last_row(r0, height, rows)] -
            (int64_t)indptr[r0];
        const int offset = span > INT32_MAX ? INT32_MAX : (int)span;
        local = offset > local ? offset : local;
    }
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
        const int other = __shfl_xor_sync(0xffffffffu, local, lane_mask);
        local = other > local ? other : local;
    }
    if (threadIdx.x % 32 == 0 && local > 0) atomicMax(max_offset, local);
}

/* Either width of row offsets. */
template <typename I>
cmrs_code offsets_fit(const I *indptr_d, int64_t rows, int height, int *fits)
{
    cmrs_code rc = CMRS_OK;
    int *max_d = NULL, max_offset = 0;
    const int block = 256; /* whole warps: the shuffle needs every lane */
    *fits = 1;
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    if (rows == 0) return CMRS_OK; /* no strips */
    const int64_t strips = (rows + height - 1) / height;
    CMRS_CUDA(cmrs_dev_malloc((void **)&max_d, sizeof *max_d));
    CMRS_CUDA_TRY(cudaMemset(max_d, 0, sizeof *max_d));
    max_offset_kernel<I><<<cmrs_dev_stride_grid(strips, block), block>>>(
        rows, height, indptr_d, max_d);
    CMRS_LAUNCH_TRY();
    CMRS_CUDA_TRY(cudaMemcpy(&max_offset, max_d, sizeof max_offset,
                             cudaMemcpyDeviceToHost));
    *fits = max_offset <= CMRS_ROW_OFFSET_MAX;
done:
    cmrs_dev_free(max_d);
    return rc;
}

} // namespace

cmrs_code cmrs_row_offsets_fit_dev(const cmrs_csr_view_d *M, int height,
                                   int *fits)
{
    return offsets_fit(M->indptr_d, M->rows, height, fits);
}

cmrs_code cmrs_row_offsets_fit_dev64(const int64_t *indptr_d, int64_t rows,
                                     int height, int *fits)
{
    return offsets_fit(indptr_d, rows, height, fits);
}
