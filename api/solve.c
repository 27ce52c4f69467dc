/* The public solves and values-only updates (include/cmrs.h): host arrays
 * of any value type, or device arrays of the solver's precision (copied on
 * the device; b read back once for ||b|| and the true residual). */
#include <math.h>
#include <string.h>

#include "base/timer.h"
#include "api_internal.h"

static cmrs_code check_ready(const cmrs_solver *s, const char *fn)
{
    CMRS_ENSURE(s->ksp, CMRS_E_USAGE, "%s: the solver is not set up (call "
                "cmrs_solver_setup first; a failed setup or update leaves "
                "it so)", fn);
    return CMRS_OK;
}

static cmrs_code run(cmrs_solver *s)
{
    s->solved = 0;
    CMRS_CHECK(cmrs_ksp_solve(s->ksp, &s->res));
    s->solved = 1;
    return CMRS_OK;
}

/* s->b_h and s->x_h, made on the first float32 host solve (doubles and
 * device arrays never need them); freed with the setup. */
cmrs_code cmrs_api_float_buffers(cmrs_solver *s)
{
    size_t n = (size_t)s->be->n;
    if (!s->b_h) s->b_h = cmrs_malloc_array(n, sizeof *s->b_h);
    if (!s->x_h) s->x_h = cmrs_malloc_array(n, sizeof *s->x_h);
    CMRS_ENSURE(s->b_h && s->x_h, CMRS_E_NOMEM, "cannot allocate the "
                "solver's float conversion buffers (%zu rows)", n);
    return CMRS_OK;
}

/* The true residual of what a float solve returns: x rounded to float
 * (widened again into s->x_h), ||b - A x||2 in double, replacing the double
 * solution's in the info. */
static cmrs_code rounded_residual(cmrs_solver *s, const double *b,
                                  const float *x)
{
    cmrs_api_values_to_double(x, CMRS_VALUE_FLOAT32, s->be->n, s->x_h);
    CMRS_CHECK(cmrs_true_residual(&s->A->sys.A, b, s->x_h, &s->res.true_norm));
    s->res.true_rel = s->res.bnorm > 0 ? s->res.true_norm / s->res.bnorm
                                       : s->res.true_norm;
    return CMRS_OK;
}

/* solve_host's renumbered system: b and x0 (doubles, the caller's order)
 * into B's order, the solve, x back in the caller's order into the
 * caller's array (doubles) or a double buffer (float: then rounded into
 * x); the result's x is that array. */
static cmrs_code solve_renumbered(cmrs_solver *s, const double *b64,
                                  const double *x0_64, void *x,
                                  cmrs_value_type type)
{
    double *b_b = cmrs_api_ren_b(s->ren), *x_b = cmrs_api_ren_x(s->ren);
    /* float: the double x in the caller's order where B's b was (the
     * result's x, unrounded as without renumbering; s->x_h is the rounded
     * residual's scratch) */
    double *x64 = type == CMRS_VALUE_FLOAT64 ? x : b_b;
    cmrs_api_ren_in(s->ren, b64, b_b);
    cmrs_api_ren_in(s->ren, x0_64, x_b);
    CMRS_CHECK(cmrs_ksp_set_rhs(s->ksp, b_b, x_b));
    cmrs_ksp_set_x_out(s->ksp, x_b);
    CMRS_CHECK(run(s));
    if (!s->res.x) return CMRS_OK; /* a timing-only solve: x stays */
    cmrs_api_ren_out(s->ren, s->res.x, x64);
    s->res.x = x64;
    if (type == CMRS_VALUE_FLOAT64) return CMRS_OK;
    for (int64_t i = 0; i < s->be->n; ++i) ((float *)x)[i] = (float)x64[i];
    CMRS_CHECK(rounded_residual(s, b64, x));
    return CMRS_OK;
}

/* Host arrays: b and x (x0 on entry) as doubles, the solution back in the
 * caller's type (float: the info's true residual is that of the rounded
 * x, what the caller gets). */
