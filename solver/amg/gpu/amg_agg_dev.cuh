/* Device pieces shared by the GPU aggregations (amg_handshake_gpu.cu,
 * amg_mis2_gpu.cu): the diagonal and its roots, handshake's step-1
 * weights (the symmetric strength graph), allocation and an exclusive
 * sum with its total, on int64 row pointers as the host reference's. */
#ifndef CMRS_SOLVER_AMG_AGG_DEV_CUH
#define CMRS_SOLVER_AMG_AGG_DEV_CUH

#include <cub/cub.cuh>

#include "amg_pool_gpu.h"
#include "base/gpu/cuda_check.h"
#include "solver/amg/amg_rules.h"
#include "solver/engine/dev_grid.cuh"

namespace cmrs_agg {

__global__ inline void k_diag(int64_t n, const int64_t *ptr,
                              const int32_t *idx, const double *val,
                              double *d, double *s)
{
    CMRS_GRID_LOOP(i, n)
    {
        int64_t q = amg_find(ptr, idx, i, (int32_t)i);
        d[i] = q >= 0 ? val[q] : 0.0;
        s[i] = sqrt(fabs(d[i]));
    }
}

/* Handshake's step 1 (cmrs_amg_hs_weights; MIS-2's too); lptr NULL: no
 * link graph. Row i's entries by a group of LANES lanes (consecutive
 * entries, so the group's reads coalesce) for levels of long rows: a
 * thread a row reads them one by one (the vessel 5M's MIS-2 level 1,
 * 12-24 entries a row: 2.0 ms by threads, 0.5 ms by groups of 8;
 * CMRS_AMG_PROFILE, H100). LANES = 1 is the grid-stride loop. */
template <int LANES>
__global__ void k_weights(int64_t n, const int64_t *ptr, const int32_t *idx,
                          const double *val, const double *d,
                          const double *s, double theta,
                          const int64_t *lptr, const int32_t *lidx,
                          double *w)
{
    const int64_t step = cmrs_grid::stride() / LANES; /* whole warps */
    const int lane = threadIdx.x % LANES;
    for (int64_t i = cmrs_grid::first_index() / LANES; i < n; i += step)
        for (int64_t k = ptr[i] + lane; k < ptr[i + 1]; k += LANES) {
            int32_t j = idx[k];
            bool link = !lptr || amg_find(lptr, lidx, i, j) >= 0;
            w[k] = j == i || !link ? -1.0
                                   : amg_hs_weight(ptr, idx, val, d, s,
                                                   theta, i, k);
        }
}

/* cudaMalloc that trims a held setup pool and retries when memory runs
 * out (amg_dev_malloc). */
template <typename T> cmrs_code dalloc(T **p, int64_t count)
{
    CMRS_CHECK(amg_dev_malloc((void **)p, (size_t)(count > 0 ? count : 1) *
                                              sizeof(T)));
    return CMRS_OK;
}

/* out = the exclusive sum of a[0, m) (tmp: bytes of CUB scratch, enough
 * for this call); *total = out[m-1] + a[m-1], read back (`st`
 * synchronised); total NULL: a caller that knows it, nothing read back,
 * the stream not synchronised. */
template <typename T>
cmrs_code exclusive_sum(void *tmp, size_t bytes, const T *a, T *out,
                        int64_t m, T *total, cudaStream_t st)
{
    if (total) *total = 0;
    if (m == 0) return CMRS_OK;
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, a, out, m, st));
    if (!total) return CMRS_OK;
    T last[2];
    CMRS_CUDA(cudaMemcpyAsync(&last[0], out + m - 1, sizeof(T),
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaMemcpyAsync(&last[1], a + m - 1, sizeof(T),
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaStreamSynchronize(st));
    *total = last[0] + last[1];
    return CMRS_OK;
}

/* Row pointers = the exclusive sum of len_d[0, n] (len_d[n] = 0) and
 * *nnz their total (nnz NULL: a caller that knows it; nothing read back,
 * the stream not synchronised), CUB's scratch from the setup's pool
 * (cmrs_dev_offsets_from_lengths' cudaFree would wait for the whole
 * device, a helper thread's download beside it included). */
inline cmrs_code pooled_offsets(cudaStream_t st, const int32_t *len_d,
                                int64_t n, int32_t *indptr_d, int32_t *nnz)
{
    void *tmp = nullptr;
    size_t bytes = 0;
    /* sized with the count's type the scan below is run with */
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, len_d, indptr_d,
                                            (int64_t)(n + 1), st));
    CMRS_CHECK(amg_pool_alloc(&tmp, bytes, st));
    cmrs_code rc = exclusive_sum(tmp, bytes, len_d, indptr_d, n + 1, nnz, st);
    amg_pool_free(tmp, st); /* stream-ordered: after the scan */
    return rc;
}

} // namespace cmrs_agg

#endif
