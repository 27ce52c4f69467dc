/* The comparisons every AMG aggregation makes, written once for the host
 * (amg_aggregate.c, amg_handshake.c) and the GPU (amg_handshake_gpu.cu),
 * which must take bit-identical decisions. Device code must round each
 * operation alone: AMG_MUL/AMG_ADD keep nvcc from contracting a*b + c into
 * an FMA (a different rounding than the host's). Division and sqrt are
 * IEEE-rounded on both sides (nvcc's defaults, -prec-div/-prec-sqrt). */
#ifndef CMRS_SOLVER_AMG_RULES_H
#define CMRS_SOLVER_AMG_RULES_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define AMG_HD __host__ __device__ static inline
#else
#define AMG_HD static inline
#endif
#ifdef __CUDA_ARCH__
#define AMG_MUL(a, b) __dmul_rn((a), (b))
#define AMG_ADD(a, b) __dadd_rn((a), (b))
#else
#define AMG_MUL(a, b) ((a) * (b))
#define AMG_ADD(a, b) ((a) + (b))
#endif

/* Strengths within this relative distance are equal (amg_aggregate.c's
 * header says why: operators formed in another summation order). */
#define AMG_TIE_REL 1e-12

/* w beats the best so far only by more than the tie tolerance; best < 0
 * means none yet (weights are >= 0). */
AMG_HD int amg_stronger(double w, double best)
{
    return best < 0 || w > AMG_ADD(best, AMG_MUL(AMG_TIE_REL, best));
}

/* Weight of a strong a_ij (row i: diagonal di, roots si, sj), or -1 when
 * the connection is weak. The !(x > 0) tests also reject NaN. */
AMG_HD double amg_strong_weight(double a, double di, double si, double sj,
                                double theta)
{
    double ss = AMG_MUL(si, sj);
    if (!(ss > 0)) return -1.0; /* zero or missing diagonal: isolated */
    if (!((di > 0 && a < 0) || (di < 0 && a > 0))) return -1.0;
    double m = fabs(a);
    if (!(m >= AMG_MUL(AMG_MUL(theta, ss), 1.0 - AMG_TIE_REL))) return -1.0;
    return m / ss;
}

/* A hash of the undirected edge {i, j} (the same from both ends): the
 * tie-breaker of handshake matching. Equal weights are the rule on uniform
 * grids; breaking their ties by index would let one pair form per round
 * along a chain, a hash makes about a third of the edges local maxima.
 * (Preferring the shorter index distance first was tried: no better on
 * the vessel or on Poisson.) The mix is lowbias32 (public domain). */
AMG_HD uint32_t amg_edge_hash(int32_t i, int32_t j)
{
    uint32_t lo = (uint32_t)(i < j ? i : j), hi = (uint32_t)(i < j ? j : i);
    uint32_t x = lo * 0x9E3779B9u ^ (hi + 0x7F4A7C15u);
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Handshake order of the edges of one node: (w, hash) beats (best,
 * best_hash), weights within the tie tolerance compared by hash, equal
 * hashes by the lower neighbour (the caller scans in increasing column
 * order and keeps the first). best < 0: none yet. */
AMG_HD int amg_hs_better(double w, uint32_t h, double best, uint32_t best_h)
{
    if (best < 0) return 1;
    if (amg_stronger(w, best)) return 1;
    if (amg_stronger(best, w)) return 0;
    return h > best_h;
}

/* ---- handshake steps (amg_handshake.h), on raw CSR arrays ------------ */

/* Position of column j in the sorted row i, or -1 (cmrs_csr_lookup's
 * search). */
AMG_HD int64_t amg_find(const int64_t *ptr, const int32_t *idx, int64_t i,
                        int32_t j)
{
    int64_t lo = ptr[i], hi = ptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    return lo < ptr[i + 1] && idx[lo] == j ? lo : -1;
}

/* Step 1 for the off-diagonal entry k = (i, j): the larger strength of
 * a_ij and a_ji, -1 when both are weak or a_ji is not stored: the graph is
 * the symmetric part of the pattern, the same seen from both ends (so A
 * and A^T aggregate alike) with no transpose to form on the GPU. d, s: the
 * diagonal and the roots of its magnitudes. */
AMG_HD double amg_hs_weight(const int64_t *ptr, const int32_t *idx,
                            const double *val, const double *d,
                            const double *s, double theta, int64_t i,
                            int64_t k)
{
    int32_t j = idx[k];
    double wij = amg_strong_weight(val[k], d[i], s[i], s[j], theta);
    int64_t q = amg_find(ptr, idx, j, (int32_t)i);
    if (q < 0) return -1.0;
    double wji = amg_strong_weight(val[q], d[j], s[j], s[i], theta);
    return wij > wji ? wij : wji;
}

/* Steps 2 and 3: row i's best neighbour j (w >= 0) that is unmatched
 * (want_matched 0) or matched (1), or -1. */
AMG_HD int32_t amg_hs_best(const int64_t *ptr, const int32_t *idx,
                           const double *w, const int32_t *mate, int64_t i,
                           int want_matched)
{
    int32_t pick = -1;
    double best = -1.0;
    uint32_t best_h = 0;
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
        int32_t j = idx[k];
        if (w[k] < 0 || (mate[j] >= 0) != want_matched) continue;
        uint32_t h = amg_edge_hash((int32_t)i, j);
        if (amg_hs_better(w[k], h, best, best_h)) {
            best = w[k];
            best_h = h;
            pick = j;
        }
    }
    return pick;
}

