/* cmrs bench FILE: times the SpMV of each format on one matrix, in one run
 * with the copy bandwidth the eta+- metrics are relative to. Every format's
 * result is checked against the CPU reference first: a wrong kernel is
 * flagged and makes the command fail after the table is printed, so a
 * benchmark never silently reports one. Options and the input file are
 * validated before the GPU is looked for. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/outfile.h"
#include "base/timer.h"
#include "io/system.h"
#include "spmv/autotune.h"
#include "base/device.h"
#include "spmv/model.h"
#include "app/args.h"
#include "bench.h"
#include "format_list.h"
#include "app/commands.h"

#define MAX_FORMATS 32
#define COPY_BYTES ((size_t)1 << 30) /* per buffer: far beyond the L2 */
#define COPY_REPS 30

typedef struct bench_args {
    const char *file, *matrix, *json, *csv;
    const char *formats[MAX_FORMATS];
    int n_formats, help;
    cmrs_spmv_opts opts; /* height 0: the model's suggestion */
    int tune;            /* --height auto: spmv/autotune.h picks it */
    double tune_budget;  /* seconds for that search */
    cmrs_prec prec;
    int warmup, repeat;
} bench_args;

enum {
    OPT_FORMATS = 256, OPT_HEIGHT, OPT_BLOCK, OPT_MODULO, OPT_SORTED,
    OPT_REORDER, OPT_ONE_WIDTH, OPT_ALG,
    OPT_PREC, OPT_MATRIX, OPT_JSON, OPT_CSV, OPT_REPEAT, OPT_WARMUP,
    OPT_TUNE_BUDGET
};

static const struct option k_options[] = {
    {"formats", required_argument, NULL, OPT_FORMATS},
    {"height", required_argument, NULL, OPT_HEIGHT},
    {"block-size", required_argument, NULL, OPT_BLOCK},
    {"modulo", required_argument, NULL, OPT_MODULO},
    {"sorted", required_argument, NULL, OPT_SORTED},
    {"reorder", required_argument, NULL, OPT_REORDER},
    {"one-width", required_argument, NULL, OPT_ONE_WIDTH},
    {"cusparse-alg", required_argument, NULL, OPT_ALG},
    {"precision", required_argument, NULL, OPT_PREC},
    {"matrix", required_argument, NULL, OPT_MATRIX},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"tune-budget", required_argument, NULL, OPT_TUNE_BUDGET},
    CMRS_ARG_HELP_END};

static void print_help(void)
{
    printf(
        "usage: cmrs bench FILE [options]\n\n"
        "Times y = A*x of each SpMV format on the matrix of FILE (HDF5 or Matrix\n"
        "Market) with CUDA events: warm-up, then the median of N products. The\n"
        "device-to-device copy bandwidth is measured in the same run; eta+- are\n"
        "relative to it. Each format's result is first checked against the CPU\n"
        "reference; a format outside the error bound is marked WRONG and the\n"
        "command fails (exit 4) after printing the table. See docs/BENCH.md.\n\n"
        "options:\n"
        "  --formats LIST       comma-separated, default all: %s\n"
        "  --height H|auto      CMRS strip height 1..16 (default 16: the fewest\n"
        "                       strip pointers; auto: a timed search of the\n"
        "                       cmrs format (docs/SWEEP.md)\n"
        "  --tune-budget S      seconds that search may take (default 1)\n"
        "  --block-size B       threads per block, multiple of 32 in [32, 1024]\n"
        "                       (default: each format's own)\n"
        "  --modulo M           cmrs-mod buffer: 2, 4, 8, 16 or 32\n"
        "  --sorted on|off      CMRS: sort the entries of a strip by column\n"
        "  --reorder on|off|auto  cmrs: store P A P^T in a breadth-first order\n"
        "                       and gather x and y around each product\n"
        "                       (default auto: poorly numbered matrices of\n"
        "                       750K rows and more; docs/CMRS.md)\n"
        "  --one-width on|off|auto  cmrs: pad every strip to the longest row,\n"
        "                       column-major, no strip pointer loads (default\n"
        "                       auto: rows of one lane, padding <= 5%%)\n"
        "  --cusparse-alg 1|2   CUSPARSE_SPMV_CSR_ALG1 (default) or CSR_ALG2\n"
        "  --precision P        double (default) or single\n"
        "  --matrix NAME        HDF5 group of the matrix (default: A)\n"
        "  --repeat N           timed products per format, >= 50 (default 100)\n"
        "  --warmup N           untimed products first, >= 5 (default 10)\n"
        "  --json FILE|-        write all results as JSON ('-': stdout)\n"
        "  --csv FILE|-         write one CSV row per format ('-': stdout)\n"
        "  -h, --help           this text\n\n"
        "When --json or --csv is '-', the table goes to stderr instead.\n"
        "A format that refuses the matrix (out of memory, a size limit) is\n"
        "reported as FAILED in its row and the others still run.\n"
        "exit: 0 done, 2 bad usage or input, 4 no GPU, a GPU failure or a WRONG\n"
        "format (after the reports are written), 130/143 SIGINT/SIGTERM.\n",
        cmrs_spmv_format_names());
}

