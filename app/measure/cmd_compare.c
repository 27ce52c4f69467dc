/* cmrs compare FILE: solve the same system to the same tolerance with each
 * SpMV format (default CMRS and cuSPARSE CSR) and compare time-to-solution:
 * setup, iterations, solve time (median of --repeat after a warm-up), SpMV
 * share, time per iteration over the byte floor, speedup over cuSPARSE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/timer.h"
#include "spmv/spmv.h"
#include "app/commands.h"
#include "app/notes.h"
#include "app/solve/symmetry.h"
#include "compare.h"
#include "warmup.h"

static const char k_usage[] =
    "usage: cmrs compare FILE [options]\n\n"
    "Solves A x = b from FILE once per SpMV format, to the same tolerance,\n"
    "and compares time-to-solution against cuSPARSE CSR. Without a GPU\n"
    "(--device auto) the formats collapse to the CPU reference (cpu-csr).\n\n"
    "options:\n"
    "  --formats LIST        comma-separated SpMV formats (default\n"
    "                        cmrs,cusparse; known: %s)\n"
    "  --engines LIST        comma-separated engines, each run with every\n"
    "                        format (default auto; known: auto, cublas,\n"
    "                        graph, fused; see --engine)\n"
    "  --preconds LIST       comma-separated preconditioners, each run with\n"
    "                        every format and engine (default: --precond;\n"
    "                        known: jacobi, none, chebyshev, amg)\n"
    "  --repeat R            timed solves per row after one warm-up;\n"
    "                        the median is reported (default 3)\n"
    "%s"
    "  --json FILE|-         write the results as JSON (- = stdout)\n"
    "  --csv FILE|-          write the results as CSV (- = stdout)\n"
    "  -q, --quiet           no table or notes\n"
    "  -h, --help            this help\n\n"
    "exit codes: 0 all converged, 1 some did not (maxiter), 3 breakdown or\n"
    "NaN/Inf, 2 bad input or usage, 4 GPU or runtime failure, 130/143\n"
    "interrupted by SIGINT/SIGTERM (then no output file is written).\n";

/* One warm-up solve, then `repeat` timed ones, each from the file's x0:
 * the median solve time. */
static cmrs_code time_solves(const compare_run *run, cmrs_solver *s,
                             compare_row *row)
{
    double t[1000];
    const cmrs_ksp_result *r = NULL;
    const cmrs_backend *be = cmrs_solver_backend(s);
    for (int i = -1; i < (int)run->args->repeat; ++i) {
        memcpy(run->x, run->x0, (size_t)be->n * sizeof *run->x);
        CMRS_API_CHECK(cmrs_solver_solve(s, run->b, run->x));
        r = cmrs_solver_result(s);
        if (i >= 0) t[i] = r->t_solve;
    }
    row->t_solve = cmrs_median(t, (int)run->args->repeat);
    row->reason = r->reason;
    row->iterations = r->iterations;
    row->true_rel = r->true_rel;
    row->t_iter = row->t_solve / (double)(r->iterations ? r->iterations : 1);
    snprintf(row->engine, sizeof row->engine, "%s",
             cmrs_engine_label(r->engine, be));
    return CMRS_OK;
}

/* The SpMV's share of row's solve: products per iteration (CG 1,
 * BiCGStab 2) plus the initial residual's. */
static void spmv_share(const compare_args *a, double t_spmv, compare_row *row)
{
    double per_it = a->cli.opts.solve.method == CMRS_METHOD_BICGSTAB ? 2.0
                                                                     : 1.0;
    double products = per_it * (double)row->iterations + 1.0;
    row->t_spmv = t_spmv;
    row->spmv_share = row->t_solve > 0 ? t_spmv * products / row->t_solve
                                       : 0.0;
}

/* The format's measurements every row of it shares (SpMV time; the copy
 * bandwidth with the first back end of the run), on the first row's. */
static cmrs_code measure_once(compare_run *run, cmrs_solver *s, int first,
                              double *t_spmv)
{
    cmrs_backend *be = cmrs_solver_backend(s);
    CMRS_CHECK(cmrs_backend_time_spmv_of(be, run->b, 20, t_spmv));
    if (first && !run->warm_up) {
        CMRS_CHECK(be->ops->copy_bandwidth(be, &run->copy_bw));
        snprintf(run->device, sizeof run->device, "%s", be->device);
    }
    return CMRS_OK;
}

/* One row: the solver s, set up with options o (its setup time counts the
 * format's back end, which the rows of a format share), then its solves. */
