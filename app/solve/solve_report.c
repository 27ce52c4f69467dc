/* The outputs of `cmrs solve`: HDF5 result file, JSON report, summary. */
#include "dist_report.h"
#include "pc_report.h"
#include "profile_report.h"
#include "solve_report.h"

#include <stdio.h>
#include <string.h>

#include "io/h5_out.h"
#include "io/json.h"
#include "io/outfile.h"
#include "app/report_fields.h"

void solve_report_height(const solve_cli *c, const cmrs_backend *be,
                         char *buf, size_t n)
{
    const char *how = c->opts.tune_height ? "--height auto: autotuned"
                      : c->opts.spmv.height ? "--height"
                      : strcmp(be->format, "cmrs") == 0
                          ? "default: the fewest strip pointers"
                          : "the format's default";
    if (be->height <= 0) snprintf(buf, n, "-");
    else snprintf(buf, n, "%d (%s)", be->height, how);
}

static double per_iteration(const cmrs_ksp_result *r)
{
    return r->t_solve / (double)(r->iterations > 0 ? r->iterations : 1);
}

/* The string attributes on "/". */
static cmrs_code h5_strings(cmrs_h5_out *o, const solve_run *run)
{
    const solve_cli *c = &run->args->cli;
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "solver",
                                cmrs_method_name(c->opts.solve.method)));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "preconditioner",
                                cmrs_pc_name(c->opts.solve.pc)));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "format", run->be->format));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "engine",
                                cmrs_engine_label(run->res.engine, run->be)));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "precision",
                                cmrs_precision_label(run->be->prec,
                                                     run->res.mixed)));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "converged_reason",
                                cmrs_ksp_reason_name(run->res.reason)));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "device", run->be->device));
    CMRS_CHECK(cmrs_h5_attr_str(o, "/", "input_file", c->file));
    return CMRS_OK;
}

/* The numeric attributes on "/". */
static cmrs_code h5_numbers(cmrs_h5_out *o, const solve_run *run)
{
    const cmrs_ksp_result *r = &run->res;
    const solve_cli *c = &run->args->cli;
    CMRS_CHECK(cmrs_h5_attr_i64(o, "/", "height", run->be->height));
    CMRS_CHECK(cmrs_h5_attr_i64(o, "/", "iterations", r->iterations));
    CMRS_CHECK(cmrs_h5_attr_i64(o, "/", "negated", c->negate));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "residual_recursive", r->res_rel));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "residual_true", r->true_rel));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "rtol", c->opts.solve.rtol));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "atol", c->opts.solve.atol));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "time_read", run->t_read));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "time_setup", run->t_setup));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "time_solve", r->t_solve));
    CMRS_CHECK(cmrs_h5_attr_f64(o, "/", "time_per_iteration",
                                per_iteration(r)));
    return CMRS_OK;
}

static cmrs_code write_h5(const solve_run *run)
{
    cmrs_code rc = CMRS_OK;
    cmrs_h5_out o;
    const cmrs_ksp_result *r = &run->res;
    CMRS_CHECK(cmrs_h5_out_open(&o, run->args->out, run->args->cli.file));
    CMRS_TRY(cmrs_h5_write_f64(&o, "/x", r->x, run->A->rows));
    CMRS_TRY(cmrs_h5_write_f64(&o, "/history/residual", r->history,
                               r->iterations + 1));
    CMRS_TRY(h5_strings(&o, run));
    CMRS_TRY(h5_numbers(&o, run));
    CMRS_TRY(cmrs_h5_out_finish(&o));
    return CMRS_OK;
done:
    cmrs_h5_out_abort(&o);
    return rc;
}

/* --kernel-choice measure: the candidates' times and the winner. */
static void choice_json(cmrs_json *j, const cmrs_choice_result *c)
{
    if (!c) return;
    const app_field choice[] = {
        APP_STR("chosen", c->name[c->chosen]),
        APP_BOOL("cached", c->cached),
        APP_STR("timed_by", c->spmv_only ? "spmv" : "iterations"),
        APP_BOOL("irregular_rows", c->irregular),
        APP_NUM("cost_s", c->cost_s),
    };
    cmrs_json_object_begin(j, "kernel_choice");
    app_json_fields(j, choice, APP_FIELDS_LEN(choice));
    cmrs_json_array_begin(j, "candidates");
    for (int i = 0; i < c->tried; ++i) {
        const app_field cand[] = {APP_STR("name", c->name[i]),
                                  APP_NUM("time_s", c->t_iter[i]),
                                  APP_NUM("build_s", c->build_s[i]),
                                  APP_NUM("timing_s", c->timing_s[i])};
        app_json_object(j, NULL, cand, APP_FIELDS_LEN(cand));
    }
    cmrs_json_array_end(j);
    cmrs_json_object_end(j);
}

