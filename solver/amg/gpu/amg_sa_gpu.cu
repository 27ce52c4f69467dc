/* The kernels of smoothed aggregation's P on the GPU (amg_sa_gpu.h): the
 * row scales f_i = w / a_ii (w from the Gershgorin bound), the tentative P
 * from the aggregates, the sortedness check of a product, and the
 * smoothing: A P_tent, formed by cuSPARSE SpGEMM, becomes (I - D_f A)
 * P_tent row by row. A row's entry in column agg_i exists whenever a_ii is
 * stored, which the scales check before it comes here. Each replaces a
 * host pass over data already on the device (docs/BENCHMARKS.md, "Designs
 * we measured and why they lost"). */
#include <string.h>

#include "amg_pool_gpu.h"
#include "amg_sa_gpu.h"
#include "base/gpu/cuda_check.h"

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

/* rho = max over rows with a nonzero diagonal of sum_k |a_ik| / |a_ii|:
 * the row's sum in the host's order; the maximum through the bits of a
 * non-negative double, which order as the values do (a NaN ratio fails
 * r > 0 and is skipped, as the host's r > rho skips it). */
__device__ double diag_of(const int32_t *__restrict__ ptr,
                          const int32_t *__restrict__ col,
                          const double *__restrict__ val, int64_t i,
                          int *found)
{
    /* the binary search of cmrs_csr_lookup, so duplicates resolve alike */
    int64_t lo = ptr[i], hi = ptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (col[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < ptr[i + 1] && col[lo] == i;
    return *found ? val[lo] : 0.0;
}

/* Row i's ratio as the bits of a non-negative double; 0 where the row
 * does not count. */
__device__ unsigned long long gershgorin_bits(
    int64_t n, const int32_t *__restrict__ ptr,
    const int32_t *__restrict__ col, const double *__restrict__ val,
    int64_t i)
{
    if (i >= n) return 0;
    int found = 0;
    double d = fabs(diag_of(ptr, col, val, i, &found)), sum = 0.0;
    if (!(d > 0)) return 0;
    for (int32_t k = ptr[i]; k < ptr[i + 1]; ++k)
        sum = __dadd_rn(sum, fabs(val[k]));
    double r = __ddiv_rn(sum, d);
    return r > 0 ? (unsigned long long)__double_as_longlong(r) : 0;
}

/* The maximum over a warp first, then one atomic per warp: an atomic per
 * row on one word serialised 5M rows into 4 ms (CMRS_AMG_PROFILE, vessel
 * 5M, H100). The maximum of the bits is the same whatever the order. */
__global__ void k_gershgorin(int64_t n, const int32_t *__restrict__ ptr,
                             const int32_t *__restrict__ col,
                             const double *__restrict__ val,
                             unsigned long long *rho_bits)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long b = gershgorin_bits(n, ptr, col, val, i);
    for (int o = 16; o > 0; o /= 2) {
        unsigned long long c = __shfl_down_sync(0xffffffffu, b, o);
        b = c > b ? c : b;
    }
    if ((threadIdx.x & 31) == 0 && b) atomicMax(rho_bits, b);
}

__global__ void k_scales(int64_t n, const int32_t *__restrict__ ptr,
                         const int32_t *__restrict__ col,
                         const double *__restrict__ val, double w,
                         double *__restrict__ f, unsigned long long *bad)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int found = 0;
    double a = diag_of(ptr, col, val, i, &found);
    double fi = __ddiv_rn(w, a);
    f[i] = fi;
    if (!found || !isfinite(fi)) *bad = 1; /* any writer: a flag */
}

/* dinv_i = 1 / a_ii in double (cmrs_jacobi_inverse_diagonal), stored in
 * T; *bad when a_ii is missing or not > 0, or its inverse is not finite
 * in T (the host's arr_set refuses it in single). */
template <typename T>
__global__ void k_dinv(int64_t n, const int32_t *__restrict__ ptr,
                       const int32_t *__restrict__ col,
                       const double *__restrict__ val, T *__restrict__ dinv,
                       int *bad)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int found = 0;
    double d = diag_of(ptr, col, val, i, &found);
    T v = (T)__ddiv_rn(1.0, d);
    dinv[i] = v;
    if (!found || !(d > 0) || !isfinite((double)v)) *bad = 1;
}

