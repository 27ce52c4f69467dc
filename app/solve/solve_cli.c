/* Shared by `cmrs solve` and `cmrs compare`: the solve options (parsed by
 * the library), choosing the device, reading the system and setting up a
 * solver through the public API. */
#include "solve_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "base/device.h"
#include "app/args.h"
#include "app/notes.h"
#include "app/report_fields.h"
#include "symmetry.h"

const char *const solve_cli_help =
    "  --solver cg|bicgstab  Krylov method (default cg: symmetric positive\n"
    "                        definite A; bicgstab for nonsymmetric A)\n"
    "  --precond P           jacobi|none|chebyshev|amg (default jacobi; all\n"
    "                        but none need a positive diagonal; amg: an\n"
    "                        aggregation multigrid V-cycle, options below)\n"
    "  --rtol R              stop when ||r||/||b|| <= R (default 1e-8)\n"
    "  --atol A              or when ||r|| <= A (default 0)\n"
    "  --maxiter N           at most N iterations (default 10*rows, at most\n"
    "                        100000; N <= 10000000)\n"
    "  --precision P         double|single|mixed: vectors and matrix on the\n"
    "                        GPU (default double; the CPU back end: double\n"
    "                        only). mixed: a double loop and solution, with\n"
    "                        single precision inside (--mixed)\n"
    "  --mixed M             auto|refine|precond|values (implies --precision\n"
    "                        mixed): refine = single-precision solves inside\n"
    "                        double iterative refinement; precond = the amg\n"
    "                        or chebyshev preconditioner in single; values =\n"
    "                        double solves over A's values stored in float\n"
    "                        (row sums kept; --spmv cmrs) inside the same\n"
    "                        refinement; auto (the default): precond for amg\n"
    "                        and chebyshev, double for jacobi and none\n"
    "  --height H|auto       CMRS strip height 1..16 (default 16: the fewest\n"
    "                        strip pointers; auto: a short timed search on\n"
    "                        the GPU)\n"
    "  --tune-budget S       seconds that search (and --kernel-choice's) may\n"
    "                        take (default 1)\n"
    "  --kernel-choice C     rule|measure: how cmrs picks its layout and\n"
    "                        kernel on the GPU (default rule; measure: times\n"
    "                        the rules' layout and one variant, cmrs-mod's\n"
    "                        kernel where row lengths spread, as the solve\n"
    "                        runs them and keeps the faster; costs a\n"
    "                        conversion and two short solves)\n"
    "  --block-size B        threads per block of the SpMV kernel (multiple\n"
    "                        of 32, default: the format's)\n"
    "  --modulo M            cmrs-mod buffer size 2|4|8|16|32\n"
    "  --reorder R           on|off|auto: cmrs stores P A P^T in a\n"
    "                        breadth-first order and gathers x and y around\n"
    "                        each product (default auto: poorly numbered\n"
    "                        matrices of 750K rows and more)\n"
    "  --renumber R          on|off|auto: solve P A P^T (a breadth-first\n"
    "                        order) instead of A, b and x permuted once per\n"
    "                        solve (default auto: poorly numbered systems of\n"
    "                        1M rows and more, on a GPU; the setup costs\n"
    "                        ~0.13 s at 5M rows; not with --gpus, --parts or\n"
    "                        mpirun)\n"
    "  --one-width W         on|off|auto: cmrs pads every strip to the longest\n"
    "                        row and stores it column-major, the kernel then\n"
    "                        loads no strip pointers (default auto: rows of\n"
    "                        one lane where that adds at most 5% entries)\n"
    "  --device D            gpu|cpu|auto (default auto: the GPU if one is\n"
    "                        present, else the CPU reference back end)\n"
    "  --matrix NAME         HDF5 group of the matrix (default A)\n"
    "  --rhs NAME            dataset of b (default b; for a .mtx matrix, a\n"
    "                        .mtx vector file; none: b = A*1)\n"
    "  --x0 NAME             dataset (or .mtx file) of the initial guess\n"
    "                        (default /x0 if present, else zero)\n"
    "  --negate              solve -A x = -b (same x): for matrices stored\n"
    "                        negative definite, e.g. OpenFOAM's pressure\n"
    "  --engine E            auto|cublas|graph|fused: how the iterations run\n"
    "                        on the GPU (default auto = fused; cublas: one\n"
    "                        launch per operation, scalars through the host;\n"
    "                        graph: cuBLAS with scalars on the device, CUDA\n"
    "                        graphs; fused: our fused kernels, CUDA graphs)\n"
    "  --check-every K       graph/fused: iterations per CUDA graph, i.e.\n"
    "                        between convergence checks (default 32; amg 2,\n"
    "                        chebyshev 8: their iterations after a stop are\n"
    "                        not free)\n"
    "  --cheb-degree K       chebyshev: polynomial degree 1..64 (default 3)\n"
    "  --cheb-ratio R        chebyshev: interval [lmax/R, lmax] (default 30)\n"
    "  --amg-agg A           mis2|greedy|pairwise|handshake aggregation\n"
    "                        (default mis2: greedy's aggregates made in\n"
    "                        parallel, on the GPU with P, R and A_c on the\n"
    "                        GPU back end; handshake: parallel matching, on\n"
    "                        the GPU there; greedy, pairwise: on the host)\n"
    "  --amg-agg-size S      pairwise, handshake: 2|4|8|16 rows per aggregate\n"
    "                        (default 8)\n"
    "  --amg-prolong P       smoothed|plain aggregation (default smoothed;\n"
    "                        the former default: --amg-agg pairwise\n"
    "                        --amg-prolong plain --amg-theta 0.08)\n"
    "  --amg-theta T         strength threshold in [0, 1) (default 0.02;\n"
    "                        coarsening stops, and says so, before a level\n"
    "                        that takes the operator complexity above 3)\n"
    "  --amg-smoother S      jacobi|chebyshev (default jacobi)\n"
    "  --amg-sweeps N        pre- and post-smoothing steps 1..16, or auto\n"
    "                        (default auto: 1 with jacobi, the chebyshev\n"
    "                        smoother's degree 2)\n"
    "  --amg-coarse N        coarsest level rows, inverted densely, 1..4096\n"
    "                        (default 1000)\n"
    "  --amg-levels N        at most N levels 1..32 (default 20)\n"
    "  --amg-format F        GPU format of the coarse levels' A, P, R\n"
    "                        (default auto = cmrs)\n"
    "  --amg-parts M         global|block: AMG over --parts/--gpus: one\n"
    "                        hierarchy over all rows (default: one GPU's\n"
    "                        iterations; level 0 on the parts, each device\n"
    "                        builds the whole hierarchy, so A must fit on\n"
    "                        one), or one per part (its rows only; no\n"
    "                        communication, 3-5x the iterations)\n"
    "  --amg-parts-levels L  auto|1|2: global AMG levels run on the parts,\n"
    "                        the rest whole on every part (default auto: 2\n"
    "                        on GPUs where level 1 has 2M rows or more)\n"
    "  --parts N             distributed solve over N simulated parts on the\n"
    "                        CPU back end (halo exchange and all-reduce in\n"
    "                        host memory; docs/DISTRIBUTED.md)\n"
    "  --partition M         block|rcm|metis: how --parts/--gpus cut rows\n"
    "                        (default block; metis only when built with it)\n"
    "  --gpus N              GPUs, a part of the rows on each (default 1; more:\n"
    "                        NCCL halos and reductions; --partition)\n";

