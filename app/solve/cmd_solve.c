/* cmrs solve FILE: solve A x = b with PCG or BiCGStab on the GPU (any SpMV
 * format of the registry) or the CPU reference back end; write x and the
 * residual history (HDF5), a JSON report, and a summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/timer.h"
#include "spmv/spmv.h"
#include "app/args.h"
#include "app/notes.h"
#include "app/commands.h"
#include "gpu_probe.h"
#include "app/mpi_launch.h"
#include "dist/dist.h"
#include "symmetry.h"
#include "solve_cli.h"
#include "solve_report.h"

static const char k_usage[] =
    "usage: cmrs solve FILE [options]\n\n"
    "Solves A x = b from FILE (native/anndata/h5sparse/MATLAB HDF5 or Matrix\n"
    "Market) with preconditioned CG or BiCGStab, on the GPU or the CPU.\n"
    "Under mpirun (--bind-to none): a part of the rows per rank, on a GPU of\n"
    "its node (--device cpu: on the CPU); with --partition block (default),\n"
    "an HDF5 CSR file and double precision each rank reads only its rows\n"
    "(not with --precond amg over all rows, --amg-parts global: it reads all).\n\n"
    "options:\n"
    "  --spmv NAME           SpMV format on the GPU (default cmrs; one of\n"
    "                        %s)\n"
    "%s"
    "  -o, --output FILE     write x, the residual history and the run's\n"
    "                        attributes to FILE (HDF5)\n"
    "  --json FILE|-         write a JSON report (- = stdout, which then\n"
    "                        gets no summary)\n"
    "  --monitor K           print the relative residual every K iterations\n"
    "  -v, --verbose         print the setup profile (phases, uploaded\n"
    "                        bytes, pinned H2D floor) on one line\n"
    "  -q, --quiet           no summary, notes or progress line\n"
    "  -h, --help            this help\n\n"
    "exit codes: 0 converged, 1 not converged (maxiter), 2 bad input or\n"
    "usage, 3 breakdown or NaN/Inf, 4 GPU or runtime failure, 130/143\n"
    "interrupted by SIGINT/SIGTERM. A solve that does not converge still\n"
    "writes its outputs; a failed or interrupted one writes none. Output\n"
    "paths are checked before the file is read.\n";

enum { OPT_SPMV = 2000, OPT_JSON, OPT_MONITOR };

static const struct option k_options[] = {
    SOLVE_CLI_LONG_OPTIONS,
    {"spmv", required_argument, NULL, OPT_SPMV},
    {"output", required_argument, NULL, 'o'},
    {"json", required_argument, NULL, OPT_JSON},
    {"monitor", required_argument, NULL, OPT_MONITOR},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    CMRS_ARG_HELP_END};

static cmrs_code own_option(void *ctx, int id, const char *arg)
{
    solve_args *a = ctx;
    int64_t v = 0;
    switch (id) {
    case OPT_SPMV:
        CMRS_CHECK(cmrs_opts_set(&a->cli.opts, "spmv", arg));
        a->format_given = 1;
        return CMRS_OK;
    case 'o':
        CMRS_ENSURE(strcmp(arg, "-") != 0, CMRS_E_USAGE, "-o: the HDF5 "
                    "result cannot go to stdout (use --json - for a report)");
        a->out = arg;
        return CMRS_OK;
    case OPT_JSON: a->json = arg; return CMRS_OK;
    case OPT_MONITOR:
        CMRS_CHECK(cmrs_arg_int("--monitor", arg, 1, INT64_MAX, &v));
        a->monitor = v;
        return CMRS_OK;
    case 'q': a->quiet = 1; return CMRS_OK;
    case 'v': a->verbose = 1; return CMRS_OK;
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "solve: option %d has no handler", id);
}

static cmrs_code parse(int argc, char **argv, solve_args *a, int *help)
{
    memset(a, 0, sizeof *a);
    solve_cli_defaults(&a->cli);
    return solve_cli_getopt(&a->cli, "solve", argc, argv, "o:qvh", k_options,
                            own_option, a, help);
}

/* --monitor lines and, on a terminal, the live progress line. */
typedef struct progress {
    int64_t monitor;
    FILE *monitor_to; /* stdout, or stderr when the JSON report is there */
    int live;     /* may show the \r line */
    int shown;    /* a \r line is on screen */
    double t0, last;
} progress;

static void on_iteration(void *ctx, int64_t k, double rel)
{
    progress *p = ctx;
    if (p->monitor > 0 && k % p->monitor == 0)
        fprintf(p->monitor_to, "%8lld  relative residual %.6e\n",
                (long long)k, rel);
    if (!p->live) return;
    double now = cmrs_wtime();
    if (now - p->t0 < 1.0 || now - p->last < 0.1) return;
    printf("\r  iteration %lld  residual %.3e  %.0f it/s ", (long long)k, rel,
           (double)k / (now - p->t0));
    fflush(stdout);
    p->last = now;
    p->shown = 1;
}