__global__ void k_tentative(int64_t n, const int32_t *__restrict__ agg,
                            int32_t *__restrict__ ptr,
                            int32_t *__restrict__ col,
                            double *__restrict__ val)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    ptr[i] = (int32_t)i;
    if (i == n) return;
    col[i] = agg[i];
    val[i] = 1.0;
}

__global__ void k_unsorted(int64_t n, const int32_t *__restrict__ ptr,
                           const int32_t *__restrict__ col, int *unsorted)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int32_t k = ptr[i] + 1; k < ptr[i + 1]; ++k)
        if (col[k] <= col[k - 1]) {
            *unsorted = 1;
            return;
        }
}

/* *differ = 1 where a[i] != b[i] for some i < n. */
__global__ void k_differ(int64_t n, const int32_t *__restrict__ a,
                         const int32_t *__restrict__ b, int *differ)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i]) *differ = 1;
}

/* v[i] = i (exact in double below 2^53): entry numbers that a transpose
 * carries to their new places. */
__global__ void k_iota(int64_t n, double *__restrict__ v)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = (double)i;
}

/* out[i] = ptr[i] - ptr[0] for i <= rows: a row slice's own pointers. */
__global__ void k_rebase(int64_t rows, const int32_t *__restrict__ ptr,
                         int32_t *__restrict__ out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= rows) out[i] = ptr[i] - ptr[0];
}

__global__ void k_to_int32(int64_t n, const double *__restrict__ v,
                           int32_t *__restrict__ out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int32_t)v[i];
}

unsigned grid(int64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

} // namespace