static cmrs_code measure_row(compare_run *run, const cmrs_opts *o,
                             cmrs_solver *s, compare_row *row)
{
    cmrs_solve_info info;
    snprintf(row->precond, sizeof row->precond, "%s",
             cmrs_pc_name(o->solve.pc));
    CMRS_API_CHECK(cmrs_solver_get_info(s, &info));
    row->t_setup = info.t_setup;
    snprintf(row->format, sizeof row->format, "%s", info.format);
    snprintf(row->precision, sizeof row->precision, "%s", info.precision);
    row->height = info.height;
    if (o->profile &&
        cmrs_solver_setup_profile(s, &row->prof) != CMRS_SUCCESS)
        row->prof.valid = 0; /* a diagnostic: the row still counts */
    CMRS_CHECK(time_solves(run, s, row));
    return CMRS_OK;
}

/* Every engine x preconditioner of one format: one back end (converted,
 * uploaded and, with --height auto, searched once), a new Krylov solver on
 * it per row. */
static cmrs_code measure_format(compare_run *run, cmrs_matrix *A,
                                const char *format)
{
    cmrs_code rc = CMRS_OK;
    const compare_args *a = run->args;
    cmrs_solver *s = NULL;
    cmrs_opts o = a->cli.opts;
    double t_spmv = 0.0;
    int first = run->nrows == 0;
    int engines = run->use_gpu ? a->nengines : 1;
    snprintf(o.format, sizeof o.format, "%s", format);
    /* --json: each row's setup profile (its phase boundaries synchronise
     * the GPU, as `solve --json`'s do). */
    o.profile = a->json != NULL;
    for (int k = 0; k < engines * a->npreconds; ++k) {
        compare_row *row = &run->rows[run->nrows];
        o.solve.engine = run->engines[k / a->npreconds];
        o.solve.pc = a->preconds[k % a->npreconds];
        if (k == 0) CMRS_TRY(solve_cli_setup(run->ctx, &o, A, &s));
        else CMRS_API_TRY(cmrs_solver_new_ksp(s, &o.solve));
        CMRS_TRY(measure_row(run, &o, s, row));
        if (k == 0) CMRS_TRY(measure_once(run, s, first, &t_spmv));
        spmv_share(a, t_spmv, row);
        run->nrows++;
    }
done:
    cmrs_solver_destroy(s);
    return rc;
}

/* Every format in turn (one back end alive at a time: device memory). */
static cmrs_code measure_all(compare_run *run, cmrs_matrix *A)
{
    const compare_args *a = run->args;
    int n = run->use_gpu ? a->nformats : 1;
    if (!run->use_gpu && !a->quiet)
        fprintf(stderr, "note: no GPU: the formats and engines collapse to "
                "the CPU reference back end (one row, cpu-csr)\n");
    for (int i = 0; i < n; ++i)
        CMRS_CHECK(measure_format(run, A, a->formats[i]));
    return CMRS_OK;
}

/* The system's b and x0, and x, for run's solves (each freed by
 * run_vectors_free). */
static cmrs_code run_vectors(compare_run *run, cmrs_matrix *A)
{
    double *b = NULL, *x0 = NULL;
    cmrs_code rc = solve_cli_vectors(A, &b, &x0);
    run->b = b;
    run->x0 = x0;
    run->x = cmrs_malloc_array((size_t)cmrs_matrix_rows(A), sizeof *run->x);
    CMRS_CHECK(rc);
    CMRS_ENSURE(run->x, CMRS_E_NOMEM, "cannot allocate x");
    return CMRS_OK;
}

static void run_vectors_free(compare_run *run)
{
    CMRS_FREE_ALL((double *)run->b, (double *)run->x0, run->x);
}

/* One-time initialisation (warmup.h): every format with every engine
 * solves the tiny system once through measure_format, the code the rows
 * run, so the first timed row pays no context creation, library loading
 * or lazily loaded kernel module. The pass is quiet, solves once after its
 * own warm-up solve, tunes no height (the search on the real matrix is
 * the CMRS row's own setup) and measures no copy bandwidth. A format that
 * fails here is left to fail in its own row, on the real matrix, with
 * that matrix's error: its error here is cleared, not returned. */
