/* Handshake aggregation on the GPU: the kernels of amg_handshake.h's
 * steps, bit-identical to the host reference cmrs_amg_handshake (every
 * decision is made by the same amg_rules.h functions on the same values;
 * the aggregated matrices are summed in the host's order). */
#ifndef CMRS_SOLVER_AMG_HANDSHAKE_GPU_H
#define CMRS_SOLVER_AMG_HANDSHAKE_GPU_H

#include <cuda_runtime_api.h>

#include "solver/amg/amg_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* agg (A->rows entries, host) and *naggs as cmrs_amg_handshake gives them
 * for the host CSR A (uploaded here; rows sorted). Ac not NULL: also the
 * plain-aggregation Galerkin operator Q^T A Q (Q: the 0/1 matrix of agg,
 * = R A P for the tentative P), formed on the device from the last pass's
 * aggregated matrix (*Ac allocated, rows sorted, the pattern of R A P;
 * values equal to the host product's within rounding), which saves the
 * SpGEMM its uploads of A, P and R. Work on `stream`, synchronised on
 * return; device memory allocated and freed here (once per level of the
 * setup). CMRS_E_LIMIT past 2^31 - 1 rows, CMRS_E_GPU/NOMEM on CUDA
 * failures. */
cmrs_code cmrs_gpu_handshake(cudaStream_t stream, const cmrs_csr *A,
                             const cmrs_amg_params *p, int32_t *agg,
                             int64_t *naggs, cmrs_csr *Ac);

#ifdef __cplusplus
}
#endif

#endif
