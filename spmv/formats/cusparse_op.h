/* One cuSPARSE generic-API SpMV, whatever the matrix descriptor: what the
 * 'cusparse' (CSR) and 'sell' (sliced ELL) formats share. A format creates
 * op->mat itself; this file owns the handle on the format's stream, the
 * dense-vector descriptors, the workspace (sized and preprocessed once, in
 * setup) and the call. Apply only re-points the vector descriptors
 * (cusparseDnVecSetValues, no allocation). */
#ifndef CMRS_CUSPARSE_OP_H
#define CMRS_CUSPARSE_OP_H

#include <stddef.h>

#include "base/gpu/cuda_check.h"
#include "spmv/spmv.h"

typedef struct cmrs_cusparse_op {
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;  /* created by the format */
    cusparseDnVecDescr_t vec_x, vec_y;
    void *buffer_d;
    size_t buffer_bytes;
    cudaDataType vtype;
    cusparseSpMVAlg_t alg;
} cmrs_cusparse_op;

/* The handle bound to self->stream, the value type of self->prec. */
cmrs_code cmrs_cusparse_op_init(cmrs_cusparse_op *op, const cmrs_spmv *self,
                                cusparseSpMVAlg_t alg);
/* After op->mat exists: workspace sizing and preprocessing on scratch
 * vectors, freed afterwards. cuSPARSE documents preprocessing for some
 * algorithms only: NOT_SUPPORTED just means none is needed. */
cmrs_code cmrs_cusparse_op_prepare(cmrs_cusparse_op *op, const cmrs_spmv *self);
/* Preprocessing again after the matrix's values changed in place (the
 * descriptor keeps pointing at the same buffers): cuSPARSE does not
 * promise that the CSR analysis ignores the values, so an updated
 * instance is made what a fresh setup would be. Scratch vectors, freed. */
cmrs_code cmrs_cusparse_op_preprocess_again(cmrs_cusparse_op *op,
                                            const cmrs_spmv *self);
/* y = alpha A x + beta y on the handle's stream. */
cmrs_code cmrs_cusparse_op_apply(cmrs_cusparse_op *op, double alpha,
                                 const void *x_d, double beta, void *y_d);
void cmrs_cusparse_op_destroy(cmrs_cusparse_op *op); /* idempotent */

#endif
