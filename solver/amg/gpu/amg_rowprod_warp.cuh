/* C = X Y with one warp a row of X (amg_rowprod_gpu.cu's second path):
 * for rows of X too long for one thread each (R (A P): ~40 entries a row;
 * a second level's A P: ~25), where cuSPARSE's SpGEMM spends its time in
 * three phases with their buffers and synchronisations. A row's distinct
 * columns go into an open-addressing hash of kHash slots in shared memory
 * (at most kWarpCap of them, else the product falls back), are ranked by
 * counting (the row comes out sorted), and the products are summed by
 * rank, 32 at a time in the order of X's entries (then Y's); where lanes
 * of a batch share a column, one adds their terms in lane order, so each
 * sum takes its terms in the order of X's entries, as the one-thread path
 * (merge_row) does; starting from -0.0, the first term is kept exactly.
 * So both paths give the same bits (test_gpu_amg_spgemm checks it). Y's
 * rows must not repeat a column (every operand here is a product of
 * these paths, cuSPARSE's or an upload of a validated CSR). */
#ifndef CMRS_SOLVER_AMG_ROWPROD_WARP_CUH
#define CMRS_SOLVER_AMG_ROWPROD_WARP_CUH

#include <stdint.h>

namespace cmrs_rowprod_warp {

constexpr int kWarps = 4; /* warps a block */
constexpr int kBlock = kWarps * 32; /* threads a block */
constexpr int kHashBits = 9;
constexpr int kHash = 1 << kHashBits; /* slots a warp */
constexpr int kWarpCap = kHash / 2; /* distinct columns a row */
constexpr int32_t kEmpty = -1;

__device__ inline int slot_of(int32_t j)
{
    return (int)(((uint32_t)j * 2654435761u) >> (32 - kHashBits));
}

/* Inserts j; *added += 1 when it was new; false when every slot is taken
 * by other columns (the row passes kHash). */
__device__ inline bool insert(int32_t *keys, int32_t j, int *added)
{
    int h = slot_of(j);
    for (int probe = 0; probe < kHash; ++probe) {
        const int32_t old = atomicCAS(&keys[h], kEmpty, j);
        if (old == kEmpty) {
            ++*added;
            return true;
        }
        if (old == j) return true;
        h = (h + 1) & (kHash - 1);
    }
    return false;
}

/* j's slot (j was inserted). */
__device__ inline int find(const int32_t *keys, int32_t j)
{
    int h = slot_of(j);
    while (keys[h] != j) h = (h + 1) & (kHash - 1);
    return h;
}

/* A row of X is taken in chunks of 32 entries, one a lane: its row of
 * Y's start and length, and their running sum, so that the chunk's
 * products (k, q) are numbered t = 0 .. T-1 in X's order, then Y's, and
 * the lanes take 32 consecutive products at a time: every lane busy on
 * short rows of Y, and the loads of a batch issued together instead of
 * one dependent chain per entry of X. */
struct chunk_s {
    double a[32];   /* x_ik (the fill's) */
    int32_t ys[32]; /* the start of row k of Y */
    int32_t end[32]; /* the running sum of the lengths (inclusive) */
};

/* The chunk of row i's entries from k0 into c; returns its products'
 * count T (every lane). */
template <bool VALUES>
__device__ inline int load_chunk(int32_t k0, int32_t kend,
                                 const int32_t *__restrict__ xc,
                                 const double *__restrict__ xv,
                                 const int32_t *__restrict__ yp, chunk_s *c,
                                 int lane)
{
    const int32_t k = k0 + lane;
    int32_t ys = 0, len = 0;
    double a = 0.0;
    if (k < kend) {
        const int32_t r = xc[k];
        if (VALUES) a = xv[k];
        ys = yp[r];
        len = yp[r + 1] - ys;
    }
    int32_t end = len; /* inclusive scan over the lanes */
    for (int d = 1; d < 32; d <<= 1) {
        const int32_t v = __shfl_up_sync(0xffffffffu, end, d);
        if (lane >= d) end += v;
    }
    c->a[lane] = a;
    c->ys[lane] = ys;
    c->end[lane] = end;
    __syncwarp();
    return __shfl_sync(0xffffffffu, end, 31);
}

/* Product t's entry of Y (t < T): the first lane whose running sum
 * passes t (lanes with empty rows of Y never are), *l that lane. */
__device__ inline int32_t product_q(const chunk_s *c, int t, int *l)
{
    int lo = 0, hi = 31;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (c->end[mid] > t) hi = mid;
        else lo = mid + 1;
    }
    *l = lo;
    return c->ys[lo] + t - (lo ? c->end[lo - 1] : 0);
}

