/* The strip-height autotuner (autotune.h; the order of the heights it
 * tries: measure_host.c). */
#include "autotune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "device.h"
#include "model.h"
#include "timing.h"

#define TUNE_WARMUP 3
#define TUNE_REPS 30 /* median of 30 products: a few % noise */

/* Sets up and times one candidate; *t = NaN when it fails. */
static void try_candidate(const cmrs_csr *A, const char *format,
                          cmrs_prec prec, const cmrs_spmv_opts *o,
                          const void *x_d, void *y_d, double *t)
{
    cmrs_spmv *s = NULL;
    cmrs_timing tm;
    *t = NAN;
    if (cmrs_spmv_create(format, A, prec, o, 0, &s) == CMRS_OK &&
        cmrs_time_spmv(s, x_d, y_d, TUNE_WARMUP, TUNE_REPS, &tm) == CMRS_OK)
        *t = tm.median;
    else
        cmrs_error_clear(); /* a candidate may not fit: try the next */
    cmrs_spmv_destroy(s);
}

/* The candidates in order until the budget is spent. */
static void search(const cmrs_csr *A, const char *format, cmrs_prec prec,
                   const cmrs_spmv_opts *base, double budget_s,
                   const void *x_d, void *y_d, cmrs_tune_result *out)
{
    static const int blocks[] = {128, 256};
    int heights[16], nb = base->block_size ? 1 : 2;
    double t0 = cmrs_wtime(), mu = A->rows ? (double)A->nnz / (double)A->rows : 0;
    cmrs_tune_height_order(mu, heights);
    if (strcmp(format, "cmrs-mod") == 0) { /* its own default, 16, first */
        for (int i = 15; i > 0; --i)
            if (heights[i] == 16) heights[i] = heights[i - 1], heights[i - 1] = 16;
    }
    for (int i = 0; i < 16 * nb; ++i) {
        if (out->tried > 0 && cmrs_wtime() - t0 > budget_s) break;
        cmrs_spmv_opts o = *base;
        o.height = heights[i / nb];
        o.block_size = base->block_size ? base->block_size : blocks[i % nb];
        double t;
        try_candidate(A, format, prec, &o, x_d, y_d, &t);
        out->tried++;
        if (isnan(t) || t >= out->time_s) continue; /* NaN >= : false */
        out->time_s = t;
        out->height = o.height;
        out->block_size = o.block_size;
        out->fell_back = 0;
    }
}

cmrs_code cmrs_autotune(const cmrs_csr *A, const char *format, cmrs_prec prec,
                        const cmrs_spmv_opts *base, double budget_s,
                        cmrs_tune_result *out)
{
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    double t0 = cmrs_wtime();
    memset(out, 0, sizeof *out);
    out->height = cmrs_default_height(A->rows ? (double)A->nnz / (double)A->rows : 0);
    out->block_size = base->block_size;
    out->time_s = NAN;
    out->fell_back = 1;
    /* x = 0: the time of a product does not depend on the values. */
    CMRS_TRY(cmrs_dev_alloc_values(A->cols, prec, &x_d));
    CMRS_CUDA_TRY(cudaMemset(x_d, 0, (size_t)A->cols * cmrs_prec_value_bytes(prec)));
    CMRS_TRY(cmrs_dev_alloc_values(A->rows, prec, &y_d));
    search(A, format, prec, base, budget_s, x_d, y_d, out);
done:
    cmrs_dev_free(x_d);
    cmrs_dev_free(y_d);
    out->cost_s = cmrs_wtime() - t0;
    return rc;
}