static void json_body(cmrs_json *j, const solve_run *run)
{
    const cmrs_ksp_result *r = &run->res;
    const solve_cli *c = &run->args->cli;
    const app_field solve[] = {
        APP_STR("format", run->be->format),
        APP_STR("engine", cmrs_engine_label(r->engine, run->be)),
        APP_INT("height", run->be->height),
        APP_BOOL("reordered", run->be->reordered),
        APP_BOOL("renumbered", run->t_renumber >= 0),
        APP_NUM_IF(run->t_renumber >= 0, "time_renumber", run->t_renumber),
        APP_BOOL("one_width", run->be->one_width),
        APP_STR("precision", cmrs_precision_label(run->be->prec, r->mixed)),
        APP_STR("mixed", cmrs_mixed_name(r->mixed)),
        APP_INT("refine_cycles", r->cycles),
        APP_INT("reliable_updates", r->reliable),
        APP_STR("device", run->be->device),
        APP_BOOL("negated", c->negate),
        APP_NUM("rtol", c->opts.solve.rtol),
        APP_NUM("atol", c->opts.solve.atol),
        APP_STR("converged_reason", cmrs_ksp_reason_name(r->reason)),
        APP_BOOL("converged", cmrs_ksp_reason_converged(r->reason)),
        APP_INT("iterations", r->iterations),
        APP_NUM("residual_recursive", r->res_rel),
        APP_NUM("residual_true", r->true_rel),
        APP_NUM("time_read", run->t_read),
        APP_NUM("time_setup", run->t_setup),
        APP_NUM("time_solve", r->t_solve),
        APP_NUM("time_per_iteration", per_iteration(r)),
    };
    solve_cli_json_problem(j, c, run->A);
    app_json_fields(j, solve, APP_FIELDS_LEN(solve));
    profile_report_json(j, &run->prof);
    choice_json(j, run->choice);
    pc_report_json(j, run->pc);
    dist_report_json(j, run->be);
    cmrs_json_array_begin(j, "residual_history");
    for (int64_t k = 0; k <= r->iterations; ++k)
        cmrs_json_num(j, NULL, r->history[k]);
    cmrs_json_array_end(j);
}

static cmrs_code write_json(const solve_run *run)
{
    cmrs_outfile f;
    cmrs_json j;
    CMRS_CHECK(cmrs_outfile_open(&f, run->args->json, run->args->cli.file));
    cmrs_json_init(&j, f.f);
    cmrs_json_object_begin(&j, NULL);
    json_body(&j, run);
    cmrs_json_object_end(&j);
    CMRS_CHECK(cmrs_outfile_finish(&f));
    return CMRS_OK;
}

static void print_summary(const solve_run *run)
{
    const cmrs_ksp_result *r = &run->res;
    const solve_cli *c = &run->args->cli;
    const cmrs_backend *be = run->be;
    char height[64], prec[48];
    solve_report_height(c, be, height, sizeof height);
    if (r->mixed == CMRS_MIXED_REFINE)
        snprintf(prec, sizeof prec, "mixed (refine: %lld single-precision "
                 "solves)", (long long)r->cycles);
    else if (r->mixed == CMRS_MIXED_VALUES)
        snprintf(prec, sizeof prec, "mixed (values: %lld solves over float "
                 "values)", (long long)r->cycles);
    else
        snprintf(prec, sizeof prec, "%s%s",
                 cmrs_precision_label(be->prec, r->mixed),
                 r->mixed ? " (precond in single)" : "");
    printf("%s: %lld rows, %lld nonzeros%s\n", c->file,
           (long long)run->A->rows, (long long)run->A->nnz,
           c->negate ? " (solving -A x = -b)" : "");
    printf("  solver     %s + %s, %s, %s%s%s on %s, height %s, engine %s\n",
           cmrs_method_name(c->opts.solve.method),
           cmrs_pc_name(c->opts.solve.pc),
           prec, be->format,
           be->reordered ? " (reordered: P A P^T)" : "",
           be->one_width ? " (strips of one width)" : "", be->device, height,
           cmrs_engine_label(r->engine, be));
    printf("  result     %s after %lld iterations\n",
           cmrs_ksp_reason_name(r->reason), (long long)r->iterations);
    printf("  residual   true %.3e, recursive %.3e (relative to ||b||; "
           "rtol %.1e)\n", r->true_rel, r->res_rel, c->opts.solve.rtol);
    if (run->t_renumber >= 0)
        printf("  renumbered P A P^T, breadth-first (%.3f s of the setup; "
               "--renumber off keeps the file's order)\n", run->t_renumber);
    printf("  time       read %.3f s, setup %.3f s, solve %.3f s "
           "(%.3f ms per iteration)\n", run->t_read, run->t_setup,
           r->t_solve, 1e3 * per_iteration(r));
    pc_report_print(stdout, run->pc);
    dist_report_print(stdout, run->be);
}

/* The stopping test reads the recursive residual; when rounding made it
 * drift far from the true one, "converged" alone would mislead. */
static void warn_drift(const solve_run *run)
{
    const cmrs_ksp_result *r = &run->res;
    const cmrs_ksp_opts *o = &run->args->cli.opts.solve;
    int drift = (r->reason == CMRS_CONVERGED_RTOL &&
                 r->true_rel > 10 * o->rtol) ||
                (r->reason == CMRS_CONVERGED_ATOL && r->bnorm > 0 &&
                 r->true_norm > 10 * o->atol && r->true_rel > 10 * o->rtol);
    if (drift)
        fprintf(stderr, "warning: %s: converged on the recursive residual, "
                "but the true relative residual is %.2e (rounding drift%s)"
                "\n", run->args->cli.file, r->true_rel,
                run->be->prec == CMRS_PREC_SINGLE
                    ? ": single precision cannot reach this rtol" : "");
}

cmrs_code solve_report_write(const solve_run *run)
{
    const solve_args *a = run->args;
    warn_drift(run);
    if (a->verbose)
        profile_report_print(a->json && strcmp(a->json, "-") == 0 ? stderr
                                                                  : stdout,
                             &run->prof);
    /* Both files complete under temporary names, then renamed together. */
    if (a->out) CMRS_CHECK(write_h5(run));
    if (a->json) CMRS_CHECK(write_json(run));
    CMRS_CHECK(cmrs_outputs_commit());
    if (!a->quiet && !(a->json && strcmp(a->json, "-") == 0))
        print_summary(run);
    return CMRS_OK;
}