static cmrs_code parse_choice(int opt, const char *text, bench_args *a)
{
    static const char *const modulos[] = {"2", "4", "8", "16", "32", NULL};
    static const char *const on_off[] = {"off", "on", NULL};
    static const char *const precs[] = {"double", "single", NULL};
    int i = 0;
    if (opt == OPT_MODULO) {
        CMRS_CHECK(cmrs_arg_choice("--modulo", text, modulos, &i));
        a->opts.modulo = 2 << i;
    } else if (opt == OPT_SORTED) {
        CMRS_CHECK(cmrs_arg_choice("--sorted", text, on_off, &i));
        a->opts.sorted = i ? 1 : -1;
    } else if (opt == OPT_REORDER) {
        CMRS_CHECK(cmrs_arg_on_off_auto("--reorder", text, &a->opts.reorder));
    } else if (opt == OPT_ONE_WIDTH) {
        CMRS_CHECK(cmrs_arg_on_off_auto("--one-width", text, &a->opts.slice));
    } else {
        CMRS_CHECK(cmrs_arg_choice("--precision", text, precs, &i));
        a->prec = i ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
    }
    return CMRS_OK;
}

static cmrs_code parse_option(void *ctx, int c, const char *v)
{
    bench_args *a = ctx;
    switch (c) {
    case OPT_FORMATS:
        return format_list_parse("bench: --formats", v, 0, a->formats,
                                 MAX_FORMATS, &a->n_formats);
    case OPT_HEIGHT:
        a->tune = !strcmp(v, "auto");
        return a->tune ? CMRS_OK
                       : cmrs_arg_int32("--height", v, 1, 16,
                                        &a->opts.height);
    case OPT_BLOCK: return cmrs_arg_block_size(v, &a->opts.block_size);
    case OPT_ALG:
        return cmrs_arg_int32("--cusparse-alg", v, 1, 2,
                              &a->opts.cusparse_alg);
    case OPT_REPEAT:
        return cmrs_arg_int32("--repeat", v, 50, 1000000, &a->repeat);
    case OPT_WARMUP:
        return cmrs_arg_int32("--warmup", v, 5, 100000, &a->warmup);
    case OPT_MODULO: case OPT_SORTED: case OPT_REORDER: case OPT_ONE_WIDTH:
    case OPT_PREC:
        return parse_choice(c, v, a);
    case OPT_MATRIX: a->matrix = v; return CMRS_OK;
    case OPT_JSON: a->json = v; return CMRS_OK;
    case OPT_CSV: a->csv = v; return CMRS_OK;
    case OPT_TUNE_BUDGET:
        return cmrs_arg_double("--tune-budget", v, 0.0, 3600.0, &a->tune_budget);
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "bench: option %d not handled", c);
}

static void default_args(bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->prec = CMRS_PREC_DOUBLE;
    a->warmup = 10;
    a->repeat = 100;
    a->tune_budget = CMRS_TUNE_BUDGET_DEFAULT;
    format_list_all(a->formats, MAX_FORMATS, &a->n_formats);
}

static cmrs_code parse_args(int argc, char **argv, bench_args *a)
{
    default_args(a);
    CMRS_CHECK(cmrs_arg_getopt("bench", argc, argv, "h", k_options, 0,
                               parse_option, a, &a->help));
    if (a->help) return CMRS_OK;
    CMRS_ENSURE(argc - optind == 1, CMRS_E_USAGE, argc - optind == 0
                ? "bench: missing FILE (see 'cmrs bench --help')"
                : "bench: one FILE expected, got %d (see 'cmrs bench --help')",
                argc - optind);
    a->file = argv[optind];
    CMRS_ENSURE(!(a->json && a->csv && !strcmp(a->json, "-") &&
                  !strcmp(a->csv, "-")), CMRS_E_USAGE,
                "bench: --json and --csv cannot both be '-' (stdout)");
    return CMRS_OK;
}