static cmrs_code solve_host(cmrs_solver *s, const void *b, void *x,
                            cmrs_value_type type)
{
    int64_t n = s->be->n;
    const double *b64 = b, *x0_64 = x; /* as doubles */
    if (type == CMRS_VALUE_FLOAT32) {
        CMRS_CHECK(cmrs_api_float_buffers(s));
        cmrs_api_values_to_double(b, type, n, s->b_h);
        cmrs_api_values_to_double(x, type, n, s->x_h);
        b64 = s->b_h;
        x0_64 = s->x_h;
    }
    if (s->ren) return solve_renumbered(s, b64, x0_64, x, type);
    CMRS_CHECK(cmrs_ksp_set_rhs(s->ksp, b64, x0_64));
    /* doubles: x downloaded straight into the caller's array */
    if (type == CMRS_VALUE_FLOAT64) cmrs_ksp_set_x_out(s->ksp, x);
    CMRS_CHECK(run(s));
    for (int64_t i = 0; i < n && type == CMRS_VALUE_FLOAT32; ++i)
        ((float *)x)[i] = (float)s->res.x[i];
    if (type == CMRS_VALUE_FLOAT32) CMRS_CHECK(rounded_residual(s, b64, x));
    return CMRS_OK;
}

static cmrs_code solve_device(cmrs_solver *s, const void *b, void *x,
                              cmrs_value_type type)
{
    cmrs_vec bv = {(void *)b}, xv = {x};
    CMRS_CHECK(cmrs_api_check_device(s, b, type, "cmrs_solver_solve_ex"));
    CMRS_CHECK(cmrs_api_check_device(s, x, type, "cmrs_solver_solve_ex"));
    CMRS_CHECK(cmrs_api_wait_caller());
    if (s->ren) { /* b and x0 into B's order, on the library's stream */
        CMRS_CHECK(cmrs_api_ren_vectors_d(s->ren, s->be, &bv.data,
                                          &xv.data));
        CMRS_CHECK(cmrs_api_ren_in_d(s->ren, s->be, b, bv.data));
        CMRS_CHECK(cmrs_api_ren_in_d(s->ren, s->be, x, xv.data));
    }
    CMRS_CHECK(cmrs_ksp_set_rhs_vec(s->ksp, &bv, &xv));
    CMRS_CHECK(run(s));
    if (s->ren)
        CMRS_CHECK(cmrs_api_ren_out_d(s->ren, s->be,
                                      cmrs_ksp_x(s->ksp)->data, x));
    else
        CMRS_CHECK(s->be->ops->copy(s->be, cmrs_ksp_x(s->ksp), &xv));
    CMRS_CHECK(s->be->ops->sync(s->be));
    return CMRS_OK;
}

static cmrs_code solve(cmrs_solver *s, const void *b, void *x,
                       cmrs_value_type type, cmrs_memory where)
{
    CMRS_CHECK(cmrs_api_enter(s->ctx));
    CMRS_CHECK(check_ready(s, "cmrs_solver_solve"));
    /* A single-precision back end's true residual reads the host's A
     * (solver.c true_residual); a double one never does. */
    if (s->be->prec == CMRS_PREC_SINGLE) CMRS_CHECK(cmrs_api_refresh_host(s));
    CMRS_ENSURE(b && x, CMRS_E_USAGE, "cmrs_solver_solve: b or x is NULL");
    CMRS_CHECK(cmrs_api_check_types(CMRS_INDEX_INT32, type));
    CMRS_ENSURE(!cmrs_api_is_rows(s->A) || type == CMRS_VALUE_FLOAT64,
                CMRS_E_USAGE, "cmrs_solver_solve_ex: a matrix of rows takes "
                "double arrays only (a float x's true residual would read "
                "the whole matrix)");
    CMRS_ENSURE(where == CMRS_MEMORY_HOST || where == CMRS_MEMORY_DEVICE,
                CMRS_E_USAGE, "cmrs_solver_solve_ex: memory %d (use "
                "CMRS_MEMORY_HOST or CMRS_MEMORY_DEVICE)", (int)where);
    if (where == CMRS_MEMORY_DEVICE)
        CMRS_CHECK(solve_device(s, b, x, type));
    else
        CMRS_CHECK(solve_host(s, b, x, type));
    return CMRS_OK;
}

cmrs_status cmrs_solver_solve_ex(cmrs_solver *s, const void *b, void *x,
                                 cmrs_value_type type, cmrs_memory where)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_solve_ex");
    return cmrs_api_status(s->ctx, solve(s, b, x, type, where));
}

cmrs_status cmrs_solver_solve(cmrs_solver *s, const double *b, double *x)
{
    return cmrs_solver_solve_ex(s, b, x, CMRS_VALUE_FLOAT64,
                                CMRS_MEMORY_HOST);
}
