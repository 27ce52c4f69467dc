/* 'sell': cuSPARSE's sliced ELL through the generic API, a library
 * baseline for the padded, row-grouped layouts (docs/formats/sell.md).
 *
 * Setup builds the SELL arrays on the host (fmt_sell_host.c), uploads them,
 * creates the descriptor with cusparseCreateSlicedEll and sizes the
 * workspace for CUSPARSE_SPMV_SELL_ALG1, as spmv/cusparse_csr.c does for
 * CSR. Apply only re-points the dense-vector descriptors and calls
 * cusparseSpMV. An empty matrix never reaches cuSPARSE: y = beta*y. */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "device.h"
#include "fmt_sell.h"

typedef struct sell_impl {
    int32_t *slice_offsets_d, *col_ind_d;
    void *values_d;
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *buffer_d;
    cudaDataType vtype;
} sell_impl;

/* alpha and beta in the compute type, as cuSPARSE reads them (host mode). */
typedef struct scalars {
    float f[2];
    double d[2];
} scalars;

static const void *scalar_ptr(const sell_impl *p, scalars *s, int i, double v)
{
    s->f[i] = (float)v;
    s->d[i] = v;
    return p->vtype == CUDA_R_32F ? (const void *)&s->f[i]
                                  : (const void *)&s->d[i];
}

static cmrs_code upload(cmrs_spmv *self, sell_impl *p, const cmrs_sell_host *h)
{
    size_t off_bytes = ((size_t)h->slices + 1) * sizeof(int32_t);
    size_t ind_bytes = (size_t)h->stored * sizeof(int32_t);
    CMRS_CHECK(cmrs_dev_upload(h->slice_offsets, off_bytes,
                               (void **)&p->slice_offsets_d));
    CMRS_CHECK(cmrs_dev_upload(h->col_ind, ind_bytes, (void **)&p->col_ind_d));
    CMRS_CHECK(cmrs_dev_upload_values(h->values, h->stored, self->prec,
                                      "sell values", &p->values_d));
    self->device_bytes = off_bytes + ind_bytes +
                         (size_t)h->stored * cmrs_prec_value_bytes(self->prec);
    return CMRS_OK;
}

static cmrs_code create_matrix(cmrs_spmv *self, sell_impl *p,
                               const cmrs_sell_host *h)
{
    CMRS_CUSPARSE(cusparseCreate(&p->handle));
    CMRS_CUSPARSE(cusparseSetStream(p->handle, self->stream));
    CMRS_CUSPARSE(cusparseCreateSlicedEll(
        &p->mat, self->rows, self->cols, self->nnz, h->stored, CMRS_SELL_SLICE,
        p->slice_offsets_d, p->col_ind_d, p->values_d, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, p->vtype));
    return CMRS_OK;
}

/* Workspace sizing and preprocessing on scratch vectors, freed afterwards
 * (apply re-points the descriptors). cuSPARSE documents preprocessing for
 * some algorithms only: NOT_SUPPORTED for SELL just means none is needed. */
static cmrs_code size_and_preprocess(cmrs_spmv *self, sell_impl *p,
                                     size_t *buffer_bytes)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    scalars s;
    const void *alpha = scalar_ptr(p, &s, 0, 1.0), *beta = scalar_ptr(p, &s, 1, 0.0);
    CMRS_TRY(cmrs_dev_alloc_values(self->cols, self->prec, &x_d));
    CMRS_TRY(cmrs_dev_alloc_values(self->rows, self->prec, &y_d));
    CMRS_CUSPARSE_TRY(cusparseCreateDnVec(&p->vec_x, self->cols, x_d, p->vtype));
    CMRS_CUSPARSE_TRY(cusparseCreateDnVec(&p->vec_y, self->rows, y_d, p->vtype));
    CMRS_CUSPARSE_TRY(cusparseSpMV_bufferSize(
        p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, p->mat, p->vec_x,
        beta, p->vec_y, p->vtype, CUSPARSE_SPMV_SELL_ALG1, buffer_bytes));
    if (*buffer_bytes > 0) CMRS_CUDA_TRY(cudaMalloc(&p->buffer_d, *buffer_bytes));
    cusparseStatus_t st = cusparseSpMV_preprocess(
        p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, p->mat, p->vec_x,
        beta, p->vec_y, p->vtype, CUSPARSE_SPMV_SELL_ALG1, p->buffer_d);
    if (st != CUSPARSE_STATUS_NOT_SUPPORTED) CMRS_CUSPARSE_TRY(st);
    CMRS_CUDA_TRY(cudaStreamSynchronize(self->stream));
done:
    cudaFree(x_d);
    cudaFree(y_d);
    return rc;
}

static cmrs_code sell_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    memset(&self->opts, 0, sizeof self->opts); /* no knob applies */
    sell_impl *p = calloc(1, sizeof *p);
    CMRS_ENSURE(p, CMRS_E_NOMEM, "sell: cannot allocate its state");
    self->impl = p;
    p->vtype = self->prec == CMRS_PREC_SINGLE ? CUDA_R_32F : CUDA_R_64F;
    self->strips = (A->rows + CMRS_SELL_SLICE - 1) / CMRS_SELL_SLICE;
    self->stored_entries = 0;
    if (A->nnz == 0) return CMRS_OK; /* apply scales y; nothing to upload */
    cmrs_sell_host h;
    CMRS_CHECK(cmrs_sell_build(A, &h));
    self->stored_entries = h.stored;
    size_t buffer_bytes = 0;
    cmrs_code rc = upload(self, p, &h);
    if (rc == CMRS_OK) rc = create_matrix(self, p, &h);
    cmrs_sell_host_free(&h);
    CMRS_CHECK(rc);
    CMRS_CHECK(size_and_preprocess(self, p, &buffer_bytes));
    self->device_bytes += buffer_bytes;
    return CMRS_OK;
}

static cmrs_code sell_apply(cmrs_spmv *self, double alpha, const void *x_d,
                            double beta, void *y_d)
{
    sell_impl *p = self->impl;
    if (self->nnz == 0)
        return cmrs_dev_scale(self->prec, self->rows, beta, y_d, self->stream);
    scalars s;
    const void *a = scalar_ptr(p, &s, 0, alpha), *b = scalar_ptr(p, &s, 1, beta);
    /* cuSPARSE only reads x; its setter is not const-qualified. */
    CMRS_CUSPARSE(cusparseDnVecSetValues(p->vec_x, (void *)x_d));
    CMRS_CUSPARSE(cusparseDnVecSetValues(p->vec_y, y_d));
    CMRS_CUSPARSE(cusparseSpMV(p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a,
                               p->mat, p->vec_x, b, p->vec_y, p->vtype,
                               CUSPARSE_SPMV_SELL_ALG1, p->buffer_d));
    return CMRS_OK;
}

static void sell_destroy(cmrs_spmv *self)
{
    sell_impl *p = self->impl;
    if (!p) return;
    if (p->vec_x) cusparseDestroyDnVec(p->vec_x);
    if (p->vec_y) cusparseDestroyDnVec(p->vec_y);
    if (p->mat) cusparseDestroySpMat(p->mat);
    if (p->handle) cusparseDestroy(p->handle);
    cudaFree(p->buffer_d);
    cudaFree(p->slice_offsets_d);
    cudaFree(p->col_ind_d);
    cudaFree(p->values_d);
    free(p);
    self->impl = NULL;
}

const cmrs_spmv_ops cmrs_spmv_sell = {
    "sell", "cuSPARSE sliced ELL (slices of 16 rows), generic API, SELL_ALG1",
    sell_setup, sell_apply, sell_destroy};
