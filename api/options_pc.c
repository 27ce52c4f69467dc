/* The preconditioners' options by name (cmrs_opts_set_pc): each sets one
 * field of cmrs_pc_opts, range-checked here, defaults from
 * cmrs_pc_opts_default. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "options.h"

static cmrs_code format_option(cmrs_pc_opts *o, const char *arg)
{
    CMRS_ENSURE(strcmp(arg, "auto") == 0 || cmrs_spmv_format_find(arg),
                CMRS_E_USAGE, "--amg-format '%s': not a format (known: auto, "
                "%s)", arg, cmrs_spmv_format_names());
    snprintf(o->level_format, sizeof o->level_format, "%s", arg);
    return CMRS_OK;
}

static cmrs_code agg_size_option(cmrs_amg_params *a, const char *arg)
{
    int i = 0;
    CMRS_CHECK(cmrs_arg_int32("--amg-agg-size", arg, 2, 16, &i));
    CMRS_ENSURE(i == 2 || i == 4 || i == 8 || i == 16, CMRS_E_USAGE,
                "--amg-agg-size %d: use 2, 4, 8 or 16", i);
    a->agg_size = i;
    return CMRS_OK;
}

/* The AMG options whose value is one of a few words. */
static cmrs_code amg_choice(cmrs_pc_opts *o, const char *name,
                            const char *arg, int *handled)
{
    static const char *const prolongs[] = {"plain", "smoothed", NULL};
    static const char *const updates[] = {"full", "frozen", NULL};
    static const char *const parts[] = {"global", "block", NULL};
    static const char *const parts_levels[] = {"auto", "1", "2", NULL};
    const char *aggs[CMRS_AMG_AGG_COUNT + 1] = {NULL}; /* the registry's */
    for (int k = 0; k < CMRS_AMG_AGG_COUNT; ++k)
        aggs[k] = cmrs_amg_agg_method_of(k)->name;
    int i = 0;
    *handled = 1;
    if (strcmp(name, "amg-agg") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--amg-agg", arg, aggs, &i));
        o->amg.agg = (cmrs_amg_agg)i;
    } else if (strcmp(name, "amg-prolong") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--amg-prolong", arg, prolongs,
                                   &o->amg.smooth_p));
    } else if (strcmp(name, "amg-smoother") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--amg-smoother", arg,
                                   cmrs_pc_smoother_names, &i));
        o->smoother = (cmrs_smoother)i;
    } else if (strcmp(name, "amg-update") == 0) {
        CMRS_CHECK(cmrs_arg_choice("amg-update", arg, updates, &i));
        o->amg_update = (cmrs_amg_update)i;
    } else if (strcmp(name, "amg-parts") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--amg-parts", arg, parts, &i));
        o->amg_parts = (cmrs_amg_parts)i;
    } else if (strcmp(name, "amg-parts-levels") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--amg-parts-levels", arg, parts_levels,
                                   &o->amg_parts_levels));
    } else {
        *handled = 0;
    }
    return CMRS_OK;
}

/* The numeric AMG and Chebyshev options. */
static cmrs_code pc_number(cmrs_pc_opts *o, const char *name,
                           const char *arg, int *handled)
{
    int64_t v = 0;
    *handled = 1;
    if (strcmp(name, "cheb-degree") == 0)
        return cmrs_arg_int32("--cheb-degree", arg, 1, 64, &o->cheb_degree);
    if (strcmp(name, "cheb-ratio") == 0)
        return cmrs_arg_double("--cheb-ratio", arg, 1.0001, 1e6,
                               &o->cheb_ratio);
    if (strcmp(name, "amg-theta") == 0)
        return cmrs_arg_double("--amg-theta", arg, 0.0, 0.999,
                               &o->amg.theta);
    if (strcmp(name, "amg-sweeps") == 0) {
        if (strcmp(arg, "auto") == 0) {
            o->sweeps = 0; /* by the smoother: cmrs_pc_amg_sweeps */
            return CMRS_OK;
        }
        if (cmrs_arg_int32("--amg-sweeps", arg, 1, 16, &o->sweeps) == CMRS_OK)
            return CMRS_OK;
        cmrs_error_clear(); /* one message that names auto too */
        CMRS_FAIL(CMRS_E_USAGE, "--amg-sweeps: '%s' is neither auto nor an "
                  "integer in [1, 16]", arg);
    }
    if (strcmp(name, "amg-levels") == 0)
        return cmrs_arg_int32("--amg-levels", arg, 1, CMRS_AMG_MAX_LEVELS,
                          &o->amg.max_levels);
    if (strcmp(name, "amg-coarse") == 0) {
        CMRS_CHECK(cmrs_arg_int("--amg-coarse", arg, 1, 4096, &v));
        o->amg.coarse_rows = v;
        return CMRS_OK;
    }
    *handled = 0;
    return CMRS_OK;
}

cmrs_code cmrs_opts_set_pc(cmrs_pc_opts *o, const char *name,
                           const char *value, int *handled)
{
    CMRS_CHECK(amg_choice(o, name, value, handled));
    if (!*handled) CMRS_CHECK(pc_number(o, name, value, handled));
    if (*handled) return CMRS_OK;
    *handled = 1;
    if (strcmp(name, "amg-agg-size") == 0)
        return agg_size_option(&o->amg, value);
    if (strcmp(name, "amg-format") == 0) return format_option(o, value);
    *handled = 0;
    return CMRS_OK;
}
