/* The single-level preconditioners: Jacobi (z = D^-1 r) and none (z = r),
 * and the inverse diagonal every diagonal-scaled one (Chebyshev, the AMG
 * smoothers) starts from. */
#include <stdlib.h>

#include "base/profile.h"
#include "precond.h"

/* D^-1 on the host, then set: the CPU back end's way, and the GPU's
 * where its creation did not find the diagonal (own_dinv). */
static cmrs_code host_inverse_diagonal(cmrs_backend *be, const cmrs_csr *A,
                                       const char *what, void **dinv)
{
    cmrs_code rc = CMRS_OK;
    double *h = cmrs_malloc_array((size_t)A->rows, sizeof *h);
    CMRS_ENSURE(h, CMRS_E_NOMEM, "cannot allocate the inverse diagonal");
    /* The host scan and D^-1: host staging; the array: allocation; its
     * upload: transfer (base/profile.h; precond keeps the rest). */
    cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
    rc = cmrs_jacobi_inverse_diagonal_rows(A, be->row0, what, h);
    cmrs_phase_pop();
    CMRS_TRY(rc);
    if (!*dinv) {
        cmrs_phase_push(CMRS_PHASE_ALLOCATION);
        rc = be->ops->arr_create(be, A->rows, dinv);
        cmrs_phase_pop();
        CMRS_TRY(rc);
    }
    CMRS_TRY(be->ops->arr_set(be, A->rows, *dinv, h));
done:
    free(h);
    return rc;
}

/* At setup (*dinv not made yet) the back end's own D^-1 where it has one
 * (the GPU: from the diagonal found on the device while A was converted;
 * bitwise the host's, with its errors), else the host's. Updates (an
 * existing array) take the host path: their values are A's, which the
 * back end may not have seen (a preconditioner updated on its own). */
cmrs_code cmrs_pc_inverse_diagonal(cmrs_backend *be, const cmrs_csr *A,
                                   const char *what, void **dinv)
{
    int done = 0;
    if (!*dinv && be->ops->own_dinv)
        CMRS_CHECK(be->ops->own_dinv(be, A, what, dinv, &done));
    if (!done) CMRS_CHECK(host_inverse_diagonal(be, A, what, dinv));
    return CMRS_OK;
}

static cmrs_code jacobi_setup(cmrs_precond *pc, const cmrs_csr *A,
                              const char *what)
{
    void *dinv = NULL;
    cmrs_code rc = cmrs_pc_inverse_diagonal(pc->be, A, what, &dinv);
    pc->impl = dinv; /* freed by destroy, also after a failure */
    pc->dinv = dinv;
    return rc;
}

static cmrs_code jacobi_apply(cmrs_precond *pc, const void *r, void *z)
{
    CMRS_CHECK(pc->be->ops->dxpby(pc->be, pc->be->n, 1.0, pc->impl, r, 0.0,
                                  z));
    return CMRS_OK;
}

static cmrs_code jacobi_update(cmrs_precond *pc, const cmrs_csr *A,
                               const char *what)
{
    void *dinv = pc->impl;
    CMRS_CHECK(cmrs_pc_inverse_diagonal(pc->be, A, what, &dinv));
    pc->moved = 0; /* the same array, rewritten */
    return CMRS_OK;
}

/* D^-1 rewritten in place: the fused kernels and captured graphs read the
 * same array. */
static cmrs_code jacobi_update_d(cmrs_precond *pc, const void *values_d,
                                 const char *what)
{
    (void)what;
    CMRS_CHECK(pc->be->ops->dinv_d(pc->be, values_d, pc->impl));
    pc->moved = 0;
    return CMRS_OK;
}

static void *jacobi_update_dinv(const cmrs_precond *pc) { return pc->impl; }

static void jacobi_destroy(cmrs_precond *pc)
{
    pc->be->ops->arr_destroy(pc->be, pc->impl);
}

const cmrs_precond_ops cmrs_pc_jacobi_ops = {
    .name = "jacobi",
    .setup = jacobi_setup,
    .apply = jacobi_apply,
    .update_values = jacobi_update,
    .destroy = jacobi_destroy,
    .update_values_d = jacobi_update_d,
    .update_dinv = jacobi_update_dinv,
};

static cmrs_code none_setup(cmrs_precond *pc, const cmrs_csr *A,
                            const char *what)
{
    (void)pc, (void)A, (void)what;
    return CMRS_OK;
}

static cmrs_code none_apply(cmrs_precond *pc, const void *r, void *z)
{
    if (r == z) return CMRS_OK;
    CMRS_CHECK(pc->be->ops->dxpby(pc->be, pc->be->n, 1.0, NULL, r, 0.0, z));
    return CMRS_OK;
}

static cmrs_code none_update(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what)
{
    (void)A, (void)what;
    pc->moved = 0;
    return CMRS_OK;
}

static cmrs_code none_update_d(cmrs_precond *pc, const void *values_d,
                               const char *what)
{
    (void)values_d, (void)what;
    pc->moved = 0;
    return CMRS_OK;
}

const cmrs_precond_ops cmrs_pc_none_ops = {
    .name = "none",
    .setup = none_setup,
    .apply = none_apply,
    .update_values = none_update,
    .update_values_d = none_update_d,
};
