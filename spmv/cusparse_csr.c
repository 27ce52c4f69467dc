/* cuSPARSE CSR SpMV through the generic API, the vendor baseline.
 *
 * Setup does everything once: upload, descriptors, the workspace sized by
 * cusparseSpMV_bufferSize and cusparseSpMV_preprocess. Apply only points the
 * dense-vector descriptors at x and y (cusparseDnVecSetValues, no
 * allocation) and calls cusparseSpMV on the handle bound to self->stream.
 * An empty matrix (nnz == 0) never reaches cuSPARSE: y = beta*y instead. */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "device.h"

typedef struct cusparse_impl {
    cmrs_csr_dev csr;
    int64_t *indices64_d; /* 64-bit column indices, only with 64-bit offsets */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *buffer_d;
    cudaDataType vtype;
    cusparseSpMVAlg_t alg;
} cusparse_impl;

/* alpha and beta in the compute type, as cuSPARSE reads them (host mode). */
typedef struct scalars {
    float f[2];
    double d[2];
} scalars;

static const void *scalar_ptr(const cusparse_impl *p, scalars *s, int i,
                              double v)
{
    s->f[i] = (float)v;
    s->d[i] = v;
    return p->vtype == CUDA_R_32F ? (const void *)&s->f[i]
                                  : (const void *)&s->d[i];
}

/* cuSPARSE wants row offsets and column indices of one index type: with
 * 64-bit offsets (nnz > INT32_MAX) the columns are widened too. */
static cmrs_code widen_indices(const cmrs_csr *A, cusparse_impl *p,
                               size_t *bytes)
{
    cmrs_code rc = CMRS_OK;
    int64_t *tmp = cmrs_malloc_array((size_t)A->nnz, sizeof(int64_t));
    CMRS_ENSURE(tmp, CMRS_E_NOMEM, "cusparse: cannot allocate %lld indices",
                (long long)A->nnz);
    for (int64_t k = 0; k < A->nnz; ++k) tmp[k] = A->indices[k];
    *bytes = (size_t)A->nnz * sizeof(int64_t);
    CMRS_TRY(cmrs_dev_upload(tmp, *bytes, (void **)&p->indices64_d));
    cudaFree(p->csr.indices_d); /* not needed by cuSPARSE any more */
    p->csr.indices_d = NULL;
    *bytes -= (size_t)A->nnz * sizeof(int32_t);
done:
    free(tmp);
    return rc;
}

static cmrs_code create_descriptors(cmrs_spmv *self, cusparse_impl *p)
{
    cusparseIndexType_t it =
        p->csr.offsets64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    void *cols = p->csr.offsets64 ? (void *)p->indices64_d
                                  : (void *)p->csr.indices_d;
    CMRS_CUSPARSE(cusparseCreate(&p->handle));
    CMRS_CUSPARSE(cusparseSetStream(p->handle, self->stream));
    CMRS_CUSPARSE(cusparseCreateCsr(&p->mat, self->rows, self->cols, self->nnz,
                                    p->csr.indptr_d, cols, p->csr.values_d, it,
                                    it, CUSPARSE_INDEX_BASE_ZERO, p->vtype));
    return CMRS_OK;
}

/* Buffer sizing and preprocessing need real vectors: scratch ones, freed
 * afterwards (the preprocessed data depends on the matrix only, and apply
 * re-points the descriptors at every call). */
static cmrs_code size_and_preprocess(cmrs_spmv *self, cusparse_impl *p,
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
        beta, p->vec_y, p->vtype, p->alg, buffer_bytes));
    if (*buffer_bytes > 0) CMRS_CUDA_TRY(cudaMalloc(&p->buffer_d, *buffer_bytes));
    CMRS_CUSPARSE_TRY(cusparseSpMV_preprocess(
        p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, p->mat, p->vec_x,
        beta, p->vec_y, p->vtype, p->alg, p->buffer_d));
    CMRS_CUDA_TRY(cudaStreamSynchronize(self->stream));
done:
    cudaFree(x_d);
    cudaFree(y_d);
    return rc;
}

static cmrs_code cusparse_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    int alg = self->opts.cusparse_alg ? self->opts.cusparse_alg : 1;
    CMRS_ENSURE(alg == 1 || alg == 2, CMRS_E_USAGE,
                "cusparse: algorithm %d is not 1 (CSR_ALG1) or 2 (CSR_ALG2)",
                alg);
    /* Only the algorithm applies: reports then show no foreign knobs. */
    memset(&self->opts, 0, sizeof self->opts);
    self->opts.cusparse_alg = alg;
    cusparse_impl *p = calloc(1, sizeof *p);
    CMRS_ENSURE(p, CMRS_E_NOMEM, "cusparse: cannot allocate its state");
    self->impl = p;
    p->vtype = self->prec == CMRS_PREC_SINGLE ? CUDA_R_32F : CUDA_R_64F;
    p->alg = alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
    self->strips = A->rows;
    self->stored_entries = A->nnz;
    if (A->nnz == 0) return CMRS_OK; /* apply scales y; nothing to upload */
    size_t extra = 0, buffer_bytes = 0;
    CMRS_CHECK(cmrs_csr_dev_upload(A, self->prec, &p->csr));
    if (p->csr.offsets64) CMRS_CHECK(widen_indices(A, p, &extra));
    CMRS_CHECK(create_descriptors(self, p));
    CMRS_CHECK(size_and_preprocess(self, p, &buffer_bytes));
    self->device_bytes = p->csr.bytes + extra + buffer_bytes;
    return CMRS_OK;
}

static cmrs_code cusparse_apply(cmrs_spmv *self, double alpha, const void *x_d,
                                double beta, void *y_d)
{
    cusparse_impl *p = self->impl;
    if (self->nnz == 0) {
        CMRS_CHECK(cmrs_dev_scale(self->prec, self->rows, beta, y_d,
                                  self->stream));
        return CMRS_OK;
    }
    scalars s;
    const void *a = scalar_ptr(p, &s, 0, alpha), *b = scalar_ptr(p, &s, 1, beta);
    /* cuSPARSE only reads x; its setter is not const-qualified. */
    CMRS_CUSPARSE(cusparseDnVecSetValues(p->vec_x, (void *)x_d));
    CMRS_CUSPARSE(cusparseDnVecSetValues(p->vec_y, y_d));
    CMRS_CUSPARSE(cusparseSpMV(p->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a,
                               p->mat, p->vec_x, b, p->vec_y, p->vtype, p->alg,
                               p->buffer_d));
    return CMRS_OK;
}

static void cusparse_destroy(cmrs_spmv *self)
{
    cusparse_impl *p = self->impl;
    if (!p) return;
    if (p->vec_x) cusparseDestroyDnVec(p->vec_x);
    if (p->vec_y) cusparseDestroyDnVec(p->vec_y);
    if (p->mat) cusparseDestroySpMat(p->mat);
    if (p->handle) cusparseDestroy(p->handle);
    cudaFree(p->buffer_d);
    cudaFree(p->indices64_d);
    cmrs_csr_dev_free(&p->csr);
    free(p);
    self->impl = NULL;
}

const cmrs_spmv_ops cmrs_spmv_cusparse = {
    "cusparse", "cuSPARSE CSR SpMV, generic API (--cusparse-alg 1|2)",
    cusparse_setup, cusparse_apply, cusparse_destroy};
