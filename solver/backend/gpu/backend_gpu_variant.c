/* What the kernel choice (api/kernel_choice.c) needs of the GPU back end:
 * a variant of a back end in another format or layout, made from its
 * device copy of A on its stream; the product timed as the solve's engine
 * runs it; and the winner made to stand alone. */
#include <stdlib.h>

#include "base/gpu/cuda_check.h"
#include "spmv/timing.h"
#include "backend_gpu.h"

cmrs_code cmrs_backend_gpu_variant(cmrs_backend *be, const cmrs_csr *A,
                                   const char *format,
                                   const cmrs_spmv_opts *opts,
                                   cmrs_backend **out)
{
    *out = NULL;
    CMRS_ENSURE(cmrs_backend_gpu_stream(be), CMRS_E_USAGE,
                "a variant of the %s back end: GPU back ends only",
                be->device);
    CMRS_ENSURE(A->rows == be->n && A->cols == be->n && A->nnz == be->nnz,
                CMRS_E_USAGE, "a variant of a back end is of the same matrix");
    CMRS_CHECK(cmrs_gpu_create_on(A, format, be->prec, opts, GPU(be)->stream,
                                  be, out));
    return CMRS_OK;
}

void cmrs_backend_gpu_adopt(cmrs_backend *variant, cmrs_backend *be)
{
    gpu_impl *v = GPU(variant), *g = GPU(be);
    v->have_stream = g->have_stream;
    g->have_stream = 0;
    v->parent = NULL; /* be goes: its AMG level is not the variant's */
}

/* The timed step: the product (x = 0), then, where the engine sums p'q,
 * that sum: in the SpMV's epilogue where the format has one, else a dot
 * over x and y (the pass the fused engine then adds). */
typedef struct product_call {
    gpu_impl *g;
    cmrs_prec prec;
    int with_dot;
    void *x_d, *y_d;
    double *sum_d; /* the partial sums, or the dot's result */
} product_call;

static cmrs_code product_op(void *ctx)
{
    product_call *c = ctx;
    cmrs_spmv *s = c->g->spmv;
    if (c->with_dot && s->dot_parts > 0)
        return cmrs_spmv_apply_dot(s, c->x_d, c->y_d, c->sum_d);
    CMRS_CHECK(cmrs_spmv_apply(s, 1.0, c->x_d, 0.0, c->y_d));
    if (!c->with_dot) return CMRS_OK;
    if (c->prec == CMRS_PREC_SINGLE)
        CMRS_CUBLAS(cublasSdot(c->g->blas, (int)s->rows, c->x_d, 1, c->y_d,
                               1, (float *)c->sum_d));
    else
        CMRS_CUBLAS(cublasDdot(c->g->blas, (int)s->rows, c->x_d, 1, c->y_d,
                               1, c->sum_d));
    return CMRS_OK;
}

cmrs_code cmrs_backend_gpu_time_product(cmrs_backend *be, int with_dot,
                                        int reps, double *median_s)
{
    cmrs_code rc = CMRS_OK;
    gpu_impl *g = GPU(be);
    const size_t sv = cmrs_prec_value_bytes(be->prec);
    const size_t n = (size_t)(be->n > 0 ? be->n : 1);
    const size_t parts = (size_t)(g->spmv->dot_parts > 0 ? g->spmv->dot_parts
                                                          : 1);
    product_call c = {g, be->prec, with_dot, NULL, NULL, NULL};
    cmrs_timing t;
    *median_s = 0;
    CMRS_ENSURE(cmrs_backend_gpu_stream(be), CMRS_E_USAGE,
                "product timing: GPU back ends only");
    if (be->n == 0) return CMRS_OK;
    CMRS_CUDA_TRY(cudaMalloc(&c.x_d, n * sv));
    CMRS_CUDA_TRY(cudaMalloc(&c.y_d, n * sv));
    CMRS_CUDA_TRY(cudaMalloc((void **)&c.sum_d, parts * sizeof(double)));
    CMRS_CUDA_TRY(cudaMemsetAsync(c.x_d, 0, n * sv, g->stream));
    CMRS_CUBLAS_TRY(cublasSetPointerMode(g->blas, CUBLAS_POINTER_MODE_DEVICE));
    rc = cmrs_time_op(product_op, &c, g->stream, 3, reps, &t);
    if (cublasSetPointerMode(g->blas, CUBLAS_POINTER_MODE_HOST) !=
            CUBLAS_STATUS_SUCCESS && rc == CMRS_OK)
        CMRS_TRY_FAIL(CMRS_E_GPU, "product timing: cannot restore cuBLAS's "
                      "host pointer mode");
    CMRS_TRY(rc);
    *median_s = t.median;
done:
    cudaFree(c.x_d);
    cudaFree(c.y_d);
    cudaFree(c.sum_d);
    return rc;
}