/* The reports' record of how the run was made. */
static void describe_run(int argc, char **argv, cmrs_bench_run *run)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(run->date, sizeof run->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(run->cmdline, sizeof run->cmdline, "cmrs");
    for (int i = 0; i < argc; ++i) {
        size_t len = strlen(run->cmdline);
        snprintf(run->cmdline + len, sizeof run->cmdline - len, " %s", argv[i]);
    }
    run->device = cmrs_gpu_name();
}

/* Copy bandwidth, then every format in turn on the same x. */
static cmrs_code measure_all(const bench_args *a, const cmrs_csr *A,
                             cmrs_bench_run *run, cmrs_bench_row *rows)
{
    cmrs_bench_env env;
    cmrs_spmv_opts opts = a->opts;
    /* Without --height each format takes its own default (cmrs-mod: 16). */
    if (a->opts.height || a->tune) opts.height = run->height;
    CMRS_CHECK(cmrs_measure_copy_bandwidth(COPY_BYTES, COPY_REPS, &run->copy_bw));
    CMRS_CHECK(cmrs_bench_env_init(&env, A, a->prec, a->warmup, a->repeat,
                                   run->copy_bw));
    /* The rest of the one-time initialisation: libraries and kernels. */
    run->init_s += cmrs_bench_warm_up(&env, a->formats, a->n_formats, &opts);
    for (int i = 0; i < a->n_formats; ++i)
        cmrs_bench_measure(&env, a->formats[i], &opts, &rows[i]);
    cmrs_bench_env_free(&env);
    cmrs_bench_speedups(rows, a->n_formats);
    run->rows = rows;
    run->n_rows = a->n_formats;
    return CMRS_OK;
}

/* JSON or CSV into an output opened before the run (its path checked
 * before anything is read), staged: committed with the other. */
static cmrs_code write_report(cmrs_outfile *out, const cmrs_bench_run *run,
                              int json)
{
    if (!out->f) return CMRS_OK;
    if (json) cmrs_bench_write_json(out->f, run);
    else cmrs_bench_write_csv(out->f, run);
    CMRS_CHECK(cmrs_outfile_finish(out));
    return CMRS_OK;
}

/* A format may legitimately refuse a matrix (out of memory, a size limit
 * of the format): its row says why and the run still succeeds. */
static int acceptable_failure(cmrs_code code)
{
    return code == CMRS_E_NOMEM || code == CMRS_E_LIMIT ||
           code == CMRS_E_INPUT || code == CMRS_E_USAGE;
}

/* After the reports: WRONG formats fail the command, and so do formats
 * that failed for another reason (a GPU fault, a bug), and a run where
 * every format failed (nothing was measured). */
static cmrs_code final_status(const cmrs_bench_run *run)
{
    char wrong[256] = "";
    int failed = 0;
    for (int i = 0; i < run->n_rows; ++i) {
        const cmrs_bench_row *w = &run->rows[i];
        failed += w->status == CMRS_BENCH_FAILED;
        if (w->status == CMRS_BENCH_WRONG)
            snprintf(wrong + strlen(wrong), sizeof wrong - strlen(wrong),
                     "%s%s", *wrong ? ", " : "", w->format);
    }
    CMRS_ENSURE(!*wrong, CMRS_E_INTERNAL, "bench: %s: result differs from the "
                "CPU reference beyond the error bound (see the table)", wrong);
    for (int i = 0; i < run->n_rows; ++i) {
        const cmrs_bench_row *w = &run->rows[i];
        CMRS_ENSURE(w->status != CMRS_BENCH_FAILED ||
                        acceptable_failure(w->error_code) || failed == run->n_rows,
                    w->error_code, "bench: %s failed: %s", w->format, w->error);
    }
    CMRS_ENSURE(failed < run->n_rows, run->rows[0].error_code,
                "bench: every format failed; first: %s: %s",
                run->rows[0].format, run->rows[0].error);
    return CMRS_OK;
}

