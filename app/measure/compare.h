/* `cmrs compare`: time-to-solution of several SpMV formats on one system
 * (cmd_compare.c measures, compare_report.c prints the table and writes
 * JSON/CSV). */
#ifndef CMRS_APP_COMPARE_H
#define CMRS_APP_COMPARE_H

#include "app/solve/solve_cli.h"

#define COMPARE_MAX_FORMATS 16
#define COMPARE_MAX_ENGINES 4
#define COMPARE_MAX_ROWS \
    (COMPARE_MAX_FORMATS * COMPARE_MAX_ENGINES * CMRS_PC_COUNT)

typedef struct compare_args {
    solve_cli cli;
    char list[256];                            /* --formats, split in place */
    const char *formats[COMPARE_MAX_FORMATS];
    int nformats;
    cmrs_engine engines[COMPARE_MAX_ENGINES];  /* --engines */
    int nengines;
    cmrs_pc preconds[CMRS_PC_COUNT];           /* --preconds (default: the
                                                  --precond value) */
    int npreconds;
    int64_t repeat;                            /* timed solves per format */
    const char *json, *csv;                    /* file, "-" or NULL */
    int quiet;
} compare_args;

/* One format x engine's measurements. */
typedef struct compare_row {
    char format[32];
    char engine[16];
    char precond[16];
    char precision[8];       /* what the row ran: "mixed" only where
                                --precision mixed applied (auto: jacobi
                                and none stay "double") */
    int height;              /* 0: not a CMRS format */
    cmrs_ksp_reason reason;
    int64_t iterations;
    double t_setup;          /* cmrs_solver_setup of the row: back end
                                (stream, cuBLAS handle, pinned scalar, the
                                format's conversion and upload; --height
                                auto: the search, once per format, added to
                                each of its rows) + solver setup (vectors,
                                history, preconditioner), s; b and x0 are
                                uploaded before each solve, in neither time;
                                one-time initialisation (t_init) excluded */
    double t_solve;          /* median over the timed solves, s */
    double t_iter;           /* t_solve / iterations */
    double t_spmv;           /* median time of one SpMV, s */
    double spmv_share;       /* SpMV time within the solve, 0..1 */
    double true_rel;         /* ||b - A x|| / ||b|| */
    double speedup;          /* cuSPARSE solve time / this one, same engine
                                (0: no such row) */
    double speedup_total;    /* same with setup included */
    double over_floor;       /* t_iter / byte-floor time of an iteration */
    cmrs_setup_profile prof; /* --json: the row's setup by phase (its
                                backend_reused: a later row of a format,
                                whose back end the first row made) */
} compare_row;

typedef struct compare_run {
    const compare_args *args;
    const cmrs_csr *A;
    cmrs_context *ctx;       /* the device every row runs on */
    const double *b, *x0;    /* the system's (n each) */
    double *x;               /* n: each solve's x0 in, solution out */
    int use_gpu;
    char device[128];
    cmrs_prec prec;
    cmrs_engine engines[COMPARE_MAX_ENGINES]; /* --engines, resolved for the
                                                 device once */
    double copy_bw;          /* bytes read + written per second */
    double t_read;           /* the file read (page-locked on a GPU), s */
    double t_init;           /* one-time initialisation (warmup.h), s: in
                                no row's setup_s */
    int warm_up;             /* 1: the untimed warm-up pass on the tiny
                                system (measures no copy bandwidth) */
    double floor_bytes;      /* one iteration's unavoidable traffic */
    compare_row rows[COMPARE_MAX_ROWS];
    int nrows;
} compare_run;

/* Parses the command line (compare_args.c); *help = 1 for -h. */
cmrs_code compare_parse(int argc, char **argv, compare_args *a, int *help);

/* Speedups over the cusparse row of the same engine and times over the
 * byte floor. */
void compare_finish(compare_run *run);
/* Table on stdout (unless quiet or a report goes to stdout), then
 * --json and --csv. */
cmrs_code compare_report(const compare_run *run);

#endif
