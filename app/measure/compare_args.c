/* The options of `cmrs compare` (compare.h): the shared solve options
 * (solve_cli.h), the lists of formats, engines and preconditioners, the
 * repeat count and the report files. */
#include <getopt.h>
#include <string.h>

#include "spmv/spmv.h"
#include "app/args.h"
#include "compare.h"

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
    CMRS_ARG_HELP_END};

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

static cmrs_code own_option(void *ctx, int id, const char *arg)
{
    compare_args *a = ctx;
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

cmrs_code compare_parse(int argc, char **argv, compare_args *a, int *help)
{
    memset(a, 0, sizeof *a);
    solve_cli_defaults(&a->cli);
    a->repeat = 3;
    *help = 0;
    CMRS_CHECK(parse_formats(a, "cmrs,cusparse"));
    CMRS_CHECK(parse_engines(a, "auto"));
    CMRS_CHECK(solve_cli_getopt(&a->cli, "compare", argc, argv, "qh",
                                k_options, own_option, a, help));
    if (*help) return CMRS_OK;
    if (a->npreconds == 0) {
        a->preconds[0] = a->cli.opts.solve.pc;
        a->npreconds = 1;
    }
    return CMRS_OK;
}