/* Matrix statistics and the strip height every format is given. */
static void describe_matrix(const bench_args *a, const cmrs_csr *A,
                            cmrs_bench_run *run)
{
    run->file = a->file;
    run->matrix = a->matrix;
    run->prec = a->prec;
    run->warmup = a->warmup;
    run->repeat = a->repeat;
    cmrs_csr_stats_compute(A, &run->stats);
    run->height = a->opts.height;
    run->height_source = "--height";
    if (!a->opts.height) {
        run->height = cmrs_default_height(run->stats.mu);
        run->height_source = "cmrs and cmrs-mod default";
    }
}

/* The CUDA context, created before anything is timed (the autotuner's
 * search included): the first part of the one-time initialisation. */
static cmrs_code create_context(cmrs_bench_run *run)
{
    double t0 = cmrs_wtime();
    CMRS_CHECK(cmrs_gpu_start());
    run->init_s = cmrs_wtime() - t0;
    return CMRS_OK;
}

/* --height auto: the autotuner's height for "cmrs" (given to every
 * format, as --height would be); what it cost goes into the report. */
static cmrs_code tune_height(const bench_args *a, const cmrs_csr *A,
                             cmrs_bench_run *run, char *source, size_t n)
{
    cmrs_tune_result t;
    CMRS_CHECK(cmrs_autotune(A, "cmrs", a->prec, &a->opts,
                             a->tune_budget, &t));
    run->height = t.height;
    snprintf(source, n, "--height auto: %s (%d candidates, %.2f s)",
             t.fell_back ? "default, no candidate ran" : "autotuned",
             t.tried, t.cost_s);
    run->height_source = source;
    return CMRS_OK;
}

static cmrs_code run_bench(const bench_args *a, int argc, char **argv)
{
    char tune_source[128];
    cmrs_code rc = CMRS_OK;
    cmrs_system sys;
    cmrs_read_opts ro = {.matrix = a->matrix};
    cmrs_bench_run run;
    cmrs_bench_row rows[MAX_FORMATS];
    cmrs_outfile json, csv;
    memset(&sys, 0, sizeof sys);
    memset(&run, 0, sizeof run);
    memset(&json, 0, sizeof json);
    memset(&csv, 0, sizeof csv);
    if (a->json) CMRS_TRY(cmrs_outfile_open(&json, a->json, a->file));
    if (a->csv) CMRS_TRY(cmrs_outfile_open(&csv, a->csv, a->file));
    CMRS_TRY(cmrs_system_read(a->file, &ro, &sys));
    /* After the read, so a bad file is reported as such on any machine. */
    if (!cmrs_gpu_available())
        CMRS_TRY_FAIL(CMRS_E_NODEVICE, "cmrs bench needs a GPU (none found)");
    CMRS_TRY(create_context(&run));
    describe_matrix(a, &sys.A, &run);
    if (a->tune)
        CMRS_TRY(tune_height(a, &sys.A, &run, tune_source, sizeof tune_source));
    describe_run(argc, argv, &run);
    CMRS_TRY(measure_all(a, &sys.A, &run, rows));
    cmrs_bench_print_table(json.is_stdout || csv.is_stdout ? stderr : stdout,
                           &run);
    CMRS_TRY(write_report(&json, &run, 1));
    CMRS_TRY(write_report(&csv, &run, 0));
    /* The reports are complete (a WRONG row says so): committed, then the
     * command fails for it. */
    CMRS_TRY(cmrs_outputs_commit());
    CMRS_TRY(final_status(&run));
done:
    cmrs_outfile_abort(&json);
    cmrs_outfile_abort(&csv);
    cmrs_system_free(&sys);
    return rc;
}

cmrs_code cmd_bench(int argc, char **argv, int *exit_code)
{
    bench_args a;
    *exit_code = CMRS_EXIT_OK;
    CMRS_CHECK(parse_args(argc, argv, &a));
    if (a.help) {
        print_help();
        return CMRS_OK;
    }
    cmrs_out_arg outs[] = {{"--json", a.json, 1}, {"--csv", a.csv, 1}};
    const char *inputs[] = {a.file};
    CMRS_CHECK(cmrs_outputs_check(outs, 2, inputs, 1));
    cmrs_code rc = run_bench(&a, argc, argv);
    cmrs_outputs_discard(); /* a failure before the commit: no output */
    CMRS_CHECK(rc);
    return CMRS_OK;
}
