/* cmrs_dist_pack (gpu_kernels.h): one grid-stride gather per send. */
#include "gpu_kernels.h"

template <typename T>
__global__ void pack_kernel(const T *__restrict__ x,
                            const int32_t *__restrict__ idx,
                            T *__restrict__ buf, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += stride)
        buf[k] = x[idx[k]];
}

cmrs_code cmrs_dist_pack(const void *x_d, const int32_t *idx_d, void *buf_d,
                         int64_t n, size_t elem, cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    int64_t blocks = (n + 255) / 256;
    if (blocks > 4096) blocks = 4096; /* enough to fill any GPU we run on */
    if (elem == sizeof(double))
        pack_kernel<<<(unsigned)blocks, 256, 0, stream>>>(
            (const double *)x_d, idx_d, (double *)buf_d, n);
    else
        pack_kernel<<<(unsigned)blocks, 256, 0, stream>>>(
            (const float *)x_d, idx_d, (float *)buf_d, n);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* Pass 1: block b sums entries b*256+t, b*256+t+stride, ... in double, then
 * a shared-memory tree; pass 2: one block adds the block sums in the same
 * tree. Fixed grid, fixed order: the same bits on every run. */
template <typename T>
__global__ void dot_blocks(const T *__restrict__ x, const T *__restrict__ y,
                           int64_t n, double *__restrict__ part)
{
    __shared__ double s[256];
    double acc = 0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += stride)
        acc += (double)x[k] * (double)y[k];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

__global__ void dot_total(const double *__restrict__ part, int nparts,
                         double *__restrict__ out)
{
    __shared__ double s[512];
    int t = threadIdx.x;
    s[t] = t < nparts ? part[t] : 0.0;
    __syncthreads();
    for (int w = 256; w > 0; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) *out = s[0];
}

cmrs_code cmrs_dist_dot_start(const void *x_d, const void *y_d, int64_t n,
                              size_t elem, double *scratch_d, double *out_h,
                              cudaStream_t stream)
{
    const int blocks = CMRS_DIST_DOT_BLOCKS; /* 2 per SM of an H100 */
    static_assert(CMRS_DIST_DOT_BLOCKS <= 512, "dot_total's one block");
    if (elem == sizeof(double))
        dot_blocks<<<blocks, 256, 0, stream>>>((const double *)x_d,
                                               (const double *)y_d, n,
                                               scratch_d);
    else
        dot_blocks<<<blocks, 256, 0, stream>>>((const float *)x_d,
                                               (const float *)y_d, n,
                                               scratch_d);
    CMRS_LAUNCH_CHECK();
    dot_total<<<1, 512, 0, stream>>>(scratch_d, blocks, scratch_d + blocks);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(out_h, scratch_d + blocks, sizeof(double),
                              cudaMemcpyDeviceToHost, stream));
    return CMRS_OK;
}
