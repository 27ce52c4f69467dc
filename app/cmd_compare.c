/* cmrs compare FILE: solve the same system to the same tolerance with each
 * SpMV format (default CMRS and cuSPARSE CSR) and compare time-to-solution:
 * setup, iterations, solve time (median of --repeat after a warm-up), SpMV
 * share, time per iteration over the byte floor, speedup over cuSPARSE. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/timer.h"
#include "../spmv/spmv.h"
#include "args.h"
#include "commands.h"
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
    "NaN/Inf, 2 bad input or usage, 4 GPU or runtime failure.\n";

enum { OPT_FORMATS = 2000, OPT_ENGINES, OPT_PRECONDS, OPT_REPEAT, OPT_JSON,
       OPT_CSV };

static const struct option k_options[] = {
    SOLVE_CLI_LONG_OPTIONS,
    {"formats", required_argument, NULL, OPT_FORMATS},
    {"engines", required_argument, NULL, OPT_ENGINES},
    {"preconds", required_argument, NULL, OPT_PRECONDS},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Splits a copy of text at commas into a->formats, each a known format. */
static cmrs_code parse_formats(compare_args *a, const char *text)
{
    CMRS_ENSURE(strlen(text) < sizeof a->list, CMRS_E_USAGE,
                "--formats: list too long");
    strcpy(a->list, text);
    a->nformats = 0;
    char *save = NULL;
    for (char *t = strtok_r(a->list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        CMRS_ENSURE(cmrs_spmv_format_find(t), CMRS_E_USAGE, "--formats: "
                    "unknown format '%s' (known: %s)", t,
                    cmrs_spmv_format_names());
        CMRS_ENSURE(a->nformats < COMPARE_MAX_FORMATS, CMRS_E_USAGE,
                    "--formats: more than %d formats", COMPARE_MAX_FORMATS);
        a->formats[a->nformats++] = t;
    }
    CMRS_ENSURE(a->nformats > 0, CMRS_E_USAGE, "--formats: empty list");
    return CMRS_OK;
}

/* An item of an enum list: its value, or CMRS_E_USAGE naming the known
 * ones. */
typedef cmrs_code (*list_item_fn)(const char *text, int *value);

static cmrs_code engine_item(const char *text, int *value)
{
    cmrs_engine e;
    CMRS_CHECK(cmrs_engine_parse(text, &e));
    *value = (int)e;
    return CMRS_OK;
}

static cmrs_code precond_item(const char *text, int *value)
{
    cmrs_pc pc;
    CMRS_CHECK(cmrs_pc_parse(text, &pc));
    *value = (int)pc;
    return CMRS_OK;
}

/* Splits text at commas into at most cap values (no repeats, not empty);
 * `opt` names the option in messages. */
static cmrs_code parse_list(const char *opt, const char *text,
                            list_item_fn parse, int cap, int *values, int *n)
{
    char list[64], *save = NULL;
    CMRS_ENSURE(strlen(text) < sizeof list, CMRS_E_USAGE,
                "%s: list too long", opt);
    strcpy(list, text);
    *n = 0;
    for (char *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int v = 0;
        CMRS_CHECK(parse(t, &v));
        for (int i = 0; i < *n; ++i)
            CMRS_ENSURE(values[i] != v, CMRS_E_USAGE, "%s: '%s' given twice",
                        opt, t);
        CMRS_ENSURE(*n < cap, CMRS_E_USAGE, "%s: more than %d values", opt,
                    cap);
        values[(*n)++] = v;
    }
    CMRS_ENSURE(*n > 0, CMRS_E_USAGE, "%s: empty list", opt);
    return CMRS_OK;
}

static cmrs_code parse_engines(compare_args *a, const char *text)
{
    int v[COMPARE_MAX_ENGINES];
    CMRS_CHECK(parse_list("--engines", text, engine_item, COMPARE_MAX_ENGINES,
                          v, &a->nengines));
    for (int i = 0; i < a->nengines; ++i) a->engines[i] = (cmrs_engine)v[i];
    return CMRS_OK;
}

static cmrs_code parse_preconds(compare_args *a, const char *text)
{
    int v[CMRS_PC_COUNT];
    CMRS_CHECK(parse_list("--preconds", text, precond_item, CMRS_PC_COUNT, v,
                          &a->npreconds));
    for (int i = 0; i < a->npreconds; ++i) a->preconds[i] = (cmrs_pc)v[i];
    return CMRS_OK;
}

static cmrs_code own_option(compare_args *a, int id, const char *arg)
{
    switch (id) {
    case OPT_FORMATS: return parse_formats(a, arg);
    case OPT_ENGINES: return parse_engines(a, arg);
    case OPT_PRECONDS: return parse_preconds(a, arg);
    case OPT_REPEAT:
        return cmrs_arg_int("--repeat", arg, 1, 1000, &a->repeat);
    case OPT_JSON: a->json = arg; return CMRS_OK;
    case OPT_CSV: a->csv = arg; return CMRS_OK;
    case 'q': a->quiet = 1; return CMRS_OK;
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "compare: option %d has no handler", id);
}

static cmrs_code parse(int argc, char **argv, compare_args *a, int *help)
{
    memset(a, 0, sizeof *a);
    solve_cli_defaults(&a->cli);
    a->repeat = 3;
    *help = 0;
    CMRS_CHECK(parse_formats(a, "cmrs,cusparse"));
    CMRS_CHECK(parse_engines(a, "auto"));
    optind = 0;
    opterr = 0;
    int id;
    while ((id = getopt_long(argc, argv, "qh", k_options, NULL)) != -1) {
        int handled = 0;
        if (id == 'h') {
            *help = 1;
            return CMRS_OK;
        }
        if (id == '?' || id == ':')
            return cmrs_arg_unknown("compare", argc, argv, optopt);
        CMRS_CHECK(solve_cli_option(&a->cli, id, optarg, &handled));
        if (!handled) CMRS_CHECK(own_option(a, id, optarg));
    }
    CMRS_CHECK(solve_cli_file(&a->cli, "compare", argc, argv));
    if (a->npreconds == 0) {
        a->preconds[0] = a->cli.solve.pc;
        a->npreconds = 1;
    }
    return CMRS_OK;
}

/* One warm-up solve, then `repeat` timed ones: the median solve time. */
static cmrs_code time_solves(const compare_args *a, const cmrs_backend *be,
                             cmrs_ksp *s, compare_row *row)
{
    double t[1000];
    cmrs_ksp_result r;
    CMRS_CHECK(cmrs_ksp_solve(s, &r));
    for (int i = 0; i < (int)a->repeat; ++i) {
        CMRS_CHECK(cmrs_ksp_solve(s, &r));
        t[i] = r.t_solve;
    }
    row->t_solve = cmrs_median(t, (int)a->repeat);
    row->reason = r.reason;
    row->iterations = r.iterations;
    row->true_rel = r.true_rel;
    row->t_iter = row->t_solve / (double)(r.iterations ? r.iterations : 1);
    snprintf(row->engine, sizeof row->engine, "%s",
             cmrs_engine_label(r.engine, be));
    return CMRS_OK;
}

/* Median time of one SpMV y = A b (20 products): the format's, the same
 * for every engine. */
static cmrs_code time_spmv(cmrs_backend *be, const double *b, double *t_spmv)
{
    cmrs_code rc = CMRS_OK;
    cmrs_vec *x = NULL, *y = NULL;
    CMRS_TRY(be->ops->vec_create(be, &x));
    CMRS_TRY(be->ops->vec_create(be, &y));
    CMRS_TRY(be->ops->vec_set(be, x, b));
    CMRS_TRY(be->ops->time_spmv(be, x, y, 20, t_spmv));
done:
    be->ops->vec_destroy(be, x);
    be->ops->vec_destroy(be, y);
    return rc;
}

/* The SpMV's share of row's solve: products per iteration (CG 1,
 * BiCGStab 2) plus the initial residual's. */
static void spmv_share(const compare_args *a, double t_spmv, compare_row *row)
{
    double per_it = a->cli.solve.method == CMRS_METHOD_BICGSTAB ? 2.0 : 1.0;
    double products = per_it * (double)row->iterations + 1.0;
    row->t_spmv = t_spmv;
    row->spmv_share = row->t_solve > 0 ? t_spmv * products / row->t_solve
                                       : 0.0;
}

/* One engine on back end be (built in t_backend seconds): solver setup,
 * solves; the SpMV time is the format's, measured once per back end. */
static cmrs_code measure_engine(compare_run *run, const cmrs_system *sys,
                                cmrs_backend *be, cmrs_engine engine,
                                cmrs_pc pc, double t_backend,
                                compare_row *row)
{
    cmrs_code rc = CMRS_OK;
    const compare_args *a = run->args;
    cmrs_ksp *s = NULL;
    cmrs_ksp_opts o = a->cli.solve;
    o.engine = engine;
    o.pc = pc;
    snprintf(row->precond, sizeof row->precond, "%s", cmrs_pc_name(pc));
    double t0 = cmrs_wtime();
    CMRS_TRY(cmrs_ksp_create(be, &sys->A, sys->b, sys->x0, &o, a->cli.file,
                                &s));
    CMRS_TRY(be->ops->sync(be));
    row->t_setup = t_backend + cmrs_wtime() - t0;
    snprintf(row->format, sizeof row->format, "%s", be->format);
    row->height = be->height;
    CMRS_TRY(time_solves(a, be, s, row));
done:
    cmrs_ksp_destroy(s);
    return rc;
}

/* Every engine of one format on one back end; the copy bandwidth with the
 * first back end built. */
static cmrs_code measure_format(compare_run *run, const cmrs_system *sys,
                                const char *format)
{
    cmrs_code rc = CMRS_OK;
    const compare_args *a = run->args;
    cmrs_backend *be = NULL;
    double t0 = cmrs_wtime();
    CMRS_TRY(solve_cli_backend(&a->cli, &sys->A, run->use_gpu, format, &be));
    double t_backend = cmrs_wtime() - t0;
    int first = run->nrows;
    int engines = run->use_gpu ? a->nengines : 1;
    double t_spmv = 0.0;
    for (int k = 0; k < engines * a->npreconds; ++k) {
        compare_row *row = &run->rows[run->nrows];
        CMRS_TRY(measure_engine(run, sys, be, run->engines[k / a->npreconds],
                                a->preconds[k % a->npreconds], t_backend,
                                row));
        if (k == 0) CMRS_TRY(time_spmv(be, sys->b, &t_spmv));
        spmv_share(a, t_spmv, row);
        run->nrows++;
    }
    if (first == 0 && !run->warm_up) {
        CMRS_TRY(be->ops->copy_bandwidth(be, &run->copy_bw));
        snprintf(run->device, sizeof run->device, "%s", be->device);
    }
done:
    cmrs_backend_destroy(be);
    return rc;
}

/* Every format in turn (one back end alive at a time: device memory). */
static cmrs_code measure_all(compare_run *run, const cmrs_system *sys)
{
    const compare_args *a = run->args;
    int n = run->use_gpu ? a->nformats : 1;
    if (!run->use_gpu && !a->quiet)
        fprintf(stderr, "note: no GPU: the formats and engines collapse to "
                "the CPU reference back end (one row, cpu-csr)\n");
    for (int i = 0; i < n; ++i)
        CMRS_CHECK(measure_format(run, sys, a->formats[i]));
    return CMRS_OK;
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
    compare_args *wa = NULL;
    compare_run *w = NULL;
    double t0 = cmrs_wtime();
    run->t_init = 0.0;
    if (!run->use_gpu) return CMRS_OK;
    memset(&tiny, 0, sizeof tiny);
    CMRS_TRY(cmrs_warmup_system(CMRS_WARMUP_ROWS, &tiny));
    wa = malloc(sizeof *wa);
    w = malloc(sizeof *w);
    if (!wa || !w)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate the warm-up run");
    *wa = *run->args;
    wa->quiet = 1;
    wa->repeat = 1;
    wa->cli.tune_height = 0;
    *w = *run;
    w->args = wa;
    w->A = &tiny.A;
    w->nrows = 0;
    w->warm_up = 1;
    for (int i = 0; i < wa->nformats; ++i) {
        if (measure_format(w, &tiny, wa->formats[i]) == CMRS_OK) continue;
        cmrs_error_clear();
        (void)cudaGetLastError(); /* a launch error is not the next one's */
    }
    run->t_init = cmrs_wtime() - t0;
done:
    free(w);
    free(wa);
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

static cmrs_code compare_main(const compare_args *a, int *exit_code)
{
    cmrs_code rc = CMRS_OK;
    cmrs_system sys;
    compare_run run;
    double t_read;
    memset(&sys, 0, sizeof sys);
    memset(&run, 0, sizeof run);
    run.args = a;
    run.prec = a->cli.prec;
    CMRS_CHECK(solve_cli_use_gpu(&a->cli, a->quiet, &run.use_gpu));
    for (int e = 0; e < a->nengines; ++e)
        CMRS_CHECK(solve_cli_engine(&a->cli, a->engines[e], run.use_gpu,
                                    a->quiet || e > 0, &run.engines[e]));
    CMRS_CHECK(solve_cli_load(&a->cli, a->quiet, &sys, &t_read));
    CMRS_TRY(warm_up(&run));
    run.A = &sys.A;
    CMRS_TRY(measure_all(&run, &sys));
    compare_finish(&run);
    CMRS_TRY(compare_report(&run));
    *exit_code = exit_code_of(&run);
done:
    cmrs_system_free(&sys);
    return rc;
}

cmrs_code cmd_compare(int argc, char **argv, int *exit_code)
{
    compare_args a;
    int help = 0;
    CMRS_CHECK(parse(argc, argv, &a, &help));
    if (help) {
        printf(k_usage, cmrs_spmv_format_names(), solve_cli_help);
        return CMRS_OK;
    }
    CMRS_CHECK(compare_main(&a, exit_code));
    return CMRS_OK;
}
