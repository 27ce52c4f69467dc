/* The V-cycle split after level 0 (amg_split.h). */
#include <stdlib.h>

#include "amg.h"
#include "amg_split.h"

static const amg_impl *split_of(const cmrs_precond *pc)
{
    return pc->ops == &cmrs_pc_amg_ops ? pc->impl : NULL;
}

int cmrs_amg_split_ok(const cmrs_precond *pc)
{
    const amg_impl *m = split_of(pc);
    return m && m->nlev >= 2;
}

int64_t cmrs_amg_split_n1(const cmrs_precond *pc)
{
    return split_of(pc)->lev[1].n;
}

double cmrs_amg_split_rho0(const cmrs_precond *pc)
{
    return split_of(pc)->lev[0].rho;
}

cmrs_code cmrs_amg_split_p0(cmrs_precond *pc, const cmrs_csr **P0)
{
    amg_impl *m = pc->impl;
    CMRS_CHECK(cmrs_lmat_host(pc->be, &m->lev[0].Pm));
    *P0 = &m->lev[0].Pm.h;
    return CMRS_OK;
}

void *cmrs_amg_split_b1(const cmrs_precond *pc)
{
    return split_of(pc)->lev[1].b;
}

void *cmrs_amg_split_x1(const cmrs_precond *pc)
{
    return split_of(pc)->lev[1].x;
}

cmrs_code cmrs_amg_split_cycle(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    CMRS_CHECK(cmrs_amg_vcycle(pc, 1, m->lev[1].b, m->lev[1].x));
    return CMRS_OK;
}

void cmrs_amg_split_drop_fine(cmrs_precond *pc)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[0];
    const cmrs_backend_ops *f = pc->be->ops;
    f->op_destroy(pc->be, L->A);
    f->op_destroy(pc->be, L->P);
    f->op_destroy(pc->be, L->R);
    f->arr_destroy(pc->be, L->dinv);
    f->arr_destroy(pc->be, L->r);
    f->arr_destroy(pc->be, L->d);
    f->arr_destroy(pc->be, m->pw);
    cmrs_lmat_free(pc->be, &L->Pm); /* read only by a re-setup */
    cmrs_lmat_free(pc->be, &L->Rm);
    free(L->agg); /* n int32 on the host */
    L->agg = NULL;
    L->A = L->P = L->R = NULL;
    L->dinv = L->r = L->d = m->pw = NULL;
}
