/* MIS-2 aggregation on the GPU: the kernels of amg_mis2.h's steps,
 * bit-identical to the host reference cmrs_amg_mis2 (the same amg_rules.h
 * functions decide on the same values; every step reads only the state of
 * the step before). */
#ifndef CMRS_SOLVER_AMG_MIS2_GPU_H
#define CMRS_SOLVER_AMG_MIS2_GPU_H

#include <cuda_runtime_api.h>

#include "solver/amg/amg_host.h"
#include "amg_spgemm_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* agg_d (n entries, device) and *naggs as cmrs_amg_mis2 gives them, for
 * the square device CSR of n rows (cuSPARSE's 32-bit form: indptr_d n + 1
 * entries, columns sorted in each row), n >= 1. Work on `stream`,
 * synchronised on return; scratch allocated and freed here. */
cmrs_code cmrs_gpu_mis2_dev(cudaStream_t stream, int64_t n, int64_t nnz,
                            const int32_t *indptr_d,
                            const int32_t *indices_d,
                            const double *values_d, double theta,
                            int32_t *agg_d, int64_t *naggs);

/* The same into the host array agg (a's rows entries), from the square
 * device CSR a (rows sorted): the device aggregates made and sent down
 * (scratch allocated and freed here). */
cmrs_code cmrs_gpu_mis2_down(cudaStream_t stream, const amg_dev_mat *a,
                             double theta, int32_t *agg, int64_t *naggs);

/* The same from a host CSR A (uploaded here) into the host array agg
 * (A->rows entries). CMRS_E_INPUT for a non-square A, CMRS_E_LIMIT past
 * 32-bit indices. */
cmrs_code cmrs_gpu_mis2(cudaStream_t stream, const cmrs_csr *A,
                        const cmrs_amg_params *p, int32_t *agg,
                        int64_t *naggs);

#ifdef __cplusplus
}
#endif

#endif
