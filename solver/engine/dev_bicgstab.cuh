/* BiCGStab's decisions on reduced values, in bicgstab.c's order: shared
 * by the fused kernels (fused_bicgstab.cu) and the graph engine's scalar
 * kernels (graph_scalars_bicgstab.cu), so both engines stop for the same
 * reasons at the same iterations as the reference loop. Device code, run
 * by one thread. */
#ifndef CMRS_SOLVER_DEV_BICGSTAB_CUH
#define CMRS_SOLVER_DEV_BICGSTAB_CUH

#include "dev_reduce.cuh"

namespace cmrs_dev {

/* guard(): the reason v stops the solve (NaN/Inf, or |v| not above tol),
 * CMRS_ITERATING if none. */
__device__ inline int guard(double v, double tol)
{
    if (!isfinite(v)) return CMRS_DIVERGED_NANORINF;
    return fabs(v) > tol ? CMRS_ITERATING : CMRS_DIVERGED_BREAKDOWN;
}

/* Iteration k ended unstopped (k = 0: the start). The loop tests k <
 * maxiter before direction() guards rho = r_hat'r: MAXITS comes first. */
__device__ inline void next_direction(cmrs_dstate *st, int64_t k, double rho)
{
    if (k >= st->maxiter) {
        stop(st, CMRS_DIVERGED_MAXITS);
        return;
    }
    int why = guard(rho, st->eps * st->rhat_norm * st->rnorm);
    if (why != CMRS_ITERATING) {
        stop(st, why);
        return;
    }
    if (k > 0) st->beta = (rho / st->rho) * (st->alpha / st->omega);
    st->rho = rho;
}

/* Entry 0 and r_hat = r, so ||r_hat|| = ||r|| and rho = r'r. */
template <typename T>
__device__ void start_step(cmrs_dstate *st, void *history, double rnorm,
                           double rho)
{
    record<T>(st, history, 0, rnorm);
    st->rhat_norm = st->rnorm;
    if (!st->done) next_direction(st, 0, rho);
}

/* alpha = rho / r_hat'v; live says whether it is valid. */
__device__ inline void alpha_step(cmrs_dstate *st, double rv)
{
    int why = guard(rv, 0.0);
    if (why != CMRS_ITERATING) stop(st, why);
    st->live = !st->done;
    if (st->live) st->alpha = st->rho / rv;
}

/* half_step()'s exit: ||s|| is recorded only when it already stops. */
template <typename T>
__device__ void s_step(cmrs_dstate *st, void *history, double snorm)
{
    st->snorm = snorm;
    if (stop_reason(st, snorm) != CMRS_ITERATING)
        record<T>(st, history, st->k + 1, snorm);
}

/* omega = t's / t't (true), or stabilise()'s breakdown (false): x and r
 * stay the half step's, ||s|| is recorded as the iteration's entry and the
 * guard's reason stops unless the record itself did. */
template <typename T>
__device__ bool omega_step(cmrs_dstate *st, void *history, double tt,
                           double ts)
{
    int why = guard(tt, 0.0);
    if (why == CMRS_ITERATING)
        why = guard(ts, st->eps * sqrt(tt) * st->snorm);
    if (why == CMRS_ITERATING) {
        st->omega = ts / tt;
        return true;
    }
    record<T>(st, history, st->k + 1, st->snorm);
    if (!st->done) stop(st, why);
    return false;
}

/* The full iteration's entry, then what comes before the next one. */
template <typename T>
__device__ void end_step(cmrs_dstate *st, void *history, double rnorm,
                         double rho)
{
    int64_t k = st->k + 1;
    record<T>(st, history, k, rnorm);
    if (!st->done) next_direction(st, k, rho);
}

} // namespace cmrs_dev

#endif
