/* An SpMV instance's life over its format's ops (spmv.h): creation from
 * host or device CSR, products, value updates and read-back, destruction.
 * GPU code: not in a build without CUDA, where no format can be set up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_view.h"
#include "base/gpu/cuda_check.h"
#include "device.h"
#include "spmv.h"

/* *out = a handle for format `name` with the counts, precision, options
 * and stream recorded, not yet set up. Unknown name: CMRS_E_USAGE. */
static cmrs_code new_handle(const char *name, int64_t rows, int64_t cols,
                            int64_t nnz, cmrs_prec prec,
                            const cmrs_spmv_opts *opts, cudaStream_t stream,
                            cmrs_spmv **out)
{
    const cmrs_spmv_ops *ops = cmrs_spmv_format_find(name);
    CMRS_ENSURE(ops, CMRS_E_USAGE, "unknown SpMV format '%s' (known: %s)", name,
                cmrs_spmv_format_names());
    if (opts && opts->values32 > 0) {
        CMRS_ENSURE(ops->values32, CMRS_E_USAGE, "%s cannot store its values "
                    "in float under double vectors (values32: cmrs only)",
                    name);
        CMRS_ENSURE(prec == CMRS_PREC_DOUBLE && rows == cols, CMRS_E_USAGE,
                    "%s: float values under double vectors need a square "
                    "matrix in double precision", name);
    }
    cmrs_spmv *s = calloc(1, sizeof *s);
    CMRS_ENSURE(s, CMRS_E_NOMEM, "cannot allocate an SpMV handle");
    s->ops = ops;
    s->prec = prec;
    s->stream = stream;
    if (opts) s->opts = *opts;
    s->rows = rows;
    s->cols = cols;
    s->nnz = nnz;
    *out = s;
    return CMRS_OK;
}

/* Ends a creation whose setup returned rc: *out = s once the GPU finished
 * it, else s destroyed and the error returned. */
