/* C = X Y for the AMG setup's products (amg_spgemm_gpu.c decides) row by
 * row: one thread a row of X where X's rows are short (A P on a fine
 * level of a grid), one warp a row otherwise (amg_rowprod_warp.cuh).
 * One thread: the products x_ik y_kj of row i inserted by column into a
 * sorted array of at most kCap columns, equal columns summed in the
 * order of X's entries, then of Y's. So C's rows come out sorted (adopt()
 * keeps a level on the device only then), the pattern is the structural
 * one (a sum that cancels to 0 stays stored, as cuSPARSE's and the host
 * reference's), and two runs give the same bits; the warp path gives the
 * same bits again. Two passes over the products (count, then fill after
 * the scan of the counts), no work buffer: the vessel 5M's level-0 A P in
 * 3.1 ms where cuSPARSE's SpGEMM took 5.9 ms with 2.2 GB of buffers
 * (CMRS_AMG_PROFILE, H100); on rows of 25-40 entries one thread a row is
 * 1.4-2.5x slower than cuSPARSE. A row with more distinct columns than
 * the path holds, or a C past int32 offsets (the count pass sums the
 * lengths in 64 bits), leaves the product to the next path (*done = 0). */
#include "amg_agg_dev.cuh"
#include "amg_pool_gpu.h"
#include "amg_rowprod_gpu.h"
#include "amg_rowprod_warp.cuh"
#include "base/gpu/cuda_check.h"

namespace {

constexpr int kThreads = 128;
/* columns a row may hold: a thread's keys and sums live in local memory
 * (768 bytes at 64); smoothed-aggregation levels of 3-D grids stay
 * below ~40 distinct columns a row on their first two levels */
constexpr int kCap = 64;

/* The first q in [0, m) with keys[q] >= key (m if none). */
__device__ inline int lower_bound(const int32_t *keys, int m, int32_t key)
{
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Row i's distinct columns merged into keys[0, *m) (and, with SUM, their
 * sums into vals); false when they exceed kCap. */
template <bool SUM>
__device__ inline bool merge_row(int64_t i, const int32_t *__restrict__ xp,
                                 const int32_t *__restrict__ xc,
                                 const double *__restrict__ xv,
                                 const int32_t *__restrict__ yp,
                                 const int32_t *__restrict__ yc,
                                 const double *__restrict__ yv,
                                 int32_t *keys, double *vals, int *m_out)
{
    int m = 0;
    for (int32_t k = xp[i]; k < xp[i + 1]; ++k) {
        const int32_t r = xc[k];
        const double a = SUM ? xv[k] : 0.0;
        for (int32_t q = yp[r]; q < yp[r + 1]; ++q) {
            const int32_t j = yc[q];
            const int p = lower_bound(keys, m, j);
            /* __dmul_rn/__dadd_rn: one rounding each, no FMA, so the sum
             * is the same whatever the compiler contracts */
            const double t = SUM ? __dmul_rn(a, yv[q]) : 0.0;
            if (p < m && keys[p] == j) {
                if (SUM) vals[p] = __dadd_rn(vals[p], t);
                continue;
            }
            if (m == kCap) return false;
            for (int s = m; s > p; --s) {
                keys[s] = keys[s - 1];
                if (SUM) vals[s] = vals[s - 1];
            }
            keys[p] = j;
            if (SUM) vals[p] = t;
            ++m;
        }
    }
    *m_out = m;
    return true;
}

/* len[i] = row i's distinct columns; word[0] = 1 past kCap; word[1] +=
 * the lengths (64-bit: C's int32 offsets are checked against it). len[n]
 * = 0 (the scan's last term). */
__global__ void k_count(int64_t n, const int32_t *__restrict__ xp,
                        const int32_t *__restrict__ xc,
                        const int32_t *__restrict__ yp,
                        const int32_t *__restrict__ yc,
                        int32_t *__restrict__ len,
                        unsigned long long *word)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int m = 0;
    if (i < n) {
        int32_t keys[kCap];
        if (!merge_row<false>(i, xp, xc, nullptr, yp, yc, nullptr, keys,
                              nullptr, &m)) {
            word[0] = 1;
            m = 0;
        }
        len[i] = m;
    } else if (i == n) {
        len[n] = 0;
    }
    /* one atomic a warp (every lane reaches this: no early return) */
    const unsigned sum = __reduce_add_sync(0xffffffffu, (unsigned)m);
    if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&word[1], sum);
}

