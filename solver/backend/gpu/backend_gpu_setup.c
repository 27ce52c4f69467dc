/* The GPU back end's setup side: creation (stream, cuBLAS handle, SpMV
 * format), vectors, Jacobi setup, history, measurements, destruction.
 * Every device allocation of a solve happens here, before the loop. */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/profile.h"
#include "spmv/timing.h"
#include "backend_gpu.h"
#include "gpu_kernels.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/pinned_small.h"

static cmrs_code vec_create(cmrs_backend *be, cmrs_vec **v)
{
    *v = calloc(1, sizeof **v);
    CMRS_ENSURE(*v, CMRS_E_NOMEM, "cannot allocate a vector");
    cudaError_t e = cmrs_dev_malloc(&(*v)->data, (size_t)be->n * VBYTES(be));
    if (e != cudaSuccess) {
        free(*v);
        *v = NULL;
        return cmrs_cuda_error(e, "cmrs_dev_malloc(vector)", __FILE__, __LINE__);
    }
    return CMRS_OK;
}

static void vec_destroy(cmrs_backend *be, cmrs_vec *v)
{
    (void)be;
    if (!v) return;
    cmrs_dev_free(v->data);
    free(v);
}

/* The kit's transfers, over the vector's n values (h NULL: zero). */
static cmrs_code vec_set(cmrs_backend *be, cmrs_vec *v, const double *h)
{
    CMRS_CHECK(cmrs_gpu_kit_arr_set(be, be->n, v->data, h));
    return CMRS_OK;
}

static cmrs_code vec_get(cmrs_backend *be, const cmrs_vec *v, double *h)
{
    CMRS_CHECK(cmrs_gpu_kit_arr_get(be, be->n, v->data, h));
    return CMRS_OK;
}

static cmrs_code history_reserve(cmrs_backend *be, int64_t count)
{
    gpu_impl *g = GPU(be);
    if (count <= g->history_cap) return CMRS_OK;
    size_t bytes;
    CMRS_ENSURE(cmrs_mul_size((size_t)count, VBYTES(be), &bytes) == 0,
                CMRS_E_LIMIT, "history of %lld entries", (long long)count);
    cmrs_dev_free(g->history_d);
    free(g->history_h);
    g->history_d = NULL;
    g->history_cap = 0;
    g->history_h = malloc(bytes);
    CMRS_ENSURE(g->history_h, CMRS_E_NOMEM, "cannot allocate a residual "
                "history of %lld entries", (long long)count);
    CMRS_CUDA(cmrs_dev_malloc(&g->history_d, bytes));
    g->history_cap = count;
    return CMRS_OK;
}

/* The format's own values-only update: no re-conversion. */
static cmrs_code update_values(cmrs_backend *be, const cmrs_csr *A,
                               int *in_place)
{
    GPU(be)->diag_fresh = 0; /* own_dinv: the creation's diagonal is old */
    CMRS_CHECK(cmrs_spmv_update_values(GPU(be)->spmv, A));
    *in_place = cmrs_spmv_values_in_place(GPU(be)->spmv);
    return CMRS_OK;
}

/* Median of `reps` products timed with events, after warm-ups. */
static cmrs_code time_spmv(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y,
                           int reps, double *median_s)
{
    cmrs_timing t;
    CMRS_CHECK(cmrs_time_spmv(GPU(be)->spmv, x->data, y->data, 3, reps, &t));
    *median_s = t.median;
    return CMRS_OK;
}

/* Device-to-device copies of 256 MiB (beyond L2), median of 10. */
static cmrs_code copy_bandwidth(cmrs_backend *be, double *bytes_per_s)
{
    (void)be;
    CMRS_CHECK(cmrs_measure_copy_bandwidth((size_t)256 << 20, 10,
                                           bytes_per_s));
    return CMRS_OK;
}

static void destroy(cmrs_backend *be)
{
    gpu_impl *g = GPU(be);
    if (!g) return;
    cmrs_gpu_libs_wait(g); /* a failed creation may leave it running */
    cmrs_gpu_spgemm_warm_join(g);
    cmrs_spmv_destroy(g->spmv);
    if (g->have_blas) { /* its work on this stream done before another's */
        if (g->have_stream) (void)cudaStreamSynchronize(g->stream);
        cmrs_gpu_blas_give(g->libs_device, g->blas);
    }
    cmrs_dev_free(g->history_d);
    if (g->have_stream) cudaStreamDestroy(g->stream);
    cmrs_pinned_small_free(g->scalar_h);
    free(g->history_h);
    free(g->stage_h);
    cmrs_gpu_update_free(g);
    free(g);
    be->impl = NULL;
}

static cmrs_code twin_create(cmrs_backend *be, const cmrs_csr *A,
                             cmrs_prec prec, int values32,
                             cmrs_backend **twin);
