/* The outputs of `cmrs solve`: the HDF5 result file (-o), the JSON report
 * (--json) and the summary on stdout. */
#ifndef CMRS_APP_SOLVE_REPORT_H
#define CMRS_APP_SOLVE_REPORT_H

#include "solve_cli.h"

typedef struct solve_args {
    solve_cli cli;        /* cli.opts.format: the SpMV format (GPU) */
    int format_given;
    const char *out;      /* -o: HDF5 result file, or NULL */
    const char *json;     /* --json: file, "-" or NULL */
    int64_t monitor;      /* --monitor K, 0: off */
    int quiet;
    int verbose;          /* --verbose: the setup profile's line */
} solve_args;

/* Everything one finished solve reports. */
typedef struct solve_run {
    const solve_args *args;
    const cmrs_csr *A;
    const cmrs_backend *be;
    const cmrs_precond *pc; /* hierarchy and setup phases */
    const cmrs_choice_result *choice; /* --kernel-choice measure, or NULL */
    cmrs_ksp_result res;
    double t_read, t_setup; /* seconds; the solve's own is res.t_solve */
    double t_renumber;      /* the setup's renumbering (--renumber), or -1:
                               the system kept its numbering */
    cmrs_setup_profile prof; /* --json or --verbose: setup's phases */
} solve_run;

/* Writes -o and --json to temporary names and renames them together
 * (io/outputs.h: all or none; on failure the caller discards what is
 * staged), then prints the summary unless -q or the JSON goes to stdout. */
cmrs_code solve_report_write(const solve_run *run);

/* "12 (default: ...)", "4 (--height)", "9 (--height auto: autotuned)" or "-". */
void solve_report_height(const solve_cli *c, const cmrs_backend *be,
                         char *buf, size_t n);

#endif
