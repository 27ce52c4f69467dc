/* The Galerkin product of an AMG level on the GPU: A_c = R (A P) through
 * cuSPARSE's generic SpGEMM (cusparseSpGEMM_workEstimation / _compute /
 * _copy, the CUDA 13 API), never a hand-written product. Host CSR in and
 * out (the next level's aggregation runs on the host); the three operands
 * are uploaded once, the result is sorted by column in every row and has
 * the exact pattern of the host reference (cmrs_amg_galerkin_host), values
 * equal within rounding. */
#ifndef CMRS_SOLVER_AMG_SPGEMM_GPU_H
#define CMRS_SOLVER_AMG_SPGEMM_GPU_H

#include <cuda_runtime_api.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *Ac is allocated (cmrs_csr_free). Work is queued on `stream` and the
 * call returns with it synchronised. CMRS_E_LIMIT when a count exceeds
 * cuSPARSE's 32-bit indices, CMRS_E_INPUT for mismatched shapes,
 * CMRS_E_NODEVICE without a GPU, CMRS_E_GPU/NOMEM on failures. */
cmrs_code cmrs_gpu_galerkin(cudaStream_t stream, const cmrs_csr *R,
                            const cmrs_csr *A, const cmrs_csr *P,
                            cmrs_csr *Ac);

#ifdef __cplusplus
}
#endif

#endif