void solve_cli_defaults(solve_cli *c)
{
    memset(c, 0, sizeof *c);
    cmrs_opts_default(&c->opts);
    c->read.require_square = 1;
    /* Host vectors of rows entries after the read: b, x0 and x of the
     * command, and the CPU back end's work vectors (BiCGStab's r, r0, p, v,
     * s, t and the inverse diagonal): in the memory estimate. */
    c->read.work_vectors = 10;
    c->device = DEV_AUTO;
}

/* The long option of id `id` among the shared ones (its name is the
 * library's option name), or NULL. */
static const char *shared_name(int id)
{
    static const struct option shared[] = {SOLVE_CLI_LONG_OPTIONS};
    for (size_t i = 0; i < sizeof shared / sizeof *shared; ++i)
        if (shared[i].val == id) return shared[i].name;
    return NULL;
}

/* The options that belong to the command line, not to a solver. */
static cmrs_code cli_option(solve_cli *c, int id, const char *arg,
                            int *handled)
{
    static const char *const devices[] = {"auto", "gpu", "cpu", NULL};
    int i = 0;
    *handled = 1;
    if (cmrs_arg_read_option(&c->read, id, arg)) return CMRS_OK;
    switch (id) {
    case OPT_DEVICE:
        CMRS_CHECK(cmrs_arg_choice("--device", arg, devices, &i));
        c->device = (solve_device)i;
        return CMRS_OK;
    case OPT_NEGATE: c->negate = 1; return CMRS_OK;
    }
    *handled = 0;
    return CMRS_OK;
}

