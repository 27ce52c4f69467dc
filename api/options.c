/* The solve options by name (options.h): the one place where the library
 * and the command line turn option text into values. */
#include "options.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "spmv/autotune.h"
#include "args.h"

void cmrs_opts_default(cmrs_opts *o)
{
    memset(o, 0, sizeof *o);
    cmrs_ksp_opts_default(&o->solve);
    o->prec = CMRS_PREC_DOUBLE;
    o->mixed_mode = CMRS_MIXED_AUTO;
    o->tune_budget = CMRS_TUNE_BUDGET_DEFAULT;
    o->gpus = 1;
    /* auto: poorly numbered systems from CMRS_RENUMBER_MIN_ROWS rows on
     * a GPU, where the renumbering's setup pays (docs/BENCHMARKS.md,
     * "Renumbering the system") */
    o->renumber = 0;
    snprintf(o->format, sizeof o->format, "cmrs");
}

int cmrs_format_has_height(const char *format)
{
    return strncmp(format, "cmrs", 4) == 0;
}

static cmrs_code set_height(cmrs_opts *o, const char *arg)
{
    int64_t h = 0;
    int tune = strcmp(arg, "auto") == 0;
    if (!tune) CMRS_CHECK(cmrs_arg_int("--height", arg, 1, 16, &h));
    o->tune_height = tune;
    o->spmv.height = (int)h;
    return CMRS_OK;
}

static cmrs_code set_format(cmrs_opts *o, const char *arg)
{
    CMRS_ENSURE(cmrs_spmv_format_find(arg), CMRS_E_USAGE, "--spmv: unknown "
                "format '%s' (known: %s)", arg, cmrs_spmv_format_names());
    snprintf(o->format, sizeof o->format, "%s", arg);
    return CMRS_OK;
}

/* N > 1: a part on each of N GPUs; whether this build and machine have
 * them is checked at setup (dist/dist_gpu.c), where the context's device
 * is known. */
static cmrs_code set_gpus(cmrs_opts *o, const char *arg)
{
    return cmrs_arg_int32("--gpus", arg, 1, CMRS_MAX_PARTS, &o->gpus);
}

/* The options whose value is a number; *handled = 0 for the others. */
static cmrs_code set_number(cmrs_opts *o, const char *name, const char *arg,
                            int *handled)
{
    int64_t v = 0;
    *handled = 1;
    if (strcmp(name, "rtol") == 0)
        return cmrs_arg_double("--rtol", arg, 0.0, 1.0, &o->solve.rtol);
    if (strcmp(name, "atol") == 0)
        return cmrs_arg_double("--atol", arg, 0.0, DBL_MAX, &o->solve.atol);
    if (strcmp(name, "tune-budget") == 0)
        return cmrs_arg_double("--tune-budget", arg, 0.0, 3600.0,
                               &o->tune_budget);
    if (strcmp(name, "block-size") == 0)
        return cmrs_arg_block_size(arg, &o->spmv.block_size);
    if (strcmp(name, "check-every") == 0)
        return cmrs_arg_int32("--check-every", arg, 1, 4096,
                              &o->solve.check_every);
    if (strcmp(name, "modulo") == 0) {
        CMRS_CHECK(cmrs_arg_int32("--modulo", arg, 2, 32, &o->spmv.modulo));
        CMRS_ENSURE((o->spmv.modulo & (o->spmv.modulo - 1)) == 0, CMRS_E_USAGE,
                    "--modulo %d: one of 2|4|8|16|32", o->spmv.modulo);
        return CMRS_OK;
    }
    if (strcmp(name, "parts") == 0)
        return cmrs_arg_int32("--parts", arg, 1, CMRS_MAX_PARTS, &o->parts);
    if (strcmp(name, "gpus") == 0) return set_gpus(o, arg);
    if (strcmp(name, "maxiter") == 0) {
        CMRS_CHECK(cmrs_arg_int("--maxiter", arg, 1, CMRS_MAXITER_LIMIT, &v));
        o->solve.maxiter = v;
        return CMRS_OK;
    }
    *handled = 0;
    return CMRS_OK;
}

