/* The measurement of bench.h (bench.c: CUDA streams, events, device
 * vectors) in a build without CUDA (CMRS_CUDA=OFF). `cmrs bench` and
 * `cmrs sweep` refuse to run without a GPU before they get here; should
 * one get here, every format fails with CMRS_E_NODEVICE saying why. */
#include <stdio.h>
#include <string.h>

#include "base/device.h"
#include "app/measure/bench.h"

cmrs_code cmrs_bench_env_init(cmrs_bench_env *e, const cmrs_csr *A,
                              cmrs_prec prec, int warmup, int repeat,
                              double copy_bw)
{
    (void)A, (void)prec, (void)warmup, (void)repeat, (void)copy_bw;
    memset(e, 0, sizeof *e);
    CMRS_FAIL(CMRS_E_NODEVICE, "SpMV measurement: %s", cmrs_gpu_missing());
}

void cmrs_bench_env_free(cmrs_bench_env *e) { (void)e; }

void cmrs_bench_measure(const cmrs_bench_env *e, const char *format,
                        const cmrs_spmv_opts *opts, cmrs_bench_row *row)
{
    (void)e;
    memset(row, 0, sizeof *row);
    row->format = format;
    if (opts) row->opts = *opts;
    row->status = CMRS_BENCH_FAILED;
    row->error_code = CMRS_E_NODEVICE;
    snprintf(row->error, sizeof row->error, "%s: %s", format,
             cmrs_gpu_missing());
}

double cmrs_bench_warm_up(const cmrs_bench_env *e, const char *const *formats,
                          int n, const cmrs_spmv_opts *opts)
{
    (void)e, (void)formats, (void)n, (void)opts;
    return 0;
}
