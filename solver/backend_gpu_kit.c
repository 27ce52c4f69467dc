/* The GPU back end's preconditioner kit (backend.h): arrays of any length,
 * level operators in registry SpMV formats, the dxpby kernel, Galerkin
 * products through cuSPARSE SpGEMM. Setup-side ops synchronise; apply-side
 * ops only queue work on the back end's stream. */
#include <stdlib.h>
#include <string.h>

#include "amg_spgemm_gpu.h"
#include "backend_gpu.h"
#include "gpu_kernels.h"

struct cmrs_op {
    cmrs_spmv *spmv;
    char format[32];
};

cmrs_code cmrs_gpu_kit_arr_create(cmrs_backend *be, int64_t n, void **a)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * VBYTES(be);
    *a = NULL;
    CMRS_CUDA(cudaMalloc(a, bytes));
    CMRS_CUDA(cudaMemsetAsync(*a, 0, bytes, GPU(be)->stream));
    CMRS_CUDA(cudaStreamSynchronize(GPU(be)->stream));
    return CMRS_OK;
}

void cmrs_gpu_kit_arr_destroy(cmrs_backend *be, void *a)
{
    (void)be;
    cudaFree(a);
}

/* h (doubles) -> a, converted to the precision through a host buffer. */
cmrs_code cmrs_gpu_kit_arr_set(cmrs_backend *be, int64_t n, void *a,
                         const double *h)
{
    gpu_impl *g = GPU(be);
    if (n <= 0) return CMRS_OK;
    if (!IS_SINGLE(be)) {
        CMRS_CUDA(cudaMemcpyAsync(a, h, (size_t)n * sizeof *h,
                                  cudaMemcpyHostToDevice, g->stream));
        CMRS_CUDA(cudaStreamSynchronize(g->stream));
        return CMRS_OK;
    }
    float *f = cmrs_malloc_array((size_t)n, sizeof *f);
    CMRS_ENSURE(f, CMRS_E_NOMEM, "cannot allocate %lld floats", (long long)n);
    for (int64_t i = 0; i < n; ++i) f[i] = (float)h[i];
    cudaError_t e = cudaMemcpyAsync(a, f, (size_t)n * sizeof *f,
                                    cudaMemcpyHostToDevice, g->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
    free(f);
    CMRS_CUDA(e);
    return CMRS_OK;
}

cmrs_code cmrs_gpu_kit_arr_get(cmrs_backend *be, int64_t n, const void *a,
                         double *h)
{
    gpu_impl *g = GPU(be);
    if (n <= 0) return CMRS_OK;
    size_t bytes = (size_t)n * VBYTES(be);
    void *dst = IS_SINGLE(be) ? cmrs_malloc_array((size_t)n, sizeof(float))
                              : (void *)h;
    CMRS_ENSURE(dst, CMRS_E_NOMEM, "cannot allocate %lld floats",
                (long long)n);
    cudaError_t e = cudaMemcpyAsync(dst, a, bytes, cudaMemcpyDeviceToHost,
                                    g->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
    if (IS_SINGLE(be)) {
        for (int64_t i = 0; e == cudaSuccess && i < n; ++i)
            h[i] = ((const float *)dst)[i];
        free(dst);
    }
    CMRS_CUDA(e);
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

cmrs_code cmrs_gpu_kit_op_create(cmrs_backend *be, const cmrs_csr *M,
                           const char *format, cmrs_op **op)
{
    const char *name = strcmp(format, "auto") == 0 ? "cmrs" : format;
    *op = calloc(1, sizeof **op);
    CMRS_ENSURE(*op, CMRS_E_NOMEM, "cannot allocate an operator");
    snprintf((*op)->format, sizeof (*op)->format, "%s", name);
    cmrs_code rc = cmrs_spmv_create(name, M, be->prec, NULL, GPU(be)->stream,
                                    &(*op)->spmv);
    if (rc != CMRS_OK) {
        free(*op);
        *op = NULL;
    }
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
