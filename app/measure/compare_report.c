/* `cmrs compare` results: derived ratios, the table, JSON and CSV. */
#include <stdio.h>
#include <string.h>

#include "io/json.h"
#include "io/outfile.h"
#include "spmv/spmv.h"
#include "compare.h"
#include "app/report_fields.h"
#include "app/solve/profile_report.h"

/* The byte floor of one iteration (GPU.md "Byte floor"): the matrix once
 * ((sv+4) nnz) plus the unavoidable vector passes, 7 for Jacobi-PCG. A
 * BiCGStab iteration is two such half steps: twice that. */
static double floor_bytes(const compare_run *run)
{
    double sv = (double)cmrs_prec_value_bytes(run->prec);
    double pcg = (sv + 4) * (double)run->A->nnz + 7 * sv * (double)run->A->rows;
    int bicgstab = run->args->cli.opts.solve.method == CMRS_METHOD_BICGSTAB;
    return bicgstab ? 2 * pcg : pcg;
}

/* The cusparse row run with the same engine as r, if any. */
static const compare_row *baseline(const compare_run *run,
                                   const compare_row *r)
{
    for (int i = 0; i < run->nrows; ++i)
        if (strcmp(run->rows[i].format, "cusparse") == 0 &&
            strcmp(run->rows[i].engine, r->engine) == 0 &&
            strcmp(run->rows[i].precond, r->precond) == 0)
            return &run->rows[i];
    return NULL;
}

void compare_finish(compare_run *run)
{
    run->floor_bytes = floor_bytes(run);
    double floor_time = run->copy_bw > 0 ? run->floor_bytes / run->copy_bw : 0;
    for (int i = 0; i < run->nrows; ++i) {
        compare_row *r = &run->rows[i];
        const compare_row *base = baseline(run, r);
        if (base && r->t_solve > 0) {
            r->speedup = base->t_solve / r->t_solve;
            r->speedup_total = (base->t_setup + base->t_solve) /
                               (r->t_setup + r->t_solve);
        }
        r->over_floor = floor_time > 0 ? r->t_iter / floor_time : 0;
    }
}

static void print_row(const compare_row *r)
{
    char height[16] = "-", speed[16] = "-";
    if (r->height > 0) snprintf(height, sizeof height, "%d", r->height);
    if (r->speedup > 0) snprintf(speed, sizeof speed, "%.2f", r->speedup);
    printf("%-10s %-9s %-9s %6s %9.4f %7lld %9.4f %9.4f %6.0f%% %9.2e %8s "
           "%8.2f  %s\n", r->format, r->engine, r->precond, height, r->t_setup,
           (long long)r->iterations,
           r->t_solve, 1e3 * r->t_iter, 100 * r->spmv_share, r->true_rel,
           speed, r->over_floor, cmrs_ksp_reason_name(r->reason));
}

static void print_table(const compare_run *run)
{
    const solve_cli *c = &run->args->cli;
    double floor_time = run->copy_bw > 0 ? run->floor_bytes / run->copy_bw : 0;
    printf("%s: %lld rows, %lld nonzeros; %s + %s, %s, rtol %.1e; on %s\n",
           c->file, (long long)run->A->rows, (long long)run->A->nnz,
           cmrs_method_name(c->opts.solve.method), cmrs_pc_name(c->opts.solve.pc),
           cmrs_precision_label(run->prec, run->args->cli.opts.solve.mixed), c->opts.solve.rtol, run->device);
    printf("copy bandwidth %.1f GB/s; byte floor of one iteration %.3f MB = "
           "%.2f us; solve times: median of %lld after a warm-up\n",
           1e-9 * run->copy_bw, 1e-6 * run->floor_bytes, 1e6 * floor_time,
           (long long)run->args->repeat);
    if (run->t_init > 0)
        printf("one-time initialisation (CUDA context, libraries, kernels; a "
               "tiny solve per row): %.3f s, charged to no row\n", run->t_init);
    printf("%-10s %-9s %-9s %6s %9s %7s %9s %9s %7s %9s %8s %8s  %s\n",
           "format", "engine", "precond", "height", "setup_s", "iters", "solve_s", "ms/iter", "spmv",
           "true_res",
           "x_cusp", "x_floor", "reason");
    for (int i = 0; i < run->nrows; ++i) print_row(&run->rows[i]);
}

