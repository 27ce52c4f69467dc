/* What a solver did, for the caller: cmrs_solve_info, the residual
 * history, reason names. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"

const char *cmrs_reason_name(cmrs_reason r)
{
    /* The internal reasons in the same order, NONE for ITERATING. */
    return r == CMRS_REASON_NONE ? "NONE"
                                 : cmrs_ksp_reason_name((cmrs_ksp_reason)r);
}

/* The names of what setup built (empty before setup). */
static void describe(const cmrs_solver *s, cmrs_solve_info *info)
{
    const cmrs_ksp_opts *o = &s->o.solve;
    snprintf(info->method, sizeof info->method, "%s",
             cmrs_method_name(o->method));
    snprintf(info->precond, sizeof info->precond, "%s", cmrs_pc_name(o->pc));
    /* the mode set up (auto resolved: jacobi stays double) */
    cmrs_mixed mixed = s->ksp ? cmrs_ksp_mixed(s->ksp) : o->mixed;
    snprintf(info->precision, sizeof info->precision, "%s",
             cmrs_precision_label(s->o.prec, mixed));
    snprintf(info->device, sizeof info->device, "%s", s->ctx->device_name);
    if (!s->be) return;
    snprintf(info->format, sizeof info->format, "%s", s->be->format);
    info->height = s->be->height;
}

static void results(const cmrs_solver *s, cmrs_solve_info *info)
{
    const cmrs_ksp_result *r = &s->res;
    info->reason = (cmrs_reason)r->reason;
    info->converged = cmrs_ksp_reason_converged(r->reason);
    info->iterations = r->iterations;
    info->residual = r->res_norm;
    info->relative_residual = r->res_rel;
    info->true_residual = r->true_norm;
    info->true_relative_residual = r->true_rel;
    info->t_solve = r->t_solve;
    snprintf(info->engine, sizeof info->engine, "%s",
             cmrs_engine_label(r->engine, s->be));
}

cmrs_status cmrs_solver_get_info(const cmrs_solver *s, cmrs_solve_info *info)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_get_info");
    cmrs_error_clear();
    if (!info)
        return cmrs_api_status(s->ctx, cmrs_error_set(CMRS_E_USAGE, __FILE__,
            __LINE__, "cmrs_solver_get_info: info is NULL"));
    memset(info, 0, sizeof *info);
    describe(s, info);
    info->t_setup = s->t_setup;
    info->t_update = s->t_update;
    if (s->solved) results(s, info);
    return CMRS_SUCCESS;
}

static cmrs_code setup_profile(const cmrs_solver *s, cmrs_setup_profile *p)
{
    CMRS_ENSURE(p, CMRS_E_USAGE, "cmrs_solver_setup_profile: p is NULL");
    CMRS_ENSURE(s->prof.valid, CMRS_E_USAGE, "cmrs_solver_setup_profile: "
                "no profile (set option profile on before setup)");
    *p = s->prof;
    return CMRS_OK;
}

cmrs_status cmrs_solver_setup_profile(const cmrs_solver *s,
                                      cmrs_setup_profile *p)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_setup_profile");
    cmrs_error_clear();
    return cmrs_api_status(s->ctx, setup_profile(s, p));
}

static cmrs_code history(const cmrs_solver *s, double *h, int64_t cap,
                         int64_t *count)
{
    CMRS_ENSURE(count && cap >= 0 && (h || cap == 0), CMRS_E_USAGE,
                "cmrs_solver_history: count is NULL, cap negative, or h "
                "NULL with cap > 0");
    CMRS_ENSURE(s->o.history, CMRS_E_USAGE, "cmrs_solver_history: set "
                "option history on before setup");
    CMRS_ENSURE(s->solved, CMRS_E_USAGE, "cmrs_solver_history: no solve "
                "yet");
    *count = s->res.iterations + 1;
    int64_t m = cap < *count ? cap : *count;
    if (m > 0) memcpy(h, s->res.history, (size_t)m * sizeof *h);
    return CMRS_OK;
}

cmrs_status cmrs_solver_history(const cmrs_solver *s, double *h, int64_t cap,
                                int64_t *count)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_history");
    cmrs_error_clear();
    return cmrs_api_status(s->ctx, history(s, h, cap, count));
}
