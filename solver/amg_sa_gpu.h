/* Smoothed aggregation's level operators on the GPU: from a level's A and
 * its aggregates, P = (I - w D^-1 A) P_tent, R = P^T and A_c = R A P are
 * formed on the device one after the other, every operand already there
 * (A uploaded once; A P_tent and the products by cuSPARSE SpGEMM, R by
 * cusparseCsr2cscEx2), and downloaded once. The host reference is
 * cmrs_amg_prolongator (smoothed), cmrs_csr_transpose and
 * cmrs_amg_galerkin_host: same patterns, values within rounding
 * (tests/solver/test_gpu_amg_sa.c). */
#ifndef CMRS_SOLVER_AMG_SA_GPU_H
#define CMRS_SOLVER_AMG_SA_GPU_H

#include <cuda_runtime_api.h>

#include "../io/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* P, R, Ac allocated (cmrs_csr_free) when *done = 1. *done = 0 (nothing
 * allocated) when the device path does not apply and the host must form
 * them: a row with a zero or missing diagonal (the host keeps its
 * tentative row), or an empty A or aggregation. w = omega / rho as
 * cmrs_amg_smoothing_weight. Returns with the stream synchronised. */
cmrs_code cmrs_gpu_sa_level(cudaStream_t stream, const cmrs_csr *A,
                            const int32_t *agg, int64_t naggs, double omega,
                            cmrs_csr *P, cmrs_csr *R, cmrs_csr *Ac,
                            int *done);

/* In place on A P_tent (n rows, device CSR): v = [col == agg_i] - f_i v,
 * which makes it (I - D_f A) P_tent. Queued on `stream`. */
cmrs_code cmrs_gpu_sa_smooth_rows(cudaStream_t stream, int64_t n,
                                  const int32_t *indptr_d,
                                  const int32_t *indices_d, double *values_d,
                                  const double *f_d, const int32_t *agg_d);

#ifdef __cplusplus
}
#endif

#endif
