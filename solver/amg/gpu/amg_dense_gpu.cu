/* The dense kernels of the coarsest level's inverse on the device
 * (amg_dense_gpu.h): the matrix scattered from its device CSR, its
 * inverse by a blocked sweep, and the pattern of the inverse's dense CSR.
 * They replace a host fill, two pageable uploads of n x n doubles, a
 * download and a host CSR of n^2 entries, which took 25 ms at 922 rows
 * (vessel 5M, H100, CMRS_AMG_PROFILE), and cuSOLVER's potrf and potri,
 * whose kernels (chosen by n) loaded on first use: 8 ms of a library load
 * inside potri at 877 rows on Poisson 200^3, 15 ms of its setup (a CUPTI
 * trace, H100), after the warm-up at another size had loaded others. */
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

/* x (n x n, full) = sign times the symmetric matrix of a's upper
 * triangle (row-major): x[i n + j] = sign a[min n + max]. */
__global__ void k_mirror(int64_t n, const double *__restrict__ a,
                         double *__restrict__ x, double sign)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int64_t i = k / n, j = k % n;
    x[k] = sign * (i < j ? a[i * n + j] : a[j * n + i]);
}

/* The sweep (Gauss-Jordan elimination of a symmetric matrix, pivots on
 * the diagonal) by blocks of kB pivots. Sweeping block K of M:
 *   D = M_KK^-1; M_ij -= M_iK D M_Kj (i, j not in K);
 *   M_iK = M_iK D; M_Kj = D M_Kj; M_KK = -D,
 * and every block swept leaves -A^-1. The pivots are those of Cholesky
 * (the diagonal of the Schur complements): one not > 0 says A is not SPD,
 * and without pivoting the sweep is as stable as Cholesky on SPD A. Each
 * step is two kernels: the panel (D, W' and R below) and the update. */
constexpr int kB = CMRS_DENSE_SWEEP_WIDTH;
constexpr int kPanelRows = kThreads / kB; /* rows of W' per panel block */
static_assert(kThreads % kB == 0 && kB * kB % kThreads == 0,
              "a block's threads tile the pivot block");

/* s (kb x kb, -> -s^-1) swept pivot by pivot by the block's threads; the
 * first pivot that is not > 0 (NaN included) goes to *info as its row
 * + 1 (k: the block's first row) when report. */
__device__ void sweep_small(double (*s)[kB + 1], int kb, int64_t k,
                            int *info, bool report)
{
    constexpr int kPer = kB * kB / kThreads;
    for (int t = 0; t < kb; ++t) {
        double p = s[t][t];
        if (report && threadIdx.x == 0 && !(p > 0) && *info == 0)
            *info = (int)(k + t + 1);
        double d = 1.0 / p, v[kPer];
        for (int q = 0; q < kPer; ++q) {
            int e = threadIdx.x + q * kThreads, r = e / kB, c = e % kB;
            if (r >= kb || c >= kb) continue;
            v[q] = r == t   ? (c == t ? -d : s[t][c] * d)
                   : c == t ? s[r][t] * d
                            : s[r][c] - s[r][t] * s[t][c] * d;
        }
        __syncthreads();
        for (int q = 0; q < kPer; ++q) {
            int e = threadIdx.x + q * kThreads, r = e / kB, c = e % kB;
            if (r < kb && c < kb) s[r][c] = v[q];
        }
        __syncthreads();
    }
}

/* The panel of the step at pivot rows K = [k, k + kb): every block sweeps
 * M_KK itself (kb^2 entries: cheaper than a kernel boundary), then writes
 * W' (n x kB) for its kPanelRows rows, W'_i = M_iK D (i not in K), -D's
 * row (i in K), and R (kB x n) = M_K. (the rows K before the update, which
 * overwrites them) for the same columns. Block 0 reports a bad pivot. */
__global__ void __launch_bounds__(kThreads)
    k_sweep_panel(int64_t n, int64_t k, int kb, const double *__restrict__ m,
                  double *__restrict__ w, double *__restrict__ r, int *info)
{
    __shared__ double s[kB][kB + 1];
    __shared__ double row[kPanelRows][kB];
    for (int e = threadIdx.x; e < kb * kb; e += kThreads)
        s[e / kb][e % kb] = m[(k + e / kb) * n + k + e % kb];
    int ii = threadIdx.x / kB, c = threadIdx.x % kB;
    int64_t i = (int64_t)blockIdx.x * kPanelRows + ii;
    if (i < n && c < kb) row[ii][c] = m[i * n + k + c];
    __syncthreads();
    sweep_small(s, kb, k, info, blockIdx.x == 0); /* s = -D */
    if (i < n && c < kb) {
        double acc = 0;
        if (i >= k && i < k + kb) {
            acc = s[i - k][c];
        } else {
            for (int t = 0; t < kb; ++t) acc -= row[ii][t] * s[t][c];
        }
        w[i * kB + c] = acc;
    }
    int t = threadIdx.x / kPanelRows, jj = threadIdx.x % kPanelRows;
    int64_t j = (int64_t)blockIdx.x * kPanelRows + jj;
    if (t < kb && j < n) r[t * n + j] = m[(k + t) * n + j];
}

