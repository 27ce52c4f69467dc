/* cuSPARSE CSR SpMV through the generic API, the vendor baseline.
 *
 * Setup does everything once: upload, descriptors, the workspace sized by
 * cusparseSpMV_bufferSize and cusparseSpMV_preprocess. Apply only points the
 * dense-vector descriptors at x and y (cusparseDnVecSetValues, no
 * allocation) and calls cusparseSpMV on the handle bound to self->stream.
 * New values (cmrs_spmv_update_values) are copied into the buffer the descriptor
 * already points at, then preprocessed again.
 * An empty matrix (nnz == 0) never reaches cuSPARSE: y = beta*y instead. */
#include <stdlib.h>
#include <string.h>

#include "cusparse_op.h"
#include "spmv/device.h"
#include "base/gpu/dev_alloc.h"

typedef struct cusparse_impl {
    cmrs_csr_dev csr;
    int64_t *indices64_d; /* 64-bit column indices, only with 64-bit offsets */
    cmrs_cusparse_op op;  /* handle, descriptors, workspace (cusparse_op.h) */
} cusparse_impl;

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
    cmrs_dev_free(p->csr.indices_d); /* not needed by cuSPARSE any more */
    p->csr.indices_d = NULL;
    *bytes -= (size_t)A->nnz * sizeof(int32_t);
done:
    free(tmp);
    return rc;
}

/* The CSR descriptor (row offsets and columns of one index type). */
static cmrs_code create_matrix(cmrs_spmv *self, cusparse_impl *p)
{
    cusparseIndexType_t it =
        p->csr.offsets64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    void *cols = p->csr.offsets64 ? (void *)p->indices64_d
                                  : (void *)p->csr.indices_d;
    CMRS_CUSPARSE(cusparseCreateCsr(&p->op.mat, self->rows, self->cols,
                                    self->nnz, p->csr.indptr_d, cols,
                                    p->csr.values_d, it, it,
                                    CUSPARSE_INDEX_BASE_ZERO, p->op.vtype));
    return CMRS_OK;
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
    self->strips = A->rows;
    self->stored_entries = A->nnz;
    if (A->nnz == 0) return CMRS_OK; /* apply scales y; nothing to upload */
    size_t extra = 0;
    CMRS_CHECK(cmrs_csr_dev_upload(A, self->prec, &p->csr));
    if (self->prec == CMRS_PREC_DOUBLE) /* the values as uploaded: A's */
        CMRS_CHECK(cmrs_spmv_diag_tap(self, p->csr.indptr_d,
                                      p->csr.offsets64, p->csr.indices_d,
                                      p->csr.values_d));
    if (p->csr.offsets64) CMRS_CHECK(widen_indices(A, p, &extra));
    CMRS_CHECK(cmrs_cusparse_op_init(&p->op, self,
                                     alg == 2 ? CUSPARSE_SPMV_CSR_ALG2
                                              : CUSPARSE_SPMV_CSR_ALG1));
    CMRS_CHECK(create_matrix(self, p));
    CMRS_CHECK(cmrs_cusparse_op_prepare(&p->op, self));
    self->device_bytes = p->csr.bytes + extra + p->op.buffer_bytes;
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
    CMRS_CHECK(cmrs_cusparse_op_apply(&p->op, alpha, x_d, beta, y_d));
    return CMRS_OK;
}

static cmrs_code cusparse_after(cmrs_spmv *self)
{
    CMRS_CHECK(cmrs_cusparse_op_preprocess_again(&((cusparse_impl *)
                                                   self->impl)->op, self));
    return CMRS_OK;
}

/* CSR order; the preprocessing is redone after new values, as the host
 * path does (it allocates scratch vectors and synchronises). */
static void cusparse_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    cusparse_impl *p = self->impl;
    st->values_d = p->csr.values_d;
    st->stored = self->nnz;
    st->after = self->nnz > 0 ? cusparse_after : NULL;
}

static void cusparse_destroy(cmrs_spmv *self)
{
    cusparse_impl *p = self->impl;
    if (!p) return;
    cmrs_cusparse_op_destroy(&p->op);
    cmrs_dev_free(p->indices64_d);
    cmrs_csr_dev_free(&p->csr);
    free(p);
    self->impl = NULL;
}

const cmrs_spmv_ops cmrs_spmv_cusparse = {
    .name = "cusparse",
    .summary = "cuSPARSE CSR SpMV, generic API (--cusparse-alg 1|2)",
    .setup = cusparse_setup,
    .apply = cusparse_apply,
    .destroy = cusparse_destroy,
    .value_store = cusparse_value_store,
};
