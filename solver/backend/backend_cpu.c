/* The CPU reference back end: plain C in double over the host CSR matrix,
 * through spmv/ref.h. Used by CI, by `--device cpu`, and as the ground truth
 * the GPU back end is tested against. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/timer.h"
#include "spmv/ref.h"
#include "solver/amg/amg_builder.h"
#include "backend.h"

typedef struct cpu_impl {
    const cmrs_csr *A;   /* borrowed */
    double *history;     /* residual norms */
    int64_t history_cap;
} cpu_impl;

#define IMPL(be) ((cpu_impl *)(be)->impl)
#define D(v) ((double *)(v)->data)

static cmrs_code vec_create(cmrs_backend *be, cmrs_vec **v)
{
    *v = calloc(1, sizeof **v);
    CMRS_ENSURE(*v, CMRS_E_NOMEM, "cannot allocate a vector");
    (*v)->data = cmrs_malloc_array((size_t)be->n, sizeof(double));
    if (!(*v)->data) {
        free(*v);
        *v = NULL;
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate a vector of %lld doubles",
                  (long long)be->n);
    }
    return CMRS_OK;
}

static void vec_destroy(cmrs_backend *be, cmrs_vec *v)
{
    (void)be;
    if (!v) return;
    free(v->data);
    free(v);
}

static cmrs_code vec_set(cmrs_backend *be, cmrs_vec *v, const double *h)
{
    if (h) cmrs_ref_copy(be->n, h, D(v));
    else memset(D(v), 0, (size_t)be->n * sizeof(double));
    return CMRS_OK;
}

static cmrs_code vec_get(cmrs_backend *be, const cmrs_vec *v, double *h)
{
    cmrs_ref_copy(be->n, D(v), h);
    return CMRS_OK;
}

static cmrs_code history_reserve(cmrs_backend *be, int64_t count)
{
    cpu_impl *c = IMPL(be);
    return cmrs_history_grow(&c->history, &c->history_cap, count);
}

static cmrs_code update_values(cmrs_backend *be, const cmrs_csr *A,
                               int *in_place)
{
    *in_place = 1; /* no graphs on the CPU: nothing to keep */
    CMRS_ENSURE(A->rows == be->n && A->nnz == be->nnz, CMRS_E_USAGE,
                "new values for %lld rows and %lld entries; the back end "
                "holds %lld and %lld", (long long)A->rows, (long long)A->nnz,
                (long long)be->n, (long long)be->nnz);
    IMPL(be)->A = A;
    return CMRS_OK;
}

static cmrs_code spmv(cmrs_backend *be, double alpha, const cmrs_vec *x,
                      double beta, cmrs_vec *y)
{
    cmrs_ref_spmv(IMPL(be)->A, alpha, D(x), beta, D(y));
    return CMRS_OK;
}

static cmrs_code dot(cmrs_backend *be, const cmrs_vec *x, const cmrs_vec *y,
                     double *out)
{
    *out = cmrs_ref_dot(be->n, D(x), D(y));
    return CMRS_OK;
}

static cmrs_code nrm2(cmrs_backend *be, const cmrs_vec *x, double *out)
{
    *out = cmrs_ref_nrm2(be->n, D(x));
    return CMRS_OK;
}

static cmrs_code axpy(cmrs_backend *be, double a, const cmrs_vec *x,
                      cmrs_vec *y)
{
    cmrs_ref_axpy(be->n, a, D(x), D(y));
    return CMRS_OK;
}

static cmrs_code scal(cmrs_backend *be, double a, cmrs_vec *x)
{
    cmrs_ref_scal(be->n, a, D(x));
    return CMRS_OK;
}

static cmrs_code copy(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y)
{
    cmrs_ref_copy(be->n, D(x), D(y));
    return CMRS_OK;
}


static cmrs_code resnorm(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                         double *out)
{
    cpu_impl *c = IMPL(be);
    CMRS_ENSURE(k >= 0 && k < c->history_cap, CMRS_E_INTERNAL,
                "history entry %lld beyond its %lld reserved", (long long)k,
                (long long)c->history_cap);
    *out = c->history[k] = cmrs_ref_nrm2(be->n, D(r));
    return CMRS_OK;
}

static cmrs_code history_get(cmrs_backend *be, int64_t count, double *h)
{
    cpu_impl *c = IMPL(be);
    CMRS_ENSURE(count <= c->history_cap, CMRS_E_INTERNAL,
                "history of %lld entries requested, %lld reserved",
                (long long)count, (long long)c->history_cap);
    cmrs_ref_copy(count, c->history, h);
    return CMRS_OK;
}

static cmrs_code sync(cmrs_backend *be)
{
    (void)be;
    return CMRS_OK;
}

/* memcpy of 64 MiB (well beyond the caches), median of 5. */
static cmrs_code copy_bandwidth(cmrs_backend *be, double *bytes_per_s)
{
    (void)be;
    enum { reps = 5 };
    size_t bytes = (size_t)64 << 20;
    char *a = malloc(bytes), *b = malloc(bytes);
    double t[reps];
    volatile char sink = 0; /* reads b, so the copies cannot be elided */
    CMRS_CHECK(cmrs_alloc_both(a, b, "128 MiB to measure the copy "
                               "bandwidth"));
    memset(a, 1, bytes);
    memset(b, 0, bytes);
    for (int i = 0; i < reps; ++i) {
        double t0 = cmrs_wtime();
        memcpy(b, a, bytes);
        t[i] = cmrs_wtime() - t0;
        sink = (char)(sink + b[bytes - 1 - (size_t)i]);
        a[i] = sink;
    }
    free(a);
    free(b);
    double median = cmrs_median(t, reps);
    *bytes_per_s = median > 0 ? 2.0 * (double)bytes / median : 0.0;
    return CMRS_OK;
}