static cmrs_code arr_cast(cmrs_backend *be, int64_t n, double s,
                          const void *x, cmrs_prec px, void *y,
                          cmrs_prec py);

static const cmrs_backend_ops k_gpu_ops = {
    .name = "gpu",
    .vec_create = vec_create, .vec_destroy = vec_destroy,
    .vec_set = vec_set, .vec_get = vec_get,
    .history_reserve = history_reserve,
    .update_values = update_values,
    .update_values_d = cmrs_gpu_op_update_values_d,
    .dinv_d = cmrs_gpu_op_dinv_d,
    .update_check = cmrs_gpu_op_update_check,
    .values_get = cmrs_gpu_op_values_get,
    .own_dinv = cmrs_gpu_op_own_dinv,
    .rows_nonempty = cmrs_gpu_op_rows_nonempty,
    .spmv = cmrs_gpu_op_spmv,
    .dot = cmrs_gpu_op_dot, .nrm2 = cmrs_gpu_op_nrm2,
    .axpy = cmrs_gpu_op_axpy, .scal = cmrs_gpu_op_scal,
    .copy = cmrs_gpu_op_copy, .xpby = cmrs_gpu_op_xpby,
    .resnorm = cmrs_gpu_op_resnorm, .history_get = cmrs_gpu_op_history_get,
    .sync = cmrs_gpu_op_sync,
    .time_spmv = time_spmv, .copy_bandwidth = copy_bandwidth,
    .amg_builder = &cmrs_amg_builder_gpu,
    .arr_create = cmrs_gpu_kit_arr_create,
    .arr_destroy = cmrs_gpu_kit_arr_destroy,
    .arr_set = cmrs_gpu_kit_arr_set, .arr_get = cmrs_gpu_kit_arr_get,
    .arr_start = cmrs_gpu_kit_arr_start,
    .arr_dot = cmrs_gpu_kit_arr_dot,
    .op_create = cmrs_gpu_kit_op_create,
    .op_destroy = cmrs_gpu_kit_op_destroy,
    .op_format = cmrs_gpu_kit_op_format,
    .op_apply = cmrs_gpu_kit_op_apply, .dxpby = cmrs_gpu_kit_dxpby,
    .twin_create = twin_create, .arr_cast = arr_cast,
    .destroy = destroy,
};

/* Stream, the libraries thread started on it (the cuBLAS handle:
 * cmrs_gpu_libs_join before its first use), pinned scalar, staging
 * buffer. */
static cmrs_code create_handles(cmrs_backend *be, cudaStream_t shared)
{
    gpu_impl *g = GPU(be);
    if (shared) {
        g->stream = shared; /* a twin's: not ours to destroy */
    } else {
        CMRS_CUDA(cudaStreamCreateWithFlags(&g->stream,
                                            cudaStreamNonBlocking));
        g->have_stream = 1;
    }
    CMRS_CHECK(cmrs_gpu_libs_start(g));
    CMRS_CUDA(cmrs_pinned_small_alloc(&g->scalar_h, sizeof(double)));
    if (IS_SINGLE(be)) {
        g->stage_h = cmrs_malloc_array((size_t)g->max_len, sizeof(float));
        CMRS_ENSURE(g->stage_h, CMRS_E_NOMEM, "cannot allocate a staging "
                    "buffer of %lld floats", (long long)g->max_len);
    }
    return CMRS_OK;
}

/* The fields compare and the reports show. */
static void describe(cmrs_backend *be, const char *format)
{
    cmrs_spmv *s = GPU(be)->spmv;
    snprintf(be->device, sizeof be->device, "%s", cmrs_gpu_name());
    snprintf(be->format, sizeof be->format, "%s", format);
    be->height = strncmp(format, "cmrs", 4) == 0 ? s->opts.height : 0;
    be->reordered = strcmp(format, "cmrs") == 0 && s->opts.reorder > 0;
    be->one_width = strcmp(format, "cmrs") == 0 && s->opts.slice > 0;
    be->spmv_bytes = cmrs_spmv_beta_plus(s);
}

/* Refuses, before anything is allocated on the GPU, a matrix that cannot
 * fit: a LOWER bound of what any format needs (values and 4-byte indices
 * of the entries, six vectors of the solver) against the free memory
 * (cudaMemGetInfo; CMRS_GPU_MEM_AVAILABLE_BYTES overrides it for tests).
 * A bound that is too low only lets the allocation fail later, with exit 4
 * all the same; one too high would refuse a solve that fits. */