static void progress_clear(progress *p)
{
    if (!p->shown) return;
    fputs("\r\033[K", stdout);
    fflush(stdout);
    p->shown = 0;
}

/* The internals the reports show, behind the public solver. */
static void fill_run(const cmrs_solver *s, solve_run *run)
{
    cmrs_solve_info info;
    (void)cmrs_solver_get_info(s, &info); /* s is not NULL: cannot fail */
    run->t_setup = info.t_setup;
    run->t_renumber = cmrs_solver_renumbered(s);
    run->res = *cmrs_solver_result(s);
    run->be = cmrs_solver_backend(s);
    run->pc = cmrs_ksp_precond(cmrs_solver_ksp(s));
    run->choice = cmrs_solver_choice(s);
    /* Recorded when asked for (option profile, set by run_solve). */
    if ((run->args->json || run->args->verbose) &&
        cmrs_solver_setup_profile(s, &run->prof) != CMRS_SUCCESS)
        run->prof.valid = 0;
}

/* Setup through the public API (back end: convert + upload; solver:
 * vectors, preconditioner), then the solve of the file's b from its x0;
 * fills the run record. */
static cmrs_code run_solve(solve_args *a, cmrs_context *ctx, cmrs_matrix *A,
                           solve_run *run, cmrs_solver **s, double **b,
                           double **x)
{
    int json_stdout = a->json && strcmp(a->json, "-") == 0;
    progress p = {a->monitor, json_stdout ? stderr : stdout, 0, 0, 0, 0};
    p.live = !a->quiet && !a->monitor && !json_stdout &&
             isatty(STDOUT_FILENO);
    a->cli.opts.solve.monitor = on_iteration;
    a->cli.opts.solve.monitor_ctx = &p;
    if (a->json || a->verbose) a->cli.opts.profile = 1; /* setup profile */
    CMRS_CHECK(solve_cli_setup(ctx, &a->cli.opts, A, s));
    const char *notice = cmrs_ksp_notice(cmrs_solver_ksp(*s));
    if (notice && !a->quiet) fprintf(stderr, "note: %s\n", notice);
    CMRS_CHECK(solve_cli_vectors(A, b, x));
    p.t0 = p.last = cmrs_wtime();
    cmrs_code rc = (cmrs_code)cmrs_solver_solve(*s, *b, *x);
    progress_clear(&p);
    CMRS_CHECK(rc);
    fill_run(*s, run);
    /* After the timed solve, for the reports that show it: where a V-cycle
     * spends its time, per level. */
    if (!a->quiet || a->json)
        CMRS_CHECK(cmrs_precond_profile(cmrs_ksp_precond(cmrs_solver_ksp(*s)),
                                        10));
    return CMRS_OK;
}

/* Under mpirun with --partition block (the default), in double, and an
 * HDF5 file in a CSR layout: each rank reads only its rows
 * (cmrs_matrix_read_rows; single precision's true residual needs them
 * all, and so does AMG's hierarchy over all rows, amg-parts global). */
static int reads_rows(const solve_args *a)
{
    const cmrs_ksp_opts *k = &a->cli.opts.solve;
    int global_amg = k->pc == CMRS_PC_AMG && k->mixed == CMRS_MIXED_OFF &&
                     k->pco.amg_parts == CMRS_AMG_PARTS_GLOBAL;
    return a->cli.opts.mpi && a->cli.opts.partition == CMRS_PART_BLOCK &&
           !global_amg &&
           a->cli.opts.prec == CMRS_PREC_DOUBLE &&
           cmrs_matrix_rows_readable(a->cli.file, a->cli.read.matrix);
}

/* After a solve by rows: the whole matrix's shape for the reports (no
 * arrays: they print its rows and entries) and x gathered on rank 0 (its
 * -o writes it: *x_all allocated there, the result pointed at it), both
 * from the partition the ranks made. */
static cmrs_code finish_rows(solve_run *run, cmrs_csr *shape, double **x_all)
{
    const cmrs_partition *pt = cmrs_backend_dist_partition(run->be);
    CMRS_ENSURE(pt && pt->by_rows, CMRS_E_INTERNAL, "a solve by rows "
                "without its partition");
    *shape = (cmrs_csr){.rows = pt->n, .cols = pt->n, .nnz = pt->nnz};
    if (app_mpi_rank() == 0) {
        *x_all = cmrs_malloc_array((size_t)pt->n, sizeof **x_all);
        CMRS_ENSURE(*x_all, CMRS_E_NOMEM, "cannot allocate x (%lld rows)",
                    (long long)pt->n);
    }
    CMRS_CHECK(app_mpi_gather_rows(run->res.x, pt->start, *x_all));
    run->res.x = *x_all;
    return CMRS_OK;
}

