/* BiCGStab on the device loop (devloop.h), in both engines. The recurrence
 * and its decisions (breakdowns, history entries, the half-step exit) are
 * bicgstab.c's; only where the scalars live and how the steps are grouped
 * differ.
 *
 * graph: cuBLAS dot/nrm2/axpy in device pointer mode, one-thread scalar
 *        kernels between them (graph_scalars_bicgstab.cu), our Jacobi and
 *        direction kernels;
 * fused: fused_bicgstab.cu, five kernels per iteration besides the two
 *        SpMVs. */
#include "devloop.h"

enum { R, RHAT, P, V, T, Z }; /* the work vectors, as in bicgstab.c */

/* Without a preconditioner there is no Z (and z stays NULL): phat is p
 * and shat is s, which lives in r. */
static void bcg_bind(const cmrs_ksp *s, cmrs_dev_args *a)
{
    a->r = s->w[R]->data;
    a->rhat = s->w[RHAT]->data;
    a->p = s->w[P]->data;
    a->q = s->w[V]->data;
    a->t = s->w[T]->data;
    a->z = s->o.pc == CMRS_PC_NONE ? NULL : s->w[Z]->data;
}

static const void *phat(const cmrs_dev_args *a)
{
    return a->z ? a->z : a->p;
}

static const void *shat(const cmrs_dev_args *a)
{
    return a->z ? a->z : a->r;
}

/* State slots of the graph engine: see graph_scalars_bicgstab.cu. */
static cmrs_code graph_start(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_nrm2(s, a, a->r, 0));
    CMRS_CHECK(cmrs_dev_copy(s, a->r, a->rhat));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->rhat, a->r, 1));
    CMRS_CHECK(cmrs_scal_bcg_init(a));
    return CMRS_OK;
}

/* t = A shat, omega, x += omega shat, r = s - omega t, ||r||, r_hat'r. */
static cmrs_code graph_stabilise(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_precond(s, a->r, a->z));
    CMRS_CHECK(cmrs_dev_spmv(s, shat(a), a->t));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->t, a->t, 2));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->t, a->r, 3));
    CMRS_CHECK(cmrs_scal_bcg_omega(a));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 2, shat(a), a->x));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 3, a->t, a->r));
    CMRS_CHECK(cmrs_dev_nrm2(s, a, a->r, 4));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->rhat, a->r, 5));
    CMRS_CHECK(cmrs_scal_bcg_end(a));
    return CMRS_OK;
}

/* p and phat, v = A phat, alpha, x += alpha phat, r = s = r - alpha v,
 * ||s||, then the stabilising half. */
static cmrs_code graph_iterate(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_bcg_direction(a)); /* and phat with Jacobi */
    if (!a->dinv_d) CMRS_CHECK(cmrs_dev_precond(s, a->p, a->z));
    CMRS_CHECK(cmrs_dev_spmv(s, phat(a), a->q));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->rhat, a->q, 0));
    CMRS_CHECK(cmrs_scal_bcg_alpha(a));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 0, phat(a), a->x));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 1, a->q, a->r));
    CMRS_CHECK(cmrs_dev_nrm2(s, a, a->r, 1));
    CMRS_CHECK(cmrs_scal_bcg_s(a));
    CMRS_CHECK(graph_stabilise(s, a));
    return CMRS_OK;
}

static cmrs_code fused_start(cmrs_ksp *s, const cmrs_dev_args *a)
{
    (void)s;
    CMRS_CHECK(cmrs_fused_bcg_init(a));
    return CMRS_OK;
}

static cmrs_code fused_iterate(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_bcg_direction(a));
    CMRS_CHECK(cmrs_dev_spmv(s, phat(a), a->q));
    CMRS_CHECK(cmrs_fused_bcg_rv(a));
    CMRS_CHECK(cmrs_fused_bcg_s(a));
    CMRS_CHECK(cmrs_dev_spmv(s, shat(a), a->t));
    CMRS_CHECK(cmrs_fused_bcg_ts(a));
    CMRS_CHECK(cmrs_fused_bcg_end(a));
    return CMRS_OK;
}

const devloop_method cmrs_graph_bicgstab = {bcg_bind, graph_start,
                                            graph_iterate, NULL};
const devloop_method cmrs_fused_bicgstab = {bcg_bind, fused_start,
                                            fused_iterate, NULL};
