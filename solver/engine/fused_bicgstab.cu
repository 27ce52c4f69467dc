/* The fused engine's BiCGStab (bicgstab.c's recurrence: right
 * preconditioned, phat and shat sharing z, r overwritten by s) in five
 * kernels per iteration besides the SpMVs v = A phat and t = A shat:
 *   direction (graph_scalars_bicgstab.cu, shared with the graph engine):
 *         p = r + beta (p - omega v), z = phat = M^-1 p
 *                                          reads r p v, writes p z
 *   rv:   r_hat'v, then alpha              reads r_hat v
 *   s:    r = s = r - alpha v, z = shat = M^-1 s, ||s||, and the half-step
 *         exit when ||s|| already stops    reads r v, writes r z
 *   ts:   t't and t's, then omega or the breakdown      reads t r
 *   end:  x += alpha phat + omega shat, r = s - omega t, ||r|| and r_hat'r,
 *         then record, maxiter, the next rho guard, beta
 *                                          reads x p z r t r_hat, writes x r
 * (with Jacobi, the kernels that apply M^-1 also read dinv; without it
 * there is no z: phat is p and shat is s). x is updated once per iteration,
 * in end, with phat recomputed from p (z holds shat by then): one pass over
 * x instead of two, and no pass over phat in s. An iteration that stopped
 * before omega (half-step exit, stabilising breakdown) ends with x += alpha
 * phat only, which is where bicgstab.c leaves x.
 *
 * live: 0 no valid alpha in this iteration, 1 alpha, 2 alpha and omega.
 * Sums in double, in a fixed order (dev_reduce.cuh). Once the state says
 * done, every kernel returns at once, except end finishing the iteration
 * that stopped. */
#include "dev_bicgstab.cuh"

using namespace cmrs_dev;

namespace {

/* r_hat = r, ||r|| (history entry 0) and rho = r_hat'r = r'r. */
template <typename T> CMRS_DEV_KERNEL bcg_init(cmrs_dev_args a)
{
    pdl_enter();
    const T *r = (const T *)a.r;
    T *rhat = (T *)a.rhat;
    double v[1] = {0.0}, tot[1];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T ri = r[i];
        rhat[i] = ri;
        v[0] += (double)ri * (double)ri;
    }
    if (!grid_sum<1>(v, a.partials_d, &a.st_d->ticket, tot)) return;
    start_step<T>(a.st_d, a.history_d, sqrt(tot[0]), tot[0]);
}

template <typename T> CMRS_DEV_KERNEL bcg_rv(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    if (st->done) {
        if (first_index() == 0) st->live = 0;
        return;
    }
    const T *rhat = (const T *)a.rhat, *v = (const T *)a.q;
    double sum[1] = {0.0}, tot[1];
    for (int64_t i = first_index(); i < a.n; i += stride())
        sum[0] += (double)rhat[i] * (double)v[i];
    if (!grid_sum<1>(sum, a.partials_d, &st->ticket, tot)) return;
    alpha_step(st, tot[0]);
}

template <typename T> CMRS_DEV_KERNEL bcg_s(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    if (!st->live) return;
    const T *dinv = (const T *)a.dinv_d, *v = (const T *)a.q;
    T *r = (T *)a.r, *z = (T *)a.z;
    T alpha = (T)st->alpha;
    double sum[1] = {0.0}, tot[1];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T si = r[i] - alpha * v[i];
        r[i] = si;
        if (dinv) z[i] = precond(dinv, si, i);
        sum[0] += (double)si * (double)si;
    }
    if (!grid_sum<1>(sum, a.partials_d, &st->ticket, tot)) return;
    s_step<T>(st, a.history_d, sqrt(tot[0]));
}

template <typename T> CMRS_DEV_KERNEL bcg_ts(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    if (!st->live || st->done) return;
    const T *t = (const T *)a.t, *s = (const T *)a.r;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        double ti = (double)t[i];
        v[0] += ti * ti;
        v[1] += ti * (double)s[i];
    }
    if (!grid_sum<2>(v, a.partials_d, &st->ticket, tot)) return;
    if (omega_step<T>(st, a.history_d, tot[0], tot[1])) st->live = 2;
}

/* x += alpha phat alone: the iteration stopped before omega. */
template <typename T> __device__ void end_half(const cmrs_dev_args &a, T alpha)
{
    const T *dinv = (const T *)a.dinv_d, *p = (const T *)a.p;
    T *x = (T *)a.x;
    for (int64_t i = first_index(); i < a.n; i += stride())
        x[i] += alpha * precond(dinv, p[i], i);
}

/* x as two axpys would leave it (alpha phat, then omega shat, each rounded
 * in T), r = s - omega t, then ||r|| and r_hat'r. */
template <typename T> CMRS_DEV_KERNEL bcg_end(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    if (!st->live) return;
    T alpha = (T)st->alpha, omega = (T)st->omega;
    if (st->live == 1) {
        end_half<T>(a, alpha);
        return;
    }
    const T *dinv = (const T *)a.dinv_d, *p = (const T *)a.p;
    const T *zs = (const T *)a.z, *t = (const T *)a.t;
    const T *rhat = (const T *)a.rhat;
    T *x = (T *)a.x, *r = (T *)a.r;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T si = r[i], shat = dinv ? zs[i] : si;
        T xi = x[i] + alpha * precond(dinv, p[i], i);
        x[i] = xi + omega * shat;
        T ri = si - omega * t[i];
        r[i] = ri;
        v[0] += (double)ri * (double)ri;
        v[1] += (double)rhat[i] * (double)ri;
    }
    if (!grid_sum<2>(v, a.partials_d, &st->ticket, tot)) return;
    end_step<T>(st, a.history_d, sqrt(tot[0]), tot[1]);
}

} // namespace

CMRS_DEV_GRID_ENTRY(cmrs_fused_bcg_init, bcg_init)
CMRS_DEV_GRID_ENTRY(cmrs_fused_bcg_rv, bcg_rv)
CMRS_DEV_GRID_ENTRY(cmrs_fused_bcg_s, bcg_s)
CMRS_DEV_GRID_ENTRY(cmrs_fused_bcg_ts, bcg_ts)
CMRS_DEV_GRID_ENTRY(cmrs_fused_bcg_end, bcg_end)