/* Row i of C at its offset: the columns in order with their sums. */
__global__ void k_fill(int64_t n, const int32_t *__restrict__ xp,
                       const int32_t *__restrict__ xc,
                       const double *__restrict__ xv,
                       const int32_t *__restrict__ yp,
                       const int32_t *__restrict__ yc,
                       const double *__restrict__ yv,
                       const int32_t *__restrict__ cp,
                       int32_t *__restrict__ cc, double *__restrict__ cv)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int32_t keys[kCap];
    double vals[kCap];
    int m = 0;
    /* k_count found every row within kCap */
    merge_row<true>(i, xp, xc, xv, yp, yc, yv, keys, vals, &m);
    const int32_t o = cp[i];
    for (int q = 0; q < m; ++q) {
        cc[o + q] = keys[q];
        cv[o + q] = vals[q];
    }
}

/* The mode's launch shape for `items` threads' (or warps') work. */
struct shape {
    unsigned blocks, threads;
};
shape shape_of(amg_rowprod_mode mode, int64_t items)
{
    namespace w = cmrs_rowprod_warp;
    if (mode == AMG_ROWPROD_WARP)
        return {cmrs_grid::blocks(items, w::kWarps), w::kBlock};
    return {cmrs_grid::blocks(items, kThreads), kThreads};
}

/* The counts into len_d (n + 1) by the mode's kernel; *nnz their total,
 * or -1 where a row passes the mode's cap or C would pass int32 offsets
 * (the next path then runs). */
cmrs_code count(cudaStream_t st, amg_rowprod_mode mode, const amg_dev_mat *x,
                const amg_dev_mat *y, int32_t *len_d,
                unsigned long long *word_d, int64_t *nnz)
{
    const int64_t n = x->rows;
    unsigned long long word[2] = {1, 0};
    CMRS_CUDA(cudaMemsetAsync(word_d, 0, sizeof word, st));
    const auto kernel = mode == AMG_ROWPROD_WARP
                            ? cmrs_rowprod_warp::k_count_warp : k_count;
    const shape sh = shape_of(mode, n + 1);
    kernel<<<sh.blocks, sh.threads, 0, st>>>(n, x->indptr_d, x->indices_d,
                                              y->indptr_d, y->indices_d,
                                              len_d, word_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaMemcpyAsync(word, word_d, sizeof word,
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaStreamSynchronize(st));
    const int fits =
        word[0] == 0 && word[1] <= (unsigned long long)INT32_MAX;
    *nnz = fits ? (int64_t)word[1] : -1;
    return CMRS_OK;
}

/* c's arrays, its row pointers (the scan of len_d; nnz, the count's
 * total, need not be read back), the fill. */
cmrs_code fill(cudaStream_t st, amg_rowprod_mode mode, const amg_dev_mat *x,
               const amg_dev_mat *y, const int32_t *len_d, int64_t nnz,
               amg_dev_mat *c, int *done)
{
    const int64_t n = x->rows;
    if (nnz == 0) return CMRS_OK; /* empty: cuSPARSE's path makes it */
    CMRS_CHECK(amg_dev_mat_arrays(c, n, y->cols, nnz));
    CMRS_CHECK(cmrs_agg::pooled_offsets(st, len_d, n, c->indptr_d, NULL));
    const auto kernel = mode == AMG_ROWPROD_WARP
                            ? cmrs_rowprod_warp::k_fill_warp : k_fill;
    const shape sh = shape_of(mode, n);
    kernel<<<sh.blocks, sh.threads, 0, st>>>(
        n, x->indptr_d, x->indices_d, x->values_d, y->indptr_d,
        y->indices_d, y->values_d, c->indptr_d, c->indices_d, c->values_d);
    CMRS_LAUNCH_CHECK();
    *done = 1;
    return CMRS_OK;
}

} // namespace

extern "C" cmrs_code amg_dev_rowprod(cudaStream_t stream,
                                     amg_rowprod_mode mode,
                                     const amg_dev_mat *x,
                                     const amg_dev_mat *y, amg_dev_mat *c,
                                     int *done)
{
    int32_t *len_d = nullptr;
    unsigned long long *word_d = nullptr;
    int64_t nnz = -1;
    *done = 0;
    if (x->rows <= 0) return CMRS_OK;
    cmrs_code rc = amg_pool_alloc((void **)&len_d,
                                  (size_t)(x->rows + 1) * sizeof *len_d,
                                  stream);
    if (rc == CMRS_OK)
        rc = amg_pool_alloc((void **)&word_d, 2 * sizeof *word_d, stream);
    if (rc == CMRS_OK) rc = count(stream, mode, x, y, len_d, word_d, &nnz);
    if (rc == CMRS_OK && nnz >= 0)
        rc = fill(stream, mode, x, y, len_d, nnz, c, done);
    amg_pool_free(len_d, stream);
    amg_pool_free(word_d, stream);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}