static cmrs_code check_gpu_memory(const cmrs_csr *A, cmrs_prec prec)
{
    double sv = (double)cmrs_prec_value_bytes(prec);
    double need = (double)A->nnz * (sv + 4.0) + 6.0 * sv * (double)A->rows;
    size_t free_b = 0, total_b = 0;
    double have = cmrs_env_bytes("CMRS_GPU_MEM_AVAILABLE_BYTES");
    if (!(have > 0)) {
        CMRS_CUDA(cudaMemGetInfo(&free_b, &total_b));
        have = (double)free_b;
    }
    char need_s[32], have_s[32];
    cmrs_format_bytes(need, need_s, sizeof need_s);
    cmrs_format_bytes(have, have_s, sizeof have_s);
    CMRS_ENSURE(need <= have, CMRS_E_NOMEM, "a %lld x %lld matrix with %lld "
                "entries needs at least %s of GPU memory in %s precision; "
                "%s free on the GPU", (long long)A->rows, (long long)A->cols,
                (long long)A->nnz, need_s, cmrs_prec_name(prec), have_s);
    return CMRS_OK;
}

/* be's matrix as device CSR arrays in *v (its format's csr_get_d: no
 * host narrowing, no upload), *buf the one allocation holding them;
 * *buf NULL where the format cannot give them back. */
static cmrs_code own_csr_d(cmrs_backend *be, cmrs_csr_view_d *v, void **buf)
{
    gpu_impl *g = GPU(be);
    *buf = NULL;
    if (!g->spmv->ops->csr_get_d || be->nnz > INT32_MAX) return CMRS_OK;
    size_t ptr = ((size_t)be->n + 1) * 4, idx = (size_t)be->nnz * 4;
    ptr = (ptr + 7) / 8 * 8; /* the values' doubles aligned */
    idx = (idx + 7) / 8 * 8;
    CMRS_CUDA(cmrs_dev_malloc(buf, ptr + idx + (size_t)be->nnz * 8));
    char *b = *buf;
    *v = (cmrs_csr_view_d){.rows = be->n, .cols = be->n, .nnz = be->nnz,
                           .indptr_d = (const int32_t *)b,
                           .indices_d = (const int32_t *)(b + ptr),
                           .values_d = (const double *)(b + ptr + idx)};
    cmrs_code rc = cmrs_spmv_csr_get_d(g->spmv, (int32_t *)b,
                                       (int32_t *)(b + ptr),
                                       (double *)(b + ptr + idx));
    if (rc == CMRS_OK) CMRS_CUDA_TRY(cudaStreamSynchronize(g->stream));
done:
    if (rc == CMRS_OK) return CMRS_OK;
    cmrs_dev_free(*buf);
    *buf = NULL;
    if (rc != CMRS_E_USAGE) return rc;
    cmrs_error_clear(); /* this instance cannot: the host path */
    return CMRS_OK;
}

/* The format from A, or from `same`'s device copy of the same A (a
 * twin's: no host narrowing, no upload), with the device update's
 * diagonal positions and error words (found by the format, copied from
 * `same`, or a host scan). */
static cmrs_code make_format(cmrs_backend *be, const cmrs_csr *A,
                             const char *format,
                             const cmrs_spmv_opts *in_solver,
                             cmrs_backend *same)
{
    gpu_impl *g = GPU(be);
    cmrs_csr_view_d v;
    void *buf = NULL;
    /* a single-precision copy's values are floats widened: exact for a
     * back end in single, not A's doubles for one in double */
    if (same && (same->prec == CMRS_PREC_DOUBLE || be->prec == same->prec))
        CMRS_CHECK(own_csr_d(same, &v, &buf));
    /* Returns with the device synchronised (formats may upload with
     * cudaMemcpy on the legacy stream, which our non-blocking stream does
     * not wait for). With A's diagonal found on the device where the
     * format can (cmrs_gpu_update_prepare, own_dinv: no host scan). */
    cmrs_phase_push(CMRS_PHASE_CONVERSION); /* its uploads: transfer */
    cmrs_code rc = buf ? cmrs_spmv_create_dev(format, &v, be->prec, in_solver,
                                              g->stream, &g->spmv)
                       : cmrs_spmv_create_diag(format, A, be->prec, in_solver,
                                               g->stream, &g->spmv);
    cmrs_phase_pop();
    cmrs_dev_free(buf);
    CMRS_CHECK(rc);
    cmrs_phase_push(CMRS_PHASE_ALLOCATION); /* a host scan: host staging */
    rc = same ? cmrs_gpu_update_prepare_from(be, GPU(same), A)
              : cmrs_gpu_update_prepare(be, A);
    cmrs_phase_pop();
    CMRS_CHECK(rc);
    return CMRS_OK;
}

/* The back end on its own stream, or on `shared` (a twin's, a variant's:
 * not destroyed with it); `same`: a back end of the same A whose device
 * copy the format is made from. */