/* Batches of 32 products whose loads are issued before any is used. */
constexpr int kAhead = 4;

/* Row i's distinct columns into keys (cleared here); the count, or -1
 * past kWarpCap. Every lane of the warp calls it and gets the count. */
__device__ inline int gather_keys(int64_t i, const int32_t *__restrict__ xp,
                                  const int32_t *__restrict__ xc,
                                  const int32_t *__restrict__ yp,
                                  const int32_t *__restrict__ yc,
                                  int32_t *keys, chunk_s *c, int lane)
{
    for (int s = lane; s < kHash; s += 32) keys[s] = kEmpty;
    __syncwarp();
    int added = 0, total = 0;
    const int32_t kend = xp[i + 1];
    for (int32_t k0 = xp[i]; k0 < kend; k0 += 32) {
        const int T = load_chunk<false>(k0, kend, xc, nullptr, yp, c, lane);
        bool fits = true;
        for (int t0 = 0; t0 < T; t0 += 32 * kAhead) {
            int32_t col[kAhead];
#pragma unroll
            for (int u = 0; u < kAhead; ++u) {
                const int t = t0 + 32 * u + lane;
                int l;
                col[u] = t < T ? yc[product_q(c, t, &l)] : kEmpty;
            }
#pragma unroll
            for (int u = 0; u < kAhead; ++u)
                if (col[u] != kEmpty) fits = fits && insert(keys, col[u],
                                                            &added);
        }
        total = (int)__reduce_add_sync(0xffffffffu, (unsigned)added);
        if (!__all_sync(0xffffffffu, fits) || total > kWarpCap) return -1;
        __syncwarp(); /* the next chunk overwrites c */
    }
    return total;
}

/* len[i] = row i's distinct columns; word[0] = 1 past kWarpCap; word[1]
 * += the lengths (64-bit). len[n] = 0. One warp a row. */
__global__ void __launch_bounds__(kBlock)
k_count_warp(int64_t n, const int32_t *__restrict__ xp,
             const int32_t *__restrict__ xc, const int32_t *__restrict__ yp,
             const int32_t *__restrict__ yc, int32_t *__restrict__ len,
             unsigned long long *word)
{
    __shared__ int32_t keys_s[kWarps][kHash];
    __shared__ chunk_s chunk[kWarps];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t i = (int64_t)blockIdx.x * kWarps + w;
    if (i > n) return; /* whole warps: i is the same on every lane */
    if (i == n) {
        if (lane == 0) len[n] = 0;
        return;
    }
    int m = gather_keys(i, xp, xc, yp, yc, keys_s[w], &chunk[w], lane);
    if (m < 0) {
        if (lane == 0) word[0] = 1;
        m = 0;
    }
    if (lane == 0) {
        len[i] = m;
        if (m) atomicAdd(&word[1], (unsigned long long)m);
    }
}

/* Adds a batch of products (lane: rank r, term v; active lanes only) to
 * the sums in the lanes' order, which is X's order: where lanes share a
 * column, the lowest adds them all, one by one. */
__device__ inline void add_in_order(bool active, int r, double v,
                                    double *sum, double *term, int lane)
{
    const unsigned act = __ballot_sync(0xffffffffu, active);
    if (active) {
        const unsigned peers = __match_any_sync(act, r);
        term[lane] = v;
        __syncwarp(act);
        if (lane == __ffs(peers) - 1) {
            double s = sum[r];
            for (unsigned m = peers; m; m &= m - 1)
                s = __dadd_rn(s, term[__ffs(m) - 1]);
            sum[r] = s;
        }
    }
    __syncwarp(); /* the next batch may add to the same sums */
}

