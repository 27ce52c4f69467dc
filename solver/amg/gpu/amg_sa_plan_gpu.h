/* The AMG re-setup's products kept between value updates on the GPU (amg
 * full, same pattern, new values): one level's smoothed-aggregation
 * products A P_tent, A P and R (A P) as cuSPARSE SpGEMM reuse plans
 * (cusparseSpGEMMreuse_*: the symbolic phases and their buffers done
 * once), the tentative P, the aggregates and the transpose's entry
 * permutation kept on the device, so that new values cost the numeric
 * phases only: the row scales, three cusparseSpGEMMreuse_compute, the
 * smoothing pass, a gather for R and three device copies into the level
 * matrices, whose arrays (and the operators made from them) stay. Made at
 * the first re-setup, not at setup: solves that never update hold none
 * of it. Every function returns with the stream synchronised. */
#ifndef CMRS_SOLVER_AMG_SA_PLAN_GPU_H
#define CMRS_SOLVER_AMG_SA_PLAN_GPU_H

#include <cuda_runtime_api.h>

#include "amg_spgemm_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amg_sa_plan amg_sa_plan;

/* What a level gives the plan: its A (device, described) and, for level
 * 0 (own_a: the caller's A is a fresh copy each time, or only on the
 * host), A's host values when there is no device copy; the aggregates
 * (A's rows entries: agg_d on the device where the level kept them there,
 * else agg on the host) and omega; the level matrices P, R, A_c that
 * setup formed (device copies, as the operators were made from them). */
typedef struct amg_sa_level {
    const amg_dev_mat *a;  /* NULL: A from the host copy a_h */
    const cmrs_csr *a_h;
    int own_a;
    const int32_t *agg, *agg_d;
    int64_t naggs;
    double omega;
    amg_dev_mat *P, *R, *Ac;
} amg_sa_level;

/* *plan for level v, its products' patterns checked against v->P, v->R,
 * v->Ac (the same arrays in the same order). *plan = NULL (nothing kept,
 * the caller forms the level from scratch) when they differ, a product is
 * empty, or a step fails (cuSPARSE refusing it, no device memory left for
 * the plan: the error is cleared, the plan being an optimisation). No
 * values are computed. */
cmrs_code amg_sa_plan_create(cudaStream_t stream, const amg_sa_level *v,
                             amg_sa_plan **plan);

/* New values of v->P, v->R, v->Ac from A's current values (level 0:
 * copied into the plan's own A first). *done = 0 (nothing written) when
 * some row's scale f_i = w / a_ii is not finite or a_ii is missing: the
 * host keeps such rows tentative, so the caller forms the level from
 * scratch. */
cmrs_code amg_sa_plan_run(cudaStream_t stream, amg_sa_plan *plan,
                          const amg_sa_level *v, int *done);

void amg_sa_plan_free(amg_sa_plan *plan); /* NULL-safe */

#ifdef __cplusplus
}
#endif

#endif