static cmrs_code gpu_create(const cmrs_csr *A, const char *format,
                            cmrs_prec prec, const cmrs_spmv_opts *opts,
                            cudaStream_t shared, cmrs_backend *same,
                            cmrs_backend **out)
{
    cmrs_code rc = CMRS_OK;
    /* The solver streams its vectors between products (the SpMV's L2
     * policy depends on it). */
    cmrs_spmv_opts in_solver = {0};
    if (opts) in_solver = *opts;
    in_solver.context_vectors = CMRS_SOLVER_VECTORS;
    *out = NULL;
    CMRS_ENSURE(cmrs_gpu_available(), CMRS_E_NODEVICE,
                "no CUDA GPU found (use --device cpu or --device auto)");
    CMRS_ENSURE(A->rows <= INT_MAX, CMRS_E_LIMIT, "the GPU solver handles at "
                "most %d rows (cuBLAS 32-bit sizes); this matrix has %lld",
                INT_MAX, (long long)A->rows);
    CMRS_CHECK(check_gpu_memory(A, prec));
    cmrs_backend *be = calloc(1, sizeof *be);
    gpu_impl *g = calloc(1, sizeof *g);
    CMRS_CHECK(cmrs_alloc_both(be, g, "the GPU back end"));
    *be = (cmrs_backend){.ops = &k_gpu_ops, .impl = g, .n = A->rows,
                         .nnz = A->nnz, .prec = prec,
                         .eps = prec == CMRS_PREC_SINGLE ? FLT_EPSILON
                                                         : DBL_EPSILON};
    g->max_len = A->cols > A->rows ? A->cols : A->rows;
    cmrs_phase_push(CMRS_PHASE_ALLOCATION); /* the thread's wait: libraries */
    rc = create_handles(be, shared);
    cmrs_phase_pop();
    CMRS_TRY(rc);
    CMRS_TRY(make_format(be, A, format, &in_solver, same));
    g->parent = same;
    /* The handle, made meanwhile; the wait: the libraries phase. */
    CMRS_TRY(cmrs_gpu_libs_join(g));
    be->device_update = g->spmv->ops->value_store && g->diag_d;
    describe(be, format);
    *out = be;
done:
    if (rc != CMRS_OK) cmrs_backend_destroy(be);
    return rc;
}

cmrs_code cmrs_backend_gpu_create(const cmrs_csr *A, const char *format,
                                  cmrs_prec prec, const cmrs_spmv_opts *opts,
                                  cmrs_backend **out)
{
    return gpu_create(A, format, prec, opts, NULL, NULL, out);
}

/* A twin in prec on be's stream, in be's format with that format's
 * default options for the precision (the rules pick its layout); where A
 * is be's own matrix, made from be's device copy, its diagonal copied,
 * and its AMG's fine level taken from be (gpu_impl.parent). */
static cmrs_code twin_create(cmrs_backend *be, const cmrs_csr *A,
                             cmrs_prec prec, int values32,
                             cmrs_backend **twin)
{
    int same = A->rows == be->n && A->cols == be->n && A->nnz == be->nnz;
    cmrs_spmv_opts o = {0};
    o.values32 = values32;
    CMRS_CHECK(gpu_create(A, be->format, prec, &o, GPU(be)->stream,
                          same ? be : NULL, twin));
    return CMRS_OK;
}

cmrs_code cmrs_backend_gpu_variant(cmrs_backend *be, const cmrs_csr *A,
                                   const char *format,
                                   const cmrs_spmv_opts *opts,
                                   cmrs_backend **out)
{
    *out = NULL;
    CMRS_ENSURE(be->ops == &k_gpu_ops, CMRS_E_USAGE, "a variant of the %s "
                "back end: GPU back ends only", be->device);
    CMRS_ENSURE(A->rows == be->n && A->cols == be->n && A->nnz == be->nnz,
                CMRS_E_USAGE, "a variant of a back end is of the same matrix");
    CMRS_CHECK(gpu_create(A, format, be->prec, opts, GPU(be)->stream, be,
                          out));
    return CMRS_OK;
}

void cmrs_backend_gpu_adopt(cmrs_backend *variant, cmrs_backend *be)
{
    gpu_impl *v = GPU(variant), *g = GPU(be);
    v->have_stream = g->have_stream;
    g->have_stream = 0;
    v->parent = NULL; /* be goes: its AMG level is not the variant's */
}

static cmrs_code arr_cast(cmrs_backend *be, int64_t n, double s,
                          const void *x, cmrs_prec px, void *y, cmrs_prec py)
{
    CMRS_CHECK(cmrs_gpu_cast(n, s, x, px, y, py, GPU(be)->stream));
    return CMRS_OK;
}

cmrs_stream cmrs_backend_gpu_stream(const cmrs_backend *be)
{
    return be && be->ops == &k_gpu_ops ? GPU(be)->stream : NULL;
}
