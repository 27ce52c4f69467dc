/* cmrs convert: any supported input (Matrix Market, native/anndata/h5sparse/
 * MATLAB HDF5) to the native HDF5 layout. The output appears only when it is
 * complete (temporary file + rename), never over the input. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "io/outputs.h"
#include "cases/cases.h"
#include "io/system.h"
#include "args.h"
#include "commands.h"

static const char k_help[] =
    "usage: cmrs convert INPUT [--rhs B] [--x0 X0] [--matrix NAME] "
    "-o OUT.h5\n\n"
    "Reads a linear system from INPUT (Matrix Market .mtx/.mtx.gz, or HDF5:\n"
    "native CSR, anndata, h5sparse, MATLAB v7.3 / PETSc) and writes it in the\n"
    "native HDF5 layout (/A with data, indices, indptr and shape; /b; /x0).\n"
    "Without a right-hand side, b = A*1 is written (and a note printed).\n\n"
    "  -o, --output OUT  output file (required; never the input)\n"
    "  --rhs B           Matrix Market input: a .mtx vector file;\n"
    "                    HDF5 input: the dataset of b (default b)\n"
    "  --x0 X0           likewise for the initial guess (default: x0 if any)\n"
    "  --matrix NAME     HDF5 input: the group holding A (default A)\n"
    "  -h, --help        this help\n";

typedef struct convert_args {
    const char *input, *output;
    cmrs_read_opts read;
    int help;
} convert_args;

static cmrs_code take_option(void *ctx, int id, const char *arg)
{
    convert_args *a = ctx;
    if (cmrs_arg_read_option(&a->read, id, arg)) return CMRS_OK;
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
        CMRS_ARG_HELP_END};
    memset(a, 0, sizeof *a);
    CMRS_CHECK(cmrs_arg_getopt("convert", argc, argv, "ho:", longs, 0,
                               take_option, a, NULL));
    if (a->help) return CMRS_OK;
    CMRS_ENSURE(optind == argc - 1, CMRS_E_USAGE, "convert: expected one INPUT "
                "file, got %d (see 'cmrs convert --help')", argc - optind);
    a->input = argv[optind];
    CMRS_ENSURE(a->output, CMRS_E_USAGE, "convert: the output file is "
                "required (-o OUT.h5)");
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
    if (rc == CMRS_OK) rc = cmrs_system_write(a.output, &sys, a.input);
    if (rc == CMRS_OK && sys.b_generated)
        fprintf(stderr, "note: %s has no right-hand side: using b = A*1\n",
                a.input);
    if (rc == CMRS_OK)
        printf("wrote %s: %lld x %lld, %lld nonzeros (from %s layout)%s%s\n",
               a.output, (long long)sys.A.rows, (long long)sys.A.cols,
               (long long)sys.A.nnz, sys.layout, sys.x0 ? ", with x0" : "",
               sys.b_generated ? ", b = A*1" : "");
    cmrs_system_free(&sys);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