static void destroy(cmrs_backend *be)
{
    cpu_impl *c = IMPL(be);
    if (!c) return;
    free(c->history);
    free(c);
    be->impl = NULL;
}

/* The preconditioners' kit: host double arrays, CSR copies as operators,
 * the host Galerkin product. */
struct cmrs_op {
    cmrs_csr M;
};

static cmrs_code arr_create(cmrs_backend *be, int64_t n, void **a)
{
    (void)be;
    *a = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    CMRS_ENSURE(*a, CMRS_E_NOMEM, "cannot allocate %lld doubles",
                (long long)n);
    return CMRS_OK;
}

static void arr_destroy(cmrs_backend *be, void *a)
{
    (void)be;
    free(a);
}

static cmrs_code arr_set(cmrs_backend *be, int64_t n, void *a,
                         const double *h)
{
    (void)be;
    cmrs_ref_copy(n, h, a);
    return CMRS_OK;
}

static cmrs_code arr_get(cmrs_backend *be, int64_t n, const void *a,
                         double *h)
{
    (void)be;
    cmrs_ref_copy(n, a, h);
    return CMRS_OK;
}

static cmrs_code arr_dot(cmrs_backend *be, int64_t n, const void *x,
                         const void *y, double *out)
{
    (void)be;
    *out = cmrs_ref_dot(n, x, y);
    return CMRS_OK;
}

static cmrs_code op_create(cmrs_backend *be, const cmrs_csr *M,
                           const char *format, cmrs_op **op)
{
    (void)be, (void)format;
    *op = calloc(1, sizeof **op);
    CMRS_ENSURE(*op, CMRS_E_NOMEM, "cannot allocate an operator");
    cmrs_code rc = cmrs_csr_copy(&(*op)->M, M);
    if (rc != CMRS_OK) {
        free(*op);
        *op = NULL;
    }
    return rc;
}

static void op_destroy(cmrs_backend *be, cmrs_op *op)
{
    (void)be;
    if (!op) return;
    cmrs_csr_free(&op->M);
    free(op);
}

static const char *op_format(const cmrs_op *op)
{
    (void)op;
    return "cpu-csr";
}

static cmrs_code op_apply(cmrs_backend *be, const cmrs_op *op, double alpha,
                          const void *x, double beta, void *y)
{
    cmrs_ref_spmv(op ? &op->M : IMPL(be)->A, alpha, x, beta, y);
    return CMRS_OK;
}

static cmrs_code dxpby(cmrs_backend *be, int64_t n, double alpha,
                       const void *d, const void *x, double beta, void *y)
{
    (void)be;
    const double *dd = d, *xd = x;
    double *yd = y;
    for (int64_t i = 0; i < n; ++i) {
        double v = alpha * (dd ? dd[i] * xd[i] : xd[i]);
        yd[i] = beta == 0.0 ? v : v + beta * yd[i];
    }
    return CMRS_OK;
}

/* y = x + b y: the kit's pass with d = identity. */
static cmrs_code xpby(cmrs_backend *be, const cmrs_vec *x, double b,
                      cmrs_vec *y)
{
    return dxpby(be, be->n, 1.0, NULL, D(x), b, D(y));
}

static const cmrs_backend_ops k_cpu_ops = {
    .name = "cpu",
    .vec_create = vec_create, .vec_destroy = vec_destroy,
    .vec_set = vec_set, .vec_get = vec_get,
    .history_reserve = history_reserve,
    .update_values = update_values,
    .spmv = spmv, .dot = dot, .nrm2 = nrm2, .axpy = axpy, .scal = scal,
    .copy = copy, .xpby = xpby, .resnorm = resnorm,
    .history_get = history_get, .sync = sync,
    .time_spmv = cmrs_backend_time_spmv_host,
    .copy_bandwidth = copy_bandwidth,
    .amg_builder = &cmrs_amg_builder_cpu,
    .arr_create = arr_create, .arr_destroy = arr_destroy,
    .arr_set = arr_set, .arr_get = arr_get, .arr_dot = arr_dot,
    .op_create = op_create, .op_destroy = op_destroy,
    .op_format = op_format, .op_apply = op_apply, .dxpby = dxpby,
    .destroy = destroy,
};

cmrs_code cmrs_backend_cpu_create(const cmrs_csr *A, cmrs_prec prec,
                                  cmrs_backend **out)
{
    *out = NULL;
    CMRS_ENSURE(prec == CMRS_PREC_DOUBLE, CMRS_E_USAGE, "--precision %s: the "
                "CPU back end computes in double only (single precision needs "
                "the GPU: --device gpu)", cmrs_prec_name(prec));
    cmrs_backend *be = calloc(1, sizeof *be);
    cpu_impl *c = calloc(1, sizeof *c);
    CMRS_CHECK(cmrs_alloc_both(be, c, "the CPU back end"));
    c->A = A;
    *be = (cmrs_backend){.ops = &k_cpu_ops, .impl = c, .n = A->rows,
                         .nnz = A->nnz, .prec = prec, .eps = DBL_EPSILON};
    snprintf(be->device, sizeof be->device, "cpu");
    snprintf(be->format, sizeof be->format, "cpu-csr");
    /* CSR: one pointer per row, x and y once (paper 000 eq. 6.1). */
    be->spmv_bytes = 12.0 * (double)A->nnz + 4.0 * (double)(A->rows + 1) +
                     16.0 * (double)A->rows;
    *out = be;
    return CMRS_OK;
}
