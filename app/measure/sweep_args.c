/* `cmrs sweep` options (sweep.h): parsing, and the expansion of the swept
 * values into configurations. */
#include <getopt.h>
#include <string.h>

#include "app/args.h"
#include "format_list.h"
#include "sweep.h"

enum {
    OPT_FORMATS = 3000, OPT_SORTED, OPT_MODE, OPT_REPEAT, OPT_WARMUP,
    OPT_CSV, OPT_JSON
};

static const struct option k_options[] = {
    SOLVE_CLI_LONG_OPTIONS,
    {"formats", required_argument, NULL, OPT_FORMATS},
    {"sorted", required_argument, NULL, OPT_SORTED},
    {"mode", required_argument, NULL, OPT_MODE},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"csv", required_argument, NULL, OPT_CSV},
    {"json", required_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, 'q'},
    CMRS_ARG_HELP_END};

void sweep_print_help(void)
{
    printf(
        "usage: cmrs sweep FILE... [options]\n\n"
        "Measures every combination of the swept parameters on each FILE (read\n"
        "and uploaded once) and writes one row per configuration. Parameters\n"
        "that do not apply to a format are not multiplied for it (heights only\n"
        "for cmrs/cmrs-mod, modulo only for cmrs-mod). See docs/SWEEP.md.\n\n"
        "swept (lists and ranges, e.g. 1-4,8,12-16):\n"
        "  --formats LIST        default all: %s\n"
        "  --height LIST         CMRS strip heights in 1..16 and/or auto (the\n"
        "                        autotuner's choice, --tune-budget S seconds,\n"
        "                        default 1; default: each format's default)\n"
        "  --block-size LIST     threads per block, multiples of 32 <= 1024\n"
        "  --modulo LIST         cmrs-mod buffer sizes among 2,4,8,16,32\n"
        "  --sorted LIST         on,off: CMRS entries sorted by column\n"
        "  --precision LIST      double,single (default double)\n"
        "measurement:\n"
        "  --mode spmv|solve     SpMV time as 'cmrs bench' (default), or\n"
        "                        time-to-solution as 'cmrs compare'\n"
        "  --repeat N            timed products (spmv, default 50, >= 10) or\n"
        "                        timed solves (solve, default 3)\n"
        "  --warmup N            untimed products first (spmv, default 5)\n"
        "  --csv FILE|-          CSV rows, flushed one by one to FILE.partial\n"
        "  --json FILE|-         JSON array, rewritten atomically to\n"
        "                        FILE.partial per row; at the end both\n"
        "                        .partial files are renamed to FILE together\n"
        "                        (a failed or interrupted sweep keeps them)\n"
        "  -q, --quiet           no progress line\n"
        "  -h, --help            this text\n"
        "solve options (--mode solve):\n"
        "  --solver, --precond, --rtol, --atol, --maxiter, --rhs, --x0,\n"
        "  --negate as in 'cmrs solve'; --matrix NAME: HDF5 group (all modes)\n\n"
        "The speedup column is over cuSPARSE CSR, measured once per file and\n"
        "precision with its defaults even when cusparse is not in --formats.\n"
        "A configuration that fails (out of memory, a limit) is a row with\n"
        "status 'failed' and its reason; the sweep goes on.\n"
        "exit: 0 done, 2 bad usage or input, 4 no GPU or a GPU failure,\n"
        "130/143 SIGINT/SIGTERM.\n",
        cmrs_spmv_format_names());
}

/* "on,off", "double,single": each word one of choices; the value stored
 * is map[index]. */
static cmrs_code parse_words(const char *opt, const char *text,
                             const char *const *choices, const int *map,
                             sweep_values *out)
{
    char buf[256];
    CMRS_ENSURE(*text && strlen(text) < sizeof buf, CMRS_E_USAGE,
                "%s: empty or overlong list", opt);
    strcpy(buf, text);
    out->n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int i = 0, seen = 0;
        CMRS_CHECK(cmrs_arg_choice(opt, t, choices, &i));
        for (int k = 0; k < out->n; ++k) seen |= out->v[k] == map[i];
        if (!seen) out->v[out->n++] = map[i];
    }
    CMRS_ENSURE(out->n > 0, CMRS_E_USAGE, "%s: empty list", opt);
    return CMRS_OK;
}

/* Integer lists whose values must also be multiples of `step` (block
 * sizes: 32) or powers of two (modulo: pow2 = 1). */
static cmrs_code parse_ints(const char *opt, const char *text, int64_t lo,
                            int64_t hi, int step, int pow2, sweep_values *out)
{
    CMRS_CHECK(cmrs_arg_int_list(opt, text, lo, hi, out->v, SWEEP_MAX_VALUES,
                                 &out->n));
    for (int i = 0; i < out->n; ++i) {
        long long v = (long long)out->v[i];
        CMRS_ENSURE(v % step == 0, CMRS_E_USAGE, "%s: %lld is not a multiple "
                    "of %d", opt, v, step);
        CMRS_ENSURE(!pow2 || (v & (v - 1)) == 0, CMRS_E_USAGE,
                    "%s: %lld is not one of 2, 4, 8, 16, 32", opt, v);
    }
    return CMRS_OK;
}

/* Heights 1..16 and "auto" (SWEEP_HEIGHT_AUTO: the autotuner's choice,
 * measured like the others), in the order given. */
