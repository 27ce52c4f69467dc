/* The fused engine's CG (Hestenes-Stiefel, as cg.c) in two or three
 * kernels per iteration besides the SpMV q = A p:
 *   pq:  p'q (per-block sums)                          reads p q
 *        (left out where the SpMV format writes the p'q partials itself:
 *        cmrs_spmv_apply_dot, a.pq_in_spmv)
 *   r:   alpha = rz / p'q; with Jacobi z -= alpha D^-1 q (r = D z is
 *        not stored: r_i = z_i / dinv_i in the sums), else
 *        r -= alpha q; r'z and r'r (per-block sums)     reads z q dinv, writes z
 *        (z only, so r is stale during and after the solve: nothing reads
 *        it; the true residual comes from x)
 *   xp:  beta = r'z_new / r'z; x += alpha p,
 *        p = z + beta p                                reads x p z, writes x p
 *        and, in the last block to finish, the iteration's commit
 *        (over parts, p's ghost tail too where z's ghosts came with the
 *        r'z sum: a.p_tail)
 * x is updated one kernel late, from the p it already reads, which saves a
 * pass over p.
 *
 * Reductions without a serial tail: a kernel writes one partial sum per
 * block and ends; every block of the next kernel adds the partials itself,
 * in block order (sum_partials), so all blocks hold the same bits and take
 * the same decisions with no fence, atomic or last block on the critical
 * path. Deterministic run to run.
 *
 * The rule that keeps this race-free: no kernel writes a state field that
 * another block of the same kernel may still read. r writes alpha, live
 * and brk (read by xp); the iteration's record (k, history, the stopping
 * test, rz, beta, done) is committed by the last block of xp to finish
 * (an atomic ticket), after every other block has read the state: the
 * commit needs no partial sums of its own (every xp block already holds
 * r'z and r'r), so this tail is a few scalar operations.
 *
 * Over several parts (a.glob_d: dist/dist_fused.c) each part runs these
 * kernels on its rows; after pq (or the SpMV) and after r one block sums
 * the part's partials into glob_d and the caller's all-reduce adds the
 * parts' sums in place, so r and xp read the same totals on every part
 * and every part's state takes the same decisions. There a preconditioner
 * other than Jacobi may run between r and xp (a.pc_z): r then updates r
 * only, the caller applies z = M^-1 r, and rz sums r'z and r'r. */
#include "dev_reduce.cuh"

using namespace cmrs_dev;

namespace {

/* History entry 0 and r'z from the sums tot (r'z, r'r). One thread. */
template <typename T>
__device__ void start_record(const cmrs_dev_args &a, const double (&tot)[2])
{
    cmrs_dstate *st = a.st_d;
    record<T>(st, a.history_d, 0, sqrt(tot[1]));
    st->rz = tot[0];
    if (!st->done) require_positive(st, tot[0]);
}

/* z = M^-1 r, p = z, r'z and ||r|| (history entry 0). */
template <typename T> CMRS_DEV_KERNEL cg_init(cmrs_dev_args a)
{
    pdl_enter();
    const T *dinv = (const T *)a.dinv_d;
    T *r = (T *)a.r, *z = (T *)a.z, *p = (T *)a.p;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        T ri = r[i], zi = a.pc_z ? z[i] : precond(dinv, ri, i);
        if (dinv) z[i] = zi;
        p[i] = zi;
        v[0] += (double)ri * (double)zi;
        v[1] += (double)ri * (double)ri;
    }
    if (a.glob_d) { /* several parts: summed over them, then cg_start */
        write_partials<2>(v, a.partials_d);
        return;
    }
    if (!grid_sum<2>(v, a.partials_d, &a.st_d->ticket, tot)) return;
    start_record<T>(a, tot);
}

/* Several parts: entry 0 from r'z, r'r summed over every part. */
template <typename T> CMRS_DEV_KERNEL cg_start(cmrs_dev_args a)
{
    pdl_enter();
    if (threadIdx.x != 0) return;
    const double tot[2] = {a.glob_d[1], a.glob_d[2]};
    start_record<T>(a, tot);
}

/* This part's sums for the all-reduce (one block): p'q into glob_d[0]. */
template <typename T> CMRS_DEV_KERNEL cg_sum_pq(cmrs_dev_args a)
{
    pdl_enter();
    double tot[1];
    sum_partials<1>(a.partials_d + 2 * (size_t)a.grid, a.pq_parts, tot);
    if (threadIdx.x == 0) a.glob_d[0] = tot[0];
}

