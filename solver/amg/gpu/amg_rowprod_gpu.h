/* C = X Y row by row on the device for the AMG setup's products
 * (amg_rowprod_gpu.cu): sorted rows, the structural
 * pattern, the same bits every run; cuSPARSE's SpGEMM (amg_spgemm_gpu.c)
 * elsewhere. */
#ifndef CMRS_SOLVER_AMG_ROWPROD_GPU_H
#define CMRS_SOLVER_AMG_ROWPROD_GPU_H

#include <cuda_runtime_api.h>

#include "amg_spgemm_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One thread a row of X (C's rows up to 64 columns: short rows of X) or
 * one warp a row (up to 256: amg_rowprod_warp.cuh). */
typedef enum { AMG_ROWPROD_THREAD = 0, AMG_ROWPROD_WARP = 1 } amg_rowprod_mode;

/* X (rows > 0) and Y with entries and chained shapes; c zeroed but for
 * its pooled and pool_stream (its arrays come from amg_dev_mat_alloc).
 * *done = 1: c = X Y with nnz > 0, rows sorted, queued on `stream`; both
 * modes give the same bits. *done = 0: a row of C has more columns than
 * the mode holds, C would pass 2^31 - 1 entries, or C is empty; c is
 * left as it came. On an error c may hold arrays for the caller to
 * free. */
cmrs_code amg_dev_rowprod(cudaStream_t stream, amg_rowprod_mode mode,
                          const amg_dev_mat *x, const amg_dev_mat *y,
                          amg_dev_mat *c, int *done);

#ifdef __cplusplus
}
#endif

#endif
