/* cmrs gen: generate a test system (vessel, poisson3d, convdiff), renumber
 * it if asked, write it in the native HDF5 layout and print one summary
 * line. Every option is checked before any work starts. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cases/cases.h"
#include "io/outputs.h"
#include "base/timer.h"
#include "args.h"
#include "commands.h"

enum { KIND_VESSEL, KIND_POISSON, KIND_CONVDIFF };
static const char *const k_kinds[] = {"vessel", "poisson3d", "convdiff", NULL};

/* Long-only options; the bit of each in gen_opts.given. */
enum { OPT_ORDER = 256, OPT_SEED, OPT_CELLS, OPT_N, OPT_STENCIL,
       OPT_CONTRAST, OPT_PECLET };
#define GIVEN(opt) (1u << ((opt) - OPT_ORDER))

typedef struct gen_opts {
    int kind, order, quiet, help;
    const char *out;
    unsigned given;
    int64_t seed, cells, n, stencil;
    double contrast, peclet;
} gen_opts;

static void usage(void)
{
    printf(
        "usage: cmrs gen vessel --cells N -o FILE [--order O] [--seed S]\n"
        "       cmrs gen poisson3d --n N [--stencil 7|27] [--contrast C]\n"
        "                          -o FILE\n"
        "       cmrs gen convdiff --n N [--peclet P] -o FILE\n\n"
        "Generates a test system A x = b and writes it in the native HDF5\n"
        "layout (/A, /b). docs/CASES.md describes each case and how b is\n"
        "made.\n\n"
        "  vessel     pressure equation on a tetrahedral mesh of an\n"
        "             aorta-like bifurcating vessel: SPD, ~4.9 nonzeros/row\n"
        "  poisson3d  Dirichlet Poisson on an N^3 grid (N^3 unknowns), SPD\n"
        "  convdiff   upwind convection-diffusion on an N^3 grid,\n"
        "             nonsymmetric (for BiCGStab)\n\n"
        "options:\n"
        "  -o, --output FILE  output file (required)\n"
        "  --cells N          vessel: target cell count (%lld..%lld); the\n"
        "                     actual count is within ~10%% and is printed\n"
        "  --n N              poisson3d, convdiff: grid size (1..%d)\n"
        "  --stencil 7|27     poisson3d: stencil (default 7)\n"
        "  --contrast C       poisson3d: random coefficient spanning C orders\n"
        "                     of magnitude (0..%d, default 0: homogeneous)\n"
        "  --peclet P         convdiff: global Peclet number (default 100)\n"
        "  --order O          natural (default), random (no locality, as the\n"
        "                     paper's p7), rcm (reverse Cuthill-McKee), bfs\n"
        "                     (breadth-first from a pseudo-peripheral node)\n"
        "                     or metis (nested dissection; only when built\n"
        "                     with METIS)\n"
        "  --seed S           seed of --order random and --contrast\n"
        "                     (default 1)\n"
        "  -q, --quiet        no summary line\n"
        "  -h, --help         this help\n\n"
        "Before anything is allocated, the memory the system needs is\n"
        "estimated from the options and compared with the memory available\n"
        "(MemAvailable, or CMRS_MEM_AVAILABLE_BYTES): too much is exit 4.\n",
        CMRS_VESSEL_MIN_CELLS, CMRS_VESSEL_MAX_CELLS, CMRS_GRID_MAX_N,
        CMRS_MAX_CONTRAST);
}

static cmrs_code parse_value(gen_opts *o, int opt, const char *arg)
{
    o->given |= GIVEN(opt);
    switch (opt) {
    case OPT_ORDER: return cmrs_arg_order(arg, &o->order);
    case OPT_SEED: return cmrs_arg_int("--seed", arg, 0, INT64_MAX, &o->seed);
    case OPT_CELLS:
        return cmrs_arg_int("--cells", arg, CMRS_VESSEL_MIN_CELLS,
                            CMRS_VESSEL_MAX_CELLS, &o->cells);
    case OPT_N: return cmrs_arg_int("--n", arg, 1, CMRS_GRID_MAX_N, &o->n);
    case OPT_STENCIL:
        CMRS_CHECK(cmrs_arg_int("--stencil", arg, 0, 1000, &o->stencil));
        CMRS_ENSURE(o->stencil == 7 || o->stencil == 27, CMRS_E_USAGE,
                    "--stencil: %lld is not 7 or 27", (long long)o->stencil);
        return CMRS_OK;
    case OPT_CONTRAST:
        return cmrs_arg_double("--contrast", arg, 0, CMRS_MAX_CONTRAST,
                               &o->contrast);
    case OPT_PECLET:
        return cmrs_arg_double("--peclet", arg, 0, CMRS_MAX_PECLET,
                               &o->peclet);
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "gen: unhandled option %d", opt);
}

static const struct option k_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"order", required_argument, NULL, OPT_ORDER},
    {"seed", required_argument, NULL, OPT_SEED},
    {"cells", required_argument, NULL, OPT_CELLS},
    {"n", required_argument, NULL, OPT_N},
    {"stencil", required_argument, NULL, OPT_STENCIL},
    {"contrast", required_argument, NULL, OPT_CONTRAST},
    {"peclet", required_argument, NULL, OPT_PECLET},
    {"quiet", no_argument, NULL, 'q'},
    CMRS_ARG_HELP_END};

