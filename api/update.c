/* Values-only updates (same pattern, new values) of a set-up solver.
 * Host values: the matrix's host CSR (true residual; the CPU back end
 * reads it), the back end's format and the preconditioner are refreshed
 * in place. Device values (docs/API.md, "Values-only updates"): format and
 * preconditioner refreshed on the GPU where the preconditioner can be
 * (jacobi, none, chebyshev, amg), the host CSR marked stale and read back
 * lazily, before the next solve's true residual; amg full re-sets up in
 * place on the GPU from its level-0 device copy (solver/amg/amg.c: level 0
 * read back into its own buffer only where a host step needs it). A
 * format without a
 * value store copies the values to the host first and takes the host
 * path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "base/device.h"
#include "base/gpu/dev_finite.h"
#include "base/gpu/upload.h"
#include "api_internal.h"

int64_t cmrs_api_first_nonfinite(const void *values, cmrs_value_type t,
                                 int64_t n)
{
    for (int64_t k = 0; k < n; ++k) {
        double v = t == CMRS_VALUE_FLOAT32 ? ((const float *)values)[k]
                                           : ((const double *)values)[k];
        if (!isfinite(v)) return k;
    }
    return -1;
}

/* *touched = 1 once the matrix holds new values. */
static cmrs_code update_host(cmrs_solver *s, const void *values,
                             cmrs_value_type type, int *touched)
{
    cmrs_csr *A = &s->A->sys.A;
    int64_t bad = cmrs_api_first_nonfinite(values, type, A->nnz);
    CMRS_ENSURE(bad < 0, CMRS_E_INPUT, "cmrs_solver_update_values: value "
                "%lld is not finite (the matrix is unchanged)",
                (long long)bad);
    *touched = 1;
    cmrs_api_values_to_double(values, type, A->nnz, A->values);
    s->host_stale = 0; /* every value was just written */
    if (s->ren) /* B's too */
        CMRS_CHECK(cmrs_api_ren_values_in(s->ren, A->values));
    cmrs_code rc = cmrs_ksp_update_values(s->ksp, cmrs_api_sys_matrix(s));
    if (rc != CMRS_OK && s->ren) /* a row of B named: the caller's row */
        rc = cmrs_api_ren_error(s, rc);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

/* The fallback (a format without a value store): one copy to a host
 * staging array of the device's type, then the host path. */
static cmrs_code update_staged(cmrs_solver *s, const void *values_d,
                               cmrs_value_type type, int *touched)
{
    cmrs_code rc = CMRS_OK;
    size_t bytes = (size_t)s->A->sys.A.nnz *
                   (type == CMRS_VALUE_FLOAT32 ? sizeof(float)
                                               : sizeof(double));
    void *stage = cmrs_malloc_array(bytes, 1);
    CMRS_ENSURE(stage, CMRS_E_NOMEM, "cannot stage %zu bytes of values",
                bytes);
    rc = cmrs_gpu_d2h(stage, values_d, bytes, "values");
    if (rc == CMRS_OK) rc = update_host(s, stage, type, touched);
    free(stage);
    return rc;
}

/* On the GPU, nothing through the host; values checked by the kernels
 * that copy them. */
static cmrs_code update_device(cmrs_solver *s, const void *values_d,
                               cmrs_value_type type, int *touched)
{
    if (!cmrs_ksp_can_update_d(s->ksp))
        return update_staged(s, values_d, type, touched);
    *touched = 1;
    s->host_stale = 1;
    /* a renumbered system's values in B's order first, on the library's
     * stream, which the update then reads in order */
    if (s->ren)
        CMRS_CHECK(cmrs_api_ren_values_d(s->ren, s->be, values_d,
                                         &values_d));
    CMRS_CHECK(cmrs_ksp_update_values_d(s->ksp, values_d));
    return CMRS_OK;
}

/* Double host values for a double solver that can update from device
 * values: one upload at the transfer floor (upload.h) into a device array
 * kept for the next updates, the finiteness check there (before anything
 * changes, as update_host's), then the device path. The host CSR is marked
 * stale rather than rewritten: the host copy and the host's scans were
 * most of a host update (109 ms for a Jacobi update at 5M rows). Without
 * room for the array (*done = 0), the host path. */
static cmrs_code update_host_d(cmrs_solver *s, const double *values,
                               int *touched, int *done)
{
    int64_t nnz = s->A->sys.A.nnz, bad = -1;
    *done = 0;
    if (!s->vals_d) {
        size_t bytes = (size_t)nnz * sizeof(double);
        if (cmrs_gpu_malloc((void **)&s->vals_d, bytes) != CMRS_OK ||
            cmrs_gpu_malloc((void **)&s->bad_d, sizeof *s->bad_d) !=
                CMRS_OK) {
            cmrs_error_clear(); /* not an error: the host path runs */
            cmrs_api_free_update_buffers(s);
            return CMRS_OK;
        }
    }
    CMRS_CHECK(cmrs_h2d(s->vals_d, values, (int64_t)(nnz * sizeof(double)),
                        CMRS_H2D_BYTES, "new matrix values"));
    /* The legacy stream: after the upload, before the back end's stream
     * reads the array (the check waits for it). */
    CMRS_CHECK(cmrs_dev_first_nonfinite(s->vals_d, nnz, s->bad_d, 0, &bad));
    CMRS_ENSURE(bad < 0, CMRS_E_INPUT, "cmrs_solver_update_values: value "
                "%lld is not finite (the matrix is unchanged)",
                (long long)bad);
    *done = 1;
    CMRS_CHECK(update_device(s, s->vals_d, CMRS_VALUE_FLOAT64, touched));
    return CMRS_OK;
}

static int host_goes_through_device(const cmrs_solver *s,
                                    cmrs_value_type type)
{
    return s->ctx->device >= 0 && type == CMRS_VALUE_FLOAT64 &&
           s->be->prec == CMRS_PREC_DOUBLE && cmrs_ksp_can_update_d(s->ksp);
}

static cmrs_code check_values(const cmrs_solver *s, const void *values,
                              cmrs_value_type type, cmrs_memory where)
{
    const char *fn = "cmrs_solver_update_values";
    CMRS_ENSURE(s->ksp, CMRS_E_USAGE, "%s: the solver is not set up (call "
                "cmrs_solver_setup first)", fn);
    CMRS_ENSURE(values, CMRS_E_USAGE, "%s: values is NULL", fn);
    CMRS_CHECK(cmrs_api_check_types(CMRS_INDEX_INT32, type));
    CMRS_ENSURE(where == CMRS_MEMORY_HOST || where == CMRS_MEMORY_DEVICE,
                CMRS_E_USAGE, "%s: memory %d", fn, (int)where);
    if (where == CMRS_MEMORY_DEVICE) {
        CMRS_CHECK(cmrs_api_check_device(s, values, type, fn));
        CMRS_CHECK(cmrs_api_wait_caller());
    }
    return CMRS_OK;
}

static cmrs_code update(cmrs_solver *s, const void *values,
                        cmrs_value_type type, cmrs_memory where,
                        int *touched)
{
    CMRS_CHECK(cmrs_api_enter(s->ctx));
    CMRS_CHECK(check_values(s, values, type, where));
    double t0 = cmrs_wtime();
    int done = 0;
    if (where == CMRS_MEMORY_DEVICE)
        CMRS_CHECK(update_device(s, values, type, touched));
    else if (host_goes_through_device(s, type))
        CMRS_CHECK(update_host_d(s, values, touched, &done));
    if (where == CMRS_MEMORY_HOST && !done)
        CMRS_CHECK(update_host(s, values, type, touched));
    CMRS_CHECK(s->be->ops->sync(s->be));
    s->t_update = cmrs_wtime() - t0;
    return CMRS_OK;
}

cmrs_status cmrs_solver_update_values(cmrs_solver *s, const void *values,
                                      cmrs_value_type type,
                                      cmrs_memory where)
{
    CMRS_API_NOT_NULL(s, "cmrs_solver_update_values");
    int touched = 0;
    cmrs_code rc = update(s, values, type, where, &touched);
    /* Failed half way, the back end may hold old values and the matrix
     * new ones: not set up any more, so no solve uses the mix. A failed
     * check changed nothing and keeps the setup. */
    if (rc != CMRS_OK && touched) {
        s->host_stale = 0; /* the host keeps its values, not the bad ones */
        cmrs_api_solver_reset(s);
    }
    return cmrs_api_status(s->ctx, rc);
}
