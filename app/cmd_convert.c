/* cmrs convert: any supported input (Matrix Market, native/anndata/h5sparse/
 * MATLAB HDF5) to the native HDF5 layout, renumbered if --order asks. The
 * output appears only when it is complete (temporary file + rename), never
 * over the input. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "io/outputs.h"
#include "cases/cases.h"
#include "io/system.h"
#include "args.h"
#include "commands.h"

static const char k_help[] =
    "usage: cmrs convert INPUT [--rhs B] [--x0 X0] [--matrix NAME]\n"
    "                    [--order O [--seed S]] -o OUT.h5\n\n"
    "Reads a linear system from INPUT (Matrix Market .mtx/.mtx.gz, or HDF5:\n"
    "native CSR, anndata, h5sparse, MATLAB v7.3 / PETSc) and writes it in the\n"
    "native HDF5 layout (/A with data, indices, indptr and shape; /b; /x0).\n"
    "Without a right-hand side, b = A*1 is written (and a note printed).\n\n"
    "  -o, --output OUT  output file (required; never the input)\n"
    "  --rhs B           Matrix Market input: a .mtx vector file;\n"
    "                    HDF5 input: the dataset of b (default b)\n"
    "  --x0 X0           likewise for the initial guess (default: x0 if any)\n"
    "  --matrix NAME     HDF5 input: the group holding A (default A)\n"
    "  --order O         renumber the unknowns symmetrically (P A P^T, b and\n"
    "                    x0 alike; A square) before writing: natural (the\n"
    "                    default: INPUT's order, kept), random, rcm (reverse\n"
    "                    Cuthill-McKee), bfs (breadth-first from a\n"
    "                    pseudo-peripheral node) or metis (nested\n"
    "                    dissection; only when built with METIS);\n"
    "                    docs/CASES.md \"Orders\"\n"
    "  --seed S          seed of --order random (default 1)\n"
    "  -h, --help        this help\n";

enum { OPT_ORDER = 256, OPT_SEED };

typedef struct convert_args {
    const char *input, *output;
    cmrs_read_opts read;
    int help, order, seed_given;
    int64_t seed;
} convert_args;

static cmrs_code take_option(void *ctx, int id, const char *arg)
{
    convert_args *a = ctx;
    if (cmrs_arg_read_option(&a->read, id, arg)) return CMRS_OK;
    if (id == OPT_ORDER) return cmrs_arg_order(arg, &a->order);
    if (id == OPT_SEED) {
        a->seed_given = 1;
        return cmrs_arg_int("--seed", arg, 0, INT64_MAX, &a->seed);
    }
    if (id == 'o') a->output = arg;
    else a->help = 1; /* -h: the only other option */
    return CMRS_OK;
}

static cmrs_code parse_args(int argc, char **argv, convert_args *a)
{
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},
        {"rhs", required_argument, NULL, CMRS_ARG_RHS},
        {"x0", required_argument, NULL, CMRS_ARG_X0},
        {"matrix", required_argument, NULL, CMRS_ARG_MATRIX},
        {"order", required_argument, NULL, OPT_ORDER},
        {"seed", required_argument, NULL, OPT_SEED},
        CMRS_ARG_HELP_END};
    memset(a, 0, sizeof *a);
    a->order = CMRS_ORDER_NATURAL;
    a->seed = 1;
    CMRS_CHECK(cmrs_arg_getopt("convert", argc, argv, "ho:", longs, 0,
                               take_option, a, NULL));
    if (a->help) return CMRS_OK;
    CMRS_ENSURE(optind == argc - 1, CMRS_E_USAGE, "convert: expected one INPUT "
                "file, got %d (see 'cmrs convert --help')", argc - optind);
    a->input = argv[optind];
    CMRS_ENSURE(a->output, CMRS_E_USAGE, "convert: the output file is "
                "required (-o OUT.h5)");
    CMRS_ENSURE(!a->seed_given || a->order == CMRS_ORDER_RANDOM, CMRS_E_USAGE,
                "convert: --seed applies to --order random only");
    return CMRS_OK;
}

/* Fails early, before a long read, on a bad OUT (io/outputs.h): its
 * folder, a directory, the input or the --rhs/--x0 file. */
static cmrs_code check_output(const convert_args *a)
{
    cmrs_out_arg out = {"-o", a->output, 0};
    const char *inputs[] = {a->input, a->read.rhs, a->read.x0};
    CMRS_CHECK(cmrs_outputs_check(&out, 1, inputs, 3));
    return CMRS_OK;
}

cmrs_code cmd_convert(int argc, char **argv, int *exit_code)
{
    convert_args a;
    *exit_code = CMRS_EXIT_OK;
    CMRS_CHECK(parse_args(argc, argv, &a));
    if (a.help) {
        fputs(k_help, stdout);
        return CMRS_OK;
    }
    CMRS_CHECK(check_output(&a));
    cmrs_system sys;
    CMRS_CHECK(cmrs_system_read(a.input, &a.read, &sys));
    cmrs_code rc = cmrs_system_rhs_ones(&sys, a.input);
    if (rc == CMRS_OK)
        rc = cmrs_reorder(&sys, (cmrs_order)a.order, (uint64_t)a.seed);
    if (rc == CMRS_OK) rc = cmrs_system_write(a.output, &sys, a.input);
    if (rc == CMRS_OK && sys.b_generated)
        fprintf(stderr, "note: %s has no right-hand side: using b = A*1\n",
                a.input);
    if (rc == CMRS_OK)
        printf("wrote %s: %lld x %lld, %lld nonzeros (from %s layout)%s%s"
               "%s%s\n", a.output, (long long)sys.A.rows,
               (long long)sys.A.cols, (long long)sys.A.nnz, sys.layout,
               sys.x0 ? ", with x0" : "", sys.b_generated ? ", b = A*1" : "",
               a.order ? ", order " : "",
               a.order ? cmrs_order_names[a.order] : "");
    cmrs_system_free(&sys);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