static cmrs_code take_option(void *ctx, int id, const char *arg)
{
    gen_opts *o = ctx;
    if (id == 'h') o->help = 1;
    else if (id == 'q') o->quiet = 1;
    else if (id == 'o') o->out = arg;
    else return parse_value(o, id, arg);
    return CMRS_OK;
}

/* Each kind's options: a given option of another kind is a mistake. */
static cmrs_code check_kind_options(const gen_opts *o)
{
    static const struct { int opt; const char *name; unsigned kinds; } k[] = {
        {OPT_CELLS, "--cells", 1u << KIND_VESSEL},
        {OPT_N, "--n", 1u << KIND_POISSON | 1u << KIND_CONVDIFF},
        {OPT_STENCIL, "--stencil", 1u << KIND_POISSON},
        {OPT_CONTRAST, "--contrast", 1u << KIND_POISSON},
        {OPT_PECLET, "--peclet", 1u << KIND_CONVDIFF}};
    const char *kind = k_kinds[o->kind];
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
        CMRS_ENSURE(!(o->given & GIVEN(k[i].opt)) ||
                        (k[i].kinds >> o->kind & 1),
                    CMRS_E_USAGE, "gen: %s does not apply to %s (see 'cmrs "
                    "gen --help')", k[i].name, kind);
    if (o->kind == KIND_VESSEL)
        CMRS_ENSURE(o->given & GIVEN(OPT_CELLS), CMRS_E_USAGE,
                    "gen vessel: --cells N is required");
    else
        CMRS_ENSURE(o->given & GIVEN(OPT_N), CMRS_E_USAGE,
                    "gen %s: --n N is required", kind);
    CMRS_ENSURE(o->out, CMRS_E_USAGE, "gen %s: -o FILE is required", kind);
    return CMRS_OK;
}

static cmrs_code parse(int argc, char **argv, gen_opts *o)
{
    CMRS_CHECK(cmrs_arg_getopt("gen", argc, argv, "hqo:", k_options, 0,
                               take_option, o, NULL));
    if (o->help) return CMRS_OK;
    CMRS_ENSURE(optind < argc, CMRS_E_USAGE, "gen: which kind? one of "
                "vessel|poisson3d|convdiff (see 'cmrs gen --help')");
    CMRS_ENSURE(optind + 1 == argc, CMRS_E_USAGE, "gen: unexpected argument "
                "'%s' (see 'cmrs gen --help')", argv[optind + 1]);
    CMRS_CHECK(cmrs_arg_choice("gen", argv[optind], k_kinds, &o->kind));
    return check_kind_options(o);
}

static cmrs_code generate(const gen_opts *o, cmrs_system *sys)
{
    uint64_t seed = (uint64_t)o->seed;
    if (o->kind == KIND_VESSEL) {
        cmrs_vessel_opts v = {o->cells, seed};
        CMRS_CHECK(cmrs_gen_vessel(&v, sys));
    } else if (o->kind == KIND_POISSON) {
        cmrs_poisson_opts p = {o->n, (int)o->stencil, o->contrast, seed};
        CMRS_CHECK(cmrs_gen_poisson3d(&p, sys));
    } else {
        cmrs_convdiff_opts c = {o->n, o->peclet, seed};
        CMRS_CHECK(cmrs_gen_convdiff(&c, sys));
    }
    cmrs_code rc = cmrs_reorder(sys, (cmrs_order)o->order, seed);
    if (rc != CMRS_OK) cmrs_system_free(sys); /* NULL-safe if already freed */
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmd_gen(int argc, char **argv, int *exit_code)
{
    gen_opts o = {0, CMRS_ORDER_NATURAL, 0, 0, NULL, 0, 1, 0, 0, 7, 0.0,
                  100.0};
    *exit_code = 0;
    CMRS_CHECK(parse(argc, argv, &o));
    if (o.help) {
        usage();
        return CMRS_OK;
    }
    cmrs_out_arg out = {"-o", o.out, 0};
    CMRS_CHECK(cmrs_outputs_check(&out, 1, NULL, 0));
    cmrs_system sys;
    double t0 = cmrs_wtime();
    CMRS_CHECK(generate(&o, &sys));
    double t1 = cmrs_wtime();
    cmrs_code rc = cmrs_system_write(o.out, &sys, NULL);
    double t2 = cmrs_wtime();
    if (rc == CMRS_OK && !o.quiet)
        printf("%s: %lld rows, %lld nnz, mu %.3f, order %s; generated in "
               "%.2f s, written in %.2f s -> %s\n", k_kinds[o.kind],
               (long long)sys.A.rows, (long long)sys.A.nnz,
               sys.A.rows ? (double)sys.A.nnz / (double)sys.A.rows : 0.0,
               cmrs_order_names[o.order], t1 - t0, t2 - t1, o.out);
    cmrs_system_free(&sys);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
