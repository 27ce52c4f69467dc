/* The cuSPARSE generic SpMV shared by 'cusparse' and 'sell' (see the
 * header). */
#include <string.h>

#include "cusparse_op.h"
#include "spmv/device.h"
#include "base/gpu/dev_alloc.h"

/* alpha and beta in the compute type, as cuSPARSE reads them (host mode). */
typedef struct scalars {
    float f[2];
    double d[2];
} scalars;

static const void *scalar_ptr(const cmrs_cusparse_op *op, scalars *s, int i,
                              double v)
{
    s->f[i] = (float)v;
    s->d[i] = v;
    return op->vtype == CUDA_R_32F ? (const void *)&s->f[i]
                                   : (const void *)&s->d[i];
}

cmrs_code cmrs_cusparse_op_init(cmrs_cusparse_op *op, const cmrs_spmv *self,
                                cusparseSpMVAlg_t alg)
{
    op->vtype = self->prec == CMRS_PREC_SINGLE ? CUDA_R_32F : CUDA_R_64F;
    op->alg = alg;
    CMRS_CUSPARSE(cusparseCreate(&op->handle));
    CMRS_CUSPARSE(cusparseSetStream(op->handle, self->stream));
    return CMRS_OK;
}

/* cusparseSpMV_preprocess on the op's workspace, the vector descriptors
 * pointing at scratch vectors; NOT_SUPPORTED just means the algorithm
 * needs none. Synchronises. */
static cmrs_code preprocess(cmrs_cusparse_op *op, const cmrs_spmv *self)
{
    scalars s;
    const void *alpha = scalar_ptr(op, &s, 0, 1.0);
    const void *beta = scalar_ptr(op, &s, 1, 0.0);
    cusparseStatus_t st = cusparseSpMV_preprocess(
        op->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, op->mat,
        op->vec_x, beta, op->vec_y, op->vtype, op->alg, op->buffer_d);
    if (st != CUSPARSE_STATUS_NOT_SUPPORTED) CMRS_CUSPARSE(st);
    CMRS_CUDA(cudaStreamSynchronize(self->stream));
    return CMRS_OK;
}

cmrs_code cmrs_cusparse_op_prepare(cmrs_cusparse_op *op, const cmrs_spmv *self)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    scalars s;
    const void *alpha = scalar_ptr(op, &s, 0, 1.0);
    const void *beta = scalar_ptr(op, &s, 1, 0.0);
    CMRS_TRY(cmrs_dev_alloc_values(self->cols, self->prec, &x_d));
    CMRS_TRY(cmrs_dev_alloc_values(self->rows, self->prec, &y_d));
    CMRS_CUSPARSE_TRY(cusparseCreateDnVec(&op->vec_x, self->cols, x_d,
                                          op->vtype));
    CMRS_CUSPARSE_TRY(cusparseCreateDnVec(&op->vec_y, self->rows, y_d,
                                          op->vtype));
    CMRS_CUSPARSE_TRY(cusparseSpMV_bufferSize(
        op->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, op->mat,
        op->vec_x, beta, op->vec_y, op->vtype, op->alg, &op->buffer_bytes));
    if (op->buffer_bytes > 0)
        CMRS_CUDA_TRY(cmrs_dev_malloc(&op->buffer_d, op->buffer_bytes));
    CMRS_TRY(preprocess(op, self));
done:
    cmrs_dev_free(x_d);
    cmrs_dev_free(y_d);
    return rc;
}

cmrs_code cmrs_cusparse_op_preprocess_again(cmrs_cusparse_op *op,
                                            const cmrs_spmv *self)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    CMRS_TRY(cmrs_dev_alloc_values(self->cols, self->prec, &x_d));
    CMRS_TRY(cmrs_dev_alloc_values(self->rows, self->prec, &y_d));
    CMRS_CUSPARSE_TRY(cusparseDnVecSetValues(op->vec_x, x_d));
    CMRS_CUSPARSE_TRY(cusparseDnVecSetValues(op->vec_y, y_d));
    CMRS_TRY(preprocess(op, self));
done:
    cmrs_dev_free(x_d);
    cmrs_dev_free(y_d);
    return rc;
}

cmrs_code cmrs_cusparse_op_apply(cmrs_cusparse_op *op, double alpha,
                                 const void *x_d, double beta, void *y_d)
{
    scalars s;
    const void *a = scalar_ptr(op, &s, 0, alpha);
    const void *b = scalar_ptr(op, &s, 1, beta);
    /* cuSPARSE only reads x; its setter is not const-qualified. */
    CMRS_CUSPARSE(cusparseDnVecSetValues(op->vec_x, (void *)x_d));
    CMRS_CUSPARSE(cusparseDnVecSetValues(op->vec_y, y_d));
    CMRS_CUSPARSE(cusparseSpMV(op->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a,
                               op->mat, op->vec_x, b, op->vec_y, op->vtype,
                               op->alg, op->buffer_d));
    return CMRS_OK;
}

void cmrs_cusparse_op_destroy(cmrs_cusparse_op *op)
{
    if (op->vec_x) cusparseDestroyDnVec(op->vec_x);
    if (op->vec_y) cusparseDestroyDnVec(op->vec_y);
    if (op->mat) cusparseDestroySpMat(op->mat);
    if (op->handle) cusparseDestroy(op->handle);
    cmrs_dev_free(op->buffer_d);
    memset(op, 0, sizeof *op);
}
