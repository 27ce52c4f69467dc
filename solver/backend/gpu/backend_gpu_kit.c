/* The GPU back end's preconditioner kit (backend.h): arrays of any length,
 * level operators in registry SpMV formats, the dxpby kernel, Galerkin
 * products through cuSPARSE SpGEMM. Setup-side ops synchronise; apply-side
 * ops only queue work on the back end's stream. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/profile.h"
#include "base/gpu/upload.h"
#include "solver/amg/amg_prof.h"
#include "solver/amg/gpu/amg_dense_gpu.h"
#include "solver/amg/gpu/amg_spgemm_dev.h"
#include "solver/amg/gpu/amg_spgemm_gpu.h"
#include "backend_gpu.h"
#include "gpu_kernels.h"
#include "base/gpu/dev_alloc.h"

struct cmrs_op {
    cmrs_spmv *spmv;
    char format[32];
};

cmrs_code cmrs_gpu_kit_arr_create(cmrs_backend *be, int64_t n, void **a)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * VBYTES(be);
    *a = NULL;
    CMRS_CUDA(cmrs_dev_malloc(a, bytes));
    CMRS_CUDA(cudaMemsetAsync(*a, 0, bytes, GPU(be)->stream));
    CMRS_CUDA(cudaStreamSynchronize(GPU(be)->stream));
    return CMRS_OK;
}

void cmrs_gpu_kit_arr_destroy(cmrs_backend *be, void *a)
{
    (void)be;
    cmrs_dev_free(a);
}

/* out = in rounded to float; a value beyond float's range is bad input. */
cmrs_code cmrs_gpu_kit_float_error(int64_t i, double v)
{
    CMRS_FAIL(CMRS_E_INPUT, "entry %lld (%g) does not fit in single "
              "precision (use --precision double)", (long long)i, v);
}

static cmrs_code to_float(int64_t n, const double *in, float *out)
{
    for (int64_t i = 0; i < n; ++i) {
        out[i] = (float)in[i];
        if (!isfinite(out[i])) CMRS_CHECK(cmrs_gpu_kit_float_error(i, in[i]));
    }
    return CMRS_OK;
}

/* In single precision the kit's host copies go through the float staging
 * buffer made at creation, of max(rows, cols) of A values: enough for
 * every array of a back end's own hierarchy (vectors, coarser levels, a
 * distributed part's x with its ghosts). Double copies need no staging:
 * any length (the whole A's hierarchy on a distributed part's device,
 * dist/pc/pc_global.c). */
static cmrs_code check_len(const cmrs_backend *be, int64_t n)
{
    CMRS_ENSURE(n >= 0 && (!IS_SINGLE(be) || n <= GPU(be)->max_len),
                CMRS_E_INTERNAL, "array of %lld values on a single-precision "
                "back end of %lld rows and %lld columns", (long long)n,
                (long long)be->n, (long long)GPU(be)->max_len);
    return CMRS_OK;
}

/* h (doubles) -> a, through the float staging buffer in single; h NULL
 * sets zeros. */
