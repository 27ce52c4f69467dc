/* Handshake (parallel pairwise) aggregation: the host reference of the
 * GPU's aggregation (amg_handshake_gpu.cu), step for step, so the two give
 * bit-identical aggregates (tests/solver/amg/test_gpu_amg_handshake.c).
 *
 * One pass on a matrix M (pass 0: A; pass k: Q^T M Q of the pass before)
 * and its link graph L (pass 0: none; then the strong pattern of A
 * aggregated alike, so an aggregate stays connected in A's strength graph):
 *  1. weights: entry (i, j) of M gets w = max(strength of a_ij, of a_ji)
 *     (amg_rules.h; a_ji looked up in row j), -1 when weak both ways, when
 *     a_ji is not stored, on the diagonal, or not in L;
 *  2. HS_ROUNDS rounds: every unmatched node proposes to its best
 *     unmatched neighbour (largest w; ties within 1e-12 by the edge hash,
 *     then the lower index); two nodes that propose to each other match;
 *  3. a node left unmatched joins the pair of its best matched neighbour,
 *     else stays a singleton;
 *  4. aggregates are numbered in the order of their lowest index (the
 *     pair's lower node, or the singleton).
 * Every step reads only the state of the step before, so each is one
 * kernel on the GPU. log2(agg_size) passes. */
#ifndef CMRS_SOLVER_AMG_HANDSHAKE_H
#define CMRS_SOLVER_AMG_HANDSHAKE_H

#include "amg_host.h"

#define CMRS_HS_ROUNDS 6

/* Step 1 on its own: w[k] for every entry of M (links L, or NULL for
 * none); also the strength graph of MIS-2 aggregation (amg_mis2.h). */
cmrs_code cmrs_amg_hs_weights(const cmrs_csr *M, const cmrs_csr *L,
                              double theta, double *w);

/* Aggregates of A (agg: A->rows entries) by handshake matching. */
cmrs_code cmrs_amg_handshake(const cmrs_csr *A, const cmrs_amg_params *p,
                             int32_t *agg, int64_t *naggs);

#endif
