/* The solver's element-wise kernels: y = alpha d.*x + beta y (the
 * preconditioners' pass: Jacobi, smoothers, copies; and the direction
 * update y = x + b y of the cublas loop), and the power iteration's start
 * vector. A grid-stride loop, one element
 * per thread per step: pure streaming, so the only goal is full memory
 * bandwidth. */
#include "base/gpu/cuda_check.h"
#include "solver/engine/dev_grid.cuh"
#include "gpu_kernels.h"
#include "solver/pc/pc_start.h"

namespace {

using cmrs_grid::grid_for;
using cmrs_grid::kThreads;

/* beta == 0 does not read y (it may hold NaN); d NULL is the identity.
 * x and y may be the same array (a scaling), so no __restrict__ on them. */
template <typename T>
__global__ void dxpby_kernel(int64_t n, T alpha, const T *__restrict__ d,
                             const T *x, T beta, T *y)
{
    CMRS_GRID_LOOP(i, n) {
        T v = alpha * (d ? d[i] * x[i] : x[i]);
        y[i] = beta == T(0) ? v : v + beta * y[i];
    }
}

/* The power iteration's start vector (pc_chebyshev.c): in double, then
 * rounded to T, as the host's array and arr_set make it. */
template <typename T> __global__ void start_kernel(int64_t n, T *y)
{
    CMRS_GRID_LOOP(i, n) y[i] = (T)cmrs_pc_start_value(i);
}

/* y = s x, the product in double (x widened first), then rounded to Y. */
template <typename X, typename Y>
__global__ void cast_kernel(int64_t n, double s, const X *__restrict__ x,
                            Y *__restrict__ y)
{
    CMRS_GRID_LOOP(i, n) y[i] = (Y)(s * (double)x[i]);
}

template <typename X>
void launch_cast(int64_t n, double s, const X *x, void *y, cmrs_prec py,
                 cudaStream_t stream)
{
    if (py == CMRS_PREC_SINGLE)
        cast_kernel<X, float><<<grid_for(n), kThreads, 0, stream>>>(
            n, s, x, (float *)y);
    else
        cast_kernel<X, double><<<grid_for(n), kThreads, 0, stream>>>(
            n, s, x, (double *)y);
}

} // namespace

extern "C" cmrs_code cmrs_gpu_cast(int64_t n, double s, const void *x_d,
                                   cmrs_prec px, void *y_d, cmrs_prec py,
                                   cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (px == CMRS_PREC_SINGLE)
        launch_cast(n, s, (const float *)x_d, y_d, py, stream);
    else
        launch_cast(n, s, (const double *)x_d, y_d, py, stream);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_dxpby(cmrs_prec prec, int64_t n, double alpha,
                                    const void *d_d, const void *x_d,
                                    double beta, void *y_d,
                                    cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        dxpby_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, (float)alpha, (const float *)d_d, (const float *)x_d,
            (float)beta, (float *)y_d);
    else
        dxpby_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, alpha, (const double *)d_d, (const double *)x_d, beta,
            (double *)y_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_start_vector(cmrs_prec prec, int64_t n,
                                           void *y_d, cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        start_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, (float *)y_d);
    else
        start_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, (double *)y_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
