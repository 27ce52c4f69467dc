/* `cmrs sweep`: parameter studies over SpMV formats and their knobs on one
 * or more matrices. sweep_args.c parses the options and expands the
 * Cartesian product into configurations, cmd_sweep.c measures them
 * (through bench.h for SpMV, the solver for solves), sweep_out.c writes
 * one CSV/JSON row per configuration as it is produced. docs/SWEEP.md
 * describes every column. */
#ifndef CMRS_APP_SWEEP_H
#define CMRS_APP_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "io/system.h"
#include "spmv/spmv.h"
#include "bench.h"
#include "app/solve/solve_cli.h"

#define SWEEP_MAX_FORMATS 16
#define SWEEP_MAX_VALUES 32 /* per swept parameter */
#define SWEEP_MAX_FILES 64
#define SWEEP_HEIGHT_AUTO (-1) /* --height auto: spmv/autotune.h decides */

typedef enum sweep_mode { SWEEP_SPMV = 0, SWEEP_SOLVE } sweep_mode;

/* One swept parameter: the values given (n == 0: the format's default). */
typedef struct sweep_values {
    int64_t v[SWEEP_MAX_VALUES];
    int n;
} sweep_values;

typedef struct sweep_args {
    solve_cli cli;           /* solve options (solve mode), --matrix */
    const char *files[SWEEP_MAX_FILES];
    int nfiles;
    const char *formats[SWEEP_MAX_FORMATS]; /* registry names */
    int nformats;
    sweep_values heights, blocks, modulos, sorted, precs;
    sweep_mode mode;
    int warmup, repeat;      /* SpMV products, or timed solves (repeat) */
    const char *csv, *json;  /* file, "-" or NULL */
    int quiet, help;
} sweep_args;

/* Parses argv (argv[0] = "sweep"); on --help sets a->help and returns. */
cmrs_code sweep_parse(int argc, char **argv, sweep_args *a);
void sweep_print_help(void);

/* One configuration: a format and the knobs that apply to it. */
typedef struct sweep_config {
    const char *format;
    cmrs_prec prec;
    cmrs_spmv_opts opts;     /* 0: format default / does not apply;
                                height SWEEP_HEIGHT_AUTO: autotuned */
} sweep_config;

/* The configurations of one precision, in output order: formats outer,
 * then height, block size, modulo, sorted. Knobs that do not apply to a
 * format are not multiplied for it. Returns the count; writes at most
 * cap (pass cap 0 to count). */
int sweep_expand(const sweep_args *a, cmrs_prec prec, sweep_config *out,
                 int cap);
/* Which knobs a format takes. */
int sweep_takes_height(const char *format);
int sweep_takes_block(const char *format);
int sweep_takes_modulo(const char *format);
int sweep_takes_sorted(const char *format);

/* One output row: a configuration on one file and what was measured.
 * Times are per SpMV product (mode spmv) or per solve (mode solve). */
typedef struct sweep_row {
    char file[1024];
    const char *mode;        /* "spmv" or "solve" */
    char format[32];
    const char *precision;
    int height, block_size, modulo, sorted; /* 0: n/a or default */
    int64_t rows, nnz;
    double mu, sigma;
    const char *status;      /* "ok", "wrong", "failed", "not-converged",
                                "breakdown" */
    char error[512];         /* reason when not ok, else "" */
    double t_median, t_min, t_max; /* seconds */
    double gflops, eta_plus, eta_minus;
    int64_t iterations;      /* solve mode, else -1 */
    double true_rel;         /* solve mode, else NaN */
    double speedup;          /* cuSPARSE time / this time, NaN if none */
    double model_accel;      /* a(h, mu) of paper 000 for CMRS, else NaN */
    int height_auto;         /* 1: height (and block size) autotuned */
    double tune_s;           /* seconds the autotuner took, else NaN */
} sweep_row;

/* Every number NaN, iterations -1, strings empty, status "failed". */
void sweep_row_init(sweep_row *r);

/* The CSV and JSON outputs, as partial results while the sweep runs:
 * CSV rows go to "<csv>.partial", flushed after every row; the JSON array
 * of row objects is rewritten atomically (temp + rename) to
 * "<json>.partial" after every row, so it is always complete and valid.
 * sweep_out_close renames both .partial files to their names together
 * (io/outputs.h: all or none). A failed or interrupted sweep keeps the
 * .partial files that hold rows and never creates <csv> or <json>. "-"
 * writes to stdout (CSV flushed per row, JSON once at close). */
typedef struct sweep_out {
    FILE *csv;
    int csv_stdout;
    char csv_path[4096], csv_partial[4120];
    int csv_slot;            /* outputs.h: <csv>.partial -> <csv>; -1 */
    const char *json_path;
    char json_partial[4120];
    int json_slot;           /* <json>.partial -> <json>; -1 */
    sweep_row *rows;         /* all rows so far (for the JSON rewrite) */
    int nrows, cap;
    int written;             /* rows given to sweep_out_row */
} sweep_out;

/* Opens the outputs (paths checked by the caller, cmrs_outputs_check,
 * with the .partial names too: sweep_out_partial_name). */
cmrs_code sweep_out_open(sweep_out *o, const char *csv, const char *json);
cmrs_code sweep_out_row(sweep_out *o, const sweep_row *r);
/* Completes the files: the .partial files become <csv> and <json>. */
cmrs_code sweep_out_close(sweep_out *o);
/* After a failure: closes; keeps the .partial files that hold rows,
 * removes the others. */
void sweep_out_abort(sweep_out *o);
/* "<path>.partial" into buf (size n). */
cmrs_code sweep_out_partial_name(const char *path, char *buf, size_t n);
void sweep_write_csv_header(FILE *f);
void sweep_write_csv_row(FILE *f, const sweep_row *r);

/* What the configurations of one file and precision share. */
typedef struct sweep_ctx {
    const sweep_args *a;
    const cmrs_system *sys;
    const char *file;
    cmrs_csr_stats stats;
    cmrs_prec prec;
    double copy_bw;          /* spmv mode: bytes/s, measured once */
    cmrs_bench_env env;      /* spmv mode: x, y and the stream */
    double ref_time;         /* cuSPARSE median time; NaN if it failed */
} sweep_ctx;

/* Measures one configuration into row (file, parameters, statistics,
 * times, status). A failing configuration is a row with status "failed"
 * and the reason; the error state is cleared. */
void sweep_measure(const sweep_ctx *c, const sweep_config *cfg,
                   sweep_row *row);
/* ctx->ref_time: cuSPARSE with its defaults, once per file x precision. */
void sweep_measure_baseline(sweep_ctx *c);

#endif
