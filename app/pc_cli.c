/* The preconditioner options of `cmrs solve` and `cmrs compare`
 * (solve_cli.h): each sets one field of cmrs_pc_opts, range-checked here
 * (exit 2 with one line), defaults from cmrs_pc_opts_default. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "solve_cli.h"

static cmrs_code int_option(const char *name, const char *arg, int64_t lo,
                            int64_t hi, int *out)
{
    int64_t v = 0;
    CMRS_CHECK(cmrs_arg_int(name, arg, lo, hi, &v));
    *out = (int)v;
    return CMRS_OK;
}

static cmrs_code choice(const char *name, const char *arg,
                        const char *const *names, int *out)
{
    CMRS_CHECK(cmrs_arg_choice(name, arg, names, out));
    return CMRS_OK;
}

static cmrs_code format_option(cmrs_pc_opts *o, const char *arg)
{
    CMRS_ENSURE(strcmp(arg, "auto") == 0 || cmrs_spmv_format_find(arg),
                CMRS_E_USAGE, "--amg-format '%s': not a format (known: auto, "
                "%s)", arg, cmrs_spmv_format_names());
    snprintf(o->level_format, sizeof o->level_format, "%s", arg);
    return CMRS_OK;
}

cmrs_code pc_cli_option(cmrs_pc_opts *o, int id, const char *arg,
                        int *handled)
{
    static const char *const aggs[] = {"pairwise", "greedy", "handshake",
                                       NULL};
    static const char *const prolongs[] = {"plain", "smoothed", NULL};
    static const char *const smoothers[] = {"jacobi", "chebyshev", NULL};
    cmrs_amg_params *a = &o->amg;
    int i = 0;
    int64_t v = 0;
    *handled = 1;
    switch (id) {
    case OPT_CHEB_DEGREE:
        return int_option("--cheb-degree", arg, 1, 64, &o->cheb_degree);
    case OPT_CHEB_RATIO:
        return cmrs_arg_double("--cheb-ratio", arg, 1.0001, 1e6,
                               &o->cheb_ratio);
    case OPT_AMG_AGG:
        CMRS_CHECK(choice("--amg-agg", arg, aggs, &i));
        a->agg = (cmrs_amg_agg)i;
        return CMRS_OK;
    case OPT_AMG_AGG_SIZE:
        CMRS_CHECK(int_option("--amg-agg-size", arg, 2, 16, &i));
        CMRS_ENSURE(i == 2 || i == 4 || i == 8 || i == 16, CMRS_E_USAGE,
                    "--amg-agg-size %d: use 2, 4, 8 or 16", i);
        a->agg_size = i;
        return CMRS_OK;
    case OPT_AMG_PROLONG:
        return choice("--amg-prolong", arg, prolongs, &a->smooth_p);
    case OPT_AMG_THETA:
        return cmrs_arg_double("--amg-theta", arg, 0.0, 0.999, &a->theta);
    case OPT_AMG_SWEEPS:
        return int_option("--amg-sweeps", arg, 1, 16, &o->sweeps);
    case OPT_AMG_SMOOTHER:
        CMRS_CHECK(choice("--amg-smoother", arg, smoothers, &i));
        o->smoother = (cmrs_smoother)i;
        return CMRS_OK;
    case OPT_AMG_COARSE:
        CMRS_CHECK(cmrs_arg_int("--amg-coarse", arg, 1, 4096, &v));
        a->coarse_rows = v;
        return CMRS_OK;
    case OPT_AMG_LEVELS:
        return int_option("--amg-levels", arg, 1, CMRS_AMG_MAX_LEVELS,
                          &a->max_levels);
    case OPT_AMG_FORMAT:
        return format_option(o, arg);
    }
    *handled = 0;
    return CMRS_OK;
}
