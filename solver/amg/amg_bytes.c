/* The bytes one V-cycle must move (amg.h: cmrs_amg_cycle_bytes): the
 * cycle of amg_cycle.c step by step, each SpMV counted as its values and
 * column indices once, x and y once (y twice when it is also read), each
 * vector pass as the arrays it reads and writes. Row pointers are left
 * out (they depend on the format: CSR has one per row, CMRS one per
 * strip), so this is a floor every format can only approach: what issue
 * 12's goal 3 sets the V-cycle's time against (time / (bytes / copy
 * bandwidth), `cmrs solve`'s "x floor" per level). */
#include "amg.h"

/* y = alpha op(x) + beta y for a rows x cols operator of nnz entries. */
static double spmv(double sv, int64_t rows, int64_t cols, int64_t nnz,
                   int beta)
{
    return (sv + 4.0) * (double)nnz +
           sv * (double)(cols + rows + (beta ? rows : 0));
}

/* y = alpha d.*x + beta y over n values. */
static double dxpby(double sv, int64_t n, int d, int beta)
{
    return sv * (double)n * (double)((d ? 1 : 0) + 1 + (beta ? 1 : 0) + 1);
}

/* r = b - A x: a copy, then the SpMV reading r. */
static double residual(double sv, const cmrs_lmat *A)
{
    return dxpby(sv, A->rows, 0, 0) + spmv(sv, A->rows, A->cols, A->nnz, 1);
}

static double jacobi(double sv, const cmrs_lmat *A, int x_zero, int steps)
{
    double b = 0;
    for (int s = 0; s < steps; ++s)
        b += s == 0 && x_zero ? dxpby(sv, A->rows, 1, 0)
                              : residual(sv, A) + dxpby(sv, A->rows, 1, 1);
    return b;
}

/* cmrs_pc_chebyshev_run of degree `steps`. */
static double chebyshev(double sv, const cmrs_lmat *A, int x_zero, int steps)
{
    int64_t n = A->rows;
    double b = x_zero ? dxpby(sv, n, 0, 0) : residual(sv, A);
    b += dxpby(sv, n, 1, 0) + dxpby(sv, n, 0, !x_zero);
    for (int k = 1; k < steps; ++k)
        b += spmv(sv, n, n, A->nnz, 1) + dxpby(sv, n, 1, 1) +
             dxpby(sv, n, 0, 1);
    return b;
}

static double smooth(const cmrs_precond *pc, double sv, const cmrs_lmat *A,
                     int x_zero, int steps)
{
    return pc->o.smoother == CMRS_SMOOTH_CHEBYSHEV
               ? chebyshev(sv, A, x_zero, steps)
               : jacobi(sv, A, x_zero, steps);
}

double cmrs_amg_cycle_bytes(const cmrs_precond *pc, int level)
{
    const amg_impl *m = pc->impl;
    const amg_level *L = &m->lev[level];
    const cmrs_lmat *A = level == 0 ? &m->A0 : &L->Am;
    double sv = (double)cmrs_prec_value_bytes(pc->be->prec);
    const int sweeps = cmrs_pc_amg_sweeps(&pc->o);
    if (level == m->nlev - 1)
        return L->Cinv ? spmv(sv, L->n, L->n, L->n * L->n, 0)
                       : smooth(pc, sv, A, 1, cmrs_pc_amg_coarse_steps(&pc->o));
    const cmrs_lmat *P = &L->Pm, *R = &L->Rm;
    return smooth(pc, sv, A, 1, sweeps) + residual(sv, A) +
           spmv(sv, R->rows, R->cols, R->nnz, 0) +
           cmrs_amg_cycle_bytes(pc, level + 1) +
           spmv(sv, P->rows, P->cols, P->nnz, 1) +
           smooth(pc, sv, A, 0, sweeps);
}
