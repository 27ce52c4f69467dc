/* The one kernel of smoothed aggregation's P on the GPU (amg_sa_gpu.h):
 * A P_tent, formed by cuSPARSE SpGEMM, becomes (I - D_f A) P_tent row by
 * row. A row's entry in column agg_i exists whenever a_ii is stored, which
 * amg_sa_gpu.c checks before it comes here. */
#include "amg_sa_gpu.h"
#include "../spmv/cuda_check.h"

namespace {

constexpr int kThreads = 256;

__global__ void k_smooth_rows(int64_t n, const int32_t *__restrict__ ptr,
                              const int32_t *__restrict__ col,
                              double *__restrict__ val,
                              const double *__restrict__ f,
                              const int32_t *__restrict__ agg)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double fi = f[i];
    int32_t a = agg[i];
    for (int32_t k = ptr[i]; k < ptr[i + 1]; ++k) {
        /* __dmul_rn/__dadd_rn: no FMA contraction, as the host computes */
        double v = __dmul_rn(-fi, val[k]);
        val[k] = col[k] == a ? __dadd_rn(1.0, v) : v;
    }
}

} // namespace

extern "C" cmrs_code cmrs_gpu_sa_smooth_rows(cudaStream_t stream, int64_t n,
                                             const int32_t *indptr_d,
                                             const int32_t *indices_d,
                                             double *values_d,
                                             const double *f_d,
                                             const int32_t *agg_d)
{
    if (n == 0) return CMRS_OK;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    k_smooth_rows<<<(unsigned)blocks, kThreads, 0, stream>>>(
        n, indptr_d, indices_d, values_d, f_d, agg_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
