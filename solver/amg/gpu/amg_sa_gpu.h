/* Smoothed aggregation's level operators on the GPU: from a level's A and
 * its aggregates, P = (I - w D^-1 A) P_tent, R = P^T and A_c = R A P are
 * formed on the device one after the other, every operand already there
 * (A uploaded once; P from A's rows in one pass where they are short,
 * else A P_tent by cuSPARSE SpGEMM smoothed in place; the products by
 * SpGEMM, R by cusparseCsr2cscEx2), and downloaded once. The host reference is
 * cmrs_amg_prolongator (smoothed), cmrs_csr_transpose and
 * cmrs_amg_galerkin_host: same patterns, values within rounding
 * (tests/solver/amg/test_gpu_amg_sa.c). */
#ifndef CMRS_SOLVER_AMG_SA_GPU_H
#define CMRS_SOLVER_AMG_SA_GPU_H

#include <cuda_runtime_api.h>

#include "base/csr.h"
#include "amg_spgemm_dev.h"

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

/* The n aggregates agg_d down into the host's agg, on `stream`
 * (synchronised). */
cmrs_code cmrs_gpu_agg_download(cudaStream_t stream, const int32_t *agg_d,
                                int32_t *agg, int64_t n);

/* What one level's device run is given: the aggregates in (aggregate 0:
 * agg and *naggs hold them) or out (aggregate 1: MIS-2 at theta on the
 * device, agg and *naggs written), and omega of the smoothing weight.
 * keep_d (aggregate 1; NULL: agg is written): where the run forms the
 * level (*done = 1), the device's aggregates come back in *keep_d (a
 * cudaMalloc'd array of A's rows, the caller's to free) and agg is left
 * as it was: nothing comes down that a re-setup would send up again.
 * Where the host must form the level (*done = 0), agg is written. */
typedef struct cmrs_gpu_sa_args {
    int aggregate;
    double theta, omega;
    int32_t *agg;   /* host, A's rows entries */
    int64_t *naggs;
    int32_t **keep_d;
} cmrs_gpu_sa_args;

/* The level on the device: A_d (the caller's device A, borrowed) or, when
 * NULL, A_h uploaded here; P, R and Ac are new device matrices (described
 * for cuSPARSE, rows not necessarily sorted: cmrs_gpu_csr_rows_sorted),
 * the caller's to free (amg_dev_free) when *done = 1; zeroed when 0 (the
 * host must form them: the aggregates are still set with aggregate 1).
 * A with rows, nnz and naggs > 0 and 32-bit counts. */
cmrs_code cmrs_gpu_sa_run(cudaStream_t stream, const cmrs_csr *A_h,
                          const amg_dev_mat *A_d, const cmrs_gpu_sa_args *g,
                          amg_dev_mat *P, amg_dev_mat *R, amg_dev_mat *Ac,
                          int *done);

/* cmrs_gpu_sa_level with the aggregates made first, on the device, by
 * MIS-2 (cmrs_gpu_mis2_dev with theta) from the same upload of A: agg
 * (A->rows entries) and *naggs are outputs, set whenever this returns
 * CMRS_OK (also with *done = 0, when the host must form P, R and A_c from
 * them), equal to cmrs_amg_mis2's. */
cmrs_code cmrs_gpu_sa_coarsen(cudaStream_t stream, const cmrs_csr *A,
                              double theta, double omega, int32_t *agg,
                              int64_t *naggs, cmrs_csr *P, cmrs_csr *R,
                              cmrs_csr *Ac, int *done);

/* In place on A P_tent (n rows, device CSR): v = [col == agg_i] - f_i v,
 * which makes it (I - D_f A) P_tent. Queued on `stream`. */
cmrs_code cmrs_gpu_sa_smooth_rows(cudaStream_t stream, int64_t n,
                                  const int32_t *indptr_d,
                                  const int32_t *indices_d, double *values_d,
                                  const double *f_d, const int32_t *agg_d);

/* The row scales of the smoothed P on the device, for the n-row device
 * CSR (int32, columns sorted as the host's binary search needs): w = omega
 * / rho with rho the Gershgorin bound over rows with a nonzero diagonal
 * (as cmrs_amg_smoothing_weight) and f_i = w / a_ii into f_d, both
 * bitwise the host's (same operation order, no contraction). *ok = 0 when
 * some a_ii is missing or some f_i is not finite: the host would keep that
 * row tentative, so the level goes to the host. Synchronises the stream
 * (rho and the flag come back); n > 0. */
