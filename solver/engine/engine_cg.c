/* CG on the device loop (devloop.h), in both engines. The recurrence is
 * cg.c's; only where the scalars live and how the steps are grouped
 * differ.
 *
 * graph: cuBLAS dot/nrm2/axpy in device pointer mode, one-thread scalar
 *        kernels between them, our Jacobi and direction kernels;
 * fused: fused_cg.cu, three kernels per iteration besides the SpMV, or
 *        two where the format's SpMV also sums p'q (cmrs_spmv_apply_dot:
 *        one pass over p and q less). CMRS_SPMV_DOT=0 in the environment
 *        turns that off, to measure what it saves. */
#include <stdlib.h>
#include <string.h>

#include "devloop.h"

enum { R, P, Q, Z }; /* the work vectors, as in cg.c */

static void cg_bind(const cmrs_ksp *s, cmrs_dev_args *a)
{
    a->r = s->w[R]->data;
    a->p = s->w[P]->data;
    a->q = s->w[Q]->data;
    a->z = s->o.pc == CMRS_PC_NONE ? a->r : s->w[Z]->data;
    a->pq_parts = a->grid;
    a->pq_in_spmv = 0;
}

void cmrs_fused_cg_choose_pq(const cmrs_spmv *spmv, cmrs_dev_args *a)
{
    const char *env = getenv("CMRS_SPMV_DOT");
    a->pq_in_spmv = spmv->dot_parts > 0 && !(env && !strcmp(env, "0"));
    a->pq_parts = a->pq_in_spmv ? spmv->dot_parts : a->grid;
}

cmrs_code cmrs_fused_cg_product(cmrs_spmv *spmv, const cmrs_dev_args *a)
{
    if (a->pq_in_spmv)
        return cmrs_spmv_apply_dot(spmv, a->p, a->q, cmrs_dev_pq_partials(a));
    CMRS_CHECK(cmrs_spmv_apply(spmv, 1.0, a->p, 0.0, a->q));
    return cmrs_fused_cg_pq(a);
}

/* The fused loop takes p'q from the SpMV where the format has it. */
static void fused_bind(const cmrs_ksp *s, cmrs_dev_args *a)
{
    cg_bind(s, a);
    cmrs_fused_cg_choose_pq(GPU(s->be)->spmv, a);
}

/* State slots of the graph engine: see graph_scalars.cu. */
static cmrs_code graph_start(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_nrm2(s, a, a->r, 0));
    CMRS_CHECK(cmrs_dev_precond(s, a->r, a->z));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->r, a->z, 1));
    CMRS_CHECK(cmrs_scal_cg_init(a));
    CMRS_CHECK(cmrs_dev_copy(s, a->z, a->p));
    return CMRS_OK;
}

static cmrs_code graph_iterate(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_dev_spmv(s, a->p, a->q));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->p, a->q, 0));
    CMRS_CHECK(cmrs_scal_cg_alpha(a));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 0, a->p, a->x));
    CMRS_CHECK(cmrs_dev_axpy(s, a, 1, a->q, a->r));
    CMRS_CHECK(cmrs_dev_nrm2(s, a, a->r, 1));
    CMRS_CHECK(cmrs_dev_precond(s, a->r, a->z));
    CMRS_CHECK(cmrs_dev_dot(s, a, a->r, a->z, 2));
    CMRS_CHECK(cmrs_scal_cg_beta(a));
    CMRS_CHECK(cmrs_dev_cg_direction(a));
    return CMRS_OK;
}

static cmrs_code fused_start(cmrs_ksp *s, const cmrs_dev_args *a)
{
    (void)s;
    CMRS_CHECK(cmrs_fused_cg_init(a));
    return CMRS_OK;
}

static cmrs_code fused_iterate(cmrs_ksp *s, const cmrs_dev_args *a)
{
    CMRS_CHECK(cmrs_fused_cg_product(GPU(s->be)->spmv, a));
    CMRS_CHECK(cmrs_fused_cg_r(a));
    CMRS_CHECK(cmrs_fused_cg_xp(a));
    return CMRS_OK;
}

const devloop_method cmrs_graph_cg = {cg_bind, graph_start, graph_iterate,
                                      NULL};
const devloop_method cmrs_fused_cg = {fused_bind, fused_start, fused_iterate,
                                      NULL};