cmrs_code solve_cli_option(solve_cli *c, int id, const char *arg,
                           int *handled)
{
    CMRS_CHECK(cli_option(c, id, arg, handled));
    if (*handled) return CMRS_OK;
    const char *name = shared_name(id);
    *handled = name != NULL;
    if (name) CMRS_CHECK(cmrs_opts_set(&c->opts, name, arg));
    return CMRS_OK;
}

cmrs_code solve_cli_file(solve_cli *c, const char *cmd, int argc, char **argv)
{
    CMRS_ENSURE(optind < argc, CMRS_E_USAGE, "%s: no input FILE given (see "
                "'cmrs %s --help')", cmd, cmd);
    CMRS_ENSURE(optind + 1 == argc, CMRS_E_USAGE, "%s: one input FILE "
                "expected, got '%s' and '%s'", cmd, argv[optind],
                argv[optind + 1]);
    c->file = argv[optind];
    return CMRS_OK;
}

/* solve_cli_getopt's state for its cmrs_arg_getopt callback. */
typedef struct own_options {
    solve_cli *c;
    cmrs_arg_take own;
    void *ctx;
} own_options;

static cmrs_code take_option(void *ctx, int id, const char *arg)
{
    own_options *o = ctx;
    int handled = 0;
    CMRS_CHECK(solve_cli_option(o->c, id, arg, &handled));
    return handled ? CMRS_OK : o->own(o->ctx, id, arg);
}

cmrs_code solve_cli_getopt(solve_cli *c, const char *cmd, int argc,
                           char **argv, const char *shorts,
                           const struct option *longs, cmrs_arg_take own,
                           void *ctx, int *help)
{
    own_options o = {c, own, ctx};
    *help = 0;
    CMRS_CHECK(cmrs_arg_getopt(cmd, argc, argv, shorts, longs, 1,
                               take_option, &o, help));
    return *help ? CMRS_OK : solve_cli_file(c, cmd, argc, argv);
}

cmrs_code solve_cli_check_outputs(const solve_cli *c, const cmrs_out_arg *outs,
                                  int n)
{
    /* --rhs/--x0 name files for a Matrix Market input (datasets of an HDF5
     * one: those are no files, and outputs.h skips what does not exist). */
    const char *inputs[] = {c->file, c->read.rhs, c->read.x0};
    CMRS_CHECK(cmrs_outputs_check(outs, n, inputs, 3));
    return CMRS_OK;
}

void solve_cli_json_problem(cmrs_json *j, const solve_cli *c,
                            const cmrs_csr *A)
{
    const app_field problem[] = {
        APP_STR("input_file", c->file),
        APP_INT("rows", A->rows),
        APP_INT("nnz", A->nnz),
        APP_STR("solver", cmrs_method_name(c->opts.solve.method)),
        APP_STR("preconditioner", cmrs_pc_name(c->opts.solve.pc)),
    };
    app_json_fields(j, problem, APP_FIELDS_LEN(problem));
}

cmrs_code solve_cli_use_gpu(const solve_cli *c, int quiet, int *use_gpu)
{
    /* --device cpu touches no CUDA at all: asking for the devices starts
     * the driver, 0.13-0.24 s on an H100 machine (docs/BENCHMARKS.md). */
    int have = c->device == DEV_CPU ? 0 : cmrs_gpu_available();
    CMRS_ENSURE(have || c->device != DEV_GPU, CMRS_E_NODEVICE,
                "--device gpu: %s (use --device cpu or auto)",
                cmrs_gpu_missing());
    int parts = c->opts.parts > 0; /* simulated parts: the CPU's */
    *use_gpu = c->device == DEV_GPU || (c->device == DEV_AUTO && have &&
                                        !parts);
    /* (--gpus N > 1 without GPUs fails at setup, in one line.) */
    if (c->device == DEV_AUTO && !have && !parts && c->opts.gpus < 2 &&
        !c->opts.mpi && !quiet)
        app_note("no GPU found: using the CPU back end");
    return CMRS_OK;
}

cmrs_code solve_cli_engine(const solve_cli *c, cmrs_engine wanted,
                           int use_gpu, int quiet, cmrs_engine *out)
{
    int gpu_only = wanted == CMRS_ENGINE_GRAPH || wanted == CMRS_ENGINE_FUSED;
    *out = wanted;
    if (use_gpu || !gpu_only) return CMRS_OK;
    CMRS_ENSURE(c->device == DEV_AUTO, CMRS_E_USAGE, "--engine %s runs on "
                "the GPU only (the CPU back end has one loop: --engine "
                "cublas or auto)", cmrs_engine_name(wanted));
    if (!quiet)
        app_note("engine %s needs a GPU: the CPU back end runs its "
                 "reference loop", cmrs_engine_name(wanted));
    *out = CMRS_ENGINE_AUTO;
    return CMRS_OK;
}

