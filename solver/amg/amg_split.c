/* The V-cycle split after a level (amg_split.h). */
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

int cmrs_amg_split_levels(const cmrs_precond *pc)
{
    return split_of(pc)->nlev;
}

int64_t cmrs_amg_split_n(const cmrs_precond *pc, int k)
{
    return split_of(pc)->lev[k].n;
}

double cmrs_amg_split_rho(const cmrs_precond *pc, int k)
{
    return split_of(pc)->lev[k].rho;
}

/* M's host copy (downloaded where only the builder's exists). */
static cmrs_code host_of(cmrs_precond *pc, cmrs_lmat *M, const cmrs_csr **h)
{
    CMRS_ENSURE(cmrs_lmat_has(M), CMRS_E_INTERNAL, "amg split: the level "
                "matrix is gone (dropped, or never formed)");
    CMRS_CHECK(cmrs_lmat_host(pc->be, M));
    *h = &M->h;
    return CMRS_OK;
}

cmrs_code cmrs_amg_split_p(cmrs_precond *pc, int k, const cmrs_csr **P)
{
    amg_impl *m = pc->impl;
    return host_of(pc, &m->lev[k].Pm, P);
}

cmrs_code cmrs_amg_split_p_rows(cmrs_precond *pc, int k, int64_t r0,
                                int64_t r1, const char *format,
                                cmrs_op **P, cmrs_op **R, int *done)
{
    amg_impl *m = pc->impl;
    cmrs_lmat S = {0}, T = {0};
    *done = 0;
    if (!m->b->lmat_rows || !m->b->op_create_lmat) return CMRS_OK;
    CMRS_CHECK(m->b->lmat_rows(pc->be, &m->lev[k].Pm, r0, r1, &S, &T, done));
    if (!*done) return CMRS_OK;
    cmrs_code rc = m->b->op_create_lmat(pc->be, &S, format, P);
    if (rc == CMRS_OK) rc = m->b->op_create_lmat(pc->be, &T, format, R);
    cmrs_lmat_free(pc->be, &S);
    cmrs_lmat_free(pc->be, &T);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

cmrs_code cmrs_amg_split_a(cmrs_precond *pc, int k, const cmrs_csr **A)
{
    amg_impl *m = pc->impl;
    return host_of(pc, &m->lev[k].Am, A);
}

void *cmrs_amg_split_b(const cmrs_precond *pc, int k)
{
    return split_of(pc)->lev[k].b;
}

void *cmrs_amg_split_x(const cmrs_precond *pc, int k)
{
    return split_of(pc)->lev[k].x;
}

cmrs_code cmrs_amg_split_cycle(cmrs_precond *pc, int k)
{
    amg_impl *m = pc->impl;
    CMRS_CHECK(cmrs_amg_vcycle(pc, k, m->lev[k].b, m->lev[k].x));
    return CMRS_OK;
}

void cmrs_amg_split_drop(cmrs_precond *pc, int k)
{
    amg_impl *m = pc->impl;
    amg_level *L = &m->lev[k];
    const cmrs_backend_ops *f = pc->be->ops;
    f->op_destroy(pc->be, L->A);
    f->op_destroy(pc->be, L->P);
    f->op_destroy(pc->be, L->R);
    f->arr_destroy(pc->be, L->dinv);
    f->arr_destroy(pc->be, L->r);
    f->arr_destroy(pc->be, L->d);
    if (k == 0) f->arr_destroy(pc->be, m->pw); /* level 0's power steps */
    cmrs_lmat_free(pc->be, &L->Am); /* read only by a re-setup */
    cmrs_lmat_free(pc->be, &L->Pm);
    cmrs_lmat_free(pc->be, &L->Rm);
    free(L->agg); /* n int32 on the host */
    L->agg = NULL;
    cmrs_amg_level_agg_dev_free(pc->be, m->b, L);
    L->A = L->P = L->R = NULL;
    L->dinv = L->r = L->d = NULL;
    if (k == 0) m->pw = NULL;
}

void cmrs_amg_split_free_host(cmrs_precond *pc, int k)
{
    amg_impl *m = pc->impl;
    cmrs_lmat *mats[] = {&m->lev[k].Am, &m->lev[k].Pm};
    for (int i = 0; i < 2; ++i)
        if (mats[i]->dev) cmrs_csr_free(&mats[i]->h);
}
