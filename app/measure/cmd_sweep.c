/* cmrs sweep FILE...: every combination of the swept parameters on every
 * file, one CSV/JSON row per configuration written as soon as it is
 * measured (sweep.h). Options are validated before any file is read, and
 * the files before the GPU is looked for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/timer.h"
#include "base/device.h"
#include "app/commands.h"
#include "sweep.h"

#define COPY_BYTES ((size_t)1 << 30) /* per buffer: far beyond the L2 */
#define COPY_REPS 30

typedef struct sweep_progress {
    int show;              /* a terminal and not --quiet */
    int done, total;
    int wrong, failed;
    double t0;
    cmrs_code first_error; /* code of the first failed row */
    char first_msg[1700]; /* file, format and error of a row */
} sweep_progress;

static void progress_step(sweep_progress *p)
{
    if (!p->show) return;
    double el = cmrs_wtime() - p->t0;
    double eta = el / p->done * (p->total - p->done);
    fprintf(stderr, "\rsweep: configuration %d of %d, elapsed %.0f s, "
            "ETA %.0f s   ", p->done, p->total, el, eta);
    if (p->done == p->total) fputc('\n', stderr);
}

/* Number of configurations over all files and precisions. */
static int total_configs(const sweep_args *a)
{
    int per_file = 0;
    for (int p = 0; p < a->precs.n; ++p)
        per_file += sweep_expand(a, (cmrs_prec)a->precs.v[p], NULL, 0);
    return per_file * a->nfiles;
}

static cmrs_code emit(sweep_out *out, sweep_progress *p, const sweep_row *r)
{
    p->done++;
    p->wrong += !strcmp(r->status, "wrong");
    if (!strcmp(r->status, "failed") && !p->failed++)
        snprintf(p->first_msg, sizeof p->first_msg, "%s %s: %s", r->file,
                 r->format, r->error);
    CMRS_CHECK(sweep_out_row(out, r));
    progress_step(p);
    return CMRS_OK;
}

/* Context, libraries and every swept format's kernel modules loaded in
 * this precision before anything is measured, as in cmrs bench: the first
 * `--height auto` row's tune_s would pay them otherwise. The warm-up uses
 * only the environment's precision and stream: solve mode, which has no
 * bench environment, warms up on the default stream. */
static void warm_up(const sweep_ctx *c)
{
    cmrs_bench_env e;
    cmrs_spmv_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    memset(&e, 0, sizeof e);
    if (c->a->mode == SWEEP_SPMV) e = c->env;
    e.prec = c->prec;
    (void)cmrs_bench_warm_up(&e, c->a->formats, c->a->nformats, &defaults);
}

/* The configurations of one precision on one file (already read). */
static cmrs_code sweep_precision(sweep_ctx *c, sweep_out *out,
                                 sweep_progress *p)
{
    cmrs_code rc = CMRS_OK;
    int n = sweep_expand(c->a, c->prec, NULL, 0);
    sweep_config *cfg = cmrs_malloc_array((size_t)n, sizeof *cfg);
    CMRS_ENSURE(cfg, CMRS_E_NOMEM, "sweep: cannot allocate %d configurations",
                n);
    sweep_expand(c->a, c->prec, cfg, n);
    if (c->a->mode == SWEEP_SPMV)
        CMRS_TRY(cmrs_bench_env_init(&c->env, &c->sys->A, c->prec,
                                     c->a->warmup, c->a->repeat, c->copy_bw));
    warm_up(c);
    sweep_measure_baseline(c);
    for (int i = 0; i < n; ++i) {
        sweep_row row;
        sweep_measure(c, &cfg[i], &row);
        CMRS_TRY(emit(out, p, &row));
    }
done:
    cmrs_bench_env_free(&c->env);
    free(cfg);
    return rc;
}

