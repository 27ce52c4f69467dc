/* C = X Y row by row on the device for the AMG setup's products
 * (amg_rowprod_gpu.cu; a warp a row: amg_rowprod_warp.cuh): sorted rows,
 * the structural pattern, the same bits every run; cuSPARSE's SpGEMM
 * (amg_spgemm_gpu.c) where C's rows are too wide. */
#ifndef CMRS_SOLVER_AMG_ROWPROD_GPU_H
#define CMRS_SOLVER_AMG_ROWPROD_GPU_H

#include <cuda_runtime_api.h>

#include "amg_spgemm_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X (rows > 0) and Y with entries and chained shapes; c zeroed but for
 * its pooled and pool_stream (its arrays come from amg_dev_mat_alloc);
 * warp 0: a thread a row of X (rows of C up to 64 columns), 1: a warp a
 * row (up to 128), the same sums in the same order either way.
 * *done = 1: c = X Y with nnz > 0, rows sorted, queued on `stream`.
 * *done = 0: a row of C has more columns than the path takes, C would
 * pass 2^31 - 1 entries, or C is empty; c may hold row pointers for the
 * caller to free. */
cmrs_code amg_dev_rowprod(cudaStream_t stream, const amg_dev_mat *x,
                          const amg_dev_mat *y, amg_dev_mat *c, int warp,
                          int *done);

#ifdef __cplusplus
}
#endif

#endif