/* r'z and r'r (cg_r's or cg_init's partials) into glob_d[1..2]. */
template <typename T> CMRS_DEV_KERNEL cg_sum_rz(cmrs_dev_args a)
{
    pdl_enter();
    double tot[2];
    sum_partials<2>(a.partials_d, a.grid, tot);
    if (threadIdx.x == 0) {
        a.glob_d[1] = tot[0];
        a.glob_d[2] = tot[1];
    }
}

/* Records the iteration r and xp finished from its sums tot (r'z, r'r):
 * ||r|| as entry k + 1 and the test, then r'z, beta, rz and maxiter, in
 * cg.c's order. One thread. */
template <typename T>
__device__ void commit(const cmrs_dev_args &a, const double (&tot)[2])
{
    cmrs_dstate *st = a.st_d;
    int64_t k = st->k + 1;
    record<T>(st, a.history_d, k, sqrt(tot[1]));
    if (st->done) return;
    require_positive(st, tot[0]);
    if (st->done) return;
    st->beta = tot[0] / st->rz;
    st->rz = tot[0];
    if (k >= st->maxiter) stop(st, CMRS_DIVERGED_MAXITS);
}

/* p'q per block into slot 2. */
template <typename T> CMRS_DEV_KERNEL cg_pq(cmrs_dev_args a)
{
    pdl_enter();
    const T *p = (const T *)a.p, *q = (const T *)a.q;
    double v[1] = {0.0};
    for (int64_t i = first_index(); i < a.n; i += stride())
        v[0] += (double)p[i] * (double)q[i];
    write_partials<1>(v, a.partials_d + 2 * (size_t)a.grid);
}

/* alpha from the p'q partials (every block the same), then r and z. */
template <typename T> CMRS_DEV_KERNEL cg_r(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    double pq[1];
    if (a.glob_d)
        pq[0] = a.glob_d[0];
    else
        sum_partials<1>(a.partials_d + 2 * (size_t)a.grid, a.pq_parts, pq);
    const bool done = st->done;
    const int brk = done ? 0 : !isfinite(pq[0]) ? CMRS_DIVERGED_NANORINF
                               : !(pq[0] > 0)   ? CMRS_DIVERGED_BREAKDOWN
                                                : 0;
    const bool live = !done && !brk;
    const double alpha_d = live ? st->rz / pq[0] : 0.0;
    if (first_index() == 0) {
        st->live = live;
        st->brk = brk;
        st->alpha = alpha_d;
    }
    const T alpha = (T)alpha_d;
    const T *dinv = (const T *)a.dinv_d, *q = (const T *)a.q;
    double v[2] = {0.0, 0.0};
    if (dinv) { /* z only: r = z / dinv is not stored (one pass less) */
        T *z = (T *)a.z;
        for (int64_t i = first_index(); live && i < a.n; i += stride()) {
            const T di = dinv[i], zi = z[i] - alpha * (di * q[i]), ri = zi / di;
            z[i] = zi;
            v[0] += (double)ri * (double)zi;
            v[1] += (double)ri * (double)ri;
        }
    } else {
        T *r = (T *)a.r;
        for (int64_t i = first_index(); live && i < a.n; i += stride()) {
            const T ri = r[i] - alpha * q[i];
            const double rr = (double)ri * (double)ri; /* z is r */
            r[i] = ri;
            v[0] += rr;
            v[1] += rr;
        }
    }
    if (!a.pc_z) write_partials<2>(v, a.partials_d); /* else cg_rz's */
}

/* pc_z: r'z and r'r per block, once the preconditioner formed z from the
 * r that cg_r left (every iteration: after a stop z is stale, the sums
 * then unused). */
template <typename T> CMRS_DEV_KERNEL cg_rz(cmrs_dev_args a)
{
    pdl_enter();
    const T *r = (const T *)a.r, *z = (const T *)a.z;
    double v[2] = {0.0, 0.0};
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        const T ri = r[i];
        v[0] += (double)ri * (double)z[i];
        v[1] += (double)ri * (double)ri;
    }
    write_partials<2>(v, a.partials_d);
}

/* Whether the commit of this iteration will go on (cg.c's order), from the
 * same sums and state the commit reads. */
__device__ bool goes_on(const cmrs_dstate *st, const double (&tot)[2])
{
    double rnorm = sqrt(tot[1]);
    return stop_reason(st, rnorm) == CMRS_ITERATING && isfinite(tot[0]) &&
           tot[0] > 0 && st->k + 1 < st->maxiter;
}