extern "C" cmrs_code cmrs_gpu_sa_smooth_rows(cudaStream_t stream, int64_t n,
                                             const int32_t *indptr_d,
                                             const int32_t *indices_d,
                                             double *values_d,
                                             const double *f_d,
                                             const int32_t *agg_d)
{
    if (n == 0) return CMRS_OK;
    k_smooth_rows<<<grid(n), kThreads, 0, stream>>>(
        n, indptr_d, indices_d, values_d, f_d, agg_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* Two device words: rho's bits (then the bad-row flag). */
static cmrs_code scales_run(cudaStream_t stream, int64_t n,
                            const int32_t *ptr, const int32_t *col,
                            const double *val, double omega, double *f_d,
                            unsigned long long *word_d, double *w, int *ok)
{
    unsigned long long h[2] = {0, 0};
    CMRS_CUDA(cudaMemsetAsync(word_d, 0, 2 * sizeof *word_d, stream));
    k_gershgorin<<<grid(n), kThreads, 0, stream>>>(n, ptr, col, val, word_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(h, word_d, sizeof h[0], cudaMemcpyDeviceToHost,
                              stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    double rho;
    memcpy(&rho, &h[0], sizeof rho);
    *w = rho > 0 ? omega / rho : 0.0; /* cmrs_amg_smoothing_weight */
    k_scales<<<grid(n), kThreads, 0, stream>>>(n, ptr, col, val, *w, f_d,
                                               word_d + 1);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(&h[1], word_d + 1, sizeof h[1],
                              cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    *ok = h[1] == 0;
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_sa_scales(cudaStream_t stream, int64_t n,
                                        const int32_t *indptr_d,
                                        const int32_t *indices_d,
                                        const double *values_d, double omega,
                                        double *f_d, double *w, int *ok)
{
    unsigned long long *word_d = NULL;
    *ok = 0;
    /* from the setup's pool: a cudaFree would wait for the whole device,
     * the aggregates' download beside it included (2 ms at 5M rows) */
    CMRS_CHECK(amg_pool_alloc((void **)&word_d, 2 * sizeof *word_d, stream));
    cmrs_code rc = scales_run(stream, n, indptr_d, indices_d, values_d,
                              omega, f_d, word_d, w, ok);
    amg_pool_free(word_d, stream); /* after a failure too */
    if (rc != CMRS_OK) return cmrs_error_trace(rc, __FILE__, __LINE__);
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_sa_tentative(cudaStream_t stream, int64_t n,
                                           const int32_t *agg_d,
                                           int32_t *indptr_d,
                                           int32_t *indices_d,
                                           double *values_d)
{
    k_tentative<<<grid(n + 1), kThreads, 0, stream>>>(n, agg_d, indptr_d,
                                                      indices_d, values_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* *raised = whether the kernels that launch(flag_d) queues on `stream`
 * set the device flag (zeroed first); 1 when a step fails. */
template <typename F>
static cmrs_code device_flag(cudaStream_t stream, F launch, int *raised)
{
    int *flag_d = NULL, flag = 1;
    cmrs_code rc = CMRS_OK;
    *raised = 1;
    CMRS_CHECK(amg_pool_alloc((void **)&flag_d, sizeof *flag_d, stream));
    CMRS_CUDA_TRY(cudaMemsetAsync(flag_d, 0, sizeof *flag_d, stream));
    launch(flag_d);
    CMRS_LAUNCH_TRY();
    CMRS_CUDA_TRY(cudaMemcpyAsync(&flag, flag_d, sizeof flag,
                                  cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream));
    *raised = flag != 0;
done:
    amg_pool_free(flag_d, stream);
    amg_pool_trim(stream); /* called between setups too: keep nothing */
    return rc;
}

extern "C" cmrs_code cmrs_gpu_csr_rows_sorted(cudaStream_t stream, int64_t n,
                                              const int32_t *indptr_d,
                                              const int32_t *indices_d,
                                              int *sorted)
{
    int unsorted = 1;
    CMRS_CHECK(device_flag(stream, [&](int *flag_d) {
        if (n > 0)
            k_unsorted<<<grid(n), kThreads, 0, stream>>>(n, indptr_d,
                                                         indices_d, flag_d);
    }, &unsorted));
    *sorted = !unsorted;
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_iota_d(cudaStream_t stream, int64_t n,
                                     double *v_d)
{
    if (n <= 0) return CMRS_OK;
    k_iota<<<grid(n), kThreads, 0, stream>>>(n, v_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_rebase_indptr(cudaStream_t stream,
                                            int64_t rows,
                                            const int32_t *indptr_d,
                                            int32_t *out_d)
{
    k_rebase<<<grid(rows + 1), kThreads, 0, stream>>>(rows, indptr_d, out_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_to_int32(cudaStream_t stream, int64_t n,
                                       const double *v_d, int32_t *out_d)
{
    if (n <= 0) return CMRS_OK;
    k_to_int32<<<grid(n), kThreads, 0, stream>>>(n, v_d, out_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_csr_same_pattern(cudaStream_t stream,
                                               int64_t rows, int64_t nnz,
                                               const int32_t *indptr_a,
                                               const int32_t *indices_a,
                                               const int32_t *indptr_b,
                                               const int32_t *indices_b,
                                               int *same)
{
    int differ = 1;
    CMRS_CHECK(device_flag(stream, [&](int *flag_d) {
        k_differ<<<grid(rows + 1), kThreads, 0, stream>>>(rows + 1, indptr_a,
                                                          indptr_b, flag_d);
        if (nnz > 0)
            k_differ<<<grid(nnz), kThreads, 0, stream>>>(nnz, indices_a,
                                                         indices_b, flag_d);
    }, &differ));
    *same = !differ;
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_csr_inverse_diagonal(cudaStream_t stream,
                                                   int64_t n,
                                                   const int32_t *indptr_d,
                                                   const int32_t *indices_d,
                                                   const double *values_d,
                                                   int single, void *dinv_d,
                                                   int *ok)
{
    int bad = 1;
    CMRS_CHECK(device_flag(stream, [&](int *bad_d) {
        if (n > 0 && single)
            k_dinv<float><<<grid(n), kThreads, 0, stream>>>(
                n, indptr_d, indices_d, values_d, (float *)dinv_d, bad_d);
        else if (n > 0)
            k_dinv<double><<<grid(n), kThreads, 0, stream>>>(
                n, indptr_d, indices_d, values_d, (double *)dinv_d, bad_d);
    }, &bad));
    *ok = !bad;
    return CMRS_OK;
}
