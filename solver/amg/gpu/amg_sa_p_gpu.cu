/* Smoothed aggregation's P = (I - D_f A) P_tent in one pass over A's rows
 * (amg_sa_gpu.h, cmrs_gpu_sa_smoothed_p): row i's entries grouped by the
 * aggregate of their column, each group's values summed in column order,
 * then p_ik = [k == agg_i] - f_i s_ik with the rounding k_smooth_rows
 * applies. It replaces cuSPARSE's A P_tent product and the smoothing pass
 * (2.5-3.3 ms at 5M rows, CMRS_AMG_PROFILE on an H100): a thread a row
 * where every row of A has at most kMaxRow entries, else a warp a row
 * (rows in shared memory) where every row has at most kMaxLong (coarse
 * levels: 1.4-2.1 ms of cuSPARSE at the vessel 5M's level 1); longer rows
 * leave it to them. Both give the same bits. */
#include <cstdlib>
#include <cstring>

#include "amg_agg_dev.cuh"
#include "amg_pool_gpu.h"
#include "amg_sa_gpu.h"
#include "base/gpu/cuda_check.h"

namespace {

constexpr int kThreads = 256;
/* a thread's row in local arrays: 384 bytes a thread in k_fill, which
 * the driver reserves for every resident thread (64 reserved twice as
 * much for a gain measured only on rows of at most 7 entries) */
constexpr int kMaxRow = 32;
/* a warp's row in shared memory: 5 bytes an entry, 10 KB a block */
constexpr int kMaxLong = 256;
constexpr int kWarps = kThreads / 32;

unsigned grid(int64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

/* len[i] = the number of distinct aggregates among row i's columns; a
 * longer row than kMaxRow raises *too_long. len[n] = 0 (the scan's last
 * term). */
__global__ void k_count(int64_t n, const int32_t *__restrict__ ptr,
                        const int32_t *__restrict__ col,
                        const int32_t *__restrict__ agg,
                        int32_t *__restrict__ len, int *too_long)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    if (i == n) {
        len[n] = 0;
        return;
    }
    int32_t b = ptr[i], e = ptr[i + 1];
    if (e - b > kMaxRow) {
        *too_long = 1;
        len[i] = 0;
        return;
    }
    int32_t a[kMaxRow];
    int32_t m = 0;
    for (int32_t k = b; k < e; ++k) {
        int32_t g = agg[col[k]];
        bool seen = false;
        for (int32_t q = 0; q < m; ++q) seen |= a[q] == g;
        if (!seen) a[m++] = g;
    }
    len[i] = m;
}

/* Row i of P at out[0, len): the distinct aggregates in increasing
 * order, each with [k == agg_i] - f_i (sum of its a_ij, column order). */
__global__ void k_fill(int64_t n, const int32_t *__restrict__ ptr,
                       const int32_t *__restrict__ col,
                       const double *__restrict__ val,
                       const int32_t *__restrict__ agg,
                       const double *__restrict__ f,
                       const int32_t *__restrict__ off,
                       int32_t *__restrict__ pcol, double *__restrict__ pval)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int32_t b = ptr[i], e = ptr[i + 1];
    int32_t a[kMaxRow];
    double s[kMaxRow];
    int32_t m = 0;
    /* insertion by aggregate; equal aggregates sum in column order */
    for (int32_t k = b; k < e; ++k) {
        int32_t g = agg[col[k]];
        double v = val[k];
        int32_t q = m;
        while (q > 0 && a[q - 1] > g) --q;
        if (q > 0 && a[q - 1] == g) {
            s[q - 1] = __dadd_rn(s[q - 1], v);
            continue;
        }
        for (int32_t r = m; r > q; --r) {
            a[r] = a[r - 1];
            s[r] = s[r - 1];
        }
        a[q] = g;
        s[q] = v;
        ++m;
    }
    double fi = f[i];
    int32_t ai = agg[i], o = off[i];
    for (int32_t q = 0; q < m; ++q) {
        /* __dmul_rn/__dadd_rn: k_smooth_rows' rounding, no FMA */
        double v = __dmul_rn(-fi, s[q]);
        pcol[o + q] = a[q];
        pval[o + q] = a[q] == ai ? __dadd_rn(1.0, v) : v;
    }
}

