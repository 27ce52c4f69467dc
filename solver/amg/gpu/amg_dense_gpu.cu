/* The dense kernels of the coarsest level's inverse on the device
 * (amg_dense_gpu.h): the matrix scattered from its device CSR, the
 * identity the solve starts from, and the pattern of the inverse's dense
 * CSR. They replace a host fill, two pageable uploads of n x n doubles, a
 * download and a host CSR of n^2 entries, which took 25 ms at 922 rows
 * (vessel 5M, H100, CMRS_AMG_PROFILE) against milliseconds of cuSOLVER. */
#include "amg_dense_gpu.h"
#include "base/gpu/cuda_check.h"

namespace {

constexpr int kThreads = 256;

unsigned grid(int64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

/* a[i n + j] = a_ij for row i's entries (a zeroed before); a later entry
 * of a column wins, as cmrs_amg_dense_fill's loop leaves it. */
__global__ void k_scatter(int64_t n, const int32_t *__restrict__ ptr,
                          const int32_t *__restrict__ col,
                          const double *__restrict__ val,
                          double *__restrict__ a)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int32_t k = ptr[i]; k < ptr[i + 1]; ++k) a[i * n + col[k]] = val[k];
}

/* x (n x n, full) = the symmetric matrix whose lower triangle a holds
 * column-major: x[i n + j] = a_(max, min) = a[min n + max]. */
__global__ void k_mirror(int64_t n, const double *__restrict__ a,
                         double *__restrict__ x)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int64_t i = k / n, j = k % n;
    x[k] = i < j ? a[i * n + j] : a[j * n + i];
}

/* Every entry of an n x n matrix, row by row: ptr[i] = i n, col = j. */
__global__ void k_dense_pattern(int64_t n, int32_t *__restrict__ ptr,
                                int32_t *__restrict__ col)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= n) ptr[k] = (int32_t)(k * n);
    if (k < n * n) col[k] = (int32_t)(k % n);
}

} // namespace

extern "C" cmrs_code cmrs_gpu_dense_scatter(cudaStream_t stream, int64_t n,
                                            const int32_t *indptr_d,
                                            const int32_t *indices_d,
                                            const double *values_d,
                                            double *a_d)
{
    CMRS_CUDA(cudaMemsetAsync(a_d, 0, (size_t)(n * n) * sizeof *a_d,
                              stream));
    if (n == 0) return CMRS_OK;
    k_scatter<<<grid(n), kThreads, 0, stream>>>(n, indptr_d, indices_d,
                                                values_d, a_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_dense_mirror(cudaStream_t stream, int64_t n,
                                           const double *a_d, double *x_d)
{
    if (n == 0) return CMRS_OK;
    k_mirror<<<grid(n * n), kThreads, 0, stream>>>(n, a_d, x_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_dense_pattern(cudaStream_t stream, int64_t n,
                                            int32_t *indptr_d,
                                            int32_t *indices_d)
{
    k_dense_pattern<<<grid(n * n + 1), kThreads, 0, stream>>>(n, indptr_d,
                                                            indices_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
