/* Element-wise solver kernels: the Jacobi preconditioner and the fused
 * direction update. Grid-stride loops, one element per thread per step:
 * both are pure streaming, so the only goal is full memory bandwidth. */
#include "../spmv/cuda_check.h"
#include "gpu_kernels.h"

namespace {

constexpr int kThreads = 256;

/* Enough blocks to fill any GPU several times over; the grid-stride loop
 * covers larger n. */
unsigned grid_for(int64_t n)
{
    int64_t blocks = (n + kThreads - 1) / kThreads;
    return (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
}

template <typename T>
__global__ void jacobi_kernel(int64_t n, const T *__restrict__ dinv,
                              const T *__restrict__ r, T *__restrict__ z)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        z[i] = r[i] * dinv[i];
}

template <typename T>
__global__ void xpby_kernel(int64_t n, const T *__restrict__ x, T b,
                            T *__restrict__ y)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        y[i] = x[i] + b * y[i];
}

} // namespace

extern "C" cmrs_code cmrs_gpu_jacobi(cmrs_prec prec, int64_t n,
                                     const void *dinv_d, const void *r_d,
                                     void *z_d, cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        jacobi_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, (const float *)dinv_d, (const float *)r_d, (float *)z_d);
    else
        jacobi_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, (const double *)dinv_d, (const double *)r_d, (double *)z_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_xpby(cmrs_prec prec, int64_t n, const void *x_d,
                                   double b, void *y_d, cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        xpby_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, (const float *)x_d, (float)b, (float *)y_d);
    else
        xpby_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, (const double *)x_d, b, (double *)y_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
