/* The reports of cmrs bench on made-up rows (no GPU needed): speedups over
 * cuSPARSE, the WRONG and FAILED markings, "-"/null/empty for numbers that
 * do not exist, CSV quoting, parameter descriptions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/measure/bench.h"
#include "check.h"

static void fill_ok(cmrs_bench_row *w, const char *format, double t)
{
    memset(w, 0, sizeof *w);
    w->format = format;
    w->t.median = w->t.min = w->t.max = w->t.mean = t;
    w->t.reps = 100;
    w->gflops = 10;
    w->bw_plus = 2e12;
    w->bw_minus = 3e12;
    w->eta_plus = 0.6;
    w->eta_minus = 0.9;
    w->padding = 1.0;
    w->device_bytes = 12345678;
    w->rel_err = 1e-16;
    w->tol = 1e-13;
    w->speedup = NAN;
}

static void make_run(cmrs_bench_run *run, cmrs_bench_row *rows)
{
    memset(run, 0, sizeof *run);
    fill_ok(&rows[0], "cmrs", 2e-6);
    rows[0].opts = (cmrs_spmv_opts){6, 128, 0, 1, 0, 0, 0, 0, 0, 0};
    rows[0].convert_s = 1e-3;   /* 2.5e8 bytes in 1 ms: 250 GB/s */
    rows[0].convert_bytes = 2.5e8;
    fill_ok(&rows[1], "cusparse", 4e-6);
    rows[1].opts.cusparse_alg = 2;
    fill_ok(&rows[2], "csr-vector", 8e-6);
    rows[2].status = CMRS_BENCH_WRONG;
    rows[2].rel_err = 0.5;
    fill_ok(&rows[3], "cmrs-mod", NAN);
    rows[3].status = CMRS_BENCH_FAILED;
    rows[3].error_code = CMRS_E_NOMEM;
    snprintf(rows[3].error, sizeof rows[3].error, "out of \"device\" memory");
    rows[3].rel_err = rows[3].gflops = NAN;
    run->file = "m.h5";
    run->device = "Test GPU";
    run->rows = rows;
    run->n_rows = 4;
    run->height = 6;
    run->height_source = "--height";
    run->copy_bw = 3e12;
    run->init_s = 0.125;
    snprintf(run->date, sizeof run->date, "2026-01-01T00:00:00Z");
    snprintf(run->cmdline, sizeof run->cmdline, "cmrs bench m.h5");
}

/* Runs a writer into a string (caller frees). */
static char *capture(void (*writer)(FILE *, const cmrs_bench_run *),
                     const cmrs_bench_run *run)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    writer(f, run);
    fclose(f);
    return buf;
}

static void test_speedups(cmrs_bench_row *rows)
{
    cmrs_bench_speedups(rows, 4);
    CHECK(rows[0].speedup == 2 && rows[1].speedup == 1 &&
              rows[2].speedup == 0.5 && isnan(rows[3].speedup),
          "speedups %g %g %g %g", rows[0].speedup, rows[1].speedup,
          rows[2].speedup, rows[3].speedup);
    cmrs_bench_speedups(rows + 2, 2); /* no cusparse row */
    CHECK(isnan(rows[2].speedup), "speedup without cusparse");
    cmrs_bench_speedups(rows, 4);
}

static void test_table(const cmrs_bench_run *run)
{
    char *t = capture(cmrs_bench_print_table, run);
    CHECK(strstr(t, "Test GPU") && strstr(t, "3000.0 GB/s"), "header: %s", t);
    CHECK(strstr(t, "h=6 b=128 sorted") && strstr(t, "alg=2"), "params: %s", t);
    CHECK(strstr(t, "csr-vector: WRONG: relative error 0.5"), "wrong: %s", t);
    CHECK(strstr(t, "cmrs-mod: FAILED: out of \"device\" memory"), "failed: %s", t);
    CHECK(strstr(t, "2.00"), "time in us: %s", t);
    CHECK(strstr(t, "one-time initialisation (CUDA context, libraries, "
                    "kernels): 0.125 s, charged to no format"), "init: %s", t);
    CHECK(strstr(t, "250.0  ok") && strstr(t, "       -  WRONG"),
          "conversion GB/s, '-' for host conversions: %s", t);
    free(t);
}

