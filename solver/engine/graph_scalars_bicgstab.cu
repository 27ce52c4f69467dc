/* The graph engine's BiCGStab kernels: the scalar steps between cuBLAS
 * calls (one thread, as graph_scalars.cu's for CG) and the direction update
 * p = r + beta (p - omega v), which also writes phat = M^-1 p and which the
 * fused engine shares. The decisions are bicgstab.c's, in its order.
 *
 * Every coefficient is 0 once the state says done (cuBLAS cannot check
 * it), so the rest of a block changes nothing; the direction kernel skips
 * instead, p and v being possibly non-finite by then. */
#include "dev_bicgstab.cuh"
#include "dev_scalar.cuh"

using namespace cmrs_dev;

namespace {

/* Slots: red 0 = ||r||, red 1 = r_hat'r (start); red 0 = r_hat'v, red 1 =
 * ||s||, red 2 = t't, red 3 = t's, red 4 = ||r||, red 5 = r_hat'r
 * (iteration); coef 0 = alpha, 1 = -alpha, 2 = omega, 3 = -omega. */
template <typename T> __global__ void bcg_init(cmrs_dev_args a)
{
    start_step<T>(a.st_d, a.history_d, red<T>(a.st_d, 0), red<T>(a.st_d, 1));
}

template <typename T> __global__ void bcg_alpha(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    set_coef(st, 0, 0.0);
    set_coef(st, 1, 0.0);
    if (st->done) {
        st->live = 0;
        return;
    }
    alpha_step(st, red<T>(st, 0));
    if (!st->live) return;
    set_coef(st, 0, st->alpha);
    set_coef(st, 1, -st->alpha);
}

template <typename T> __global__ void bcg_s(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    if (st->live) s_step<T>(st, a.history_d, red<T>(st, 1));
}

template <typename T> __global__ void bcg_omega(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    set_coef(st, 2, 0.0);
    set_coef(st, 3, 0.0);
    if (!st->live || st->done) return;
    if (!omega_step<T>(st, a.history_d, red<T>(st, 2), red<T>(st, 3)))
        return;
    set_coef(st, 2, st->omega);
    set_coef(st, 3, -st->omega);
}

template <typename T> __global__ void bcg_end(cmrs_dev_args a)
{
    cmrs_dstate *st = a.st_d;
    if (st->live && !st->done)
        end_step<T>(st, a.history_d, red<T>(st, 4), red<T>(st, 5));
}

/* p = r in the first iteration (p and v hold nothing yet), then
 * p = r + beta (p - omega v); z = M^-1 p with Jacobi (else phat is p). */
template <typename T> CMRS_DEV_KERNEL bcg_direction(cmrs_dev_args a)
{
    pdl_enter();
    const cmrs_dstate *st = a.st_d;
    if (st->done) return;
    const T *dinv = (const T *)a.dinv_d, *r = (const T *)a.r;
    const T *v = (const T *)a.q;
    T *p = (T *)a.p, *z = (T *)a.z;
    T beta = (T)st->beta, omega = (T)st->omega;
    bool first = st->k == 0;
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T pi = first ? r[i] : r[i] + beta * (p[i] - omega * v[i]);
        p[i] = pi;
        if (dinv) z[i] = precond(dinv, pi, i);
    }
}

} // namespace

CMRS_DEV_SCALAR_ENTRY(cmrs_scal_bcg_init, bcg_init)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_bcg_alpha, bcg_alpha)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_bcg_s, bcg_s)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_bcg_omega, bcg_omega)
CMRS_DEV_SCALAR_ENTRY(cmrs_scal_bcg_end, bcg_end)
CMRS_DEV_GRID_ENTRY(cmrs_dev_bcg_direction, bcg_direction)