/* x += alpha p always (the iteration that stops included); p = z + beta p
 * only while the solve goes on; then the commit (last block). A curvature
 * breakdown r found stops the solve here, with no x update. */
template <typename T> CMRS_DEV_KERNEL cg_xp(cmrs_dev_args a)
{
    pdl_enter();
    cmrs_dstate *st = a.st_d;
    double tot[2];
    if (a.glob_d) {
        tot[0] = a.glob_d[1];
        tot[1] = a.glob_d[2];
    } else {
        sum_partials<2>(a.partials_d, a.grid, tot);
    }
    const bool live = st->live, next = live && goes_on(st, tot);
    if (!live) { /* the same in every block: none takes a ticket */
        if (first_index() == 0 && st->brk && !st->done) stop(st, st->brk);
        return;
    }
    const T alpha = (T)st->alpha, beta = (T)(tot[0] / st->rz);
    const T *z = (const T *)(a.dinv_d || a.pc_z ? a.z : a.r);
    T *x = (T *)a.x, *p = (T *)a.p;
    /* p's ghost tail (a.p_tail) by the owners' expression on the owners'
     * values: the same bits as a halo of the new p would bring */
    for (int64_t i = first_index(); i < a.n + a.p_tail; i += stride()) {
        T pi = p[i];
        if (i < a.n) x[i] += alpha * pi;
        if (next) p[i] = z[i] + beta * pi;
    }
    if (last_block(&st->ticket) && threadIdx.x == 0) commit<T>(a, tot);
}

/* A reliable update (devloop.c, --mixed values): r holds the true
 * residual b - A x, computed from A's double values. With Jacobi z =
 * D^-1 r is formed here; else z is r or the preconditioner formed it.
 * r'z and ||r|| replace the recursion's (rz for the next alpha and beta);
 * p, the Krylov direction built so far, is kept after a replacement
 * mid-solve (the residual gap is then small against r). A converged stop
 * whose true residual misses the test is undone and the direction
 * restarted (beta = 0, live set: cmrs_dev_cg_direction makes p = z): there
 * the gap can be many times the recursive residual, and a direction built
 * for the recursive one diverged (AMG on the vessel) or took 15x the
 * iterations (a host simulation, Jacobi on the 50k vessel). */
template <typename T> CMRS_DEV_KERNEL cg_restate(cmrs_dev_args a)
{
    pdl_enter();
    const T *dinv = (const T *)a.dinv_d, *r = (const T *)a.r;
    T *z = (T *)a.z;
    double v[2] = {0.0, 0.0}, tot[2];
    for (int64_t i = first_index(); i < a.n; i += stride()) {
        const T ri = r[i], zi = dinv ? precond(dinv, ri, i) : z[i];
        if (dinv) z[i] = zi;
        v[0] += (double)ri * (double)zi;
        v[1] += (double)ri * (double)ri;
    }
    if (!grid_sum<2>(v, a.partials_d, &a.st_d->ticket, tot)) return;
    cmrs_dstate *st = a.st_d;
    const bool converged = st->done && (st->reason == CMRS_CONVERGED_RTOL ||
                                        st->reason == CMRS_CONVERGED_ATOL);
    st->rnorm = sqrt(tot[1]);
    st->live = 0;
    /* a converged stop the true residual does not confirm: undone (a
     * restart along z) while iterations are left, else the stop says
     * what the true residual is (maxiter; NaN/Inf) */
    const int why = converged ? stop_reason(st, st->rnorm) : CMRS_ITERATING;
    if (why == CMRS_ITERATING && converged && st->k < st->maxiter) {
        st->done = 0;
        st->reason = CMRS_ITERATING;
        st->beta = 0.0;
        st->live = 1;
    } else if (converged && (why == CMRS_ITERATING ||
                             why == CMRS_DIVERGED_NANORINF)) {
        st->reason = why == CMRS_ITERATING ? CMRS_DIVERGED_MAXITS : why;
    }
    if (!st->done) require_positive(st, tot[0]);
    st->rz = tot[0];
}

} // namespace

CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_restate, cg_restate)
CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_init, cg_init)
CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_pq, cg_pq)
CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_r, cg_r)
CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_xp, cg_xp)
CMRS_DEV_GRID_ENTRY(cmrs_fused_cg_rz, cg_rz)
CMRS_DEV_BLOCK_ENTRY(cmrs_fused_cg_sum_pq, cg_sum_pq)
CMRS_DEV_BLOCK_ENTRY(cmrs_fused_cg_sum_rz, cg_sum_rz)
CMRS_DEV_BLOCK_ENTRY(cmrs_fused_cg_start, cg_start)