static void test_json(const cmrs_bench_run *run)
{
    char *j = capture(cmrs_bench_write_json, run);
    CHECK(strstr(j, "\"date\": \"2026-01-01T00:00:00Z\""), "date: %s", j);
    CHECK(strstr(j, "\"status\": \"wrong\"") && strstr(j, "\"status\": \"failed\""),
          "status: %s", j);
    CHECK(strstr(j, "\"error\": \"out of \\\"device\\\" memory\""), "error: %s", j);
    CHECK(strstr(j, "\"speedup_vs_cusparse\": 2,") && strstr(j, "\"gflops\": null"),
          "numbers: %s", j);
    CHECK(strstr(j, "\"copy_bandwidth_bytes_per_s\": 3000000000000"), "bw: %s", j);
    CHECK(strstr(j, "\"init_s\": 0.125") && strstr(j, "\"convert_GBps\": 250,") &&
              strstr(j, "\"convert_GBps\": null"), "init and conversion: %s", j);
    free(j);
}

static void test_csv(const cmrs_bench_run *run)
{
    char *c = capture(cmrs_bench_write_csv, run);
    int lines = 0, header_fields = 1, row_fields = 1;
    for (char *p = c; *p; ++p) lines += *p == '\n';
    for (char *p = c; *p != '\n'; ++p) header_fields += *p == ',';
    for (char *p = strchr(c, '\n') + 1; *p != '\n'; ++p) row_fields += *p == ',';
    CHECK(lines == 5 && !strncmp(c, "format,status,", 14), "csv: %s", c);
    CHECK(header_fields == row_fields, "header %d fields, row %d", header_fields,
          row_fields);
    CHECK(strstr(c, "\"out of \"\"device\"\" memory\"\n"), "quoting: %s", c);
    CHECK(strstr(c, "\"cmrs-mod\",\"failed\",0,0,0,0,0,0,,"), "empty numbers: %s", c);
    CHECK(!strncmp(c, "format,status,height,block_size,modulo,sorted,reorder,"
                      "cusparse_alg,", 67), "reorder column: %s", c);
    CHECK(strstr(c, ",0.001,250000000,250,0.125,") && strstr(c, ",0,0,,0.125,"),
          "convert_s, convert_bytes, convert_GBps (empty for host "
          "conversions), init_s: %s", c);
    CHECK(strstr(c, ",setup_s,copy_bandwidth_bytes_per_s,mu,convert_s,"
                    "convert_bytes,convert_GBps,init_s,device_bytes,"),
          "header: %s", c);
    free(c);
}

static void test_describe(void)
{
    char buf[64];
    cmrs_spmv_opts o = {4, 256, 8, -1, 1, 0, 0, 0, 0, 0};
    cmrs_bench_describe_params("cmrs-mod", &o, buf, sizeof buf);
    CHECK(!strcmp(buf, "h=4 b=256 mod=8 unsorted"), "%s", buf);
    cmrs_spmv_opts r = {16, 128, 0, -1, 0, 0, 0, 1, 0, 0};
    cmrs_bench_describe_params("cmrs", &r, buf, sizeof buf);
    CHECK(!strcmp(buf, "h=16 b=128 unsorted reordered"), "%s", buf);
    cmrs_spmv_opts u = {16, 256, 0, -1, 0, 0, 0, -1, 1, 0};
    cmrs_bench_describe_params("cmrs", &u, buf, sizeof buf);
    CHECK(!strcmp(buf, "h=16 b=256 one-width"), "%s", buf);
    cmrs_bench_describe_params("cmrs-mod", &u, buf, sizeof buf);
    CHECK(!strcmp(buf, "h=16 b=256 mod=0 unsorted"), "only cmrs slices: %s",
          buf);
    cmrs_bench_describe_params("cmrs-mod", &r, buf, sizeof buf);
    CHECK(!strcmp(buf, "h=16 b=128 mod=0 unsorted"), "only cmrs reorders: %s",
          buf);
    cmrs_bench_describe_params("csr-scalar", &o, buf, sizeof buf);
    CHECK(!strcmp(buf, "b=256"), "%s", buf);
    cmrs_bench_describe_params("cusparse", &o, buf, sizeof buf);
    CHECK(!strcmp(buf, "alg=1"), "%s", buf);
}

int main(void)
{
    cmrs_bench_run run;
    cmrs_bench_row rows[4];
    make_run(&run, rows);
    test_speedups(rows);
    test_table(&run);
    test_json(&run);
    test_csv(&run);
    test_describe();
    return check_summary();
}
