/* The graph engine's vector operations: cuBLAS with its results and
 * coefficients in the device state (the handle is in device pointer mode
 * for the whole of a device-loop solve), the preconditioner object, the format's
 * SpMV. All asynchronous, all capturable. */
#include "devloop.h"
#include "solver/backend/gpu/gpu_kernels.h"

#define N(s) ((int)(s)->be->n)
#define BLAS(s) (GPU((s)->be)->blas)

/* The back end's own ops, on bare device arrays. */
cmrs_code cmrs_dev_spmv(const cmrs_ksp *s, const void *x, void *y)
{
    cmrs_vec xv = {(void *)x}, yv = {y};
    CMRS_CHECK(s->be->ops->spmv(s->be, 1.0, &xv, 0.0, &yv));
    return CMRS_OK;
}

cmrs_code cmrs_dev_dot(const cmrs_ksp *s, const cmrs_dev_args *a,
                       const void *x, const void *y, int slot)
{
    if (a->prec == CMRS_PREC_SINGLE)
        CMRS_CUBLAS(cublasSdot(BLAS(s), N(s), x, 1, y, 1,
                               &a->st_d->red_f[slot]));
    else
        CMRS_CUBLAS(cublasDdot(BLAS(s), N(s), x, 1, y, 1,
                               &a->st_d->red_d[slot]));
    return CMRS_OK;
}

cmrs_code cmrs_dev_nrm2(const cmrs_ksp *s, const cmrs_dev_args *a,
                        const void *x, int slot)
{
    if (a->prec == CMRS_PREC_SINGLE)
        CMRS_CUBLAS(cublasSnrm2(BLAS(s), N(s), x, 1, &a->st_d->red_f[slot]));
    else
        CMRS_CUBLAS(cublasDnrm2(BLAS(s), N(s), x, 1, &a->st_d->red_d[slot]));
    return CMRS_OK;
}

cmrs_code cmrs_dev_axpy(const cmrs_ksp *s, const cmrs_dev_args *a,
                        int coef, const void *x, void *y)
{
    if (a->prec == CMRS_PREC_SINGLE)
        CMRS_CUBLAS(cublasSaxpy(BLAS(s), N(s), &a->st_d->coef_f[coef], x, 1,
                                y, 1));
    else
        CMRS_CUBLAS(cublasDaxpy(BLAS(s), N(s), &a->st_d->coef_d[coef], x, 1,
                                y, 1));
    return CMRS_OK;
}

cmrs_code cmrs_dev_copy(const cmrs_ksp *s, const void *x, void *y)
{
    cmrs_vec xv = {(void *)x}, yv = {y};
    CMRS_CHECK(s->be->ops->copy(s->be, &xv, &yv));
    return CMRS_OK;
}

cmrs_code cmrs_dev_precond(const cmrs_ksp *s, const void *r, void *z)
{
    if (!z || z == r || s->o.pc == CMRS_PC_NONE) return CMRS_OK;
    CMRS_CHECK(cmrs_precond_apply(s->pc, r, z));
    return CMRS_OK;
}