/* Step 4: whether node i leads its aggregate (the lower node of a pair, or
 * a singleton), and the leader of i's aggregate. */
AMG_HD int amg_hs_leads(const int32_t *mate, const int32_t *join, int64_t i)
{
    return mate[i] >= 0 ? i < mate[i] : join[i] < 0;
}

AMG_HD int32_t amg_hs_leader(const int32_t *mate, const int32_t *join,
                             int64_t i)
{
    int32_t a = join[i] >= 0 ? join[i] : (int32_t)i;
    return mate[a] >= 0 && mate[a] < a ? mate[a] : a;
}

/* ---- distance-2 maximal independent set (amg_mis2.h) ------------------ */

/* A node's key in the MIS-2 rounds: its state (bits 62-63: 0 out, 1
 * undecided, 2 in the set) over a 30-bit hash of its index over the index
 * itself, so keys are distinct and compare as (state, hash, index). The
 * hash spreads the winners of a round over the graph as Luby's random
 * numbers do: in index order a chain of nodes would decide one root per
 * round (measured with index order inside blocks of 8 and 32 rows: 2-6x
 * the rounds, no better aggregates). The mix is lowbias32 again. */
#define AMG_MIS_OUT 0u
#define AMG_MIS_UNDECIDED 1u
#define AMG_MIS_IN 2u

AMG_HD uint64_t amg_mis_key(unsigned state, int64_t i)
{
    uint32_t x = (uint32_t)i ^ 0x5bd1e995u;
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return (uint64_t)state << 62 | (uint64_t)(x >> 2) << 32 | (uint32_t)i;
}

AMG_HD unsigned amg_mis_state(uint64_t key) { return (unsigned)(key >> 62); }

/* The largest key over node i and its strong neighbours (w >= 0). */
AMG_HD uint64_t amg_mis_max(const int64_t *ptr, const int32_t *idx,
                            const double *w, const uint64_t *key, int64_t i)
{
    uint64_t m = key[i];
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k)
        if (w[k] >= 0 && key[idx[k]] > m) m = key[idx[k]];
    return m;
}

/* Node i's key after a round, from the largest key within distance 2
 * (max2): an undecided node joins the set when it is that largest key,
 * leaves the game when a member is within distance 2 (members outrank
 * every undecided key), and waits otherwise. */
AMG_HD uint64_t amg_mis_decide(uint64_t key, uint64_t max2)
{
    if (amg_mis_state(key) != AMG_MIS_UNDECIDED) return key;
    uint64_t rest = key & ~(3ull << 62);
    if (max2 == key) return (uint64_t)AMG_MIS_IN << 62 | rest;
    if (amg_mis_state(max2) == AMG_MIS_IN) return rest; /* out */
    return key;
}

/* Phase 1: the set member that node i belongs to (itself, or its strong
 * neighbour in the set: at most one, members are 3 apart), or -1. */
AMG_HD int32_t amg_mis_root(const int64_t *ptr, const int32_t *idx,
                            const double *w, const uint64_t *key, int64_t i)
{
    if (amg_mis_state(key[i]) == AMG_MIS_IN) return (int32_t)i;
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k)
        if (w[k] >= 0 && amg_mis_state(key[idx[k]]) == AMG_MIS_IN)
            return idx[k];
    return -1;
}

/* Phase 2: a node with no member next to it joins the aggregate (root)
 * of its strongest neighbour that has one (ties to the lower index); one
 * with none roots its own (a singleton; the rounds' maximality leaves
 * none but nodes cut off by the round limit). */
AMG_HD int32_t amg_mis_join(const int64_t *ptr, const int32_t *idx,
                            const double *w, const int32_t *root, int64_t i)
{
    if (root[i] >= 0) return root[i];
    int32_t pick = (int32_t)i;
    double best = -1.0;
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
        int32_t j = idx[k];
        if (w[k] >= 0 && root[j] >= 0 && amg_stronger(w[k], best)) {
            best = w[k];
            pick = root[j];
        }
    }
    return pick;
}

#endif
