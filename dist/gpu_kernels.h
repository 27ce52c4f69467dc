/* The distributed back end's kernel on GPU parts (gpu_kernels.cu), on a
 * part's stream, arrays of the precision `prec`. */
#ifndef CMRS_DIST_GPU_KERNELS_H
#define CMRS_DIST_GPU_KERNELS_H

#include <stdint.h>

#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of the dot's first pass: its scratch holds this many doubles. */
#define CMRS_DIST_DOT_BLOCKS 264
/* x'y over n entries, summed in double in a fixed order (the same bits
 * every run), queued: the result lands in *out_h (pinned) when the stream
 * gets there. So every part's dot runs at once; the caller synchronises
 * the streams, then reads. scratch_d: CMRS_DIST_DOT_BLOCKS + 1 doubles. */
cmrs_code cmrs_dist_dot_start(const void *x_d, const void *y_d, int64_t n,
                              cmrs_prec prec, double *scratch_d, double *out_h,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