/* A warp's row: g = the aggregates of its columns, first = whether
 * entry k is its aggregate's first in the row (column order). */
struct warp_row {
    int32_t g[kMaxLong];
    uint8_t first[kMaxLong];
};

/* Row i (m <= kMaxLong entries from b) into r; returns this lane's count
 * of first occurrences. The warp's lanes all call it. */
__device__ int load_row(warp_row &r, int32_t b, int32_t m,
                        const int32_t *__restrict__ col,
                        const int32_t *__restrict__ agg, int lane)
{
    for (int32_t k = lane; k < m; k += 32) r.g[k] = agg[col[b + k]];
    __syncwarp();
    int cnt = 0;
    for (int32_t k = lane; k < m; k += 32) {
        int32_t g = r.g[k];
        bool first = true;
        for (int32_t q = 0; q < k && first; ++q) first = r.g[q] != g;
        r.first[k] = first;
        cnt += first;
    }
    __syncwarp();
    return cnt;
}

/* k_count by a warp a row; rows over kMaxLong raise *too_long. */
__global__ void k_count_warp(int64_t n, const int32_t *__restrict__ ptr,
                             const int32_t *__restrict__ col,
                             const int32_t *__restrict__ agg,
                             int32_t *__restrict__ len, int *too_long)
{
    __shared__ warp_row rows[kWarps];
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int64_t i = (int64_t)blockIdx.x * kWarps + w; /* the warp's, uniform */
    if (i > n) return;
    if (i == n) {
        if (lane == 0) len[n] = 0;
        return;
    }
    int32_t b = ptr[i], m = ptr[i + 1] - b;
    if (m > kMaxLong) {
        if (lane == 0) {
            *too_long = 1;
            len[i] = 0;
        }
        return;
    }
    int cnt = __reduce_add_sync(0xffffffffu,
                                load_row(rows[w], b, m, col, agg, lane));
    if (lane == 0) len[i] = cnt;
}

/* k_fill by a warp a row: each first occurrence's lane sums its
 * aggregate's values in column order (k_fill's sums) and places it by
 * the number of the row's aggregates below it (k_fill's order). */
__global__ void k_fill_warp(int64_t n, const int32_t *__restrict__ ptr,
                            const int32_t *__restrict__ col,
                            const double *__restrict__ val,
                            const int32_t *__restrict__ agg,
                            const double *__restrict__ f,
                            const int32_t *__restrict__ off,
                            int32_t *__restrict__ pcol,
                            double *__restrict__ pval)
{
    __shared__ warp_row rows[kWarps];
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int64_t i = (int64_t)blockIdx.x * kWarps + w;
    if (i >= n) return;
    warp_row &r = rows[w];
    int32_t b = ptr[i], m = ptr[i + 1] - b;
    (void)load_row(r, b, m, col, agg, lane);
    double fi = f[i];
    int32_t ai = agg[i], o = off[i];
    for (int32_t k = lane; k < m; k += 32) {
        if (!r.first[k]) continue;
        int32_t g = r.g[k], rank = 0;
        double sum = val[b + k];
        for (int32_t q = k + 1; q < m; ++q)
            if (r.g[q] == g) sum = __dadd_rn(sum, val[b + q]);
        for (int32_t q = 0; q < m; ++q) rank += r.first[q] && r.g[q] < g;
        double v = __dmul_rn(-fi, sum);
        pcol[o + rank] = g;
        pval[o + rank] = g == ai ? __dadd_rn(1.0, v) : v;
    }
}

/* CMRS_AMG_FUSED_P=warp: the warp a row for every level (tests). */
bool warp_forced()
{
    const char *e = getenv("CMRS_AMG_FUSED_P");
    return e && strcmp(e, "warp") == 0;
}

/* The row counts into len_d, a thread a row unless a row is longer than
 * kMaxRow (or warp_forced), then a warp a row; *warp = which, *too_long:
 * neither takes A. */
