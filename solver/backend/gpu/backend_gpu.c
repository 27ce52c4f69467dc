/* The GPU back end's arithmetic: the SpMV format from the registry, vector
 * operations through cuBLAS (S or D by precision; host pointer mode, so a
 * dot or norm returns when its value is on the host), xpby through our
 * dxpby kernel. Nothing here allocates. */
#include "backend_gpu.h"
#include "gpu_kernels.h"

#define N(be) ((int)(be)->n) /* <= INT_MAX: checked at creation */

cmrs_code cmrs_gpu_op_spmv(cmrs_backend *be, double alpha, const cmrs_vec *x,
                           double beta, cmrs_vec *y)
{
    CMRS_CHECK(cmrs_spmv_apply(GPU(be)->spmv, alpha, x->data, beta, y->data));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_dot(cmrs_backend *be, const cmrs_vec *x,
                          const cmrs_vec *y, double *out)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be)) {
        float r = 0;
        CMRS_CUBLAS(cublasSdot(h, N(be), x->data, 1, y->data, 1, &r));
        *out = r;
    } else {
        CMRS_CUBLAS(cublasDdot(h, N(be), x->data, 1, y->data, 1, out));
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_nrm2(cmrs_backend *be, const cmrs_vec *x, double *out)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be)) {
        float r = 0;
        CMRS_CUBLAS(cublasSnrm2(h, N(be), x->data, 1, &r));
        *out = r;
    } else {
        CMRS_CUBLAS(cublasDnrm2(h, N(be), x->data, 1, out));
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_axpy(cmrs_backend *be, double a, const cmrs_vec *x,
                           cmrs_vec *y)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be)) {
        float af = (float)a;
        CMRS_CUBLAS(cublasSaxpy(h, N(be), &af, x->data, 1, y->data, 1));
    } else {
        CMRS_CUBLAS(cublasDaxpy(h, N(be), &a, x->data, 1, y->data, 1));
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_scal(cmrs_backend *be, double a, cmrs_vec *x)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be)) {
        float af = (float)a;
        CMRS_CUBLAS(cublasSscal(h, N(be), &af, x->data, 1));
    } else {
        CMRS_CUBLAS(cublasDscal(h, N(be), &a, x->data, 1));
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_copy(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y)
{
    cublasHandle_t h = GPU(be)->blas;
    if (IS_SINGLE(be))
        CMRS_CUBLAS(cublasScopy(h, N(be), x->data, 1, y->data, 1));
    else
        CMRS_CUBLAS(cublasDcopy(h, N(be), x->data, 1, y->data, 1));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_xpby(cmrs_backend *be, const cmrs_vec *x, double b,
                           cmrs_vec *y)
{
    CMRS_CHECK(cmrs_gpu_dxpby(be->prec, be->n, 1.0, NULL, x->data, b,
                              y->data, GPU(be)->stream));
    return CMRS_OK;
}

/* nrm2 in device pointer mode straight into the history slot, pointer mode
 * restored whatever happened, then the one value copied back. */
static cublasStatus_t nrm2_to_device(cmrs_backend *be, const cmrs_vec *r,
                                     void *slot_d)
{
    cublasHandle_t h = GPU(be)->blas;
    cublasStatus_t st = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    st = IS_SINGLE(be) ? cublasSnrm2(h, N(be), r->data, 1, slot_d)
                       : cublasDnrm2(h, N(be), r->data, 1, slot_d);
    cublasStatus_t back = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    return st != CUBLAS_STATUS_SUCCESS ? st : back;
}

cmrs_code cmrs_gpu_op_resnorm(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                              double *out)
{
    gpu_impl *g = GPU(be);
    CMRS_ENSURE(k >= 0 && k < g->history_cap, CMRS_E_INTERNAL,
                "history entry %lld beyond its %lld reserved", (long long)k,
                (long long)g->history_cap);
    char *slot_d = (char *)g->history_d + (size_t)k * VBYTES(be);
    CMRS_CUBLAS(nrm2_to_device(be, r, slot_d));
    CMRS_CUDA(cudaMemcpyAsync(g->scalar_h, slot_d, VBYTES(be),
                              cudaMemcpyDeviceToHost, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    *out = IS_SINGLE(be) ? *(const float *)g->scalar_h
                         : *(const double *)g->scalar_h;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_history_get(cmrs_backend *be, int64_t count, double *h)
{
    gpu_impl *g = GPU(be);
    CMRS_ENSURE(count >= 0 && count <= g->history_cap, CMRS_E_INTERNAL,
                "history of %lld entries requested, %lld reserved",
                (long long)count, (long long)g->history_cap);
    CMRS_CUDA(cudaMemcpyAsync(g->history_h, g->history_d,
                              (size_t)count * VBYTES(be),
                              cudaMemcpyDeviceToHost, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    for (int64_t i = 0; i < count; ++i)
        h[i] = IS_SINGLE(be) ? ((const float *)g->history_h)[i]
                             : ((const double *)g->history_h)[i];
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_sync(cmrs_backend *be)
{
    CMRS_CUDA(cudaStreamSynchronize(GPU(be)->stream));
    return CMRS_OK;
}