static void json_row(cmrs_json *j, const compare_row *r)
{
    const int has_base = r->speedup > 0; /* a cusparse row to compare with */
    const app_field row[] = {
        APP_STR("format", r->format),
        APP_STR("engine", r->engine),
        APP_STR("preconditioner", r->precond),
        APP_STR("precision", r->precision),
        APP_INT("height", r->height),
        APP_NUM("setup_s", r->t_setup),
        APP_INT("iterations", r->iterations),
        APP_STR("converged_reason", cmrs_ksp_reason_name(r->reason)),
        APP_NUM("solve_s", r->t_solve),
        APP_NUM("time_per_iteration_s", r->t_iter),
        APP_NUM("spmv_s", r->t_spmv),
        APP_NUM("spmv_share", r->spmv_share),
        APP_NUM("true_relative_residual", r->true_rel),
        APP_NUM_IF(has_base, "speedup_vs_cusparse", r->speedup),
        APP_NUM_IF(has_base, "speedup_total_vs_cusparse", r->speedup_total),
        APP_NUM("time_per_iteration_over_floor", r->over_floor),
    };
    cmrs_json_object_begin(j, NULL);
    app_json_fields(j, row, APP_FIELDS_LEN(row));
    profile_report_json(j, &r->prof);
    cmrs_json_object_end(j);
}

static cmrs_code write_json(const compare_run *run)
{
    const solve_cli *c = &run->args->cli;
    const app_field head[] = {
        APP_STR("precision", cmrs_precision_label(run->prec, run->args->cli.opts.solve.mixed)),
        APP_NUM("rtol", c->opts.solve.rtol),
        APP_STR("device", run->device),
        APP_INT("repeat", run->args->repeat),
        APP_NUM("copy_bandwidth_Bps", run->copy_bw),
        APP_NUM("read_s", run->t_read),
        APP_NUM("init_s", run->t_init),
        APP_NUM("floor_bytes_per_iteration", run->floor_bytes),
    };
    cmrs_outfile f;
    cmrs_json j;
    CMRS_CHECK(cmrs_outfile_open(&f, run->args->json, c->file));
    cmrs_json_init(&j, f.f);
    cmrs_json_object_begin(&j, NULL);
    solve_cli_json_problem(&j, c, run->A);
    app_json_fields(&j, head, APP_FIELDS_LEN(head));
    cmrs_json_array_begin(&j, "results");
    for (int i = 0; i < run->nrows; ++i) json_row(&j, &run->rows[i]);
    cmrs_json_array_end(&j);
    cmrs_json_object_end(&j);
    CMRS_CHECK(cmrs_outfile_finish(&f));
    return CMRS_OK;
}

static cmrs_code write_csv(const compare_run *run)
{
    cmrs_outfile f;
    CMRS_CHECK(cmrs_outfile_open(&f, run->args->csv, run->args->cli.file));
    fprintf(f.f, "format,engine,preconditioner,height,setup_s,iterations,converged_reason,solve_s,"
            "time_per_iteration_s,spmv_s,spmv_share,true_relative_residual,"
            "speedup_vs_cusparse,speedup_total_vs_cusparse,"
            "time_per_iteration_over_floor,init_s\n");
    for (int i = 0; i < run->nrows; ++i) {
        const compare_row *r = &run->rows[i];
        char sp[64] = ","; /* two empty fields without a cuSPARSE row */
        if (r->speedup > 0)
            snprintf(sp, sizeof sp, "%.4f,%.4f", r->speedup, r->speedup_total);
        fprintf(f.f, "%s,%s,%s,%d,%.6e,%lld,%s,%.6e,%.6e,%.6e,%.4f,%.6e,%s,"
                "%.3f,%.6e\n", r->format, r->engine, r->precond, r->height,
                r->t_setup,
                (long long)r->iterations, cmrs_ksp_reason_name(r->reason),
                r->t_solve, r->t_iter, r->t_spmv, r->spmv_share, r->true_rel,
                sp, r->over_floor, run->t_init);
    }
    CMRS_CHECK(cmrs_outfile_finish(&f));
    return CMRS_OK;
}

static int is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

cmrs_code compare_report(const compare_run *run)
{
    const compare_args *a = run->args;
    if (!a->quiet && !is_stdout(a->json) && !is_stdout(a->csv))
        print_table(run);
    /* Both complete under temporary names, then renamed together. */
    if (a->json) CMRS_CHECK(write_json(run));
    if (a->csv) CMRS_CHECK(write_csv(run));
    CMRS_CHECK(cmrs_outputs_commit());
    return CMRS_OK;
}
