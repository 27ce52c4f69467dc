/* One sweep configuration measured (sweep.h): SpMV through bench.h, or a
 * whole solve through the solver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/backend/backend.h"
#include "solver/solver.h"
#include "spmv/autotune.h"
#include "spmv/model.h"
#include "spmv/timing.h"
#include "sweep.h"

/* The parameters of a row: those resolved by the format for the knobs it
 * takes, 0 for the others. */
static void row_params(const sweep_config *cfg, const cmrs_spmv_opts *o,
                       sweep_row *row)
{
    const char *f = cfg->format;
    row->height = sweep_takes_height(f) ? o->height : 0;
    row->block_size = sweep_takes_block(f) ? o->block_size : 0;
    row->modulo = sweep_takes_modulo(f) ? o->modulo : 0;
    row->sorted = sweep_takes_sorted(f) ? o->sorted : 0;
}

static void row_start(const sweep_ctx *c, const sweep_config *cfg,
                      sweep_row *row)
{
    sweep_row_init(row);
    snprintf(row->file, sizeof row->file, "%s", c->file);
    snprintf(row->format, sizeof row->format, "%s", cfg->format);
    row->mode = c->a->mode == SWEEP_SOLVE ? "solve" : "spmv";
    row->precision = cmrs_prec_name(cfg->prec);
    row->rows = c->stats.rows;
    row->nnz = c->stats.nnz;
    row->mu = c->stats.mu;
    row->sigma = c->stats.sigma;
    row_params(cfg, &cfg->opts, row);
}

static void row_spmv(const sweep_ctx *c, const sweep_config *cfg,
                     sweep_row *row)
{
    cmrs_bench_row b;
    cmrs_bench_measure(&c->env, cfg->format, &cfg->opts, &b);
    row_params(cfg, &b.opts, row);
    row->status = b.status == CMRS_BENCH_OK ? "ok"
                  : b.status == CMRS_BENCH_WRONG ? "wrong" : "failed";
    if (b.status == CMRS_BENCH_FAILED)
        snprintf(row->error, sizeof row->error, "%s", b.error);
    else if (b.status == CMRS_BENCH_WRONG)
        snprintf(row->error, sizeof row->error, "relative error %.3g over "
                 "the bound %.3g", b.rel_err, b.tol);
    row->t_median = b.t.median;
    row->t_min = b.t.min;
    row->t_max = b.t.max;
    row->gflops = b.gflops;
    row->eta_plus = b.eta_plus;
    row->eta_minus = b.eta_minus;
}

/* One warm-up solve, then repeat timed ones. */
static cmrs_code time_solves(const sweep_ctx *c, cmrs_ksp *s,
                             sweep_row *row)
{
    int n = c->a->repeat;
    cmrs_ksp_result r;
    cmrs_timing t;
    double *samples = cmrs_malloc_array((size_t)n, sizeof *samples);
    CMRS_ENSURE(samples, CMRS_E_NOMEM, "sweep: cannot allocate %d times", n);
    cmrs_code rc = cmrs_ksp_solve(s, &r);
    for (int i = 0; i < n && rc == CMRS_OK; ++i) {
        rc = cmrs_ksp_solve(s, &r);
        samples[i] = r.t_solve;
    }
    if (rc == CMRS_OK) {
        cmrs_timing_from_samples(samples, n, &t);
        row->t_median = t.median;
        row->t_min = t.min;
        row->t_max = t.max;
        row->iterations = r.iterations;
        row->true_rel = r.true_rel;
        int e = cmrs_ksp_reason_exit_code(r.reason);
        row->status = e == 0 ? "ok" : e == 1 ? "not-converged" : "breakdown";
        if (e) snprintf(row->error, sizeof row->error, "%s",
                        cmrs_ksp_reason_name(r.reason));
    }
    free(samples);
    return rc;
}

static cmrs_code solve_config(const sweep_ctx *c, const sweep_config *cfg,
                              sweep_row *row)
{
    cmrs_code rc = CMRS_OK;
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    const cmrs_system *sys = c->sys;
    CMRS_TRY(cmrs_backend_gpu_create(&sys->A, cfg->format, cfg->prec,
                                     &cfg->opts, &be));
    if (sweep_takes_height(cfg->format)) row->height = be->height;
    CMRS_TRY(cmrs_ksp_create(be, &sys->A, &c->a->cli.opts.solve, c->file, &s));
    CMRS_TRY(cmrs_ksp_set_rhs(s, sys->b, sys->x0));
    CMRS_TRY(time_solves(c, s, row));
done:
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
    return rc;
}

static void row_solve(const sweep_ctx *c, const sweep_config *cfg,
                      sweep_row *row)
{
    if (solve_config(c, cfg, row) == CMRS_OK) return;
    row->status = "failed";
    snprintf(row->error, sizeof row->error, "%s", cmrs_error_message());
    cmrs_error_clear();
}

/* --height auto: the autotuner's height (and block size, unless one was
 * given) replace the placeholder in *cfg. */
static cmrs_code tune(const sweep_ctx *c, sweep_config *cfg, sweep_row *row)
{
    cmrs_tune_result t;
    cmrs_spmv_opts base = cfg->opts;
    base.height = 0;
    row->height_auto = 1;
    CMRS_CHECK(cmrs_autotune(&c->sys->A, cfg->format, cfg->prec, &base,
                             c->a->cli.opts.tune_budget, &t));
    row->tune_s = t.cost_s;
    cfg->opts.height = t.height;
    cfg->opts.block_size = t.block_size;
    return CMRS_OK;
}

void sweep_measure(const sweep_ctx *c, const sweep_config *given,
                   sweep_row *row)
{
    sweep_config cfg = *given;
    row_start(c, &cfg, row);
    if (cfg.opts.height == SWEEP_HEIGHT_AUTO && tune(c, &cfg, row) != CMRS_OK) {
        snprintf(row->error, sizeof row->error, "autotune: %s",
                 cmrs_error_message());
        cmrs_error_clear();
        row->height = 0; /* none was chosen */
        return;          /* status "failed" */
    }
    row_params(&cfg, &cfg.opts, row);
    if (c->a->mode == SWEEP_SOLVE) row_solve(c, &cfg, row);
    else row_spmv(c, &cfg, row);
    row->speedup = c->ref_time / row->t_median;
    if (row->height > 0)
        row->model_accel = cmrs_model_accel(
            row->height, row->mu, (double)cmrs_prec_value_bytes(cfg.prec),
            CMRS_MODEL_LAMBDA);
}

void sweep_measure_baseline(sweep_ctx *c)
{
    sweep_config cfg;
    sweep_row row;
    memset(&cfg, 0, sizeof cfg);
    cfg.format = "cusparse";
    cfg.prec = c->prec;
    c->ref_time = NAN;
    sweep_measure(c, &cfg, &row);
    if (!strcmp(row.status, "ok") || !strcmp(row.status, "not-converged"))
        c->ref_time = row.t_median;
}
