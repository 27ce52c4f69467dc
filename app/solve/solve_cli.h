/* What `cmrs solve` and `cmrs compare` share: the options that describe a
 * solve (parsed by the library, api/options.h, as cmrs_solver_set_option
 * parses them), choosing the device, and reading the system and setting up
 * a solver through the public API (include/cmrs.h). */
#ifndef CMRS_APP_SOLVE_CLI_H
#define CMRS_APP_SOLVE_CLI_H

#include <getopt.h>

#include "api/api_internal.h"
#include "app/args.h"
#include "io/json.h"
#include "io/outputs.h"
#include "io/system.h"
#include "solver/solver.h"

typedef enum solve_device { DEV_AUTO = 0, DEV_GPU, DEV_CPU } solve_device;

/* Option ids (getopt_long `val`) of the shared options. */
enum {
    OPT_SOLVER = 1000, OPT_PRECOND, OPT_RTOL, OPT_ATOL, OPT_MAXITER,
    OPT_PRECISION, OPT_HEIGHT, OPT_BLOCK, OPT_MODULO, OPT_DEVICE,
    OPT_NEGATE, OPT_TUNE_BUDGET, OPT_ENGINE,
    OPT_CHECK_EVERY, OPT_CHEB_DEGREE, OPT_CHEB_RATIO, OPT_AMG_AGG,
    OPT_AMG_AGG_SIZE, OPT_AMG_PROLONG, OPT_AMG_THETA, OPT_AMG_SWEEPS,
    OPT_AMG_SMOOTHER, OPT_AMG_COARSE, OPT_AMG_LEVELS, OPT_AMG_FORMAT,
    OPT_PARTS, OPT_PARTITION, OPT_GPUS, OPT_REORDER, OPT_ONE_WIDTH,
    OPT_MIXED, OPT_KERNEL_CHOICE, OPT_AMG_PARTS, OPT_AMG_PARTS_LEVELS,
    OPT_RENUMBER
};

#define SOLVE_CLI_LONG_OPTIONS                                              \
    {"solver", required_argument, NULL, OPT_SOLVER},                        \
    {"precond", required_argument, NULL, OPT_PRECOND},                      \
    {"rtol", required_argument, NULL, OPT_RTOL},                            \
    {"atol", required_argument, NULL, OPT_ATOL},                            \
    {"maxiter", required_argument, NULL, OPT_MAXITER},                      \
    {"precision", required_argument, NULL, OPT_PRECISION},                  \
    {"mixed", required_argument, NULL, OPT_MIXED},                          \
    {"height", required_argument, NULL, OPT_HEIGHT},                        \
    {"block-size", required_argument, NULL, OPT_BLOCK},                     \
    {"modulo", required_argument, NULL, OPT_MODULO},                        \
    {"reorder", required_argument, NULL, OPT_REORDER},                      \
    {"one-width", required_argument, NULL, OPT_ONE_WIDTH},                  \
    {"renumber", required_argument, NULL, OPT_RENUMBER},                    \
    {"device", required_argument, NULL, OPT_DEVICE},                        \
    {"matrix", required_argument, NULL, CMRS_ARG_MATRIX},                   \
    {"rhs", required_argument, NULL, CMRS_ARG_RHS},                         \
    {"x0", required_argument, NULL, CMRS_ARG_X0},                           \
    {"negate", no_argument, NULL, OPT_NEGATE},                              \
    {"tune-budget", required_argument, NULL, OPT_TUNE_BUDGET},              \
    {"kernel-choice", required_argument, NULL, OPT_KERNEL_CHOICE},          \
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
    {"amg-format", required_argument, NULL, OPT_AMG_FORMAT},                \
    {"amg-parts", required_argument, NULL, OPT_AMG_PARTS},                  \
    {"amg-parts-levels", required_argument, NULL, OPT_AMG_PARTS_LEVELS},    \
    {"parts", required_argument, NULL, OPT_PARTS},                          \
    {"partition", required_argument, NULL, OPT_PARTITION},                  \
    {"gpus", required_argument, NULL, OPT_GPUS}

/* Help lines of the shared options (the preconditioner's last). */
extern const char *const solve_cli_help;

typedef struct solve_cli {
    const char *file;
    cmrs_opts opts;       /* the solve options (the library's parser) */
    cmrs_read_opts read;
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

/* The option loop of the commands built on solve_cli (solve, compare), so
 * that they read options alike: each option goes to solve_cli_option,
 * else to own(ctx, ...); -h sets *help and stops; then FILE. */
cmrs_code solve_cli_getopt(solve_cli *c, const char *cmd, int argc,
                           char **argv, const char *shorts,
                           const struct option *longs, cmrs_arg_take own,
                           void *ctx, int *help);

/* Checks the command's output paths (io/outputs.h) against each other and
 * the inputs: FILE, --rhs and --x0. Before any work. */
cmrs_code solve_cli_check_outputs(const solve_cli *c, const cmrs_out_arg *outs,
                                  int n);

/* The members the solve and compare reports open with: the input file,
 * the size of its matrix A, the solver and the preconditioner. */
void solve_cli_json_problem(cmrs_json *j, const solve_cli *c,
                            const cmrs_csr *A);

/* GPU or CPU for c->device: auto falls back to the CPU with a notice on
 * stderr (and takes the CPU for --parts); gpu without a GPU is
 * CMRS_E_NODEVICE. */
cmrs_code solve_cli_use_gpu(const solve_cli *c, int quiet, int *use_gpu);

/* A status of the public API as the command line's (the same numbers;
 * the message stays in the thread's error state for main to print). */
#define CMRS_API_CHECK(expr) CMRS_CHECK((cmrs_code)(expr))
#define CMRS_API_TRY(expr) CMRS_TRY((cmrs_code)(expr))

/* The context of the device use_gpu chose (GPU 0 or the CPU). */
cmrs_code solve_cli_context(int use_gpu, cmrs_context **ctx);

/* Reads c->file (square matrix, b, x0) into *A -- under mpirun (nparts >
 * 0) only block `part` of its rows (cmrs_matrix_read_rows) --, negates A
 * and b when asked, holds a note when b was made (the caller flushes the
 * notes, app/notes.h), starts the CG symmetry check on a whole matrix
 * (app/solve/symmetry.h: the caller finishes it). *t_read: seconds. */
cmrs_code solve_cli_load(const solve_cli *c, int quiet, cmrs_context *ctx,
                         int part, int nparts, cmrs_matrix **A,
                         double *t_read);

/* The engine a solve runs with: `wanted`, except that --device auto
 * without a GPU turns graph/fused into auto (the CPU loop) with a notice;
 * graph/fused with --device cpu is CMRS_E_USAGE. */
cmrs_code solve_cli_engine(const solve_cli *c, cmrs_engine wanted,
                           int use_gpu, int quiet, cmrs_engine *out);

/* A solver with options o set up for A (the height search's note on
 * stderr, as the search is part of the setup). */
cmrs_code solve_cli_setup(cmrs_context *ctx, const cmrs_opts *o,
                          cmrs_matrix *A, cmrs_solver **s);

/* b and x0 of the file (as negated with A), n doubles each, allocated. */
cmrs_code solve_cli_vectors(const cmrs_matrix *A, double **b, double **x0);

#endif
