/* One format measured on one matrix (bench.h): setup, one verified product,
 * CUDA-event timing, and the derived metrics of paper 000 §6.4. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "base/gpu/cuda_check.h"
#include "spmv/device.h"
#include "spmv/verify.h"
#include "warmup.h"

#define BENCH_X_SEED 20240601u

cmrs_code cmrs_bench_env_init(cmrs_bench_env *e, const cmrs_csr *A,
                              cmrs_prec prec, int warmup, int repeat,
                              double copy_bw)
{
    cmrs_code rc = CMRS_OK;
    memset(e, 0, sizeof *e);
    e->A = A;
    e->prec = prec;
    e->warmup = warmup;
    e->repeat = repeat;
    e->copy_bw = copy_bw;
    e->x_h = cmrs_malloc_array((size_t)A->cols, sizeof *e->x_h);
    if (!e->x_h) CMRS_TRY_FAIL(CMRS_E_NOMEM, "bench: cannot allocate x");
    cmrs_random_vector(e->x_h, A->cols, BENCH_X_SEED);
    CMRS_CUDA_TRY(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
    CMRS_TRY(cmrs_dev_upload_values(e->x_h, A->cols, prec, "x", &e->x_d));
    CMRS_TRY(cmrs_dev_alloc_values(A->rows, prec, &e->y_d));
done:
    if (rc != CMRS_OK) cmrs_bench_env_free(e);
    return rc;
}

void cmrs_bench_env_free(cmrs_bench_env *e)
{
    if (!e) return;
    free(e->x_h);
    cudaFree(e->x_d);
    cudaFree(e->y_d);
    if (e->stream) cudaStreamDestroy(e->stream);
    memset(e, 0, sizeof *e);
}

/* The metrics that follow from the median time and the format's sizes. */
static void derive_metrics(const cmrs_bench_env *e, const cmrs_spmv *s,
                           cmrs_bench_row *row)
{
    double t = row->t.median, flops = 2.0 * (double)s->nnz - (double)s->rows;
    row->strips = s->strips;
    row->stored_entries = s->stored_entries;
    row->device_bytes = s->device_bytes;
    row->gflops = (flops > 0 ? flops : 0) / t / 1e9; /* empty rows: no flops */
    row->beta_plus = cmrs_spmv_beta_plus(s);
    row->beta_minus = cmrs_spmv_beta_minus(s);
    row->bw_plus = row->beta_plus / t;
    row->bw_minus = row->beta_minus / t;
    row->eta_plus = row->bw_plus / e->copy_bw;
    row->eta_minus = row->bw_minus / e->copy_bw;
    row->padding = s->nnz > 0 ? (double)s->stored_entries / (double)s->nnz : NAN;
}

/* Setup, verification and timing; any failure is returned (and recorded
 * by the caller). */
static cmrs_code measure(const cmrs_bench_env *e, cmrs_spmv *s,
                         cmrs_bench_row *row)
{
    cmrs_spmv_check check;
    CMRS_CHECK(cmrs_spmv_verify(s, e->A, 1.0, e->x_h, 0.0, NULL, &check));
    row->rel_err = check.rel_err;
    row->tol = check.tol;
    if (!check.ok) row->status = CMRS_BENCH_WRONG;
    CMRS_CHECK(cmrs_time_spmv(s, e->x_d, e->y_d, e->warmup, e->repeat, &row->t));
    derive_metrics(e, s, row);
    return CMRS_OK;
}

static void init_row(const char *format, const cmrs_spmv_opts *opts,
                     cmrs_bench_row *row)
{
    memset(row, 0, sizeof *row);
    row->format = format;
    row->opts = *opts;
    row->t.median = row->t.min = row->t.max = row->t.mean = NAN;
    row->convert_s = row->convert_bytes = 0.0;
    row->gflops = row->bw_plus = row->bw_minus = NAN;
    row->eta_plus = row->eta_minus = row->padding = NAN;
    row->speedup = row->rel_err = row->tol = NAN;
}

void cmrs_bench_measure(const cmrs_bench_env *e, const char *format,
                        const cmrs_spmv_opts *opts, cmrs_bench_row *row)
{
    cmrs_spmv *s = NULL;
    init_row(format, opts, row);
    double t0 = cmrs_wtime();
    cmrs_code rc = cmrs_spmv_create(format, e->A, e->prec, opts, e->stream, &s);
    row->setup_s = cmrs_wtime() - t0;
    if (rc == CMRS_OK) {
        row->opts = s->opts;
        row->convert_s = s->convert_s;
        row->convert_bytes = s->convert_bytes;
        rc = measure(e, s, row);
    }
    cmrs_spmv_destroy(s);
    if (rc != CMRS_OK) {
        row->status = CMRS_BENCH_FAILED;
        row->error_code = rc;
        snprintf(row->error, sizeof row->error, "%s", cmrs_error_message());
        cmrs_error_clear();
    }
}

double cmrs_bench_warm_up(const cmrs_bench_env *e, const char *const *formats,
                          int n, const cmrs_spmv_opts *opts)
{
    cmrs_system tiny;
    void *x_d = NULL, *y_d = NULL;
    double t0 = cmrs_wtime();
    if (cmrs_warmup_system(CMRS_WARMUP_ROWS, &tiny) != CMRS_OK ||
        cmrs_dev_alloc_values(CMRS_WARMUP_ROWS, e->prec, &x_d) != CMRS_OK ||
        cmrs_dev_alloc_values(CMRS_WARMUP_ROWS, e->prec, &y_d) != CMRS_OK ||
        cudaMemset(x_d, 0, CMRS_WARMUP_ROWS * cmrs_prec_value_bytes(e->prec)) !=
            cudaSuccess)
        n = 0; /* nothing to warm up with: the rows will pay */
    for (int i = 0; i < n; ++i) {
        cmrs_spmv *s = NULL;
        if (cmrs_spmv_create(formats[i], &tiny.A, e->prec, opts, e->stream,
                             &s) == CMRS_OK)
            (void)cmrs_spmv_apply(s, 1.0, x_d, 0.0, y_d);
        (void)cudaStreamSynchronize(e->stream);
        cmrs_spmv_destroy(s);
        /* Each format's failure is its own row's to report, on the real
         * matrix; none may leak into the next format's checks. */
        cmrs_error_clear();
        (void)cudaGetLastError();
    }
    cmrs_error_clear();
    (void)cudaGetLastError();
    cudaFree(x_d);
    cudaFree(y_d);
    cmrs_system_free(&tiny);
    return cmrs_wtime() - t0;
}