cmrs_code cmrs_gpu_kit_arr_set(cmrs_backend *be, int64_t n, void *a,
                               const double *h)
{
    gpu_impl *g = GPU(be);
    size_t bytes = (size_t)n * VBYTES(be);
    const void *src = h;
    CMRS_CHECK(check_len(be, n));
    if (!h) {
        CMRS_CUDA(cudaMemsetAsync(a, 0, bytes, g->stream));
    } else {
        if (IS_SINGLE(be)) {
            cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
            cmrs_code rc = to_float(n, h, g->stage_h);
            cmrs_phase_pop();
            CMRS_CHECK(rc);
            src = g->stage_h;
        }
        /* The upload (base/gpu/upload.h) runs on its own stream, which does
         * not wait for this non-blocking one: a's earlier users first. */
        CMRS_CUDA(cudaStreamSynchronize(g->stream));
        CMRS_CHECK(cmrs_h2d(a, src, (int64_t)bytes, CMRS_H2D_BYTES, "array"));
    }
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_arr_start(cmrs_backend *be, int64_t n, void *a)
{
    CMRS_CHECK(check_len(be, n));
    CMRS_CHECK(cmrs_gpu_start_vector(be->prec, n, a, GPU(be)->stream));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_arr_get(cmrs_backend *be, int64_t n, const void *a,
                               double *h)
{
    gpu_impl *g = GPU(be);
    void *dst = IS_SINGLE(be) ? (void *)g->stage_h : (void *)h;
    CMRS_CHECK(check_len(be, n));
    CMRS_CUDA(cudaMemcpyAsync(dst, a, (size_t)n * VBYTES(be),
                              cudaMemcpyDeviceToHost, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    if (IS_SINGLE(be))
        for (int64_t i = 0; i < n; ++i) h[i] = g->stage_h[i];
    return CMRS_OK;
}

/* cuBLAS in host pointer mode: the kit's dot runs at setup only, never
 * inside an engine's device loop. */
cmrs_code cmrs_gpu_kit_arr_dot(cmrs_backend *be, int64_t n, const void *x,
                         const void *y, double *out)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be)) {
        float r = 0;
        CMRS_CUBLAS(cublasSdot(h, (int)n, x, 1, y, 1, &r));
        *out = r;
    } else {
        CMRS_CUBLAS(cublasDdot(h, (int)n, x, 1, y, 1, out));
    }
    return CMRS_OK;
}

/* An operator in `format` made by create (from a host CSR, or from a
 * level matrix's device copy). auto: CMRS at the heart; its setup picks
 * the kernel for the rows each operator has (short on the fine levels,
 * longer below). */
static cmrs_code op_make(cmrs_backend *be, const char *format,
                         const cmrs_csr *M_h, const cmrs_csr_view_d *M_d,
                         cmrs_op **op)
{
    const char *name = strcmp(format, "auto") == 0 ? "cmrs" : format;
    *op = calloc(1, sizeof **op);
    CMRS_ENSURE(*op, CMRS_E_NOMEM, "cannot allocate an operator");
    snprintf((*op)->format, sizeof (*op)->format, "%s", name);
    cudaStream_t st = GPU(be)->stream;
    /* Level operators run between the solver's and the cycle's vectors. */
    const cmrs_spmv_opts o = {.context_vectors = CMRS_SOLVER_VECTORS};
    cmrs_code rc =
        M_d ? cmrs_spmv_create_dev(name, M_d, be->prec, &o, st, &(*op)->spmv)
            : cmrs_spmv_create(name, M_h, be->prec, &o, st, &(*op)->spmv);
    if (rc != CMRS_OK) {
        free(*op);
        *op = NULL;
    }
    return rc;
}

cmrs_code cmrs_gpu_kit_op_create(cmrs_backend *be, const cmrs_csr *M,
                                 const char *format, cmrs_op **op)
{
    CMRS_CHECK(op_make(be, format, M, NULL, op));
    return CMRS_OK;
}

/* From the device copy the AMG setup formed (amg_kit_gpu.c): no host
 * copy, the cmrs format built from it on the device. */
cmrs_code cmrs_gpu_kit_op_create_lmat(cmrs_backend *be, const cmrs_lmat *M,
                                      const char *format, cmrs_op **op)
{
    const amg_dev_mat *a = M->dev;
    cmrs_csr_view_d v = {a->rows,      a->cols,      a->nnz,
                         a->indptr_d, a->indices_d, a->values_d};
    CMRS_CHECK(op_make(be, format, NULL, &v, op));
    return CMRS_OK;
}

/* The AMG's in-place re-setup: M's values (device doubles, or the host
 * copy) into the format's own buffer through its value store. */
cmrs_code cmrs_gpu_kit_op_update(cmrs_backend *be, cmrs_op *op,
                                 const cmrs_lmat *M, int *done, int *in_place)
{
    cmrs_spmv *s = op->spmv;
    (void)be;
    *done = *in_place = 0;
    if (!s->ops->value_store || s->rows != M->rows || s->cols != M->cols ||
        s->nnz != M->nnz)
        return CMRS_OK;
    if (M->dev) {
        const amg_dev_mat *a = M->dev;
        CMRS_CHECK(cmrs_spmv_update_values_dd(s, a->values_d, in_place));
    } else {
        CMRS_CHECK(cmrs_spmv_update_values(s, &M->h));
        *in_place = cmrs_spmv_values_in_place(s);
    }
    *done = 1;
    return CMRS_OK;
}

/* The coarsest level's dense inverse on the device, from its device copy
 * where it has one (no host copy of A either), else from the host copy:
 * *inv_d a new n x n device array, NULL when A is not SPD. */
static cmrs_code coarse_inverse_dev(cmrs_backend *be, const cmrs_lmat *M,
                                    double **inv_d, int *spd)
{
    const amg_dev_mat *a = M->dev;
    cudaStream_t st = GPU(be)->stream;
    if (a)
        CMRS_CHECK(cmrs_gpu_dense_inverse_dev(st, a->rows, a->indptr_d,
                                              a->indices_d, a->values_d,
                                              inv_d, spd));
    else
        CMRS_CHECK(cmrs_gpu_dense_inverse_d(st, &M->h, inv_d, spd));
    return CMRS_OK;
}

/* The coarse operator made on the device from the inverse of M (its
 * device copy, else its host copy uploaded): its dense CSR pattern by a
 * kernel, the format built from the device arrays (setup_dev). */
cmrs_code cmrs_gpu_kit_coarse_create(cmrs_backend *be, const cmrs_lmat *M,
                                     const char *format, cmrs_op **op,
                                     int *spd, int *done)
{
    cmrs_code rc = CMRS_OK;
    int64_t n = M->rows;
    double *inv_d = NULL;
    int32_t *ptr_d = NULL, *idx_d = NULL;
    *op = NULL;
    *spd = *done = 0;
    CMRS_TRY(coarse_inverse_dev(be, M, &inv_d, spd));
    if (*spd) {
        CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&ptr_d,
                                 (size_t)(n + 1) * sizeof *ptr_d));
        CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&idx_d,
                                 (size_t)(n * n) * sizeof *idx_d));
        CMRS_TRY(cmrs_gpu_dense_pattern(GPU(be)->stream, n, ptr_d, idx_d));
        cmrs_csr_view_d v = {n, n, n * n, ptr_d, idx_d, inv_d};
        double t = 0;
        amg_prof_begin(&t);
        CMRS_TRY(op_make(be, format, NULL, &v, op));
        CMRS_TRY(amg_prof_step(GPU(be)->stream, &t, "  coarse operator"));
    }
    *done = 1;
