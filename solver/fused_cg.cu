/* The fused engine's CG (Hestenes-Stiefel, as cg.c) in three kernels per
 * iteration besides the SpMV q = A p:
 *   pq:  p'q, then alpha = rz / p'q                    reads p q
 *   r:   r -= alpha q, z = M^-1 r, r'z and r'r,
 *        then ||r|| recorded and tested, beta          reads r q dinv, writes r z
 *   xp:  x += alpha p, p = z + beta p                  reads x p z, writes x p
 * x is updated one kernel late, from the p it already reads, which saves a
 * pass over p. Sums in double, in a fixed order (dev_reduce.cuh). Once the
 * state says done, every kernel returns at once. */
#include "dev_reduce.cuh"

using namespace cmrs_dev;

namespace {

/* z = M^-1 r, p = z, r'z and ||r|| (history entry 0). */
template <typename T> CMRS_DEV_KERNEL cg_init(cmrs_dev_args a)
{
    pdl_enter();
    const T *dinv = (const T *)a.dinv_d;
    T *r = (T *)a.r, *z = (T *)a.z, *p = (T *)a.p;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T ri = r[i], zi = precond(dinv, ri, i);
        if (dinv) z[i] = zi;
        p[i] = zi;
        v[0] += (double)ri * (double)zi;
        v[1] += (double)ri * (double)ri;
    }
    if (!grid_sum<2>(v, a.partials_d, &a.st_d->ticket, tot)) return;
    cmrs_dstate *st = a.st_d;
    record<T>(st, a.history_d, 0, sqrt(tot[1]));
    st->rz = tot[0];
    if (!st->done) require_positive(st, tot[0]);
}

/* The vector loads below never wait for the state: what the state decides
 * (done, live) only guards the stores and the scalar update, so the first
 * loads overlap the state's. Once done, the sums are computed and dropped
 * (the no-op iterations of a block read, but never write). */
template <typename T> CMRS_DEV_KERNEL cg_pq(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    const T *p = (const T *)a.p, *q = (const T *)a.q;
    double v[1] = {0.0}, tot[1];
    for (int64_t i = first_index(); i < a.n; i += stride())
        v[0] += (double)p[i] * (double)q[i];
    if (!grid_sum<1>(v, a.partials_d, &st->ticket, tot)) return;
    st->live = 0;
    if (st->done) return;
    st->pq = tot[0];
    require_positive(st, tot[0]);
    st->live = !st->done;
    if (st->live) st->alpha = st->rz / tot[0];
}

template <typename T> CMRS_DEV_KERNEL cg_r(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    const bool live = st->live;
    const T alpha = (T)st->alpha;
    const T *dinv = (const T *)a.dinv_d, *q = (const T *)a.q;
    T *r = (T *)a.r, *z = (T *)a.z;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T ri = r[i] - alpha * q[i], zi = precond(dinv, ri, i);
        if (live) {
            r[i] = ri;
            if (dinv) z[i] = zi;
        }
        v[0] += (double)ri * (double)zi;
        v[1] += (double)ri * (double)ri;
    }
    if (!grid_sum<2>(v, a.partials_d, &st->ticket, tot) || !live) return;
    int64_t k = st->k + 1;
    record<T>(st, a.history_d, k, sqrt(tot[1]));
    if (st->done) return;
    require_positive(st, tot[0]);
    if (st->done) return;
    st->beta = tot[0] / st->rz;
    st->rz = tot[0];
    if (k >= st->maxiter) stop(st, CMRS_DIVERGED_MAXITS);
}

/* x += alpha p always (the iteration that stopped included); p = z + beta
 * p only while the solve goes on. */
template <typename T> CMRS_DEV_KERNEL cg_xp(cmrs_dev_args a)
{
    pdl_enter();
    const cmrs_dstate *st = a.st_d;
    const bool live = st->live, next = live && !st->done;
    const T alpha = (T)st->alpha, beta = (T)st->beta;
    const T *z = (const T *)(a.dinv_d ? a.z : a.r);
    T *x = (T *)a.x, *p = (T *)a.p;
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T pi = p[i], xi = x[i], zi = z[i];
        if (live) x[i] = xi + alpha * pi;
        if (next) p[i] = zi + beta * pi;
    }
}

} // namespace

extern "C" cmrs_code cmrs_fused_cg_init(const cmrs_dev_args *a)
{
    CMRS_DEV_LAUNCH(a, cg_init);
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_fused_cg_pq(const cmrs_dev_args *a)
{
    CMRS_DEV_LAUNCH(a, cg_pq);
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_fused_cg_r(const cmrs_dev_args *a)
{
    CMRS_DEV_LAUNCH(a, cg_r);
    return CMRS_OK;
}

extern "C" cmrs_code cmrs_fused_cg_xp(const cmrs_dev_args *a)
{
    CMRS_DEV_LAUNCH(a, cg_xp);
    return CMRS_OK;
}

/* Enough resident blocks to saturate memory bandwidth (the grid-stride
 * loops cover any n), never more blocks than rows need. */
extern "C" cmrs_code cmrs_dev_grid(int64_t n, int *grid)
{
    int dev = 0, sms = 0;
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                     dev));
    int64_t full = (int64_t)sms * kBlocksPerSM;
    int64_t need = (n + kThreads - 1) / kThreads;
    *grid = (int)(need < full ? (need > 0 ? need : 1) : full);
    return CMRS_OK;
}
