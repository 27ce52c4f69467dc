/* The device side of the AMG sparse products, shared by the Galerkin
 * product (amg_spgemm_gpu.c) and smoothed aggregation's transfer
 * operators (amg_sa_gpu.c): a CSR matrix on the device in cuSPARSE's
 * 32-bit form, its upload, C = X Y by cuSPARSE SpGEMM, the download.
 * Setup only: every call allocates. */
#ifndef CMRS_SOLVER_AMG_SPGEMM_DEV_H
#define CMRS_SOLVER_AMG_SPGEMM_DEV_H

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every member NULL/0 when empty; amg_dev_free is idempotent. */
typedef struct amg_dev_mat {
    int64_t rows, cols, nnz;
    int32_t *indptr_d;
    int32_t *indices_d;
    double *values_d;
    cusparseSpMatDescr_t descr;
    /* 1: the arrays are scratch from the setup's pool (amg_pool_gpu.h),
     * allocated and freed in pool_stream's order */
    int pooled;
    cudaStream_t pool_stream;
} amg_dev_mat;

void amg_dev_free(amg_dev_mat *m);
/* CMRS_E_LIMIT when a count exceeds cuSPARSE's 32-bit indices. */
cmrs_code amg_dev_check_int32(int64_t rows, int64_t cols, int64_t nnz,
                              const char *what);
/* m = a rows x cols device CSR with room for nnz entries (contents unset,
 * not described; on failure what was allocated stays for amg_dev_free). */
cmrs_code amg_dev_alloc(amg_dev_mat *m, int64_t rows, int64_t cols,
                        int64_t nnz);
/* m's three arrays for a rows x cols shape with nnz entries, where m's
 * pooled and pool_stream are already set (contents unset, not described;
 * on failure what was allocated stays for amg_dev_free). */
cmrs_code amg_dev_mat_arrays(amg_dev_mat *m, int64_t rows, int64_t cols,
                             int64_t nnz);
/* One of m's arrays: from the pool (in m->pool_stream's order) where m is
 * scratch, else cudaMalloc (trimming a held pool if memory runs out). */
cmrs_code amg_dev_mat_alloc(const amg_dev_mat *m, void **p, size_t bytes);
/* The same as scratch of the setup's pool, ordered on `stream`: for a
 * matrix freed before the level's setup ends. */
cmrs_code amg_dev_alloc_scratch(amg_dev_mat *m, int64_t rows, int64_t cols,
                                int64_t nnz, cudaStream_t stream);
/* c = the rows(x) x cols(y) shell of X Y before SpGEMM fills it: row
 * pointers allocated, described with no entries yet (on failure what was
 * made stays for amg_dev_free). */
cmrs_code amg_dev_product_shell(const amg_dev_mat *x, const amg_dev_mat *y,
                                amg_dev_mat *c);
/* m's cuSPARSE descriptor over its arrays (32-bit indices, double). */
cmrs_code amg_dev_describe(amg_dev_mat *m);
/* r = p^T, a new device CSR (rows sorted), described: cusparseCsr2cscEx2
 * on `stream` (handle's), its work buffer from the setup's pool; an empty
 * p gives r's row pointers zeroed. On failure r stays for amg_dev_free. */
cmrs_code amg_dev_transpose(cusparseHandle_t handle, cudaStream_t stream,
                            const amg_dev_mat *p, amg_dev_mat *r);
/* A non-empty host CSR uploaded (base/gpu/upload.h's staged path: the
 * bytes have landed when it returns, for work on any stream) and
 * described. */
cmrs_code amg_dev_upload(const cmrs_csr *M, amg_dev_mat *d);
/* C = X Y (X, Y with entries); c->nnz == 0 on return: empty, not copied.
 * By rows (amg_rowprod_gpu.h): one thread a row where X has at most 8
 * entries a row on average and C's rows at most 64 columns, else one warp
 * a row where C's rows hold at most 256; else, or with
 * CMRS_AMG_SPGEMM=cusparse, by cuSPARSE's SpGEMM.
 * Returns with the stream synchronised; the work buffers go back to the
 * setup's pool (amg_pool_gpu.h), which the caller trims. */
cmrs_code amg_dev_spgemm(cusparseHandle_t handle, cudaStream_t stream,
                         const amg_dev_mat *x, const amg_dev_mat *y,
                         amg_dev_mat *c, const char *what);
/* The same by cuSPARSE's SpGEMM whatever the rows (the warm-up that loads
 * its kernels, backend_gpu_libs.c). */
cmrs_code amg_dev_spgemm_cusparse(cusparseHandle_t handle, cudaStream_t stream,
                                  const amg_dev_mat *x, const amg_dev_mat *y,
                                  amg_dev_mat *c, const char *what);
/* The same with C's arrays as scratch of the setup's pool. */
cmrs_code amg_dev_spgemm_scratch(cusparseHandle_t handle, cudaStream_t stream,
                                 const amg_dev_mat *x, const amg_dev_mat *y,
                                 amg_dev_mat *c, const char *what);
/* The paths this thread's amg_dev_spgemm calls took since the previous
 * query (a mask; 0: none ran; each query clears it): tests. ROWS: one
 * thread a row; WARP: one warp a row. */
enum {
    AMG_SPGEMM_ROWS = 1,
    AMG_SPGEMM_CUSPARSE = 2,
    AMG_SPGEMM_WARP = 4,
    AMG_SPGEMM_RETRIED = 8 /* cuSPARSE again by ALG3 or ALG1 */
};
int amg_dev_spgemm_paths(void);
/* A new host CSR of d (stream synchronised). */
cmrs_code amg_dev_download(cudaStream_t stream, const amg_dev_mat *d,
                           cmrs_csr *C);
/* Sorts any row whose columns do not increase (cuSPARSE does not promise
 * sorted SpGEMM output). */
cmrs_code amg_dev_ensure_sorted(cmrs_csr *C);

#ifdef __cplusplus
}
#endif

#endif