done:
    CMRS_GPU_FREE_ALL(inv_d, ptr_d, idx_d);
    return rc;
}

/* The coarse inverse on the device, straight into the operator's values:
 * no download of the n x n inverse, no host CSR, no upload. */
cmrs_code cmrs_gpu_kit_coarse_update(cmrs_backend *be, const cmrs_lmat *M,
                                     cmrs_op *op, int *spd, int *done,
                                     int *in_place)
{
    cmrs_spmv *s = op->spmv;
    cmrs_code rc = CMRS_OK;
    double *inv_d = NULL;
    int64_t n = M->rows;
    *spd = *done = *in_place = 0;
    if (!s->ops->value_store || s->rows != n || s->cols != n ||
        s->nnz != n * n)
        return CMRS_OK;
    CMRS_CHECK(coarse_inverse_dev(be, M, &inv_d, spd));
    if (*spd) CMRS_TRY(cmrs_spmv_update_values_dd(s, inv_d, in_place));
    *done = 1;
done:
    cmrs_dev_free(inv_d);
    return rc;
}

void cmrs_gpu_kit_op_destroy(cmrs_backend *be, cmrs_op *op)
{
    (void)be;
    if (!op) return;
    cmrs_spmv_destroy(op->spmv);
    free(op);
}

const char *cmrs_gpu_kit_op_format(const cmrs_op *op) { return op->format; }

cmrs_code cmrs_gpu_kit_galerkin(cmrs_backend *be, const cmrs_csr *R,
                          const cmrs_csr *A, const cmrs_csr *P, cmrs_csr *Ac)
{
    CMRS_CHECK(cmrs_gpu_galerkin(GPU(be)->stream, R, A, P, Ac));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_op_apply(cmrs_backend *be, const cmrs_op *op, double alpha,
                          const void *x, double beta, void *y)
{
    cmrs_spmv *s = op ? op->spmv : GPU(be)->spmv;
    CMRS_CHECK(cmrs_spmv_apply(s, alpha, x, beta, y));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_dxpby(cmrs_backend *be, int64_t n, double alpha,
                       const void *d, const void *x, double beta, void *y)
{
    CMRS_CHECK(cmrs_gpu_dxpby(be->prec, n, alpha, d, x, beta, y,
                              GPU(be)->stream));
    return CMRS_OK;
}
