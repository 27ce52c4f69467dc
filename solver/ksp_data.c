/* What changes between the solves of one set-up solver: the right-hand
 * side and initial guess (each solve of a time loop), the matrix values
 * (now and then, same pattern). Nothing here re-converts the matrix. */
#include <string.h>

#include "../spmv/ref.h"
#include "devloop.h"
#include "krylov.h"

cmrs_code cmrs_ksp_set_rhs(cmrs_ksp *s, const double *b, const double *x0)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(b, CMRS_E_INTERNAL, "%s: set_rhs without b", s->what);
    s->have_rhs = 0; /* until both are in place */
    memcpy(s->b_h, b, (size_t)be->n * sizeof *b);
    CMRS_CHECK(be->ops->vec_set(be, s->b, b));
    CMRS_CHECK(be->ops->vec_set(be, s->x0, x0));
    s->bnorm = cmrs_ref_nrm2(be->n, s->b_h);
    s->have_rhs = 1;
    return CMRS_OK;
}

/* Copied where the vectors live (device to device on the GPU); b is also
 * read back, as doubles, for ||b|| and the true residual on the host. */
cmrs_code cmrs_ksp_set_rhs_vec(cmrs_ksp *s, const cmrs_vec *b,
                               const cmrs_vec *x0)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(b, CMRS_E_INTERNAL, "%s: set_rhs without b", s->what);
    s->have_rhs = 0; /* until both are in place */
    CMRS_CHECK(be->ops->copy(be, b, s->b));
    if (x0) CMRS_CHECK(be->ops->copy(be, x0, s->x0));
    else CMRS_CHECK(be->ops->vec_set(be, s->x0, NULL));
    CMRS_CHECK(be->ops->vec_get(be, s->b, s->b_h));
    s->bnorm = cmrs_ref_nrm2(be->n, s->b_h);
    s->have_rhs = 1;
    return CMRS_OK;
}

const cmrs_vec *cmrs_ksp_x(const cmrs_ksp *s) { return s->x; }

cmrs_code cmrs_ksp_update_values(cmrs_ksp *s, const cmrs_csr *A)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(A->rows == s->A->rows && A->cols == s->A->cols &&
                    A->nnz == s->A->nnz, CMRS_E_USAGE, "%s: new values for "
                "a %lld x %lld matrix with %lld entries; the solver was set "
                "up for %lld x %lld with %lld", s->what, (long long)A->rows,
                (long long)A->cols, (long long)A->nnz, (long long)s->A->rows,
                (long long)s->A->cols, (long long)s->A->nnz);
    /* The graph/fused engines' CUDA graphs hold the device pointers they
     * were captured with; a preconditioner may rebuild its operators (AMG's
     * coarse levels) elsewhere: capture again at the next solve. */
    cmrs_devloop_free(s->dev);
    s->dev = NULL;
    CMRS_CHECK(be->ops->update_values(be, A));
    CMRS_CHECK(cmrs_precond_update_values(s->pc, A, s->what));
    s->A = A;
    return CMRS_OK;
}
