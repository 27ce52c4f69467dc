/* SpMV benchmarking: the measurement of one format on one matrix (one row
 * of `cmrs bench`; `cmrs sweep` repeats it over parameters) and the
 * reports (table, JSON, CSV). docs/BENCH.md describes every field. */
#ifndef CMRS_BENCH_H
#define CMRS_BENCH_H

#include <stdio.h>

#include "base/csr.h"
#include "spmv/spmv.h"
#include "spmv/timing.h"

/* What all formats of one run share: the matrix, a random x (host and
 * device), an output vector and the measured copy bandwidth. */
typedef struct cmrs_bench_env {
    const cmrs_csr *A;
    cmrs_prec prec;
    int warmup, repeat;
    double copy_bw;     /* device-to-device bytes/s (read + write) */
    cmrs_stream stream;
    double *x_h;        /* A->cols values in [-1, 1) */
    void *x_d, *y_d;    /* device vectors of prec */
} cmrs_bench_env;

typedef enum cmrs_bench_status {
    CMRS_BENCH_OK = 0,
    CMRS_BENCH_WRONG,   /* result outside the error bound: not trusted */
    CMRS_BENCH_FAILED   /* setup or apply failed: see error */
} cmrs_bench_status;

typedef struct cmrs_bench_row {
    const char *format;
    cmrs_spmv_opts opts;       /* resolved by setup (as requested if failed) */
    cmrs_bench_status status;
    cmrs_code error_code;      /* CMRS_OK unless FAILED */
    char error[512];
    int64_t strips, stored_entries;
    size_t device_bytes;
    double setup_s;            /* host wall time of setup (convert + upload);
                                  one-time initialisation excluded */
    double convert_s;          /* GPU conversion kernels within setup_s (0:
                                  the format converts on the host) */
    double convert_bytes;      /* bytes those kernels read and write */
    cmrs_timing t;             /* seconds per product */
    double gflops;             /* (2 nnz - rows) / t.median / 1e9 */
    double beta_plus, beta_minus; /* bytes per product, paper eq. (6.1) */
    double bw_plus, bw_minus;  /* beta+- / t.median, bytes/s */
    double eta_plus, eta_minus;/* bw+- / copy bandwidth */
    double padding;            /* stored_entries / nnz */
    double speedup;            /* cusparse median / this median; NaN if none */
    double rel_err, tol;       /* verification against the CPU reference */
} cmrs_bench_row;

/* Uploads a random x and allocates y for A in prec. Free with _free. */
cmrs_code cmrs_bench_env_init(cmrs_bench_env *e, const cmrs_csr *A,
                              cmrs_prec prec, int warmup, int repeat,
                              double copy_bw);
void cmrs_bench_env_free(cmrs_bench_env *e); /* NULL-safe, idempotent */

/* Sets up, verifies once and times one format. A failure of the format
 * (setup, apply, out of device memory) is recorded in row as FAILED with
 * its message and the error state is cleared: the caller goes on with the
 * next format. */
void cmrs_bench_measure(const cmrs_bench_env *e, const char *format,
                        const cmrs_spmv_opts *opts, cmrs_bench_row *row);
/* One-time initialisation: every format of the list set up on a tiny
 * matrix (warmup.h) in e's precision and stream, applied once and
 * destroyed, so context, library handles and lazily loaded kernel modules
 * are charged to no row. A format that fails there is left to fail again
 * in its own row. Returns the wall time taken. */
double cmrs_bench_warm_up(const cmrs_bench_env *e, const char *const *formats,
                          int n, const cmrs_spmv_opts *opts);
/* Fills every row's speedup over the "cusparse" row (NaN without one). */
void cmrs_bench_speedups(cmrs_bench_row *rows, int n);

/* Everything a report shows about the run besides the rows. */
typedef struct cmrs_bench_run {
    const char *file, *matrix;  /* matrix: HDF5 group or NULL */
    const char *device;
    char date[32];              /* ISO 8601 UTC */
    char cmdline[2048];
    cmrs_csr_stats stats;
    cmrs_prec prec;
    double copy_bw;
    double init_s;              /* one-time initialisation before the rows
                                   (cmrs_bench_warm_up), charged to none */
    int warmup, repeat;
    int height;                 /* the height given to every format */
    const char *height_source;  /* "--height" or "model suggestion" */
    const cmrs_bench_row *rows;
    int n_rows;
} cmrs_bench_run;

/* convert_bytes / convert_s in GB/s, NaN when the format converts on the
 * host. */
double cmrs_bench_convert_gbps(const cmrs_bench_row *w);
/* "h=6 b=128 sorted" etc.: the knobs that apply to the format. */
void cmrs_bench_describe_params(const char *format, const cmrs_spmv_opts *o,
                                char *buf, size_t n);
void cmrs_bench_print_table(FILE *f, const cmrs_bench_run *run);
void cmrs_bench_write_json(FILE *f, const cmrs_bench_run *run);
void cmrs_bench_write_csv(FILE *f, const cmrs_bench_run *run);

#endif