/* Reads one file (uploaded once per precision) and sweeps it. */
static cmrs_code sweep_file(sweep_ctx *c, const char *file, sweep_out *out,
                            sweep_progress *p)
{
    cmrs_code rc = CMRS_OK;
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    CMRS_TRY(cmrs_system_read(file, &c->a->cli.read, &sys));
    /* After the first read, so a bad file is reported on any machine. */
    if (!cmrs_gpu_available())
        CMRS_TRY_FAIL(CMRS_E_NODEVICE, "cmrs sweep needs a GPU (none found)");
    if (c->a->mode == SWEEP_SPMV && !(c->copy_bw > 0))
        CMRS_TRY(cmrs_measure_copy_bandwidth(COPY_BYTES, COPY_REPS,
                                             &c->copy_bw));
    c->sys = &sys;
    c->file = file;
    cmrs_csr_stats_compute(&sys.A, &c->stats);
    for (int k = 0; k < c->a->precs.n; ++k) {
        c->prec = (cmrs_prec)c->a->precs.v[k];
        CMRS_TRY(sweep_precision(c, out, p));
    }
done:
    cmrs_system_free(&sys);
    return rc;
}

/* Wrong results fail the command (after the outputs are complete), as in
 * cmrs bench; so does a sweep in which every configuration failed. */
static cmrs_code final_status(const sweep_progress *p)
{
    CMRS_ENSURE(!p->wrong, CMRS_E_INTERNAL, "sweep: %d configuration(s) "
                "differ from the CPU reference beyond the error bound (status "
                "'wrong' in the output)", p->wrong);
    CMRS_ENSURE(p->failed < p->done || p->done == 0, CMRS_E_GPU,
                "sweep: every configuration failed; first: %s", p->first_msg);
    return CMRS_OK;
}

static cmrs_code run_sweep(sweep_args *a)
{
    cmrs_code rc = CMRS_OK;
    sweep_out out;
    sweep_ctx ctx;
    sweep_progress p;
    memset(&ctx, 0, sizeof ctx);
    memset(&p, 0, sizeof p);
    ctx.a = a;
    /* SpMV needs no right-hand side and takes rectangular matrices. */
    if (a->mode == SWEEP_SPMV) a->cli.read.require_square = 0;
    p.total = total_configs(a);
    p.show = !a->quiet && isatty(STDERR_FILENO);
    p.t0 = cmrs_wtime();
    CMRS_TRY(sweep_out_open(&out, a->csv, a->json));
    for (int i = 0; i < a->nfiles; ++i)
        CMRS_TRY(sweep_file(&ctx, a->files[i], &out, &p));
    CMRS_TRY(sweep_out_close(&out));
    CMRS_TRY(final_status(&p));
done:
    sweep_out_abort(&out);
    return rc;
}

/* Every output path, .partial names included, against each other and
 * every input, before anything is read. */
static cmrs_code check_outputs(const sweep_args *a)
{
    char csv_partial[4200], json_partial[4200];
    const char *inputs[SWEEP_MAX_FILES + 2];
    int n = 0;
    cmrs_out_arg outs[] = {{"--csv", a->csv, 1}, {"--csv", NULL, 0},
                           {"--json", a->json, 1}, {"--json", NULL, 0}};
    if (a->csv && strcmp(a->csv, "-")) {
        CMRS_CHECK(sweep_out_partial_name(a->csv, csv_partial,
                                          sizeof csv_partial));
        outs[1].path = csv_partial;
    }
    if (a->json && strcmp(a->json, "-")) {
        CMRS_CHECK(sweep_out_partial_name(a->json, json_partial,
                                          sizeof json_partial));
        outs[3].path = json_partial;
    }
    for (int i = 0; i < a->nfiles; ++i) inputs[n++] = a->files[i];
    inputs[n++] = a->cli.read.rhs;
    inputs[n++] = a->cli.read.x0;
    CMRS_CHECK(cmrs_outputs_check(outs, 4, inputs, n));
    return CMRS_OK;
}

cmrs_code cmd_sweep(int argc, char **argv, int *exit_code)
{
    sweep_args a;
    *exit_code = CMRS_EXIT_OK;
    CMRS_CHECK(sweep_parse(argc, argv, &a));
    if (a.help) {
        sweep_print_help();
        return CMRS_OK;
    }
    CMRS_CHECK(check_outputs(&a));
    return run_sweep(&a);
}