static cmrs_code finish_setup(cmrs_spmv *s, cmrs_code rc, cmrs_spmv **out)
{
    /* Setup uploads on the legacy default stream; a caller's non-blocking
     * stream would not wait for it, so finish here (setup may block). */
    if (rc == CMRS_OK && cudaDeviceSynchronize() != cudaSuccess)
        rc = cmrs_error_set(CMRS_E_GPU, __FILE__, __LINE__, "%s: setup "
                            "failed on the GPU: %s", s->ops->name,
                            cudaGetErrorString(cudaGetLastError()));
    if (rc != CMRS_OK) {
        cmrs_spmv_destroy(s);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    *out = s;
    return CMRS_OK;
}

/* Both host creations; want_diag: cmrs_spmv_create_diag's. */
static cmrs_code create_host(const char *name, const cmrs_csr *A,
                             cmrs_prec prec, const cmrs_spmv_opts *opts,
                             cudaStream_t stream, int want_diag,
                             cmrs_spmv **out)
{
    cmrs_spmv *s = NULL;
    *out = NULL;
    CMRS_CHECK(new_handle(name, A->rows, A->cols, A->nnz, prec, opts, stream,
                          &s));
    s->want_diag = want_diag;
    CMRS_CHECK(finish_setup(s, s->ops->setup(s, A), out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_create(const char *name, const cmrs_csr *A, cmrs_prec prec,
                           const cmrs_spmv_opts *opts, cudaStream_t stream,
                           cmrs_spmv **out)
{
    CMRS_CHECK(create_host(name, A, prec, opts, stream, 0, out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_create_diag(const char *name, const cmrs_csr *A,
                                cmrs_prec prec, const cmrs_spmv_opts *opts,
                                cudaStream_t stream, cmrs_spmv **out)
{
    CMRS_CHECK(create_host(name, A, prec, opts, stream, 1, out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_create_dev(const char *name, const cmrs_csr_view_d *M,
                               cmrs_prec prec, const cmrs_spmv_opts *opts,
                               cudaStream_t stream, cmrs_spmv **out)
{
    cmrs_spmv *s = NULL;
    *out = NULL;
    CMRS_CHECK(cmrs_csr_view_check(M, name)); /* and waits for M */
    CMRS_CHECK(new_handle(name, M->rows, M->cols, M->nnz, prec, opts, stream,
                          &s));
    const cmrs_code rc = s->ops->setup_dev ? s->ops->setup_dev(s, M)
                                           : cmrs_spmv_setup_host_copy(s, M);
    CMRS_CHECK(finish_setup(s, rc, out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_apply(cmrs_spmv *s, double alpha, const void *x_d,
                          double beta, void *y_d)
{
    CMRS_CHECK(s->ops->apply(s, alpha, x_d, beta, y_d));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_apply_dot(cmrs_spmv *s, const void *x_d, void *y_d,
                              double *partials_d)
{
    CMRS_ENSURE(s->ops->apply_dot && s->dot_parts > 0, CMRS_E_USAGE,
                "%s: no product with an x'y epilogue for this matrix",
                s->ops->name);
    CMRS_CHECK(s->ops->apply_dot(s, x_d, y_d, partials_d));
    return CMRS_OK;
}

/* What a store of new values into the format needs: its value store
 * (*st), every product queued on s->stream finished (the stores write on
 * the legacy default stream, which does not wait for a non-blocking one),
 * and `what` naming the values in messages. */
static cmrs_code store_after_products(cmrs_spmv *s, cmrs_value_store *st,
                                      char *what, size_t cap)
{
    const char *name = s->ops->name;
    CMRS_ENSURE(s->ops->value_store, CMRS_E_USAGE, "%s cannot replace its "
                "values in place; set it up again with the new matrix", name);
    memset(st, 0, sizeof *st);
    s->ops->value_store(s, st);
    if (cudaStreamSynchronize(s->stream) != cudaSuccess)
        CMRS_FAIL(CMRS_E_GPU, "%s: a product before the value update failed "
                  "on the GPU: %s", name,
                  cudaGetErrorString(cudaGetLastError()));
    snprintf(what, cap, "%s: new matrix values", name);
    return CMRS_OK;
}

cmrs_code cmrs_spmv_update_values(cmrs_spmv *s, const cmrs_csr *A)
{
    const char *name = s->ops->name;
    CMRS_ENSURE(A->rows == s->rows && A->cols == s->cols && A->nnz == s->nnz,
                CMRS_E_USAGE, "%s: new values for a %lld x %lld matrix with "
                "%lld entries, but it was set up with %lld x %lld and %lld: "
                "the pattern must stay the same (create it again instead)",
                name, (long long)A->rows, (long long)A->cols,
                (long long)A->nnz, (long long)s->rows, (long long)s->cols,
                (long long)s->nnz);
    cmrs_value_store st;
    char what[64];
    CMRS_CHECK(store_after_products(s, &st, what, sizeof what));
    CMRS_CHECK(cmrs_dev_store_values(A->values, s->nnz, st.perm_d, st.stored,
                                     s->prec, st.values_d, what));
    if (st.after) CMRS_CHECK(st.after(s));
    if (cudaDeviceSynchronize() != cudaSuccess)
        CMRS_FAIL(CMRS_E_GPU, "%s: value update failed on the GPU: %s", name,
                  cudaGetErrorString(cudaGetLastError()));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_update_values_dd(cmrs_spmv *s, const double *values_d,
                                     int *in_place)
{
    cmrs_value_store st;
    char what[64];
    CMRS_CHECK(store_after_products(s, &st, what, sizeof what));
    CMRS_CHECK(cmrs_dev_store_values_d(values_d, st.perm_d, st.stored,
                                       s->prec, st.values_d, what));
    *in_place = st.after == NULL;
    if (st.after) CMRS_CHECK(st.after(s));
    return CMRS_OK;
}

/* 0 where s has no value store; else 1 and *st described. */
static int describe_store(const cmrs_spmv *s, cmrs_value_store *st)
{
    memset(st, 0, sizeof *st);
    if (!s->ops->value_store) return 0;
    s->ops->value_store((cmrs_spmv *)s, st); /* describes only */
    return 1;
}

int cmrs_spmv_values_in_place(const cmrs_spmv *s)
{
    cmrs_value_store st;
    return describe_store(s, &st) && st.after == NULL;
}

int cmrs_spmv_gather_store(const cmrs_spmv *s, cmrs_value_store *st)
{
    return describe_store(s, st) && st->after == NULL && st->values_d;
}

void cmrs_spmv_destroy(cmrs_spmv *s)
{
    if (!s) return;
    if (s->ops && s->ops->destroy) s->ops->destroy(s);
    cmrs_diag_d_free(&s->diag);
    free(s);
}

static cmrs_code value_store(cmrs_spmv *s, cmrs_value_store *st)
{
    CMRS_ENSURE(describe_store(s, st), CMRS_E_USAGE, "%s cannot take device "
                "values in place (no value store)", s->ops->name);
    return CMRS_OK;
}

cmrs_code cmrs_spmv_update_values_d(cmrs_spmv *s, const void *values_d,
                                    unsigned long long *bad_d, int *in_place)
{
    cmrs_value_store st;
    CMRS_CHECK(value_store(s, &st));
    /* Queued on s->stream after any product still running there: no
     * synchronisation needed, unlike the host path's legacy-stream copy. */
    CMRS_CHECK(cmrs_dev_gather_values(values_d, st.perm_d, st.stored, s->prec,
                                      st.values_d, bad_d, s->stream));
    *in_place = st.after == NULL;
    if (st.after) CMRS_CHECK(st.after(s));
    return CMRS_OK;
}

/* values_h[perm[i]] = stage[i] (widened), padding skipped. */
static void scatter_h(const cmrs_spmv *s, const void *stage,
                      const int32_t *perm, int64_t stored, double *values_h)
{
    for (int64_t i = 0; i < stored; ++i) {
        int64_t j = perm ? perm[i] : i;
        if (j < 0) continue;
        values_h[j] = cmrs_prec_value_at(s->prec, stage, i);
    }
}

cmrs_code cmrs_spmv_values_get(cmrs_spmv *s, double *values_h)
{
    cmrs_code rc = CMRS_OK;
    cmrs_value_store st;
    CMRS_CHECK(value_store(s, &st));
    if (st.stored <= 0) return CMRS_OK;
    size_t vb = cmrs_prec_value_bytes(s->prec);
    void *stage = cmrs_malloc_array((size_t)st.stored, vb);
    int32_t *perm = st.perm_d ? cmrs_malloc_array((size_t)st.stored,
                                                  sizeof *perm) : NULL;
    if (!stage || (st.perm_d && !perm))
        CMRS_TRY(cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                                "stage %lld values", (long long)st.stored));
    CMRS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    CMRS_CUDA_TRY(cudaMemcpy(stage, st.values_d, (size_t)st.stored * vb,
                             cudaMemcpyDeviceToHost));
    if (perm)
        CMRS_CUDA_TRY(cudaMemcpy(perm, st.perm_d,
                                 (size_t)st.stored * sizeof *perm,
                                 cudaMemcpyDeviceToHost));
    scatter_h(s, stage, perm, st.stored, values_h);
done:
    free(stage);
    free(perm);
    return rc;
}

cmrs_code cmrs_spmv_csr_get_d(cmrs_spmv *s, int32_t *indptr_d,
                              int32_t *indices_d, double *values_d)
{
    CMRS_ENSURE(s->ops->csr_get_d, CMRS_E_USAGE, "%s: the format cannot "
                "give its matrix back on the device", s->ops->name);
    CMRS_CHECK(s->ops->csr_get_d(s, indptr_d, indices_d, values_d));
    return CMRS_OK;
}
