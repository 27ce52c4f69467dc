/* The preconditioner's part of the solve and compare reports. */
#include "pc_report.h"

#include "app/report_fields.h"

static double per_row(int64_t nnz, int64_t rows)
{
    return rows > 0 ? (double)nnz / (double)rows : 0.0;
}

/* Time over the floor (bytes at the copy bandwidth); 0: not measured. */
static double over_floor(double t, double bytes, double bw)
{
    return t > 0 && bytes > 0 && bw > 0 ? t / (bytes / bw) : 0.0;
}

/* The whole cycle's time and bytes (the levels' shares summed). */
static void cycle_totals(const cmrs_pc_info *in, double *t, double *bytes)
{
    *t = *bytes = 0;
    for (int l = 0; l < in->levels; ++l) {
        *t += in->level[l].t_apply;
        *bytes += in->level[l].bytes;
    }
}

void pc_report_print(FILE *f, const cmrs_precond *pc)
{
    const cmrs_pc_info *in = &pc->info;
    if (pc->kind == CMRS_PC_CHEBYSHEV)
        fprintf(f, "  chebyshev  degree %d on [%.4g, %.4g] of D^-1 A, setup "
                "%.3f s\n", pc->o.cheb_degree, in->lmax / pc->o.cheb_ratio,
                in->lmax, in->t_setup);
    if (pc->kind != CMRS_PC_AMG) return;
    const int sweeps = cmrs_pc_amg_sweeps(&pc->o);
    char smoothing[48];
    if (pc->o.smoother == CMRS_SMOOTH_CHEBYSHEV)
        snprintf(smoothing, sizeof smoothing, "degree %d", sweeps);
    else
        snprintf(smoothing, sizeof smoothing, "%d+%d sweeps", sweeps, sweeps);
    fprintf(f, "  amg        %d levels, operator complexity %.3f, grid "
            "complexity %.3f; %s smoother, %s\n", in->levels,
            in->op_complexity, in->grid_complexity,
            cmrs_pc_smoother_names[pc->o.smoother], smoothing);
    if (in->stop[0])
        fprintf(f, "             coarsening stopped: %s\n", in->stop);
    if (in->parts_levels > 0)
        fprintf(f, "             on the parts: level%s 0%s, the rest whole on "
                "each part\n", in->parts_levels > 1 ? "s" : "",
                in->parts_levels > 1 ? "-1" : "");
    fprintf(f, "             setup %.3f s (aggregation %.3f, P and R %.3f, "
            "galerkin %.3f, levels %.3f: rho %.3f, coarse inverse %.3f)\n",
            in->t_setup, in->t_aggregate, in->t_transfer, in->t_galerkin,
            in->t_upload, in->t_rho, in->t_coarse);
    fprintf(f, "             level %10s %12s %7s  %-14s %7s %9s %8s "
            "%9s\n", "rows", "nnz", "nnz/row", "format", "rho", "ms/cycle",
            "x floor", "setup ms");
    for (int l = 0; l < in->levels; ++l) {
        const cmrs_pc_level_info *li = &in->level[l];
        fprintf(f, "             %5d %10lld %12lld %7.2f  %-14s %7.3f %9.4f "
                "%8.2f %9.2f\n", l, (long long)li->rows, (long long)li->nnz,
                per_row(li->nnz, li->rows), li->format, li->rho,
                1e3 * li->t_apply, over_floor(li->t_apply, li->bytes,
                                              in->copy_bw),
                1e3 * (li->t_coarsen + li->t_level));
    }
    double t = 0, bytes = 0;
    cycle_totals(in, &t, &bytes);
    if (t > 0 && in->copy_bw > 0)
        fprintf(f, "             V-cycle %.4f ms, %.1f MB to move: %.2fx the "
                "floor at %.0f GB/s copy bandwidth\n", 1e3 * t, bytes / 1e6,
                over_floor(t, bytes, in->copy_bw), in->copy_bw / 1e9);
}

static void json_levels(cmrs_json *j, const cmrs_pc_info *in)
{
    cmrs_json_array_begin(j, "levels");
    for (int l = 0; l < in->levels; ++l) {
        const cmrs_pc_level_info *li = &in->level[l];
        const app_field level[] = {
            APP_INT("rows", li->rows),
            APP_INT("nnz", li->nnz),
            APP_STR("format", li->format),
            APP_NUM("rho", li->rho),
            APP_NUM("time_per_cycle", li->t_apply),
            APP_NUM("bytes_per_cycle", li->bytes),
            APP_NUM("setup_coarsen_s", li->t_coarsen),
            APP_NUM("setup_level_s", li->t_level),
        };
        app_json_object(j, NULL, level, APP_FIELDS_LEN(level));
    }
    cmrs_json_array_end(j);
}

void pc_report_json(cmrs_json *j, const cmrs_precond *pc)
{
    const cmrs_pc_info *in = &pc->info;
    cmrs_json_object_begin(j, "preconditioner_info");
    cmrs_json_str(j, "name", cmrs_pc_name(pc->kind));
    cmrs_json_num(j, "time_setup", in->t_setup);
    if (pc->kind == CMRS_PC_CHEBYSHEV) {
        cmrs_json_int(j, "degree", pc->o.cheb_degree);
        cmrs_json_num(j, "lambda_max", in->lmax);
        cmrs_json_num(j, "lambda_min", in->lmax / pc->o.cheb_ratio);
    }
    if (pc->kind == CMRS_PC_AMG) {
        cmrs_json_str(j, "smoother", cmrs_pc_smoother_names[pc->o.smoother]);
        cmrs_json_int(j, "sweeps", cmrs_pc_amg_sweeps(&pc->o));
        cmrs_json_num(j, "operator_complexity", in->op_complexity);
        cmrs_json_num(j, "grid_complexity", in->grid_complexity);
        if (in->stop[0]) cmrs_json_str(j, "coarsening_stopped", in->stop);
        if (in->parts_levels)
            cmrs_json_int(j, "parts_levels", in->parts_levels);
        cmrs_json_num(j, "time_aggregate", in->t_aggregate);
        cmrs_json_num(j, "time_galerkin", in->t_galerkin);
        cmrs_json_num(j, "time_levels", in->t_upload);
        cmrs_json_num(j, "time_transfer", in->t_transfer);
        cmrs_json_num(j, "time_rho", in->t_rho);
        cmrs_json_num(j, "time_coarse", in->t_coarse);
        cmrs_json_num(j, "copy_bandwidth_Bps", in->copy_bw);
        json_levels(j, in);
    }
    cmrs_json_object_end(j);
}
