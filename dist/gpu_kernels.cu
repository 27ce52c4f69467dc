/* The distributed back end's deterministic dot (gpu_kernels.h), with the
 * engines' block and partial sums (solver/engine/dev_reduce.cuh). */
#include "solver/engine/dev_reduce.cuh"
#include "gpu_kernels.h"

using namespace cmrs_dev;

/* Pass 1: each block's sum of x_k y_k (in double) into partials. */
template <typename T>
__global__ void dot_blocks(const T *__restrict__ x, const T *__restrict__ y,
                           int64_t n, double *__restrict__ partials)
{
    double v[1] = {0.0};
    for (int64_t k = first_index(); k < n; k += stride())
        v[0] += (double)x[k] * (double)y[k];
    write_partials<1>(v, partials);
}

/* Pass 2: one block adds the partials in block order. */
__global__ void dot_total(const double *__restrict__ partials, int count,
                          double *__restrict__ out)
{
    double tot[1];
    sum_partials<1>(partials, count, tot);
    if (threadIdx.x == 0) *out = tot[0];
}

cmrs_code cmrs_dist_dot_start(const void *x_d, const void *y_d, int64_t n,
                              cmrs_prec prec, double *scratch_d, double *out_h,
                              cudaStream_t stream)
{
    const int blocks = CMRS_DIST_DOT_BLOCKS; /* 2 per SM of an H100 */
    if (prec == CMRS_PREC_DOUBLE)
        dot_blocks<<<blocks, kThreads, 0, stream>>>((const double *)x_d,
                                                    (const double *)y_d, n,
                                                    scratch_d);
    else
        dot_blocks<<<blocks, kThreads, 0, stream>>>((const float *)x_d,
                                                    (const float *)y_d, n,
                                                    scratch_d);
    CMRS_LAUNCH_CHECK();
    dot_total<<<1, kThreads, 0, stream>>>(scratch_d, blocks,
                                          scratch_d + blocks);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(out_h, scratch_d + blocks, sizeof(double),
                              cudaMemcpyDeviceToHost, stream));
    return CMRS_OK;
}