cmrs_code cmrs_gpu_sa_scales(cudaStream_t stream, int64_t n,
                             const int32_t *indptr_d,
                             const int32_t *indices_d,
                             const double *values_d, double omega,
                             double *f_d, double *w, int *ok);

/* The tentative P on the device (cmrs_amg_prolongator with smooth_p 0):
 * row i holds 1.0 in column agg_i; indptr_d has n + 1 entries, indices_d
 * and values_d n. Queued on `stream`. */
cmrs_code cmrs_gpu_sa_tentative(cudaStream_t stream, int64_t n,
                                const int32_t *agg_d, int32_t *indptr_d,
                                int32_t *indices_d, double *values_d);

/* *sorted = 1 when the columns of every row of the n-row device CSR
 * strictly increase (the host scan of amg_dev_ensure_sorted, done where
 * the matrix is). Synchronises the stream. */
cmrs_code cmrs_gpu_csr_rows_sorted(cudaStream_t stream, int64_t n,
                                   const int32_t *indptr_d,
                                   const int32_t *indices_d, int *sorted);

/* v_d[i] = i for i < n; out_d[i] = (int32_t)v_d[i]: a transpose's entry
 * permutation, carried through cusparseCsr2cscEx2 as double values.
 * Queued on `stream`. */
cmrs_code cmrs_gpu_iota_d(cudaStream_t stream, int64_t n, double *v_d);
cmrs_code cmrs_gpu_to_int32(cudaStream_t stream, int64_t n,
                            const double *v_d, int32_t *out_d);

/* out_d[i] = indptr_d[i] - indptr_d[0] for i = 0 .. rows: the row
 * pointers of a slice of rows starting at indptr_d. Queued on `stream`. */
cmrs_code cmrs_gpu_rebase_indptr(cudaStream_t stream, int64_t rows,
                                 const int32_t *indptr_d, int32_t *out_d);

/* *same = 1 when two device CSR patterns of `rows` rows and nnz entries
 * have the same indptr and indices (the AMG's in-place re-setup checks
 * that a product came out in the order its operator was made from).
 * Synchronises the stream. */
cmrs_code cmrs_gpu_csr_same_pattern(cudaStream_t stream, int64_t rows,
                                    int64_t nnz, const int32_t *indptr_a,
                                    const int32_t *indices_a,
                                    const int32_t *indptr_b,
                                    const int32_t *indices_b, int *same);

/* dinv_d (n values, float when single, else double) = 1 / a_ii of the
 * square n-row device CSR (columns sorted), in double then rounded, as
 * the host's cmrs_jacobi_inverse_diagonal and arr_set; *ok = 0 when some
 * a_ii is missing or not > 0 or its inverse does not fit (dinv_d is then
 * not to be used: the host path reports the row). Synchronises. */
cmrs_code cmrs_gpu_csr_inverse_diagonal(cudaStream_t stream, int64_t n,
                                        const int32_t *indptr_d,
                                        const int32_t *indices_d,
                                        const double *values_d, int single,
                                        void *dinv_d, int *ok);

/* P = (I - D_f A) P_tent straight from A (square device CSR, rows
 * sorted), the aggregates and f on the device (amg_sa_p_gpu.cu): P's
 * pattern as A P_tent's by SpGEMM (every aggregate a row touches, sorted,
 * entries that cancel kept), values as cmrs_gpu_sa_smooth_rows gives
 * them with each aggregate's a_ij summed in column order. *done = 0 (P
 * empty) where a row of A has more than 32 entries: SpGEMM then. Queued
 * on `stream`, P described; the counts' read-backs synchronise it. */
cmrs_code cmrs_gpu_sa_smoothed_p(cudaStream_t stream, int64_t n,
                                 int64_t naggs, const int32_t *indptr_d,
                                 const int32_t *indices_d,
                                 const double *values_d,
                                 const int32_t *agg_d, const double *f_d,
                                 amg_dev_mat *P, int *done);

#ifdef __cplusplus
}
#endif

#endif
