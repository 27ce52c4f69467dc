/* GPU SpMV against the CPU reference, with a precision-aware bound
 * (verify.h explains it; the bound and the random vectors: measure_host.c). */
#include "verify.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "device.h"
#include "ref.h"

/* x and y on the device; y poisoned with NaN (all bits set is a NaN in
 * float and double) when there is no y0. The uploads are cudaMemcpy from
 * pageable memory on the legacy stream, which may return before the DMA
 * lands, and s->stream may be non-blocking (not ordered after the legacy
 * stream): without the device synchronisation the apply raced with these
 * copies (and with the setup's matrix upload) and read stale x / y, or the
 * NaN poison landed after the kernel had written y. */
static cmrs_code upload_inputs(const cmrs_spmv *s, const double *x_h,
                               const double *y0_h, void **x_d, void **y_d)
{
    CMRS_CHECK(cmrs_dev_upload_values(x_h, s->cols, s->prec, "x", x_d));
    if (y0_h) {
        CMRS_CHECK(cmrs_dev_upload_values(y0_h, s->rows, s->prec, "y", y_d));
    } else {
        CMRS_CHECK(cmrs_dev_alloc_values(s->rows, s->prec, y_d));
        CMRS_CUDA(cudaMemsetAsync(*y_d, 0xff, (size_t)s->rows *
                                  cmrs_prec_value_bytes(s->prec), s->stream));
    }
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

static void compare(const cmrs_spmv *s, const cmrs_csr *A, double alpha,
                    const double *x_h, double beta, const double *y0_h,
                    const double *y_h, const double *yref_h,
                    cmrs_spmv_check *out)
{
    out->nonfinite = 0;
    for (int64_t i = 0; i < A->rows; ++i) out->nonfinite += !isfinite(y_h[i]);
    out->rel_err = cmrs_ref_rel_err(A->rows, y_h, yref_h);
    out->tol = cmrs_spmv_tolerance(A, s->prec, alpha, x_h, beta, y0_h, yref_h);
    out->ok = out->nonfinite == 0 && out->rel_err <= out->tol;
}

/* Captures one apply into a graph and launches it. A capture fails when
 * apply calls cudaMalloc or synchronises. */
static cmrs_code apply_in_graph(cmrs_spmv *s, double alpha, const void *x_d,
                                double beta, void *y_d)
{
    cmrs_code rc = CMRS_OK;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    CMRS_ENSURE(s->stream != 0, CMRS_E_INTERNAL,
                "verify: the default stream cannot be captured");
    CMRS_CUDA(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeGlobal));
    cmrs_code apply_rc = cmrs_spmv_apply(s, alpha, x_d, beta, y_d);
    cudaError_t end = cudaStreamEndCapture(s->stream, &graph);
    if (apply_rc != CMRS_OK) {
        cudaGetLastError(); /* the capture error; apply's message is kept */
        rc = cmrs_error_trace(apply_rc, __FILE__, __LINE__);
        goto done;
    }
    CMRS_CUDA_TRY(end);
    CMRS_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    CMRS_CUDA_TRY(cudaGraphLaunch(exec, s->stream));
done:
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    return rc;
}

/* How verify runs the product. */
enum { PLAIN, IN_GRAPH, WITH_DOT };

/* The x'y partials: run apply_dot into poisoned partials, add them in
 * index order into *dot. */
