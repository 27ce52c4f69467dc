/* The process's kept cuBLAS handles (backend_gpu_libs.c): a back end made
 * after another was destroyed on the same device takes that one's handle,
 * set to its own stream in host pointer mode, and its dot products
 * through it are right (x'y of known vectors, exact in double); two back
 * ends alive together hold two handles; after five are destroyed at once
 * (two kept, three destroyed) a sixth still gets a working handle. Exits
 * 77 without a GPU. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "check.h"
#include "solver/backend/gpu/backend_gpu.h"
#include "systems.h"

static cmrs_backend *make(const cmrs_csr *A)
{
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_backend_gpu_create(A, "cmrs", CMRS_PREC_DOUBLE, NULL, &be));
    if (be) CHECK_OK(cmrs_gpu_libs_join(GPU(be)));
    return be;
}

/* be's handle on be's stream, host pointer mode, and x'y = sum i * 2. */
static void check_handle(cmrs_backend *be, const char *what)
{
    gpu_impl *g = GPU(be);
    cudaStream_t st = NULL;
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_DEVICE;
    CHECK(cublasGetStream(g->blas, &st) == CUBLAS_STATUS_SUCCESS &&
              st == g->stream, "%s: the handle's stream is not the back "
          "end's", what);
    CHECK(cublasGetPointerMode(g->blas, &mode) == CUBLAS_STATUS_SUCCESS &&
              mode == CUBLAS_POINTER_MODE_HOST, "%s: pointer mode %d",
          what, (int)mode);
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), dot = -1;
    double want = 0;
    void *x_d = NULL, *y_d = NULL;
    for (int i = 0; i < N; ++i) {
        x[i] = i;
        y[i] = 2;
        want += 2.0 * i;
    }
    CHECK_OK(be->ops->arr_create(be, N, &x_d));
    CHECK_OK(be->ops->arr_create(be, N, &y_d));
    CHECK_OK(be->ops->arr_set(be, N, x_d, x));
    CHECK_OK(be->ops->arr_set(be, N, y_d, y));
    CHECK_OK(be->ops->arr_dot(be, N, x_d, y_d, &dot));
    CHECK(dot == want, "%s: x'y %.17g, want %.17g", what, dot, want);
    be->ops->arr_destroy(be, x_d);
    be->ops->arr_destroy(be, y_d);
    free(x);
    free(y);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    cmrs_csr A;
    lap2d(&A, 30);
    cmrs_backend *a = make(&A);
    if (!a) return check_summary();
    cublasHandle_t first = GPU(a)->blas;
    check_handle(a, "first");
    cmrs_backend_destroy(a);
    cmrs_backend *b = make(&A), *c = make(&A);
    CHECK(b && c && GPU(b)->blas == first && GPU(c)->blas != first,
          "the next back end takes the kept handle, one alive beside it "
          "a new one");
    if (b && c) {
        check_handle(b, "kept");
        check_handle(c, "beside");
    }
    cmrs_backend_destroy(b);
    cmrs_backend_destroy(c);
    cmrs_backend *five[5];
    for (int i = 0; i < 5; ++i) five[i] = make(&A);
    for (int i = 0; i < 5; ++i) cmrs_backend_destroy(five[i]);
    cmrs_backend *d = make(&A);
    if (d) check_handle(d, "after five");
    cmrs_backend_destroy(d);
    cmrs_csr_free(&A);
    return check_summary();
}
