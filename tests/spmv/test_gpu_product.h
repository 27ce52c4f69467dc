/* One product of a set-up SpMV format with host vectors in and out, for
 * the GPU tests that compare two instances' products bit for bit
 * (test_gpu_update.c, test_gpu_spmv_dev.c), and which formats can be. */
#ifndef CMRS_TEST_GPU_PRODUCT_H
#define CMRS_TEST_GPU_PRODUCT_H

#include <string.h>

#include "base/gpu/cuda_check.h"
#include "spmv/device.h"
#include "spmv/spmv.h"

/* Bitwise reproducible run to run? hyb adds its COO part with atomics
 * (fmt_hyb.cu); cuSPARSE promises bitwise identical SpMV results only for
 * CSR_ALG2 (and COO_ALG2), so neither its default CSR_ALG1 nor SELL_ALG1.
 * Those are compared within the reference bound instead. */
static inline int test_spmv_reproducible(const cmrs_spmv *s)
{
    const char *name = s->ops->name;
    if (!strcmp(name, "hyb") || !strcmp(name, "sell")) return 0;
    if (!strcmp(name, "cusparse")) return s->opts.cusparse_alg == 2;
    return 1;
}

/* y_h = alpha*A*x + beta*y0 with s; y0_h == NULL: beta must be 0 and y is
 * poisoned with NaN first (all bits set). The inputs are on the device
 * before the apply (s->stream may be non-blocking). */
static inline cmrs_code test_spmv_product(cmrs_spmv *s, double alpha,
                                          const double *x_h, double beta,
                                          const double *y0_h, double *y_h)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    int64_t ny = s->rows > 0 ? s->rows : 1;
    CMRS_TRY(cmrs_dev_upload_values(x_h, s->cols, s->prec, "x", &x_d));
    if (y0_h) {
        CMRS_TRY(cmrs_dev_upload_values(y0_h, s->rows, s->prec, "y0", &y_d));
    } else {
        CMRS_TRY(cmrs_dev_alloc_values(ny, s->prec, &y_d));
        CMRS_CUDA_TRY(cudaMemset(y_d, 0xff, (size_t)ny *
                                 cmrs_prec_value_bytes(s->prec)));
    }
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    CMRS_TRY(cmrs_spmv_apply(s, alpha, x_d, beta, y_d));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    CMRS_TRY(cmrs_dev_download_values(y_d, s->rows, s->prec, y_h));
done:
    cudaFree(x_d);
    cudaFree(y_d);
    return rc;
}

#endif
