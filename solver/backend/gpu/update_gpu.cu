/* The device-values update's kernel beside the format's gather: Jacobi's
 * D^-1 straight from the new device values; and the Jacobi setup's from
 * the diagonal the format's setup found (see gpu_kernels.h). */
#include "base/gpu/cuda_check.h"
#include "solver/engine/dev_grid.cuh"
#include "gpu_kernels.h"

namespace {

using cmrs_grid::grid_for;
using cmrs_grid::kThreads;

template <typename T>
__global__ void dinv_kernel(int64_t n, const int32_t *__restrict__ diag,
                            const T *__restrict__ values, T *__restrict__ dinv,
                            unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, n) {
        int32_t k = diag[i];
        double d = k >= 0 ? (double)values[k] : 0.0;
        if (!(d > 0) || !isfinite(d)) atomicMin(bad, (unsigned long long)i);
        dinv[i] = (T)(1.0 / d);
    }
}

template <typename T>
__global__ void dinv_of_diag_kernel(int64_t n, const double *__restrict__ diag,
                                    T *__restrict__ dinv,
                                    unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, n) {
        const T v = (T)(1.0 / diag[i]);
        dinv[i] = v;
        if (bad && !isfinite(v)) atomicMin(bad, (unsigned long long)i);
    }
}

} // namespace

cmrs_code cmrs_gpu_dinv_values(cmrs_prec prec, int64_t n,
                               const int32_t *diag_d, const void *values_d,
                               void *dinv_d, unsigned long long *bad_d,
                               cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        dinv_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, diag_d, (const float *)values_d, (float *)dinv_d, bad_d);
    else
        dinv_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, diag_d, (const double *)values_d, (double *)dinv_d, bad_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_gpu_dinv_of_diag(cmrs_prec prec, int64_t n,
                                const double *diag_d, void *dinv_d,
                                unsigned long long *overflow_d,
                                cudaStream_t stream)
{
    if (n <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE)
        dinv_of_diag_kernel<float><<<grid_for(n), kThreads, 0, stream>>>(
            n, diag_d, (float *)dinv_d, overflow_d);
    else
        dinv_of_diag_kernel<double><<<grid_for(n), kThreads, 0, stream>>>(
            n, diag_d, (double *)dinv_d, nullptr);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
