/* The NCCL exchange's gather (exchange_pack.cu): buf[k] = x[idx[k]] for
 * k < n, elements of `elem` bytes (8: double, 4: float), on `stream`. */
#ifndef CMRS_DIST_EXCHANGE_PACK_H
#define CMRS_DIST_EXCHANGE_PACK_H

#include <stdint.h>

#include "../spmv/cuda_check.h"

#ifdef __cplusplus
extern "C" {
#endif

cmrs_code cmrs_dist_pack(const void *x_d, const int32_t *idx_d, void *buf_d,
                         int64_t n, size_t elem, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
