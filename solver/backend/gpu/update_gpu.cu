/* The device-values update's kernel beside the format's gather: Jacobi's
 * D^-1 straight from the new device values; and the Jacobi setup's from
 * the diagonal the format's setup found (see gpu_kernels.h). */
#include "base/gpu/cuda_check.h"
#include "solver/engine/dev_grid.cuh"
#include "spmv/prec.cuh"
#include "gpu_kernels.h"

namespace {

using cmrs_grid::grid_for;
using cmrs_grid::kThreads;

/* The fused update's tiles: kTileEntries stored values a block copies
 * (or gathers through the format's permutation), then D^-1 of the rows
 * whose diagonal lies in the tile's share of A's entries, read while the
 * tile's values are still in L1/L2 (a separate pass over the diagonals
 * read a 32-byte sector per row from DRAM: 250 MB, 83 us, at 5M rows on
 * an H100). */
constexpr int64_t kTileEntries = 8 * kThreads;

/* The rows of tile t: [rows[t], rows[t + 1]), the first row whose
 * diagonal's CSR position is >= t kTileEntries nnz / stored (a lower
 * bound: positions ascend with the row where every row has its
 * diagonal), so that the tiles share out the rows as they share out the
 * entries. A row without a diagonal (-1), or positions out of order,
 * lower *bad to its index: the fused kernel then takes every row the
 * plain way. */
__global__ void tile_rows_kernel(int64_t n, const int32_t *__restrict__ diag,
                                 int64_t nnz, int64_t stored, int64_t ntiles,
                                 int32_t *__restrict__ rows,
                                 unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, n) {
        if (diag[i] < 0 || (i > 0 && diag[i] <= diag[i - 1]))
            atomicMin(bad, (unsigned long long)i);
    }
    CMRS_GRID_LOOP(t, ntiles + 1) {
        const int64_t key = t < ntiles ? t * kTileEntries / stored * nnz +
                                             t * kTileEntries % stored * nnz /
                                                 stored
                                       : nnz;
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if ((int64_t)diag[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        rows[t] = (int32_t)lo;
    }
}

template <typename T>
__device__ inline void dinv_row(int64_t i, const int32_t *__restrict__ diag,
                                const T *__restrict__ values,
                                T *__restrict__ dinv, unsigned long long *bad)
{
    const int32_t k = diag[i];
    const double d = k >= 0 ? (double)values[k] : 0.0;
    if (!(d > 0) || !isfinite(d)) atomicMin(bad, (unsigned long long)i);
    dinv[i] = (T)(1.0 / d);
}

template <typename T>
__global__ void dinv_kernel(int64_t n, const int32_t *__restrict__ diag,
                            const T *__restrict__ values, T *__restrict__ dinv,
                            unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, n) dinv_row(i, diag, values, dinv, bad);
}

/* dst[k] = src[perm[k]] (0 where perm[k] < 0; src[k] with no perm) over
 * the stored entries (a non-finite value lowers *bad_value to its CSR
 * index), and dinv as dinv_kernel, a tile per block (grid: the tile
 * count): the tile's gather, eight loads in flight per thread, then its
 * rows. With the tiles refused (*tiles_bad set), the blocks share out the
 * rows in a grid-stride loop instead. reset (or NULL): two words set to ~0
 * on the way, the next update's error words. */
template <typename T>
__global__ void copy_dinv_kernel(int64_t stored, const T *__restrict__ src,
                                 const int32_t *__restrict__ perm,
                                 T *__restrict__ dst,
                                 unsigned long long *bad_value, int64_t n,
                                 const int32_t *__restrict__ diag,
                                 const int32_t *__restrict__ tile_rows,
                                 const unsigned long long *tiles_bad,
                                 T *__restrict__ dinv,
                                 unsigned long long *bad_row,
                                 unsigned long long *reset)
{
    if (reset && blockIdx.x == 0 && threadIdx.x < 2) reset[threadIdx.x] = ~0ull;
    const int64_t k0 = (int64_t)blockIdx.x * kTileEntries;
    const int64_t left = stored - k0;
    constexpr int kItems = (int)(kTileEntries / kThreads);
    int64_t j[kItems];
    T v[kItems];
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
        const int64_t k = k0 + u * kThreads + threadIdx.x;
        j[u] = k - k0 >= left ? -1 : perm ? (int64_t)perm[k] : k;
    }
#pragma unroll
    for (int u = 0; u < kItems; ++u) v[u] = j[u] >= 0 ? src[j[u]] : T(0);
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
        const int64_t k = k0 + u * kThreads + threadIdx.x;
        if (k - k0 >= left) continue;
        dst[k] = v[u];
        if (!isfinite(v[u])) atomicMin(bad_value, (unsigned long long)j[u]);
    }
    if (*tiles_bad == ~0ull) {
        for (int64_t i = tile_rows[blockIdx.x] + threadIdx.x;
             i < tile_rows[blockIdx.x + 1]; i += kThreads)
            dinv_row(i, diag, src, dinv, bad_row);
        return;
    }
    CMRS_GRID_LOOP(i, n) dinv_row(i, diag, src, dinv, bad_row);
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

int64_t cmrs_gpu_update_tiles(int64_t stored)
{
    return stored > 0 ? (stored + kTileEntries - 1) / kTileEntries : 0;
}

cmrs_code cmrs_gpu_tile_rows(int64_t n, const int32_t *diag_d, int64_t nnz,
                             int64_t stored, int32_t *rows_d,
                             unsigned long long *bad_d, cudaStream_t stream)
{
    const int64_t ntiles = cmrs_gpu_update_tiles(stored);
    /* no rows, or keys t kTileEntries nnz that int64 cannot hold: the
     * tiles refused (0) before anything reads rows_d */
    const int refuse = n <= 0 || (nnz > 0 && stored > INT64_MAX / nnz);
    CMRS_CUDA(cudaMemsetAsync(bad_d, refuse ? 0 : 0xff, sizeof *bad_d,
                              stream));
    if (refuse) return CMRS_OK;
    tile_rows_kernel<<<grid_for(n > ntiles ? n : ntiles), kThreads, 0,
                       stream>>>(n, diag_d, nnz, stored, ntiles, rows_d,
                                 bad_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_gpu_copy_dinv(cmrs_prec prec, const cmrs_gpu_fused_update *u,
                             const void *src_d, void *dinv_d,
                             cudaStream_t stream)
{
    const int64_t ntiles = cmrs_gpu_update_tiles(u->stored);
    if (ntiles == 0) { /* nothing stored: no row has its diagonal */
        if (u->reset_d)
            CMRS_CUDA(cudaMemsetAsync(u->reset_d, 0xff, 2 * sizeof *u->reset_d,
                                      stream));
        return cmrs_gpu_dinv_values(prec, u->n, u->diag_d, src_d, dinv_d,
                                    u->bad_row_d, stream);
    }
    CMRS_PREC_DISPATCH(prec, T,
                       copy_dinv_kernel<T><<<(unsigned)ntiles, kThreads, 0,
                                             stream>>>(
                           u->stored, (const T *)src_d, u->perm_d,
                           (T *)u->dst_d, u->bad_value_d, u->n, u->diag_d,
                           u->tile_rows_d, u->tiles_bad_d, (T *)dinv_d,
                           u->bad_row_d, u->reset_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