cmrs_code solve_cli_context(int use_gpu, cmrs_context **ctx)
{
    CMRS_API_CHECK(cmrs_context_create(use_gpu ? 0 : CMRS_DEVICE_CPU, ctx));
    return CMRS_OK;
}

static void negate(cmrs_system *sys)
{
    for (int64_t k = 0; k < sys->A.nnz; ++k)
        sys->A.values[k] = -sys->A.values[k];
    for (int64_t i = 0; i < sys->A.rows; ++i) sys->b[i] = -sys->b[i];
}

cmrs_code solve_cli_load(const solve_cli *c, int quiet, cmrs_context *ctx,
                         int part, int nparts, cmrs_matrix **A,
                         double *t_read)
{
    double t0 = cmrs_wtime();
    if (nparts > 0)
        CMRS_API_CHECK(cmrs_matrix_read_rows_with(ctx, c->file, &c->read,
                                                  part, nparts, A));
    else
        CMRS_API_CHECK(cmrs_matrix_read_with(ctx, c->file, &c->read, A));
    *t_read = cmrs_wtime() - t0;
    cmrs_system *sys = cmrs_matrix_system(*A);
    if (c->negate) negate(sys);
    /* Held with the device notes: the caller prints them once the run
     * cannot be refused any more for its options (app_notes_flush). */
    if (sys->b_generated && !quiet)
        app_note("%s has no right-hand side: solving with b = A*1", c->file);
    /* Checked while the solver is set up and solves; reported before the
     * command's report (cmd_solve.c, cmd_compare.c), unless it fails. Not
     * on a rank's rows: it needs the whole pattern (CG's warning is left
     * out, the solve is the same). */
    if (c->opts.solve.method == CMRS_METHOD_CG && nparts == 0)
        symmetry_start(&sys->A, c->file);
    return CMRS_OK;
}

/* The height search ran inside the setup: what it chose. */
static void tune_note(const cmrs_solver *s, const char *format)
{
    const cmrs_tune_result *t = cmrs_solver_tune(s);
    if (!t) return;
    fprintf(stderr, "note: --height auto: %s: %s height %d, block size %d "
            "(%d candidates, %.2f s)\n", format, t->fell_back
            ? "no candidate ran, default" : "tuned", t->height,
            t->block_size, t->tried, t->cost_s);
}

/* The kernel choice ran inside the setup: what it chose, from what. */
static void choice_note(const cmrs_solver *s)
{
    const cmrs_choice_result *c = cmrs_solver_choice(s);
    if (!c) return;
    if (c->cached) {
        fprintf(stderr, "note: --kernel-choice measure: %s (remembered for "
                "this pattern)\n", c->name[0]);
        return;
    }
    if (c->tried == 0) {
        fprintf(stderr, "note: --kernel-choice measure: %s (no other "
                "candidate for these rows)\n", c->name[0]);
        return;
    }
    fprintf(stderr, "note: --kernel-choice measure: %s;", c->name[c->chosen]);
    for (int i = 0; i < c->tried; ++i)
        fprintf(stderr, " %s %.4f ms%s", c->name[i], 1e3 * c->t_iter[i],
                i + 1 < c->tried ? "," : "");
    fprintf(stderr, " per %s (search %.1f ms)\n",
            c->spmv_only ? "SpMV" : "iteration", 1e3 * c->cost_s);
}

cmrs_code solve_cli_setup(cmrs_context *ctx, const cmrs_opts *o,
                          cmrs_matrix *A, cmrs_solver **s)
{
    CMRS_API_CHECK(cmrs_solver_create(ctx, s));
    CMRS_API_CHECK(cmrs_solver_set_opts(*s, o));
    cmrs_code rc = (cmrs_code)cmrs_solver_setup(*s, A);
    tune_note(*s, o->format);
    choice_note(*s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code solve_cli_vectors(const cmrs_matrix *A, double **b, double **x0)
{
    size_t n = (size_t)cmrs_matrix_rows(A);
    *b = cmrs_malloc_array(n, sizeof **b);
    *x0 = cmrs_malloc_array(n, sizeof **x0);
    CMRS_ENSURE(*b && *x0, CMRS_E_NOMEM, "cannot allocate b and x0 (%zu "
                "rows)", n);
    CMRS_API_CHECK(cmrs_matrix_file_vector(A, CMRS_FILE_RHS, *b, NULL));
    CMRS_API_CHECK(cmrs_matrix_file_vector(A, CMRS_FILE_X0, *x0, NULL));
    return CMRS_OK;
}