/* Row i of C at its offset: columns sorted, sums by rank (above). */
__global__ void __launch_bounds__(kBlock)
k_fill_warp(int64_t n, const int32_t *__restrict__ xp,
            const int32_t *__restrict__ xc, const double *__restrict__ xv,
            const int32_t *__restrict__ yp, const int32_t *__restrict__ yc,
            const double *__restrict__ yv, const int32_t *__restrict__ cp,
            int32_t *__restrict__ cc, double *__restrict__ cv)
{
    __shared__ int32_t keys_s[kWarps][kHash];
    __shared__ int16_t rank_s[kWarps][kHash]; /* slot -> rank */
    /* the sums by rank; before them, the columns unsorted and their
     * slots (1.5 of its 2 KB a warp: 9 blocks an SM instead of 7) */
    __shared__ double sum_s[kWarps][kWarpCap];
    __shared__ double term_s[kWarps][32];
    __shared__ chunk_s chunk[kWarps];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t i = (int64_t)blockIdx.x * kWarps + w;
    if (i >= n) return;
    int32_t *keys = keys_s[w];
    int16_t *rank = rank_s[w];
    double *sum = sum_s[w];
    static_assert(kWarpCap * (sizeof(int32_t) + sizeof(int16_t)) <=
                      sizeof sum_s[0], "list and from fit in the sums");
    int32_t *list = reinterpret_cast<int32_t *>(sum);
    int16_t *from = reinterpret_cast<int16_t *>(list + kWarpCap);
    chunk_s *c = &chunk[w];
    /* k_count_warp found every row within kWarpCap */
    const int m = gather_keys(i, xp, xc, yp, yc, keys, c, lane);
    /* the occupied slots, compacted in slot order */
    int base = 0;
    for (int s0 = 0; s0 < kHash; s0 += 32) {
        const int s = s0 + lane;
        const bool used = keys[s] != kEmpty;
        const unsigned ballot = __ballot_sync(0xffffffffu, used);
        if (used) {
            const int at = base + __popc(ballot & ((1u << lane) - 1u));
            list[at] = keys[s];
            from[at] = (int16_t)s;
        }
        base += __popc(ballot);
    }
    __syncwarp();
    /* each lane's columns ranked into registers, then (list and from
     * read by every lane before the sums overwrite them) written out */
    constexpr int kPer = kWarpCap / 32;
    int32_t key_r[kPer];
    int slot_r[kPer], rank_r[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int t = lane + 32 * j;
        rank_r[j] = -1;
        if (t < m) {
            key_r[j] = list[t];
            slot_r[j] = from[t];
            int r = 0;
            for (int u = 0; u < m; ++u) r += list[u] < key_r[j];
            rank_r[j] = r;
        }
    }
    __syncwarp();
    const int32_t o = cp[i];
#pragma unroll
    for (int j = 0; j < kPer; ++j)
        if (rank_r[j] >= 0) {
            rank[slot_r[j]] = (int16_t)rank_r[j];
            cc[o + rank_r[j]] = key_r[j];
            sum[rank_r[j]] = -0.0;
        }
    __syncwarp();
    const int32_t kend = xp[i + 1];
    for (int32_t k0 = xp[i]; k0 < kend; k0 += 32) {
        const int T = load_chunk<true>(k0, kend, xc, xv, yp, c, lane);
        for (int t0 = 0; t0 < T; t0 += 32 * kAhead) {
            int32_t col[kAhead];
            double v[kAhead];
#pragma unroll
            for (int u = 0; u < kAhead; ++u) {
                const int t = t0 + 32 * u + lane;
                col[u] = kEmpty;
                if (t < T) {
                    int l;
                    const int32_t q = product_q(c, t, &l);
                    col[u] = yc[q];
                    /* one rounding each, no FMA: merge_row's bits */
                    v[u] = __dmul_rn(c->a[l], yv[q]);
                }
            }
#pragma unroll
            for (int u = 0; u < kAhead; ++u) {
                const bool active = col[u] != kEmpty;
                const int r = active ? rank[find(keys, col[u])] : 0;
                add_in_order(active, r, active ? v[u] : 0.0, sum,
                             term_s[w], lane);
            }
        }
        __syncwarp(); /* the next chunk overwrites c */
    }
    for (int r = lane; r < m; r += 32) cv[o + r] = sum[r];
}

} // namespace cmrs_rowprod_warp

#endif