cmrs_code counts(cudaStream_t st, int64_t n, const int32_t *ptr,
                 const int32_t *col, const int32_t *agg, int32_t *len_d,
                 int *flag_d, int *warp, int *too_long)
{
    *too_long = 1;
    *warp = warp_forced();
    for (int pass = *warp; pass < 2 && *too_long; ++pass) {
        CMRS_CUDA(cudaMemsetAsync(flag_d, 0, sizeof *flag_d, st));
        if (pass == 0)
            k_count<<<grid(n + 1), kThreads, 0, st>>>(n, ptr, col, agg,
                                                       len_d, flag_d);
        else
            k_count_warp<<<(unsigned)((n + kWarps) / kWarps), kThreads, 0,
                           st>>>(n, ptr, col, agg, len_d, flag_d);
        CMRS_LAUNCH_CHECK();
        CMRS_CUDA(cudaMemcpyAsync(too_long, flag_d, sizeof *too_long,
                                  cudaMemcpyDeviceToHost, st));
        CMRS_CUDA(cudaStreamSynchronize(st));
        *warp = pass;
    }
    return CMRS_OK;
}

/* The counts, their scan into P's row pointers and the fill; *done = 0
 * on a long row (P left for the caller to free). */
cmrs_code run(cudaStream_t st, int64_t n, int64_t naggs, const int32_t *ptr,
              const int32_t *col, const double *val, const int32_t *agg,
              const double *f, int32_t *len_d, int *flag_d, amg_dev_mat *P,
              int *done)
{
    int too_long = 0, warp = 0;
    int32_t nnz = 0;
    CMRS_CHECK(counts(st, n, ptr, col, agg, len_d, flag_d, &warp,
                      &too_long));
    if (too_long) return CMRS_OK;
    P->rows = n;
    P->cols = naggs;
    /* amg_dev_malloc: P is a level matrix, made beside the held pool */
    CMRS_CHECK(amg_dev_malloc((void **)&P->indptr_d,
                              (size_t)(n + 1) * sizeof(int32_t)));
    CMRS_CHECK(cmrs_agg::pooled_offsets(st, len_d, n, P->indptr_d, &nnz));
    P->nnz = nnz;
    CMRS_CHECK(amg_dev_malloc((void **)&P->indices_d,
                              (size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t)));
    CMRS_CHECK(amg_dev_malloc((void **)&P->values_d,
                              (size_t)(nnz > 0 ? nnz : 1) * sizeof(double)));
    if (warp)
        k_fill_warp<<<(unsigned)((n + kWarps - 1) / kWarps), kThreads, 0,
                      st>>>(n, ptr, col, val, agg, f, P->indptr_d,
                            P->indices_d, P->values_d);
    else
        k_fill<<<grid(n), kThreads, 0, st>>>(n, ptr, col, val, agg, f,
                                              P->indptr_d, P->indices_d,
                                              P->values_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(amg_dev_describe(P));
    *done = 1;
    return CMRS_OK;
}

} // namespace

extern "C" cmrs_code cmrs_gpu_sa_smoothed_p(
    cudaStream_t stream, int64_t n, int64_t naggs, const int32_t *indptr_d,
    const int32_t *indices_d, const double *values_d, const int32_t *agg_d,
    const double *f_d, amg_dev_mat *P, int *done)
{
    int32_t *len_d = NULL;
    int *flag_d = NULL;
    *done = 0;
    if (n <= 0) return CMRS_OK;
    cmrs_code rc = amg_pool_alloc((void **)&len_d,
                                  (size_t)(n + 1) * sizeof *len_d, stream);
    if (rc == CMRS_OK)
        rc = amg_pool_alloc((void **)&flag_d, sizeof *flag_d, stream);
    if (rc == CMRS_OK)
        rc = run(stream, n, naggs, indptr_d, indices_d, values_d, agg_d, f_d,
                 len_d, flag_d, P, done);
    if (rc != CMRS_OK || !*done) {
        cudaStreamSynchronize(stream);
        amg_dev_free(P);
        *done = 0;
    }
    amg_pool_free(len_d, stream);
    amg_pool_free(flag_d, stream);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}
