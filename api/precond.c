/* The solver's preconditioner applied alone (include/cmrs.h,
 * cmrs_solver_apply_precond): z = M^-1 r with the preconditioner object the
 * Krylov loop applies (solver/pc/precond.h), so that other Krylov codes (SciPy,
 * pyamg, a caller's own) can use it. Host arrays go through two back-end
 * arrays made on the first host call; device arrays are used in place. */
#include <string.h>

#include "api_internal.h"

/* s->pc_r and s->pc_z, made once (the first host call after a setup). */
static cmrs_code host_arrays(cmrs_solver *s)
{
    if (!s->pc_r) CMRS_CHECK(s->be->ops->arr_create(s->be, s->be->n,
                                                    &s->pc_r));
    if (!s->pc_z) CMRS_CHECK(s->be->ops->arr_create(s->be, s->be->n,
                                                    &s->pc_z));
    return CMRS_OK;
}

static cmrs_code apply_host(cmrs_solver *s, cmrs_precond *pc, const void *r,
                            void *z, cmrs_value_type type)
{
    int64_t n = s->be->n, bad;
    const double *r64 = r;
    double *z64 = z;
    if (type == CMRS_VALUE_FLOAT32) {
        CMRS_CHECK(cmrs_api_float_buffers(s));
        cmrs_api_values_to_double(r, type, n, s->b_h);
        r64 = s->b_h;
        z64 = s->x_h;
    }
    bad = cmrs_api_first_nonfinite(r, type, n);
    CMRS_ENSURE(bad < 0, CMRS_E_INPUT, "cmrs_solver_apply_precond: r[%lld] "
                "is not finite", (long long)bad);
    CMRS_CHECK(host_arrays(s));
    if (s->ren) { /* r into B's order, z back (through B-order buffers) */
        cmrs_api_ren_in(s->ren, r64, cmrs_api_ren_b(s->ren));
        r64 = cmrs_api_ren_b(s->ren);
    }
    CMRS_CHECK(s->be->ops->arr_set(s->be, n, s->pc_r, r64));
    CMRS_CHECK(cmrs_precond_apply(pc, s->pc_r, s->pc_z));
    CMRS_CHECK(s->be->ops->sync(s->be));
    CMRS_CHECK(s->be->ops->arr_get(s->be, n, s->pc_z,
                                   s->ren ? cmrs_api_ren_x(s->ren) : z64));
    if (s->ren) cmrs_api_ren_out(s->ren, cmrs_api_ren_x(s->ren), z64);
    if (type == CMRS_VALUE_FLOAT32)
        for (int64_t i = 0; i < n; ++i) ((float *)z)[i] = (float)z64[i];
    return CMRS_OK;
}

/* Device arrays of the precision: the preconditioner reads r and writes z
 * where they are, on the library's stream; synchronised before return. */
static cmrs_code apply_device(cmrs_solver *s, cmrs_precond *pc,
                              const void *r, void *z, cmrs_value_type type)
{
    const char *fn = "cmrs_solver_apply_precond";
    CMRS_CHECK(cmrs_api_check_device(s, r, type, fn));
    CMRS_CHECK(cmrs_api_check_device(s, z, type, fn));
    CMRS_CHECK(cmrs_api_wait_caller());
    if (s->ren) { /* r into B's order, z back, on the library's stream */
        void *r_b, *z_b;
        CMRS_CHECK(cmrs_api_ren_vectors_d(s->ren, s->be, &r_b, &z_b));
        CMRS_CHECK(cmrs_api_ren_in_d(s->ren, s->be, r, r_b));
        CMRS_CHECK(cmrs_precond_apply(pc, r_b, z_b));
        CMRS_CHECK(cmrs_api_ren_out_d(s->ren, s->be, z_b, z));
    } else {
        CMRS_CHECK(cmrs_precond_apply(pc, r, z));
    }
    CMRS_CHECK(s->be->ops->sync(s->be));
    return CMRS_OK;
}

static cmrs_code apply(cmrs_solver *s, const void *r, void *z,
                       cmrs_value_type type, cmrs_memory where)
{
    const char *fn = "cmrs_solver_apply_precond";
    CMRS_CHECK(cmrs_api_enter(s->ctx));
    CMRS_ENSURE(s->ksp, CMRS_E_USAGE, "%s: the solver is not set up (call "
                "cmrs_solver_setup first; a failed setup or update leaves "
                "it so)", fn);
    CMRS_ENSURE(r && z, CMRS_E_USAGE, "%s: r or z is NULL", fn);
    CMRS_ENSURE(r != z, CMRS_E_USAGE, "%s: r and z are the same array (z "
                "must not overlap r)", fn);
    CMRS_CHECK(cmrs_api_check_types(CMRS_INDEX_INT32, type));
    CMRS_ENSURE(where == CMRS_MEMORY_HOST || where == CMRS_MEMORY_DEVICE,
                CMRS_E_USAGE, "%s: memory %d (use CMRS_MEMORY_HOST or "
                "CMRS_MEMORY_DEVICE)", fn, (int)where);
    cmrs_precond *pc = cmrs_ksp_precond(s->ksp);
    CMRS_ENSURE(pc, CMRS_E_INTERNAL, "%s: the solver has no preconditioner "
                "object", fn);
    if (where == CMRS_MEMORY_DEVICE)
        CMRS_CHECK(apply_device(s, pc, r, z, type));
    else
        CMRS_CHECK(apply_host(s, pc, r, z, type));
    return CMRS_OK;
}

cmrs_status cmrs_solver_apply_precond(cmrs_solver *s, const void *r, void *z,
                                      cmrs_value_type type, cmrs_memory where)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_apply_precond");
    cmrs_error_clear();
    return cmrs_api_status(s->ctx, apply(s, r, z, type, where));
}