/* The options whose value is a word; *handled = 0 for the others. */
static cmrs_code set_word(cmrs_opts *o, const char *name, const char *arg,
                          int *handled)
{
    static const char *const solvers[] = {"cg", "bicgstab", NULL};
    static const char *const precs[] = {"double", "single", "mixed", NULL};
    static const char *const mixes[] = {"auto", "refine", "precond",
                                        "values", NULL};
    static const char *const onoff[] = {"off", "on", NULL};
    static const char *const choices[] = {"rule", "measure", NULL};
    int i = 0;
    *handled = 1;
    if (strcmp(name, "solver") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--solver", arg, solvers, &i));
        o->solve.method = (cmrs_method)i;
    } else if (strcmp(name, "precision") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--precision", arg, precs, &i));
        /* mixed: a double loop with single precision inside (--mixed) */
        o->prec = i == 1 ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        o->solve.mixed = i == 2 ? o->mixed_mode : CMRS_MIXED_OFF;
    } else if (strcmp(name, "mixed") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--mixed", arg, mixes, &i));
        o->mixed_mode = (cmrs_mixed)(CMRS_MIXED_AUTO + i);
        o->prec = CMRS_PREC_DOUBLE; /* implies --precision mixed */
        o->solve.mixed = o->mixed_mode;
    } else if (strcmp(name, "kernel-choice") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--kernel-choice", arg, choices,
                                   &o->kernel_choice));
    } else if (strcmp(name, "history") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--history", arg, onoff, &o->history));
    } else if (strcmp(name, "profile") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--profile", arg, onoff, &o->profile));
    } else if (strcmp(name, "mpi") == 0) {
        CMRS_CHECK(cmrs_arg_choice("--mpi", arg, onoff, &o->mpi));
    } else if (strcmp(name, "precond") == 0) {
        return cmrs_pc_parse(arg, &o->solve.pc);
    } else if (strcmp(name, "partition") == 0) {
        return cmrs_part_method_parse(arg, &o->partition);
    } else if (strcmp(name, "engine") == 0) {
        return cmrs_engine_parse(arg, &o->solve.engine);
    } else if (strcmp(name, "height") == 0) {
        return set_height(o, arg);
    } else if (strcmp(name, "reorder") == 0) {
        return cmrs_arg_on_off_auto("--reorder", arg, &o->spmv.reorder);
    } else if (strcmp(name, "renumber") == 0) {
        return cmrs_arg_on_off_auto("--renumber", arg, &o->renumber);
    } else if (strcmp(name, "one-width") == 0) {
        return cmrs_arg_on_off_auto("--one-width", arg, &o->spmv.slice);
    } else if (strcmp(name, "spmv") == 0) {
        return set_format(o, arg);
    } else {
        *handled = 0;
    }
    return CMRS_OK;
}

/* Applies the option; *handled = 0 for an unknown name. */
static cmrs_code dispatch(cmrs_opts *o, const char *name, const char *value,
                          int *handled)
{
    CMRS_CHECK(set_word(o, name, value, handled));
    if (!*handled) CMRS_CHECK(set_number(o, name, value, handled));
    if (!*handled)
        CMRS_CHECK(cmrs_opts_set_pc(&o->solve.pco, name, value, handled));
    return CMRS_OK;
}

cmrs_code cmrs_opts_set(cmrs_opts *o, const char *name, const char *value)
{
    int handled = 0;
    CMRS_ENSURE(name && *name, CMRS_E_USAGE, "an option needs a name");
    CMRS_ENSURE(value, CMRS_E_USAGE, "--%s: no value given", name);
    CMRS_CHECK(dispatch(o, name, value, &handled));
    CMRS_ENSURE(handled, CMRS_E_USAGE, "unknown option '%s' (the names of "
                "the command line's long options, without \"--\")", name);
    return CMRS_OK;
}