static cmrs_code parse_heights(sweep_args *a, const char *text)
{
    char buf[512], rest[512] = "";
    int has_auto = 0;
    CMRS_ENSURE(*text && strlen(text) < sizeof buf, CMRS_E_USAGE,
                "--height: empty or overlong list");
    strcpy(buf, text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "auto")) has_auto = 1;
        else snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s",
                      *rest ? "," : "", t);
    }
    a->heights.n = 0;
    if (*rest || !has_auto)
        CMRS_CHECK(parse_ints("--height", rest, 1, 16, 1, 0, &a->heights));
    if (has_auto) {
        CMRS_ENSURE(a->heights.n < SWEEP_MAX_VALUES, CMRS_E_USAGE,
                    "--height: more than %d values", SWEEP_MAX_VALUES);
        a->heights.v[a->heights.n++] = SWEEP_HEIGHT_AUTO;
    }
    return CMRS_OK;
}

/* The options sweep takes over from the shared solve options. */
static cmrs_code swept_option(sweep_args *a, int id, const char *arg,
                              int *handled)
{
    static const char *const precs[] = {"double", "single", NULL};
    static const int prec_map[] = {CMRS_PREC_DOUBLE, CMRS_PREC_SINGLE};
    *handled = 1;
    switch (id) {
    case OPT_HEIGHT: return parse_heights(a, arg);
    case OPT_BLOCK:
        return parse_ints("--block-size", arg, 32, 1024, 32, 0, &a->blocks);
    case OPT_MODULO:
        return parse_ints("--modulo", arg, 2, 32, 1, 1, &a->modulos);
    case OPT_PRECISION:
        return parse_words("--precision", arg, precs, prec_map, &a->precs);
    case OPT_DEVICE:
        CMRS_FAIL(CMRS_E_USAGE, "sweep: --device: sweeps run on the GPU only");
    }
    *handled = 0;
    return CMRS_OK;
}

static cmrs_code own_option(sweep_args *a, int id, const char *arg)
{
    static const char *const on_off[] = {"off", "on", NULL};
    static const int sorted_map[] = {-1, 1};
    static const char *const modes[] = {"spmv", "solve", NULL};
    int64_t v = 0;
    int i = 0;
    switch (id) {
    case OPT_FORMATS:
        return format_list_parse("--formats", arg, 1, a->formats,
                                 SWEEP_MAX_FORMATS, &a->nformats);
    case OPT_SORTED:
        return parse_words("--sorted", arg, on_off, sorted_map, &a->sorted);
    case OPT_MODE:
        CMRS_CHECK(cmrs_arg_choice("--mode", arg, modes, &i));
        a->mode = (sweep_mode)i;
        return CMRS_OK;
    case OPT_REPEAT:
        CMRS_CHECK(cmrs_arg_int("--repeat", arg, 1, 100000, &v));
        a->repeat = (int)v;
        return CMRS_OK;
    case OPT_WARMUP:
        CMRS_CHECK(cmrs_arg_int("--warmup", arg, 1, 100000, &v));
        a->warmup = (int)v;
        return CMRS_OK;
    case OPT_CSV: a->csv = arg; return CMRS_OK;
    case OPT_JSON: a->json = arg; return CMRS_OK;
    case 'q': a->quiet = 1; return CMRS_OK;
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "sweep: option %d has no handler", id);
}

static cmrs_code parse_one(void *ctx, int id, const char *arg)
{
    sweep_args *a = ctx;
    int handled = 0;
    CMRS_CHECK(swept_option(a, id, arg, &handled));
    if (!handled) CMRS_CHECK(solve_cli_option(&a->cli, id, arg, &handled));
    if (!handled) CMRS_CHECK(own_option(a, id, arg));
    return CMRS_OK;
}

static void defaults(sweep_args *a)
{
    memset(a, 0, sizeof *a);
    solve_cli_defaults(&a->cli);
    a->warmup = 5;
    format_list_all(a->formats, SWEEP_MAX_FORMATS, &a->nformats);
}

/* Checks after all options: repeat minimum per mode, files, outputs. */
static cmrs_code finish(sweep_args *a, int argc, char **argv)
{
    if (!a->repeat) a->repeat = a->mode == SWEEP_SPMV ? 50 : 3;
    CMRS_ENSURE(a->mode != SWEEP_SPMV || a->repeat >= 10, CMRS_E_USAGE,
                "--repeat: %d is too few SpMV products to time (>= 10)",
                a->repeat);
    if (!a->precs.n) a->precs.n = 1; /* v[0] = 0: double */
    CMRS_ENSURE(a->cli.opts.parts == 0 && a->cli.opts.gpus <= 1,
                CMRS_E_USAGE, "sweep: --parts and --gpus are not swept (one "
                "GPU per configuration); study them with 'cmrs solve --parts "
                "N' or 'cmrs solve --gpus N' (scripts/bench-gpus.sh)");
    CMRS_ENSURE(optind < argc, CMRS_E_USAGE,
                "sweep: missing FILE (see 'cmrs sweep --help')");
    CMRS_ENSURE(argc - optind <= SWEEP_MAX_FILES, CMRS_E_USAGE,
                "sweep: more than %d files", SWEEP_MAX_FILES);
    for (int i = optind; i < argc; ++i) a->files[a->nfiles++] = argv[i];
    CMRS_ENSURE(!(a->csv && a->json && !strcmp(a->csv, "-") &&
                  !strcmp(a->json, "-")), CMRS_E_USAGE,
                "sweep: --csv and --json cannot both be '-' (stdout)");
    return CMRS_OK;
}

cmrs_code sweep_parse(int argc, char **argv, sweep_args *a)
{
    defaults(a);
    CMRS_CHECK(cmrs_arg_getopt("sweep", argc, argv, "qh", k_options, 0,
                               parse_one, a, &a->help));
    return a->help ? CMRS_OK : finish(a, argc, argv);
}
