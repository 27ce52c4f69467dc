/* The distributed back end's kernels on GPU parts (gpu_kernels.cu), on a
 * part's stream, elements of `elem` bytes (8: double, 4: float). */
#ifndef CMRS_DIST_GPU_KERNELS_H
#define CMRS_DIST_GPU_KERNELS_H

#include <stdint.h>

#include "../spmv/cuda_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The NCCL exchange's gather: buf[k] = x[idx[k]] for k < n. */
cmrs_code cmrs_dist_pack(const void *x_d, const int32_t *idx_d, void *buf_d,
                         int64_t n, size_t elem, cudaStream_t stream);

/* Blocks of the dot's first pass: its scratch holds this many doubles. */
#define CMRS_DIST_DOT_BLOCKS 264
/* x'y over n entries, summed in double in a fixed order (the same bits
 * every run), queued: the result lands in *out_h (pinned) when the stream
 * gets there. So every part's dot runs at once; the caller synchronises
 * the streams, then reads. scratch_d: CMRS_DIST_DOT_BLOCKS + 1 doubles. */
cmrs_code cmrs_dist_dot_start(const void *x_d, const void *y_d, int64_t n,
                              size_t elem, double *scratch_d, double *out_h,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
