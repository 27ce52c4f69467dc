/* cmrs_row_offsets_fit for a matrix on the device (cmrs_setup.h): the rows
 * kernel keeps each row's start in its strip in 16 bits, so setup moves a
 * matrix with a longer strip to the tile kernel. The host function walks
 * the strips of the host copy; with no host copy a kernel takes the
 * largest offset over the strips, by the same rule (cmrs_strip_last_row,
 * CMRS_ROW_OFFSET_MAX). */
#include <cstdint>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/grid.cuh"
#include "cmrs_setup.h"

namespace {

/* *max_offset = max over strips of indptr[last row] - indptr[first row]
 * (lowered from 0, so it must start at 0): each thread over its strips,
 * then a warp maximum, then one atomic per warp. */
__global__ void max_offset_kernel(int64_t rows, int height,
                                  const int32_t *__restrict__ indptr,
                                  int *max_offset)
{
    const int64_t strips = (rows + height - 1) / height;
    int local = 0;
    CMRS_GRID_LOOP(s, strips) {
        const int64_t r0 = s * height;
        const int offset =
            indptr[cmrs_strip_last_row(r0, height, rows)] - indptr[r0];
        local = offset > local ? offset : local;
    }
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
        const int other = __shfl_xor_sync(0xffffffffu, local, lane_mask);
        local = other > local ? other : local;
    }
    if (threadIdx.x % 32 == 0 && local > 0) atomicMax(max_offset, local);
}

} // namespace

cmrs_code cmrs_row_offsets_fit_dev(const cmrs_csr_view_d *M, int height,
                                   int *fits)
{
    cmrs_code rc = CMRS_OK;
    int *max_d = NULL, max_offset = 0;
    const int block = 256; /* whole warps: the shuffle needs every lane */
    *fits = 1;
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    if (M->rows == 0) return CMRS_OK; /* no strips */
    const int64_t strips = (M->rows + height - 1) / height;
    CMRS_CUDA(cudaMalloc((void **)&max_d, sizeof *max_d));
    CMRS_CUDA_TRY(cudaMemset(max_d, 0, sizeof *max_d));
    max_offset_kernel<<<cmrs_dev_stride_grid(strips, block), block>>>(
        M->rows, height, M->indptr_d, max_d);
    CMRS_LAUNCH_TRY();
    CMRS_CUDA_TRY(cudaMemcpy(&max_offset, max_d, sizeof max_offset,
                             cudaMemcpyDeviceToHost));
    *fits = max_offset <= CMRS_ROW_OFFSET_MAX;
done:
    cudaFree(max_d);
    return rc;
}
