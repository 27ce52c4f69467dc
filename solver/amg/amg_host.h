/* Host side of the aggregation AMG hierarchy (docs/AMG.md): strength of
 * connection, aggregation, the prolongator P (tentative or smoothed), sparse
 * products and the Galerkin operator A_c = R A P with R = P^T. Plain C on
 * host CSR matrices (base/csr.h), used by both back ends so that the CPU and
 * the GPU build the same hierarchy (the GPU forms R A P with cuSPARSE SpGEMM,
 * amg_spgemm_gpu.c, and checks against cmrs_amg_galerkin_host in tests).
 *
 * Everything is deterministic: same input, same aggregates, on any machine.
 * Ties between connections of equal strength are broken by the lower column
 * index, and two strengths that differ by less than 1e-12 relative are
 * equal, so a Galerkin operator formed in another summation order (GPU)
 * aggregates the same way.
 */
#ifndef CMRS_SOLVER_AMG_HOST_H
#define CMRS_SOLVER_AMG_HOST_H

#include <stdint.h>

#include "base/csr.h"

typedef enum cmrs_amg_agg {
    CMRS_AMG_AGG_PAIRWISE = 0, /* repeated pairwise matching (AmgX SIZE_k,
                                  AGMG): log2(agg_size) passes */
    CMRS_AMG_AGG_GREEDY = 1,   /* Vanek-Mandel-Brezina distance-1
                                  neighbourhood aggregation (SA, pyamg) */
    CMRS_AMG_AGG_HANDSHAKE = 2,/* parallel pairwise matching (proposals
                                  accepted both ways, AmgX-style), the
                                  same passes as pairwise; runs on the GPU
                                  there (amg_handshake.h) */
    CMRS_AMG_AGG_MIS2 = 3,     /* greedy made parallel: roots a maximal
                                  independent set at distance 2, chosen in
                                  rounds (amg_mis2.h); runs on the GPU
                                  there */
    CMRS_AMG_AGG_COUNT
} cmrs_amg_agg;

typedef struct cmrs_amg_params {
    double theta;        /* strength threshold: j is a strong neighbour of
                            i when |a_ij| >= theta sqrt(|a_ii a_jj|) (and
                            a_ij has the sign opposite to a_ii); default
                            0.02 (pairwise: matching weight floor; 0.08
                            was its measured value) */
    cmrs_amg_agg agg;    /* default CMRS_AMG_AGG_GREEDY */
    int agg_size;        /* pairwise: target size, 2, 4, 8 or 16 (1, 2, 3
                            or 4 passes); default 8 */
    int smooth_p;        /* 0: plain aggregation (P tentative, one 1 per
                            row); 1: smoothed aggregation P = (I - w D^-1 A)
                            P_tent with w = p_omega / rho(D^-1 A);
                            default 1 */
    double p_omega;      /* default 4/3 */
    int64_t coarse_rows; /* stop coarsening at or below this many rows;
                            default 1000 (inverted densely) */
    int max_levels;      /* default 20, at least 1 */
    double max_op_complexity; /* setup: a coarse level that would take the
                            operator complexity (sum nnz / nnz of level 0)
                            above this is not added; coarsening stops
                            there and says so (default 3; >= 1) */
} cmrs_amg_params;

void cmrs_amg_params_default(cmrs_amg_params *p);

/* An aggregation method: one entry of the registry (amg_aggregate.c,
 * indexed by cmrs_amg_agg, in the order of the option's words). The AMG
 * setup looks it up once and hands it to the level builder
 * (amg_builder.h), whose own table says where it runs (the GPU's:
 * handshake and MIS-2 on the device, the rest through `host`). */
typedef struct cmrs_amg_agg_method {
    cmrs_amg_agg id;
    const char *name;    /* the option's word (--amg-agg NAME) */
    /* the host aggregation, for a square A with rows and checked params */
    cmrs_code (*host)(const cmrs_csr *A, const cmrs_amg_params *p,
                      int32_t *agg, int64_t *naggs);
    int sized;           /* 1: reads agg_size (2, 4, 8 or 16: pairwise
                            passes) */
} cmrs_amg_agg_method;

/* The method of id (a cmrs_amg_agg), or NULL when there is none. */
const cmrs_amg_agg_method *cmrs_amg_agg_method_of(int id);

/* Aggregates of A (square, symmetric pattern expected; an unsymmetric
 * one is symmetrised for the strength graph): agg[i] in [0, *naggs) for
 * every row i (every row aggregated: a row with no strong neighbour forms
 * a singleton aggregate, unless it can join a neighbour's). Each aggregate
 * is connected in the strength graph, or is a singleton. agg has A->rows
 * entries, allocated by the caller. CMRS_E_INPUT for a non-square A. */
cmrs_code cmrs_amg_aggregate(const cmrs_csr *A, const cmrs_amg_params *p,
                             int32_t *agg, int64_t *naggs);
/* The same by a method already looked up (p->agg is not read). */
cmrs_code cmrs_amg_aggregate_by(const cmrs_amg_agg_method *m,
                                const cmrs_csr *A, const cmrs_amg_params *p,
                                int32_t *agg, int64_t *naggs);

/* P (A->rows x naggs): tentative (p_ij = 1 iff agg[i] = j) or, with
 * p->smooth_p, smoothed with the Jacobi-weighted A; rho(D^-1 A) is
 * estimated by the largest Gershgorin row sum sum_j |a_ij| / |a_ii|. */
cmrs_code cmrs_amg_prolongator(const cmrs_csr *A, const int32_t *agg,
                               int64_t naggs, const cmrs_amg_params *p,
                               cmrs_csr *P);

/* CMRS_E_INPUT unless the rows x cols level matrix is square and every
 * agg[i] is in [0, naggs): the prolongator's check, shared with the GPU's
 * (amg_sa_gpu.c, amg_kit_gpu.c). */
cmrs_code cmrs_amg_check_aggregates(int64_t rows, int64_t cols,
                                    const int32_t *agg, int64_t naggs);

/* w = omega / rho(D^-1 A), rho by Gershgorin as above (0 when rho is 0):
 * the smoothed P's weight; its GPU twin is cmrs_gpu_sa_scales. */
double cmrs_amg_smoothing_weight(const cmrs_csr *A, double omega);

/* C = A B on the host (Gustavson), rows sorted, explicit zeros kept only
 * where the pattern produced them. *C is allocated. */
cmrs_code cmrs_csr_multiply(const cmrs_csr *A, const cmrs_csr *B,
                            cmrs_csr *C);

/* A_c = R (A P) on the host: the reference for the GPU's SpGEMM. */
cmrs_code cmrs_amg_galerkin_host(const cmrs_csr *R, const cmrs_csr *A,
                                 const cmrs_csr *P, cmrs_csr *Ac);

#endif
