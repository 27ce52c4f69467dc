/* The row product's warp path (amg_rowprod_gpu.cu): one warp a row of X,
 * for rows of X too long for one thread (R (A P), a coarse level's A P).
 * The row's columns go into a hash set in shared memory (lanes take X's
 * entries in turn; a set's contents do not depend on the order of the
 * inserts), are compacted and sorted by rank; then every lane walks all
 * the row's products in the order of X's entries, then Y's, and adds
 * those whose column it owns (slots lane, lane + 32, ...): the same sums
 * in the same order as the thread path, so the same bits, with the
 * loads broadcast to the warp. At most kWarpCap columns a row. */
#ifndef CMRS_SOLVER_AMG_ROWPROD_WARP_CUH
#define CMRS_SOLVER_AMG_ROWPROD_WARP_CUH

#include <cstdint>

namespace cmrs_rowprod {

constexpr int kWarpCap = 128;   /* columns a row may hold */
constexpr int kSlots = kWarpCap / 32;
constexpr int kHash = 256;      /* hash slots a warp: twice the cap */
constexpr int kWarps = 4;       /* warps a block */

/* A warp's shared memory. */
struct warp_mem {
    int32_t table[kHash];    /* the set; then the sorted columns */
    int32_t compact[kWarpCap];
    int count;
};

__device__ inline unsigned slot_of(int32_t j)
{
    return ((uint32_t)j * 2654435761u) >> 24; /* 8 bits: kHash slots */
}

/* Row i's distinct columns into w->table (and w->count); stops inserting
 * once the count passes kWarpCap (the caller then gives the row up), so
 * the table never fills: at most kWarpCap + 32 columns go in. */
__device__ inline int warp_set(int64_t i, int lane,
                               const int32_t *__restrict__ xp,
                               const int32_t *__restrict__ xc,
                               const int32_t *__restrict__ yp,
                               const int32_t *__restrict__ yc, warp_mem *w)
{
    for (int s = lane; s < kHash; s += 32) w->table[s] = -1;
    if (lane == 0) w->count = 0;
    __syncwarp();
    volatile int *count = &w->count;
    for (int32_t k = xp[i] + lane; k < xp[i + 1]; k += 32) {
        const int32_t r = xc[k];
        for (int32_t q = yp[r]; q < yp[r + 1] && *count <= kWarpCap; ++q) {
            const int32_t j = yc[q];
            unsigned h = slot_of(j);
            for (;;) {
                const int32_t prev = atomicCAS(&w->table[h], -1, j);
                if (prev == -1) {
                    atomicAdd(&w->count, 1);
                    break;
                }
                if (prev == j) break;
                h = (h + 1) & (kHash - 1);
            }
        }
    }
    __syncwarp();
    return w->count;
}

/* The set's m <= kWarpCap columns, increasing, into w->table[0, m). */
__device__ inline void warp_sort(int lane, int m, warp_mem *w)
{
    int base = 0;
    for (int s0 = 0; s0 < kHash; s0 += 32) {
        const int32_t j = w->table[s0 + lane];
        const unsigned used = __ballot_sync(0xffffffffu, j >= 0);
        if (j >= 0)
            w->compact[base + __popc(used & ((1u << lane) - 1))] = j;
        base += __popc(used);
    }
    __syncwarp();
    for (int p = lane; p < m; p += 32) { /* rank: the columns below it */
        const int32_t j = w->compact[p];
        int rank = 0;
        for (int q = 0; q < m; ++q) rank += w->compact[q] < j;
        w->table[rank] = j;
    }
    __syncwarp();
}

/* len[i] = row i's distinct columns (0 past kWarpCap, raising word[0]);
 * word[1] += the lengths; len[n] = 0. */
__global__ void k_count_warp(int64_t n, const int32_t *__restrict__ xp,
                             const int32_t *__restrict__ xc,
                             const int32_t *__restrict__ yp,
                             const int32_t *__restrict__ yc,
                             int32_t *__restrict__ len,
                             unsigned long long *word)
{
    __shared__ warp_mem mem[kWarps];
    const int lane = threadIdx.x & 31;
    warp_mem *w = &mem[threadIdx.x >> 5];
    const int64_t i = (int64_t)blockIdx.x * kWarps + (threadIdx.x >> 5);
    if (i > n) return; /* the whole warp */
    if (i == n) {
        if (lane == 0) len[n] = 0;
        return;
    }
    int m = warp_set(i, lane, xp, xc, yp, yc, w);
    if (lane == 0) {
        if (m > kWarpCap) {
            word[0] = 1;
            m = 0;
        }
        len[i] = m;
        if (m) atomicAdd(&word[1], (unsigned long long)m);
    }
}

/* Row i of C at cp[i]: its columns in order with their sums. */
__global__ void k_fill_warp(int64_t n, const int32_t *__restrict__ xp,
                            const int32_t *__restrict__ xc,
                            const double *__restrict__ xv,
                            const int32_t *__restrict__ yp,
                            const int32_t *__restrict__ yc,
                            const double *__restrict__ yv,
                            const int32_t *__restrict__ cp,
                            int32_t *__restrict__ cc, double *__restrict__ cv)
{
    __shared__ warp_mem mem[kWarps];
    const int lane = threadIdx.x & 31;
    warp_mem *w = &mem[threadIdx.x >> 5];
    const int64_t i = (int64_t)blockIdx.x * kWarps + (threadIdx.x >> 5);
    if (i >= n) return; /* the whole warp */
    /* k_count_warp found every row within kWarpCap: the same set */
    const int m = warp_set(i, lane, xp, xc, yp, yc, w);
    warp_sort(lane, m, w);
    int32_t key[kSlots];
    double acc[kSlots];
    bool started[kSlots];
    /* the slots in use, the same for the whole warp: one compare a
     * product on rows of up to 32 columns */
    const int used = (m + 31) / 32;
    for (int t = 0; t < kSlots; ++t) {
        const int p = lane + 32 * t;
        key[t] = p < m ? w->table[p] : -1;
        acc[t] = 0.0;
        started[t] = false;
    }
    for (int32_t k = xp[i]; k < xp[i + 1]; ++k) {
        const int32_t r = xc[k];
        const double a = xv[k];
        for (int32_t q = yp[r]; q < yp[r + 1]; ++q) {
            const int32_t j = yc[q];
            /* __dmul_rn/__dadd_rn: the thread path's roundings */
            const double v = __dmul_rn(a, yv[q]);
#pragma unroll
            for (int t = 0; t < kSlots; ++t)
                if (t < used && j == key[t]) {
                    acc[t] = started[t] ? __dadd_rn(acc[t], v) : v;
                    started[t] = true;
                }
        }
    }
    const int32_t o = cp[i];
    for (int t = 0; t < kSlots; ++t) {
        const int p = lane + 32 * t;
        if (p < m) {
            cc[o + p] = key[t];
            cv[o + p] = acc[t];
        }
    }
}

} // namespace cmrs_rowprod

#endif
