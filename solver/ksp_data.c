/* What changes between the solves of one set-up solver: the right-hand
 * side and initial guess (each solve of a time loop), the matrix values
 * (now and then, same pattern). Nothing here re-converts the matrix. */
#include <string.h>

#include "spmv/ref.h"
#include "solver/engine/engines.h"

cmrs_code cmrs_ksp_set_rhs(cmrs_ksp *s, const double *b, const double *x0)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(b, CMRS_E_INTERNAL, "%s: set_rhs without b", s->what);
    s->have_rhs = 0; /* until both are in place */
    s->x_out = NULL;
    CMRS_CHECK(be->ops->vec_set(be, s->b, b));
    CMRS_CHECK(be->ops->vec_set(be, s->x0, x0));
    /* Double: ||b|| where b now is, and no host copy (the true residual is
     * the back end's: solver.c); single: the host's residual needs b,
     * unless no true residual is taken. */
    if (be->prec == CMRS_PREC_DOUBLE || s->no_true) {
        CMRS_CHECK(be->ops->nrm2(be, s->b, &s->bnorm));
    } else {
        memcpy(s->b_h, b, (size_t)be->n * sizeof *b);
        s->bnorm = cmrs_ref_nrm2(be->n, s->b_h);
    }
    s->x_to_host = 1;
    s->have_rhs = 1;
    return CMRS_OK;
}

/* Copied where the vectors live (device to device on the GPU). ||b|| is
 * taken there in double, and without a true residual (no_true); else a
 * single-precision back end reads b back, as doubles, for the host's
 * true residual (solver.c true_residual). */
cmrs_code cmrs_ksp_set_rhs_vec(cmrs_ksp *s, const cmrs_vec *b,
                               const cmrs_vec *x0)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(b, CMRS_E_INTERNAL, "%s: set_rhs without b", s->what);
    s->have_rhs = 0; /* until both are in place */
    CMRS_CHECK(be->ops->copy(be, b, s->b));
    if (x0) CMRS_CHECK(be->ops->copy(be, x0, s->x0));
    else CMRS_CHECK(be->ops->vec_set(be, s->x0, NULL));
    if (be->prec == CMRS_PREC_DOUBLE || s->no_true) {
        CMRS_CHECK(be->ops->nrm2(be, s->b, &s->bnorm));
    } else {
        CMRS_CHECK(be->ops->vec_get(be, s->b, s->b_h));
        s->bnorm = cmrs_ref_nrm2(be->n, s->b_h);
    }
    s->x_to_host = 0;
    s->x_out = NULL;
    s->have_rhs = 1;
    return CMRS_OK;
}

const cmrs_vec *cmrs_ksp_x(const cmrs_ksp *s) { return s->x; }

void cmrs_ksp_set_x_out(cmrs_ksp *s, double *x) { s->x_out = x; }

void cmrs_ksp_set_numbering(cmrs_ksp *s, const int32_t *rows,
                            int64_t (*entry)(void *ctx, int64_t j),
                            void *ctx)
{
    s->row_of = rows;
    s->entry_of = entry;
    s->entry_ctx = ctx;
}

void cmrs_ksp_set_maxiter(cmrs_ksp *s, int64_t maxiter)
{
    if (maxiter >= 1 && maxiter <= s->maxiter_made) s->o.maxiter = maxiter;
}

void cmrs_ksp_set_timing_only(cmrs_ksp *s)
{
    s->no_true = 1;
    s->x_stays = 1;
}

/* The graph/fused engines' CUDA graphs hold the device pointers and
 * kernel arguments they were captured with. They stay while the update
 * only rewrote the arrays they read (the format's value buffer, D^-1,
 * the smoothers' scaled diagonals, the AMG levels' values); otherwise
 * they are captured again at the next solve. */
static void graphs_after_update(cmrs_ksp *s, int kept)
{
    if (kept) return;
    cmrs_devloop_free(s->dev);
    s->dev = NULL;
}

int64_t cmrs_ksp_graph_captures(const cmrs_ksp *s) { return s->captures; }

cmrs_code cmrs_ksp_update_values(cmrs_ksp *s, const cmrs_csr *A)
{
    cmrs_backend *be = s->be;
    CMRS_ENSURE(A->rows == s->A->rows && A->cols == s->A->cols &&
                    A->nnz == s->A->nnz, CMRS_E_USAGE, "%s: new values for "
                "a %lld x %lld matrix with %lld entries; the solver was set "
                "up for %lld x %lld with %lld", s->what, (long long)A->rows,
                (long long)A->cols, (long long)A->nnz, (long long)s->A->rows,
                (long long)s->A->cols, (long long)s->A->nnz);
    int in_place = 0;
    cmrs_code rc = be->ops->update_values(be, A, &in_place);
    if (rc == CMRS_OK)
        rc = cmrs_precond_update_values(s->pc, A, s->what);
    if (rc == CMRS_OK && s->refine) rc = cmrs_refine_update_values(s, A);
    if (rc != CMRS_OK) in_place = 0; /* failed half way: no graphs kept */
    graphs_after_update(s, in_place && !s->pc->moved);
    CMRS_CHECK(rc);
    s->A = A;
    return CMRS_OK;
}

int cmrs_ksp_can_update_d(const cmrs_ksp *s)
{
    /* refinement: its twin takes new values through the host */
    return s->be->device_update && cmrs_precond_can_update_d(s->pc) &&
           !s->refine;
}

/* The errors the kernels flagged; the preconditioner's own failure (rc)
 * after them, since a bad value is its likely cause. */
static cmrs_code check_update_d(cmrs_ksp *s, cmrs_code rc)
{
    int64_t bad_value = -1, bad_row = -1;
    cmrs_code check = s->be->ops->update_check(s->be, &bad_value, &bad_row);
    if (check != CMRS_OK) return check;
    if (s->entry_of && bad_value >= 0)
        bad_value = s->entry_of(s->entry_ctx, bad_value);
    if (s->row_of && bad_row >= 0) bad_row = s->row_of[bad_row];
    CMRS_ENSURE(bad_value < 0, CMRS_E_INPUT, "%s: new value %lld (device "
                "values) is not finite", s->what, (long long)bad_value);
    CMRS_ENSURE(bad_row < 0, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, "
                "chebyshev, amg): row %lld (0-based) has a diagonal that is not "
                "> 0 after the update", s->what, (long long)bad_row);
    return rc;
}

cmrs_code cmrs_ksp_update_values_d(cmrs_ksp *s, const void *values_d)
{
    cmrs_backend *be = s->be;
    int in_place = 1;
    CMRS_ENSURE(cmrs_ksp_can_update_d(s), CMRS_E_INTERNAL, "%s: no device "
                "update for %s on %s", s->what, s->pc->ops->name,
                be->ops->name);
    cmrs_code rc = be->ops->update_values_d(
        be, values_d, cmrs_precond_update_dinv(s->pc), &in_place);
    if (rc == CMRS_OK)
        rc = check_update_d(s, cmrs_precond_update_values_d(s->pc, values_d,
                                                            s->what));
    /* The graphs hold pointers, not values: a rewrite of the same arrays
     * keeps them valid (the smoothers' rho lives in their scaled
     * diagonals, not in kernel arguments). A format that redid more than
     * a copy, or a preconditioner that rebuilt an operator, may have
     * moved its state: capture again at the next solve. */
    if (rc != CMRS_OK) in_place = 0;
    graphs_after_update(s, in_place && !s->pc->moved);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