static cmrs_code solve_main(solve_args *a, int *exit_code)
{
    cmrs_code rc = CMRS_OK;
    cmrs_context *ctx = NULL, *host_ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL;
    double *b = NULL, *x = NULL, *x_all = NULL;
    solve_run run;
    cmrs_csr shape;
    int use_gpu = 0, by_rows = reads_rows(a);
    memset(&run, 0, sizeof run);
    run.args = a;
    /* The input is read under a CPU context while CUDA starts in a helper
     * thread (gpu_probe.h); then the device is chosen and A moves to its
     * context. */
    gpu_probe_start(a->cli.device != DEV_CPU);
    CMRS_TRY(solve_cli_context(0, &host_ctx));
    CMRS_TRY(solve_cli_load(&a->cli, a->quiet, host_ctx, app_mpi_rank(),
                            by_rows ? app_mpi_size() : 0, &A, &run.t_read));
    gpu_probe_join();
    CMRS_TRY(solve_cli_use_gpu(&a->cli, a->quiet, &use_gpu));
    CMRS_TRY(solve_cli_engine(&a->cli, a->cli.opts.solve.engine, use_gpu,
                              a->quiet, &a->cli.opts.solve.engine));
    if (use_gpu && a->cli.opts.mpi && app_mpi_cores() == 1 && !a->quiet)
        app_note("this rank may run on one CPU core only (mpirun binds "
                 "ranks to cores by default): its GPU's launches share it "
                 "with NCCL's and cmrs's helper threads; mpirun --bind-to "
                 "none ran 3x faster per iteration (docs/DISTRIBUTED.md)");
    if (!use_gpu && a->format_given && !a->quiet)
        app_note("--spmv %s applies to the GPU back end; the CPU back end "
                 "uses its CSR reference", a->cli.opts.format);
    app_notes_flush(); /* the input is good: how it will run */
    if (use_gpu) {
        CMRS_TRY(solve_cli_context(1, &ctx));
        CMRS_TRY(cmrs_api_matrix_rebind(A, ctx));
    } else {
        ctx = host_ctx;
        host_ctx = NULL;
    }
    shape = cmrs_matrix_system(A)->A;
    run.A = &shape;
    CMRS_TRY(run_solve(a, ctx, A, &run, &s, &b, &x));
    if (by_rows) CMRS_TRY(finish_rows(&run, &shape, &x_all));
    symmetry_finish(1); /* the CG warning, before the report */
    CMRS_TRY(solve_report_write(&run));
    *exit_code = cmrs_ksp_reason_exit_code(run.res.reason);
done:
    gpu_probe_join();
    symmetry_finish(0); /* a failure before setup: A must outlive it */
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    cmrs_context_destroy(host_ctx);
    free(b);
    free(x);
    free(x_all);
    return rc;
}

/* Under mpirun: a part per rank (option mpi), each on a GPU of its node
 * where the device is a GPU (--device auto with GPUs, or gpu), else on
 * the CPU back end (--device cpu, no GPU, or --parts N = the ranks);
 * rank 0 alone reports and writes the outputs. */
static cmrs_code under_mpirun(solve_args *a)
{
    int size = app_mpi_size();
    CMRS_ENSURE(a->cli.opts.gpus <= 1, CMRS_E_USAGE, "--gpus %d under "
                "mpirun: each rank takes one GPU (mpirun -np N), or one "
                "process drives several (cmrs solve --gpus N)",
                a->cli.opts.gpus);
    CMRS_ENSURE(a->cli.opts.parts == 0 || a->cli.opts.parts == size,
                CMRS_E_USAGE, "--parts %d under mpirun -np %d: one part per "
                "rank (leave --parts out)", a->cli.opts.parts, size);
    a->cli.opts.mpi = 1;
    if (app_mpi_rank() > 0) {
        a->out = NULL;
        a->json = NULL;
        a->quiet = 1;
    }
    return CMRS_OK;
}

cmrs_code cmd_solve(int argc, char **argv, int *exit_code)
{
    solve_args a;
    int help = 0;
    CMRS_CHECK(parse(argc, argv, &a, &help));
    if (help) {
        printf(k_usage, cmrs_spmv_format_names(), solve_cli_help);
        return CMRS_OK;
    }
    if (app_mpi_size() > 1) CMRS_CHECK(under_mpirun(&a));
    cmrs_out_arg outs[] = {{"-o", a.out, 0}, {"--json", a.json, 1}};
    CMRS_CHECK(solve_cli_check_outputs(&a.cli, outs, 2));
    cmrs_code rc = solve_main(&a, exit_code);
    if (rc != CMRS_OK) cmrs_outputs_discard(); /* no output, no temporary */
    CMRS_CHECK(rc);
    return CMRS_OK;
}