static cmrs_code apply_with_dot(cmrs_spmv *s, const void *x_d, void *y_d,
                                double *dot)
{
    cmrs_code rc = CMRS_OK;
    double *parts_d = NULL, *parts_h = NULL;
    const size_t n = s->dot_parts > 0 ? (size_t)s->dot_parts : 1;
    parts_h = cmrs_malloc_array(n, sizeof *parts_h);
    if (!parts_h) CMRS_TRY_FAIL(CMRS_E_NOMEM, "verify: out of memory");
    CMRS_CUDA_TRY(cudaMalloc((void **)&parts_d, n * sizeof *parts_d));
    CMRS_CUDA_TRY(cudaMemsetAsync(parts_d, 0xff, n * sizeof *parts_d,
                                  s->stream));
    CMRS_TRY(cmrs_spmv_apply_dot(s, x_d, y_d, parts_d));
    CMRS_CUDA_TRY(cudaMemcpyAsync(parts_h, parts_d, n * sizeof *parts_d,
                                  cudaMemcpyDeviceToHost, s->stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    *dot = 0;
    for (int i = 0; i < s->dot_parts; ++i) *dot += parts_h[i];
done:
    cmrs_dev_free(parts_d);
    free(parts_h);
    return rc;
}

/* The partials' sum against x'yref, with the bound verify.h gives. */
static void compare_dot(const cmrs_spmv *s, const cmrs_csr *A,
                        const double *x_h, const double *yref_h, double dot,
                        cmrs_spmv_check *out)
{
    double u = cmrs_prec_unit_roundoff(s->prec);
    double ref = 0, xabs = 0, prod_abs = 0, y_max = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        ref += x_h[i] * yref_h[i];
        xabs += fabs(x_h[i]);
        prod_abs += fabs(x_h[i] * yref_h[i]);
        if (fabs(yref_h[i]) > y_max) y_max = fabs(yref_h[i]);
    }
    const double y_abs_tol = out->tol * (y_max > 1e-300 ? y_max : 1e-300);
    const double scale = fabs(ref) > 1e-300 ? fabs(ref) : 1e-300;
    const double tol = xabs * y_abs_tol +
                       ((double)A->rows + 4) * (u + DBL_EPSILON / 2) * prod_abs;
    out->dot_rel_err = isfinite(dot) ? fabs(dot - ref) / scale : NAN;
    out->dot_tol = tol / scale;
    out->ok = out->ok && out->dot_rel_err <= out->dot_tol;
}

static cmrs_code verify(cmrs_spmv *s, const cmrs_csr *A, double alpha,
                        const double *x_h, double beta, const double *y0_h,
                        int mode, cmrs_spmv_check *out)
{
    cmrs_code rc = CMRS_OK;
    double dot = 0;
    void *x_d = NULL, *y_d = NULL;
    CMRS_ENSURE(y0_h || beta == 0, CMRS_E_INTERNAL,
                "verify: beta %g needs an input y", beta);
    double *y_h = cmrs_malloc_array((size_t)A->rows, sizeof *y_h);
    double *yref_h = cmrs_malloc_array((size_t)A->rows, sizeof *yref_h);
    if (!y_h || !yref_h) CMRS_TRY_FAIL(CMRS_E_NOMEM, "verify: out of memory");
    CMRS_TRY(upload_inputs(s, x_h, y0_h, &x_d, &y_d));
    if (mode == IN_GRAPH) CMRS_TRY(apply_in_graph(s, alpha, x_d, beta, y_d));
    else if (mode == WITH_DOT) CMRS_TRY(apply_with_dot(s, x_d, y_d, &dot));
    else CMRS_TRY(cmrs_spmv_apply(s, alpha, x_d, beta, y_d));
    CMRS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    CMRS_TRY(cmrs_dev_download_values(y_d, A->rows, s->prec, y_h));
    if (y0_h) cmrs_ref_copy(A->rows, y0_h, yref_h);
    cmrs_ref_spmv(A, alpha, x_h, beta, yref_h);
    compare(s, A, alpha, x_h, beta, y0_h, y_h, yref_h, out);
    if (mode == WITH_DOT) compare_dot(s, A, x_h, yref_h, dot, out);
done:
    cmrs_dev_free(x_d);
    cmrs_dev_free(y_d);
    free(y_h);
    free(yref_h);
    return rc;
}

cmrs_code cmrs_spmv_verify(cmrs_spmv *s, const cmrs_csr *A, double alpha,
                           const double *x_h, double beta, const double *y0_h,
                           cmrs_spmv_check *out)
{
    CMRS_CHECK(verify(s, A, alpha, x_h, beta, y0_h, PLAIN, out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_verify_graph(cmrs_spmv *s, const cmrs_csr *A,
                                 double alpha, const double *x_h, double beta,
                                 const double *y0_h, cmrs_spmv_check *out)
{
    CMRS_CHECK(verify(s, A, alpha, x_h, beta, y0_h, IN_GRAPH, out));
    return CMRS_OK;
}

cmrs_code cmrs_spmv_verify_dot(cmrs_spmv *s, const cmrs_csr *A,
                               const double *x_h, cmrs_spmv_check *out)
{
    CMRS_ENSURE(A->rows <= A->cols, CMRS_E_USAGE,
                "verify: x'y needs rows <= cols, not %lld x %lld",
                (long long)A->rows, (long long)A->cols);
    CMRS_CHECK(verify(s, A, 1.0, x_h, 0.0, NULL, WITH_DOT, out));
    return CMRS_OK;
}
