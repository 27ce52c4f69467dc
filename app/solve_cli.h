/* What `cmrs solve` and `cmrs compare` share: the options that describe a
 * solve (parsed the same way in both), reading the system, choosing the
 * device, and building a back end. */
#ifndef CMRS_APP_SOLVE_CLI_H
#define CMRS_APP_SOLVE_CLI_H

#include <getopt.h>

#include "../io/system.h"
#include "../solver/solver.h"

typedef enum solve_device { DEV_AUTO = 0, DEV_GPU, DEV_CPU } solve_device;

/* Option ids (getopt_long `val`) of the shared options. */
enum {
    OPT_SOLVER = 1000, OPT_PRECOND, OPT_RTOL, OPT_ATOL, OPT_MAXITER,
    OPT_PRECISION, OPT_HEIGHT, OPT_BLOCK, OPT_MODULO, OPT_DEVICE,
    OPT_MATRIX, OPT_RHS, OPT_X0, OPT_NEGATE, OPT_TUNE_BUDGET, OPT_ENGINE,
    OPT_CHECK_EVERY, OPT_CHEB_DEGREE, OPT_CHEB_RATIO, OPT_AMG_AGG,
    OPT_AMG_AGG_SIZE, OPT_AMG_PROLONG, OPT_AMG_THETA, OPT_AMG_SWEEPS,
    OPT_AMG_SMOOTHER, OPT_AMG_COARSE, OPT_AMG_LEVELS, OPT_AMG_FORMAT
};

#define SOLVE_CLI_LONG_OPTIONS                                              \
    {"solver", required_argument, NULL, OPT_SOLVER},                        \
    {"precond", required_argument, NULL, OPT_PRECOND},                      \
    {"rtol", required_argument, NULL, OPT_RTOL},                            \
    {"atol", required_argument, NULL, OPT_ATOL},                            \
    {"maxiter", required_argument, NULL, OPT_MAXITER},                      \
    {"precision", required_argument, NULL, OPT_PRECISION},                  \
    {"height", required_argument, NULL, OPT_HEIGHT},                        \
    {"block-size", required_argument, NULL, OPT_BLOCK},                     \
    {"modulo", required_argument, NULL, OPT_MODULO},                        \
    {"device", required_argument, NULL, OPT_DEVICE},                        \
    {"matrix", required_argument, NULL, OPT_MATRIX},                        \
    {"rhs", required_argument, NULL, OPT_RHS},                              \
    {"x0", required_argument, NULL, OPT_X0},                                \
    {"negate", no_argument, NULL, OPT_NEGATE},                              \
    {"tune-budget", required_argument, NULL, OPT_TUNE_BUDGET},              \
    {"engine", required_argument, NULL, OPT_ENGINE},                        \
    {"check-every", required_argument, NULL, OPT_CHECK_EVERY},              \
    {"cheb-degree", required_argument, NULL, OPT_CHEB_DEGREE},              \
    {"cheb-ratio", required_argument, NULL, OPT_CHEB_RATIO},                \
    {"amg-agg", required_argument, NULL, OPT_AMG_AGG},                      \
    {"amg-agg-size", required_argument, NULL, OPT_AMG_AGG_SIZE},            \
    {"amg-prolong", required_argument, NULL, OPT_AMG_PROLONG},              \
    {"amg-theta", required_argument, NULL, OPT_AMG_THETA},                  \
    {"amg-sweeps", required_argument, NULL, OPT_AMG_SWEEPS},                \
    {"amg-smoother", required_argument, NULL, OPT_AMG_SMOOTHER},            \
    {"amg-coarse", required_argument, NULL, OPT_AMG_COARSE},                \
    {"amg-levels", required_argument, NULL, OPT_AMG_LEVELS},                \
    {"amg-format", required_argument, NULL, OPT_AMG_FORMAT}

/* Help lines of the shared options (the preconditioner's last). */
extern const char *const solve_cli_help;

/* The preconditioner options (pc_cli.c): *handled = 0 for other ids. */
cmrs_code pc_cli_option(cmrs_pc_opts *o, int id, const char *arg,
                        int *handled);

typedef struct solve_cli {
    const char *file;
    cmrs_ksp_opts solve;
    cmrs_read_opts read;
    cmrs_spmv_opts spmv;  /* height 0 = cmrs_default_height */
    int tune_height;      /* --height auto: spmv/autotune.h on the GPU */
    double tune_budget;   /* --tune-budget: seconds for that search */
    cmrs_prec prec;
    solve_device device;
    int negate;           /* solve -A x = -b */
} solve_cli;

void solve_cli_defaults(solve_cli *c);
/* Applies shared option `id`; *handled = 0 when id is not one of them. */
cmrs_code solve_cli_option(solve_cli *c, int id, const char *arg,
                           int *handled);
/* Takes the one positional FILE argument after getopt. */
cmrs_code solve_cli_file(solve_cli *c, const char *cmd, int argc,
                         char **argv);

/* GPU or CPU for c->device: auto falls back to the CPU with a notice on
 * stderr; gpu without a GPU is CMRS_E_NODEVICE. */
cmrs_code solve_cli_use_gpu(const solve_cli *c, int quiet, int *use_gpu);

/* Reads c->file (square matrix, b, x0), negates when asked, warns on
 * stderr when CG is asked for a nonsymmetric matrix. *t_read: seconds. */
cmrs_code solve_cli_load(const solve_cli *c, int quiet, cmrs_system *sys,
                         double *t_read);

/* The engine a solve runs with: `wanted`, except that --device auto
 * without a GPU turns graph/fused into auto (the CPU loop) with a notice;
 * graph/fused with --device cpu is CMRS_E_USAGE. */
cmrs_code solve_cli_engine(const solve_cli *c, cmrs_engine wanted,
                           int use_gpu, int quiet, cmrs_engine *out);

/* A back end for A: the GPU with `format`, or the CPU reference. */
cmrs_code solve_cli_backend(const solve_cli *c, const cmrs_csr *A,
                            int use_gpu, const char *format,
                            cmrs_backend **be);

/* Whether `format` takes a strip height (the CMRS formats). */
int solve_cli_has_height(const char *format);

#endif