static cmrs_code warm_up(compare_run *run)
{
    cmrs_code rc = CMRS_OK;
    cmrs_system tiny;
    cmrs_matrix *A = NULL;
    compare_args *wa = NULL;
    compare_run *w = NULL;
    double t0 = cmrs_wtime();
    run->t_init = 0.0;
    if (!run->use_gpu) return CMRS_OK;
    memset(&tiny, 0, sizeof tiny);
    CMRS_TRY(cmrs_warmup_system(CMRS_WARMUP_ROWS, &tiny));
    CMRS_API_TRY(cmrs_matrix_adopt(run->ctx, &tiny, "warm-up", &A));
    wa = malloc(sizeof *wa);
    w = calloc(1, sizeof *w);
    if (!wa || !w)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate the warm-up run");
    *wa = *run->args;
    wa->quiet = 1;
    wa->repeat = 1;
    wa->cli.opts.tune_height = 0;
    *w = *run;
    w->args = wa;
    w->A = &cmrs_matrix_system(A)->A;
    w->nrows = 0;
    w->warm_up = 1;
    CMRS_TRY(run_vectors(w, A));
    for (int i = 0; i < wa->nformats; ++i) {
        if (measure_format(w, A, wa->formats[i]) == CMRS_OK) continue;
        cmrs_error_clear();
        cmrs_gpu_clear_error(); /* a launch error is not the next one's */
    }
    run->t_init = cmrs_wtime() - t0;
done:
    if (w) run_vectors_free(w);
    free(w);
    free(wa);
    cmrs_matrix_destroy(A);
    cmrs_system_free(&tiny);
    return rc;
}

/* The worst outcome decides the exit code: breakdown over maxits. */
static int exit_code_of(const compare_run *run)
{
    int worst = CMRS_EXIT_OK;
    for (int i = 0; i < run->nrows; ++i) {
        int e = cmrs_ksp_reason_exit_code(run->rows[i].reason);
        if (e > worst) worst = e;
    }
    return worst;
}

/* The input, on a GPU into page-locked memory: every row uploads A, and
 * from there each upload runs at the DMA's speed (on an H200 at 5M rows
 * 0.006 s instead of 0.028 s a row, for 0.07 s more read: docs/API.md
 * "Uploads"). CMRS_PINNED_READ=0 reads into malloc'd memory. */
static cmrs_code load(const compare_args *a, compare_run *run, cmrs_matrix **A)
{
    solve_cli cli = a->cli;
    const char *pin = getenv("CMRS_PINNED_READ");
    cli.read.pinned_matrix = run->use_gpu && !(pin && strcmp(pin, "0") == 0);
    return solve_cli_load(&cli, a->quiet, run->ctx, 0, 0, A, &run->t_read);
}

static cmrs_code compare_main(const compare_args *a, int *exit_code)
{
    cmrs_code rc = CMRS_OK;
    cmrs_matrix *A = NULL;
    compare_run run;
    memset(&run, 0, sizeof run);
    run.args = a;
    run.prec = a->cli.opts.prec;
    CMRS_CHECK(solve_cli_use_gpu(&a->cli, a->quiet, &run.use_gpu));
    for (int e = 0; e < a->nengines; ++e)
        CMRS_CHECK(solve_cli_engine(&a->cli, a->engines[e], run.use_gpu,
                                    a->quiet || e > 0, &run.engines[e]));
    CMRS_CHECK(solve_cli_context(run.use_gpu, &run.ctx));
    CMRS_TRY(load(a, &run, &A));
    app_notes_flush(); /* the input is good: how it will run */
    CMRS_TRY(warm_up(&run));
    run.A = &cmrs_matrix_system(A)->A;
    CMRS_TRY(run_vectors(&run, A));
    CMRS_TRY(measure_all(&run, A));
    symmetry_finish(1); /* the CG warning, before the report */
    compare_finish(&run);
    CMRS_TRY(compare_report(&run));
    *exit_code = exit_code_of(&run);
done:
    symmetry_finish(0); /* a failure before setup: A must outlive it */
    run_vectors_free(&run);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(run.ctx);
    return rc;
}

cmrs_code cmd_compare(int argc, char **argv, int *exit_code)
{
    compare_args a;
    int help = 0;
    CMRS_CHECK(compare_parse(argc, argv, &a, &help));
    if (help) {
        printf(k_usage, cmrs_spmv_format_names(), solve_cli_help);
        return CMRS_OK;
    }
    cmrs_out_arg outs[] = {{"--json", a.json, 1}, {"--csv", a.csv, 1}};
    CMRS_CHECK(solve_cli_check_outputs(&a.cli, outs, 2));
    cmrs_code rc = compare_main(&a, exit_code);
    if (rc != CMRS_OK) cmrs_outputs_discard(); /* no output, no temporary */
    CMRS_CHECK(rc);
    return CMRS_OK;
}
