/* The graph engine's own kernels: the scalar steps between cuBLAS calls
 * (one thread; they read cuBLAS results written in device pointer mode and
 * write the coefficients the next cuBLAS calls read) and CG's direction
 * update with beta taken from the device state. Every coefficient is 0
 * once the state says done, so the rest of a block changes nothing. */
#include "dev_scalar.cuh"

using namespace cmrs_dev;

namespace {

/* Slots: red 0 = ||r||, red 1 = r'z (start); red 0 = p'q, red 1 = ||r||,
 * red 2 = r'z (iteration); coef 0 = alpha, coef 1 = -alpha. */
template <typename T> __global__ void cg_init(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    record<T>(st, a.history_d, 0, red<T>(st, 0));
    st->rz = red<T>(st, 1);
    if (!st->done) require_positive(st, st->rz);
}

template <typename T> __global__ void cg_alpha(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    st->live = 0;
    set_coef(st, 0, 0.0);
    set_coef(st, 1, 0.0);
    if (st->done) return;
    double pq = red<T>(st, 0);
    require_positive(st, pq);
    if (st->done) return;
    st->live = 1;
    st->alpha = st->rz / pq;
    set_coef(st, 0, st->alpha);
    set_coef(st, 1, -st->alpha);
}

template <typename T> __global__ void cg_beta(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    if (!st->live) return;
    int64_t k = st->k + 1;
    record<T>(st, a.history_d, k, red<T>(st, 1));
    if (st->done) return;
    double rz_new = red<T>(st, 2);
    require_positive(st, rz_new);
    if (st->done) return;
    st->beta = rz_new / st->rz;
    st->rz = rz_new;
    if (k >= st->maxiter) stop(st, CMRS_DIVERGED_MAXITS);
}

template <typename T> CMRS_DEV_KERNEL cg_direction(cmrs_dev_args a)
{
    pdl_enter();
    const cmrs_dstate *st = a.st_d;
    if (!st->live || st->done) return;
    const T *z = (const T *)a.z; /* r itself without a preconditioner */
    T *p = (T *)a.p, beta = (T)st->beta;
    for (int64_t i = first_index(); i < a.n; i += stride())
        p[i] = z[i] + beta * p[i];
}

} // namespace

CMRS_DEV_SCALAR_ENTRY(cmrs_scal_cg_init, cg_init)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_cg_alpha, cg_alpha)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_cg_beta, cg_beta)
CMRS_DEV_GRID_ENTRY(cmrs_dev_cg_direction, cg_direction)
