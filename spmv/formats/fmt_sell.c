/* 'sell': cuSPARSE's sliced ELL through the generic API, a library
 * baseline for the padded, row-grouped layouts (docs/formats/sell.md).
 *
 * Setup builds the SELL arrays on the host (fmt_sell_host.c), uploads them,
 * creates the descriptor with cusparseCreateSlicedEll; the handle, the
 * workspace for CUSPARSE_SPMV_SELL_ALG1 and the call are cusparse_op.h's,
 * shared with the CSR baseline. An empty matrix never reaches cuSPARSE:
 * y = beta*y. The conversion runs on A's index pattern, so the values it
 * leaves are the permutation setup and value updates store the values
 * through, in place in the buffer the descriptor points at. */
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "cusparse_op.h"
#include "spmv/device.h"
#include "fmt_sell.h"

typedef struct sell_impl {
    int32_t *slice_offsets_d, *col_ind_d;
    void *values_d;
    int32_t *perm_d;      /* stored entry -> CSR entry (-1: padding) */
    cmrs_cusparse_op op;  /* handle, descriptors, workspace (cusparse_op.h) */
} sell_impl;

/* Uploads *h (a conversion of A's index pattern): offsets, columns and its
 * values as the permutation; then stores A's values through it. */
static cmrs_code upload(cmrs_spmv *self, sell_impl *p, const cmrs_sell_host *h,
                        const cmrs_csr *A)
{
    size_t off_bytes = ((size_t)h->slices + 1) * sizeof(int32_t);
    size_t ind_bytes = (size_t)h->stored * sizeof(int32_t);
    CMRS_CHECK(cmrs_dev_upload(h->slice_offsets, off_bytes,
                               (void **)&p->slice_offsets_d));
    CMRS_CHECK(cmrs_dev_upload(h->col_ind, ind_bytes, (void **)&p->col_ind_d));
    CMRS_CHECK(cmrs_dev_perm_upload(h->values, h->stored, &p->perm_d));
    CMRS_CHECK(cmrs_dev_alloc_values(h->stored, self->prec, &p->values_d));
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, p->perm_d, h->stored,
                                     self->prec, p->values_d,
                                     "sell: matrix values"));
    /* The permutation costs as much as the column indices. */
    self->device_bytes = off_bytes + 2 * ind_bytes +
                         (size_t)h->stored * cmrs_prec_value_bytes(self->prec);
    return CMRS_OK;
}

static cmrs_code create_matrix(cmrs_spmv *self, sell_impl *p,
                               const cmrs_sell_host *h)
{
    CMRS_CHECK(cmrs_cusparse_op_init(&p->op, self, CUSPARSE_SPMV_SELL_ALG1));
    CMRS_CUSPARSE(cusparseCreateSlicedEll(
        &p->op.mat, self->rows, self->cols, self->nnz, h->stored, CMRS_SELL_SLICE,
        p->slice_offsets_d, p->col_ind_d, p->values_d, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, p->op.vtype));
    return CMRS_OK;
}

static cmrs_code sell_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    memset(&self->opts, 0, sizeof self->opts); /* no knob applies */
    sell_impl *p = calloc(1, sizeof *p);
    CMRS_ENSURE(p, CMRS_E_NOMEM, "sell: cannot allocate its state");
    self->impl = p;
    self->strips = (A->rows + CMRS_SELL_SLICE - 1) / CMRS_SELL_SLICE;
    self->stored_entries = 0;
    if (A->nnz == 0) return CMRS_OK; /* apply scales y; nothing to upload */
    cmrs_sell_host h;
    cmrs_csr idx;
    /* The conversion runs once, on the index pattern (same layout as A). */
    CMRS_CHECK(cmrs_csr_index_pattern(A, &idx));
    cmrs_code rc = cmrs_sell_build(&idx, &h);
    free(idx.values);
    CMRS_CHECK(rc);
    self->stored_entries = h.stored;
    rc = upload(self, p, &h, A);
    if (rc == CMRS_OK) rc = create_matrix(self, p, &h);
    cmrs_sell_host_free(&h);
    CMRS_CHECK(rc);
    CMRS_CHECK(cmrs_cusparse_op_prepare(&p->op, self));
    self->device_bytes += p->op.buffer_bytes;
    return CMRS_OK;
}

static cmrs_code sell_apply(cmrs_spmv *self, double alpha, const void *x_d,
                            double beta, void *y_d)
{
    sell_impl *p = self->impl;
    if (self->nnz == 0)
        return cmrs_dev_scale(self->prec, self->rows, beta, y_d, self->stream);
    return cmrs_cusparse_op_apply(&p->op, alpha, x_d, beta, y_d);
}

/* nnz 0 stores nothing: stored 0 makes the update a no-op. */
static void sell_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    sell_impl *p = self->impl;
    st->values_d = p->values_d;
    st->perm_d = p->perm_d;
    st->stored = self->nnz > 0 ? self->stored_entries : 0;
}

static void sell_destroy(cmrs_spmv *self)
{
    sell_impl *p = self->impl;
    if (!p) return;
    cmrs_cusparse_op_destroy(&p->op);
    CMRS_GPU_FREE_ALL(p->slice_offsets_d, p->col_ind_d, p->values_d,
                      p->perm_d);
    free(p);
    self->impl = NULL;
}

const cmrs_spmv_ops cmrs_spmv_sell = {
    .name = "sell",
    .summary = "cuSPARSE sliced ELL (slices of 16 rows), generic API, SELL_ALG1",
    .setup = sell_setup,
    .apply = sell_apply,
    .destroy = sell_destroy,
    .value_store = sell_value_store,
};
