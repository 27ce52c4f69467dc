/* MIS-2 aggregation: the greedy (Vanek-Mandel-Brezina) aggregation made
 * parallel, as Bell, Dalton and Olson did for the GPU (SIAM J. Sci.
 * Comput. 34(4), 2012). Greedy's phase-1 roots are nodes whose strong
 * neighbourhoods do not overlap, i.e. an independent set of the graph at
 * distance 2, chosen in index order; here the set is a maximal one chosen
 * in synchronous rounds (amg_rules.h's keys), so the host reference below
 * and the GPU's kernels (amg_mis2_gpu.h) take the same decisions in any
 * thread order and give bit-identical aggregates:
 *  1. weights: handshake's step 1 (cmrs_amg_hs_weights, no links): the
 *     symmetric strength graph, w >= 0 on strong entries;
 *  2. rounds, until no node is undecided (or CMRS_MIS_MAX_ROUNDS): the
 *     largest key within distance 2 (two max passes over the strong
 *     neighbours), then amg_mis_decide;
 *  3. each member roots an aggregate of itself and its strong neighbours;
 *  4. every other node joins its strongest neighbour's aggregate (by
 *     maximality each has a neighbour in one), else is a singleton;
 *  5. aggregates are numbered in the order of their roots' indices. */
#ifndef CMRS_SOLVER_AMG_MIS2_H
#define CMRS_SOLVER_AMG_MIS2_H

#include "amg_host.h"

/* A bound on the rounds (each decides at least the largest undecided key,
 * in practice a fraction of all nodes: 10-20 rounds on the vessel); nodes
 * still undecided then are not members, and step 4 places them. */
#define CMRS_MIS_MAX_ROUNDS 100

/* Aggregates of A (agg: A->rows entries) by MIS-2 aggregation. */
cmrs_code cmrs_amg_mis2(const cmrs_csr *A, const cmrs_amg_params *p,
                        int32_t *agg, int64_t *naggs);

#endif
