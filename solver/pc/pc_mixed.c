/* A preconditioner kept in single precision inside a double Krylov loop
 * (--precision mixed, --mixed precond): the AMG hierarchy or Chebyshev
 * polynomial is built on a single-precision twin of the back end over the
 * same A (backend.h twin_create: its own copy of A in float, the same
 * stream), and each apply rounds r to float, applies, and widens z back.
 *
 * Why: a V-cycle moves A's levels and its vectors several times per
 * iteration; in float its values and vectors take half the bytes, while
 * the loop, its SpMV, its dot products and so the solution stay in double
 * (a preconditioner only has to approximate A^-1: rounding it changes the
 * iterations little, never the accuracy reached).
 *
 * r is rounded as it comes: the loop's residuals lie within float's range
 * for any system whose A and b do (the twin's setup refuses values of A
 * beyond it). */
#include <stdlib.h>

#include "precond.h"

typedef struct mixed_impl {
    cmrs_backend *twin;   /* single precision, on the back end's stream */
    cmrs_precond *inner;  /* the preconditioner itself, on the twin */
    void *r_f, *z_f;      /* twin arrays of n floats */
} mixed_impl;

/* What the reports show: the inner one's hierarchy and setup phases. */
static void take_info(cmrs_precond *pc)
{
    const mixed_impl *m = pc->impl;
    double t_setup = pc->info.t_setup;
    pc->info = m->inner->info;
    pc->info.t_setup = t_setup;
}

static cmrs_code mixed_setup(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what)
{
    cmrs_backend *be = pc->be;
    mixed_impl *m = calloc(1, sizeof *m);
    CMRS_ENSURE(m, CMRS_E_NOMEM, "cannot allocate a preconditioner");
    pc->impl = m;
    CMRS_CHECK(be->ops->twin_create(be, A, CMRS_PREC_SINGLE, 0, &m->twin));
    cmrs_pc_opts o = pc->o;
    o.mixed = 0;
    o.fine_own_op = 0; /* the twin's own A is A */
    CMRS_CHECK(cmrs_precond_create(m->twin, A, pc->kind, &o, what,
                                   &m->inner));
    CMRS_CHECK(m->twin->ops->arr_create(m->twin, A->rows, &m->r_f));
    CMRS_CHECK(m->twin->ops->arr_create(m->twin, A->rows, &m->z_f));
    take_info(pc);
    return CMRS_OK;
}

static cmrs_code mixed_apply(cmrs_precond *pc, const void *r, void *z)
{
    cmrs_backend *be = pc->be;
    mixed_impl *m = pc->impl;
    CMRS_CHECK(be->ops->arr_cast(be, be->n, 1.0, r, CMRS_PREC_DOUBLE, m->r_f,
                                 CMRS_PREC_SINGLE));
    CMRS_CHECK(cmrs_precond_apply(m->inner, m->r_f, m->z_f));
    CMRS_CHECK(be->ops->arr_cast(be, be->n, 1.0, m->z_f, CMRS_PREC_SINGLE, z,
                                 CMRS_PREC_DOUBLE));
    return CMRS_OK;
}

/* The twin's A first (its format's values in place where it can), then
 * the preconditioner from it; moved when either replaced what the apply
 * reads. */
static cmrs_code mixed_update_values(cmrs_precond *pc, const cmrs_csr *A,
                                     const char *what)
{
    mixed_impl *m = pc->impl;
    int in_place = 0;
    CMRS_CHECK(m->twin->ops->update_values(m->twin, A, &in_place));
    CMRS_CHECK(cmrs_precond_update_values(m->inner, A, what));
    pc->moved = m->inner->moved || !in_place;
    take_info(pc);
    return CMRS_OK;
}

static cmrs_code mixed_profile(cmrs_precond *pc, int reps)
{
    mixed_impl *m = pc->impl;
    CMRS_CHECK(cmrs_precond_profile(m->inner, reps));
    take_info(pc);
    return CMRS_OK;
}

static void mixed_destroy(cmrs_precond *pc)
{
    mixed_impl *m = pc->impl;
    if (!m) return;
    if (m->twin) {
        cmrs_precond_destroy(m->inner);
        m->twin->ops->arr_destroy(m->twin, m->r_f);
        m->twin->ops->arr_destroy(m->twin, m->z_f);
        cmrs_backend_destroy(m->twin);
    }
    free(m);
    pc->impl = NULL;
}

const cmrs_precond_ops cmrs_pc_mixed_ops = {
    .name = "mixed",
    .setup = mixed_setup,
    .apply = mixed_apply,
    .update_values = mixed_update_values,
    .destroy = mixed_destroy,
    .profile = mixed_profile,
};