/* The update of a kTile x kTile tile of M from W' and R: M_ij -= W'_i R_j
 * (M_ij taken as 0 for i in K: D M_Kj), M_iK = W'_i (M_iK D, or -D). Each
 * thread sums kEach x kEach entries, kSpan apart in both directions, from
 * registers: 2 kEach shared loads for kEach^2 products (one entry column a
 * thread, 32 x 32 tiles: 9.7 against 7.9 ms at 2615 rows, H100). */
constexpr int kTile = 64, kSpan = 16, kEach = kTile / kSpan;
static_assert(kSpan * kSpan == kThreads, "a thread per (row, column) lane");

__global__ void __launch_bounds__(kThreads)
    k_sweep_update(int64_t n, int64_t k, int kb, double *__restrict__ m,
                   const double *__restrict__ w, const double *__restrict__ r)
{
    __shared__ double ws[kTile][kB + 1], rs[kB][kTile + 1];
    int64_t i0 = (int64_t)blockIdx.y * kTile, j0 = (int64_t)blockIdx.x * kTile;
    for (int e = threadIdx.x; e < kTile * kB; e += kThreads) {
        int a = e / kB, t = e % kB; /* W' row a, column t */
        ws[a][t] = i0 + a < n && t < kb ? w[(i0 + a) * kB + t] : 0.0;
        int u = e / kTile, c = e % kTile; /* R row u, column c */
        rs[u][c] = u < kb && j0 + c < n ? r[u * n + j0 + c] : 0.0;
    }
    __syncthreads();
    int tx = threadIdx.x % kSpan, ty = threadIdx.x / kSpan;
    double acc[kEach][kEach] = {};
    for (int t = 0; t < kb; ++t) {
        double wa[kEach], rb[kEach];
        for (int q = 0; q < kEach; ++q) {
            wa[q] = ws[ty + q * kSpan][t];
            rb[q] = rs[t][tx + q * kSpan];
        }
        for (int a = 0; a < kEach; ++a)
            for (int b = 0; b < kEach; ++b) acc[a][b] += wa[a] * rb[b];
    }
    for (int a = 0; a < kEach; ++a) {
        int64_t i = i0 + ty + a * kSpan;
        if (i >= n) break;
        bool i_in = i >= k && i < k + kb;
        for (int b = 0; b < kEach; ++b) {
            int64_t j = j0 + tx + b * kSpan;
            if (j >= n) break;
            double *mij = m + i * n + j;
            if (j >= k && j < k + kb) *mij = ws[ty + a * kSpan][j - k];
            else *mij = (i_in ? 0.0 : *mij) - acc[a][b];
        }
    }
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
                                           const double *a_d, double *x_d,
                                           double sign)
{
    if (n == 0) return CMRS_OK;
    k_mirror<<<grid(n * n), kThreads, 0, stream>>>(n, a_d, x_d, sign);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_gpu_dense_sweep(cudaStream_t stream, int64_t n,
                                          double *m_d, double *w_d,
                                          double *r_d, int *info_d)
{
    CMRS_CUDA(cudaMemsetAsync(info_d, 0, sizeof *info_d, stream));
    unsigned tiles = (unsigned)((n + kTile - 1) / kTile);
    unsigned panels = (unsigned)((n + kPanelRows - 1) / kPanelRows);
    for (int64_t k = 0; k < n; k += kB) {
        int kb = (int)(n - k < kB ? n - k : kB);
        k_sweep_panel<<<panels, kThreads, 0, stream>>>(n, k, kb, m_d, w_d,
                                                       r_d, info_d);
        CMRS_LAUNCH_CHECK();
        k_sweep_update<<<dim3(tiles, tiles), kThreads, 0, stream>>>(
            n, k, kb, m_d, w_d, r_d);
        CMRS_LAUNCH_CHECK();
    }
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
