/* cmrs_dev_first_nonfinite (dev_finite.h). */
#include "cuda_check.h"
#include "grid.cuh"
#include "dev_finite.h"

/* A grid-stride scan; atomicMin keeps the smallest flagged index, so the
 * answer does not depend on the launch shape. */
__global__ void first_nonfinite_kernel(int64_t n,
                                       const double *__restrict__ v,
                                       unsigned long long *bad)
{
    CMRS_GRID_LOOP(k, n)
        if (!isfinite(v[k])) atomicMin(bad, (unsigned long long)k);
}

cmrs_code cmrs_dev_first_nonfinite(const double *values_d, int64_t n,
                                   unsigned long long *bad_d,
                                   cudaStream_t stream, int64_t *first)
{
    unsigned long long bad = ~0ull;
    *first = -1;
    if (n <= 0) return CMRS_OK;
    CMRS_CUDA(cudaMemsetAsync(bad_d, 0xff, sizeof *bad_d, stream));
    /* at most 4096 blocks: enough to fill any GPU we run on */
    first_nonfinite_kernel<<<cmrs_grid::blocks(n, 256, 4096), 256, 0,
                             stream>>>(n, values_d, bad_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(&bad, bad_d, sizeof bad, cudaMemcpyDeviceToHost,
                              stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    if (bad != ~0ull) *first = (int64_t)bad;
    return CMRS_OK;
}
