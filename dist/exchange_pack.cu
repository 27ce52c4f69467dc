/* cmrs_dist_pack (exchange_pack.h): one grid-stride gather per send. */
#include "exchange_pack.h"

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
