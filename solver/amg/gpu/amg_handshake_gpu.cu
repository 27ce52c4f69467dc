/* Handshake aggregation on the GPU (amg_handshake_gpu.h): one kernel per
 * step of the host reference (amg_handshake.c), the decisions made by the
 * shared amg_rules.h functions, one thread per row. The aggregated
 * matrices Q^T M Q are formed by a stable radix sort of the entries by
 * (aggregate of row, aggregate of column) and a sequential sum over each
 * run: the stable sort keeps the entries of a run in their CSR order,
 * which is the host's summation order, so the sums are bit-identical. */
#include "amg_agg_dev.cuh"
#include "base/device.h"
#include "solver/amg/amg_handshake.h"
#include "amg_handshake_gpu.h"
#include "base/gpu/dev_alloc.h"

namespace {

using cmrs_agg::dalloc;
using cmrs_agg::k_diag;
using cmrs_agg::k_weights;
using cmrs_grid::grid_for;
using cmrs_grid::kThreads;

/* A CSR matrix on the device (val NULL: a pattern). */
struct dcsr {
    int64_t rows = 0, nnz = 0;
    int64_t *ptr = nullptr;
    int32_t *idx = nullptr;
    double *val = nullptr;
};

__global__ void k_fill(int64_t n, int32_t v, int32_t *a)
{
    CMRS_GRID_LOOP(i, n) a[i] = v;
}

__global__ void k_iota(int64_t n, int32_t *a)
{
    CMRS_GRID_LOOP(i, n) a[i] = (int32_t)i;
}

__global__ void k_choose(int64_t n, const int64_t *ptr, const int32_t *idx,
                         const double *w, const int32_t *mate, int32_t *cand)
{
    CMRS_GRID_LOOP(i, n)
    cand[i] = mate[i] < 0 ? amg_hs_best(ptr, idx, w, mate, i, 0) : -1;
}

__global__ void k_accept(int64_t n, const int32_t *cand, int32_t *mate)
{
    CMRS_GRID_LOOP(i, n)
    if (cand[i] >= 0 && cand[cand[i]] == i) mate[i] = cand[i];
}

__global__ void k_join(int64_t n, const int64_t *ptr, const int32_t *idx,
                       const double *w, const int32_t *mate, int32_t *join)
{
    CMRS_GRID_LOOP(i, n)
    join[i] = mate[i] < 0 ? amg_hs_best(ptr, idx, w, mate, i, 1) : -1;
}

__global__ void k_leads(int64_t n, const int32_t *mate, const int32_t *join,
                        int32_t *flag)
{
    CMRS_GRID_LOOP(i, n) flag[i] = amg_hs_leads(mate, join, i);
}

__global__ void k_step(int64_t n, const int32_t *mate, const int32_t *join,
                       const int32_t *id, int32_t *step)
{
    CMRS_GRID_LOOP(i, n) step[i] = id[amg_hs_leader(mate, join, i)];
}

__global__ void k_compose(int64_t n, const int32_t *step, int32_t *agg)
{
    CMRS_GRID_LOOP(i, n) agg[i] = step[agg[i]];
}

/* Keys (aggregate of row, aggregate of column) of the entries of M; with
 * w, only the entries with w >= 0, at the positions pos (exclusive sum of
 * the flags). */
__global__ void k_keys(int64_t n, const int64_t *ptr, const int32_t *idx,
                       const int32_t *step, const double *w,
                       const int64_t *pos, uint64_t *keys)
{
    CMRS_GRID_LOOP(i, n)
    {
        uint64_t hi = (uint64_t)(uint32_t)step[i] << 32;
        for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
            if (w && !(w[k] >= 0)) continue;
            keys[w ? pos[k] : k] = hi | (uint32_t)step[idx[k]];
        }
    }
}

__global__ void k_flags_strong(int64_t m, const double *w, int64_t *flag)
{
    CMRS_GRID_LOOP(k, m) flag[k] = w[k] >= 0;
}

__global__ void k_heads(int64_t m, const uint64_t *keys, int64_t *head)
{
    CMRS_GRID_LOOP(k, m) head[k] = k == 0 || keys[k] != keys[k - 1];
}

/* One thread per run of equal keys: the sum in sorted (= CSR) order, and
 * the run's key at its output position. vals NULL: pattern only. */
__global__ void k_runs(int64_t m, const uint64_t *keys, const double *vals,
                       const int64_t *head, const int64_t *pos,
                       uint64_t *ukeys, int32_t *idx, double *out)
{
    CMRS_GRID_LOOP(k, m)
    {
        if (!head[k]) continue;
        int64_t q = pos[k];
        ukeys[q] = keys[k];
        idx[q] = (int32_t)(uint32_t)keys[k];
        if (!vals) continue;
        double sum = 0.0;
        for (int64_t t = k; t < m && keys[t] == keys[k]; ++t) sum += vals[t];
        out[q] = sum;
    }
}

/* ptr[r] = first run of row r (lower bound of r << 32), r in [0, rows]. */
__global__ void k_rowptr(int64_t rows, int64_t u, const uint64_t *ukeys,
                         int64_t *ptr)
{
    CMRS_GRID_LOOP(r, rows + 1)
    {
        uint64_t key = (uint64_t)r << 32;
        int64_t lo = 0, hi = u;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ukeys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        ptr[r] = lo;
    }
}

/* Device workspace, sized by level 0 (every later pass is smaller). */
struct hs_dev {
    dcsr M[2], L[2];
    double *w = nullptr, *d = nullptr, *s = nullptr, *vals = nullptr;
    int32_t *mate = nullptr, *cand = nullptr, *join = nullptr,
            *flag = nullptr, *id = nullptr, *step = nullptr, *agg = nullptr;
    uint64_t *keys = nullptr, *keys2 = nullptr;
    int64_t *head = nullptr, *pos = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
};

void dcsr_free(dcsr *m)
{
    CMRS_GPU_FREE_ALL(m->ptr, m->idx, m->val);
    *m = dcsr();
}

void hs_free(hs_dev *h)
{
    for (int k = 0; k < 2; ++k) {
        dcsr_free(&h->M[k]);
        dcsr_free(&h->L[k]);
    }
    void *a[] = {h->w,    h->d,    h->s,   h->vals, h->mate, h->cand,
                 h->join, h->flag, h->id,  h->step, h->agg,  h->keys,
                 h->keys2, h->head, h->pos, h->tmp};
    for (void *p : a) cmrs_dev_free(p);
}

cmrs_code dcsr_alloc(dcsr *m, int64_t n, int64_t z, bool values)
{
    CMRS_CHECK(dalloc(&m->ptr, n + 1));
    CMRS_CHECK(dalloc(&m->idx, z));
    if (values) CMRS_CHECK(dalloc(&m->val, z));
    return CMRS_OK;
}

/* The largest temporary storage any CUB call below needs. */
cmrs_code cub_bytes(int64_t n, int64_t z, size_t *bytes)
{
    size_t a = 0, b = 0, c = 0, e = 0;
    CMRS_CUDA(cub::DeviceRadixSort::SortPairs(
        nullptr, a, (uint64_t *)nullptr, (uint64_t *)nullptr,
        (double *)nullptr, (double *)nullptr, z));
    CMRS_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, b, (uint64_t *)nullptr,
                                             (uint64_t *)nullptr, z));
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, c, (int64_t *)nullptr,
                                            (int64_t *)nullptr, z));
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, e, (int32_t *)nullptr,
                                            (int32_t *)nullptr, n));
    size_t m = a > b ? a : b;
    m = m > c ? m : c;
    *bytes = m > e ? m : e;
    return CMRS_OK;
}

cmrs_code hs_alloc(hs_dev *h, int64_t n, int64_t z)
{
    for (int k = 0; k < 2; ++k) {
        CMRS_CHECK(dcsr_alloc(&h->M[k], n, z, true));
        CMRS_CHECK(dcsr_alloc(&h->L[k], n, z, false));
    }
    CMRS_CHECK(dalloc(&h->w, z));
    CMRS_CHECK(dalloc(&h->vals, z));
    CMRS_CHECK(dalloc(&h->keys, z));
    CMRS_CHECK(dalloc(&h->keys2, z));
    CMRS_CHECK(dalloc(&h->head, z));
    CMRS_CHECK(dalloc(&h->pos, z));
    CMRS_CHECK(dalloc(&h->d, n));
    CMRS_CHECK(dalloc(&h->s, n));
    int32_t **ints[] = {&h->mate, &h->cand, &h->join, &h->flag,
                        &h->id,   &h->step, &h->agg};
    for (int32_t **p : ints) CMRS_CHECK(dalloc(p, n));
    CMRS_CHECK(cub_bytes(n, z, &h->tmp_bytes));
    CMRS_CHECK(dalloc((char **)&h->tmp, (int64_t)h->tmp_bytes));
    return CMRS_OK;
}

template <typename T>
cmrs_code exclusive_sum(hs_dev *h, const T *a, T *out, int64_t m, T *total,
                        cudaStream_t st)
{
    return cmrs_agg::exclusive_sum(h->tmp, h->tmp_bytes, a, out, m, total,
                                   st);
}

/* Steps 1 to 4 on M (links L or none): h->step, *nc. */
cmrs_code one_pass(hs_dev *h, const dcsr *M, const dcsr *L, double theta,
                   int64_t *nc, cudaStream_t st)
{
    int64_t n = M->rows;
    unsigned g = grid_for(n);
    k_diag<<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, M->val, h->d, h->s);
    CMRS_LAUNCH_CHECK();
    k_weights<1><<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, M->val, h->d,
                                         h->s, theta, L ? L->ptr : nullptr,
                                         L ? L->idx : nullptr, h->w);
    CMRS_LAUNCH_CHECK();
    k_fill<<<g, kThreads, 0, st>>>(n, -1, h->mate);
    CMRS_LAUNCH_CHECK();
    for (int r = 0; r < CMRS_HS_ROUNDS; ++r) {
        k_choose<<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, h->w, h->mate,
                                         h->cand);
        CMRS_LAUNCH_CHECK();
        k_accept<<<g, kThreads, 0, st>>>(n, h->cand, h->mate);
        CMRS_LAUNCH_CHECK();
    }
    k_join<<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, h->w, h->mate, h->join);
    CMRS_LAUNCH_CHECK();
    k_leads<<<g, kThreads, 0, st>>>(n, h->mate, h->join, h->flag);
    CMRS_LAUNCH_CHECK();
    int32_t total = 0;
    CMRS_CHECK(exclusive_sum(h, h->flag, h->id, n, &total, st));
    k_step<<<g, kThreads, 0, st>>>(n, h->mate, h->join, h->id, h->step);
    CMRS_LAUNCH_CHECK();
    *nc = total;
    return CMRS_OK;
}

/* out = Q^T X Q (rows nc) from the m keys in h->keys (unsorted) and, for
 * values, their values in vals (NULL: pattern). */
cmrs_code aggregate_keys(hs_dev *h, int64_t m, const double *vals,
                         int64_t nc, dcsr *out, cudaStream_t st)
{
    size_t bytes = h->tmp_bytes;
    out->rows = nc;
    out->nnz = 0;
    if (m == 0) {
        CMRS_CUDA(cudaMemsetAsync(out->ptr, 0, (size_t)(nc + 1) *
                                  sizeof(int64_t), st));
        return CMRS_OK;
    }
    if (vals)
        CMRS_CUDA(cub::DeviceRadixSort::SortPairs(h->tmp, bytes, h->keys,
                                                  h->keys2, vals, h->vals, m,
                                                  0, 64, st));
    else
        CMRS_CUDA(cub::DeviceRadixSort::SortKeys(h->tmp, bytes, h->keys,
                                                 h->keys2, m, 0, 64, st));
    k_heads<<<grid_for(m), kThreads, 0, st>>>(m, h->keys2, h->head);
    CMRS_LAUNCH_CHECK();
    int64_t u = 0;
    CMRS_CHECK(exclusive_sum(h, h->head, h->pos, m, &u, st));
    k_runs<<<grid_for(m), kThreads, 0, st>>>(m, h->keys2,
                                             vals ? h->vals : nullptr,
                                             h->head, h->pos, h->keys,
                                             out->idx, out->val);
    CMRS_LAUNCH_CHECK();
    k_rowptr<<<grid_for(nc + 1), kThreads, 0, st>>>(nc, u, h->keys,
                                                    out->ptr);
    CMRS_LAUNCH_CHECK();
    out->nnz = u;
    return CMRS_OK;
}

/* The next pass's M and L (pass 0's links: the entries with w >= 0). */
cmrs_code next_pass(hs_dev *h, const dcsr *M, const dcsr *L, int64_t nc,
                    dcsr *Mn, dcsr *Ln, cudaStream_t st)
{
    int64_t n = M->rows;
    unsigned g = grid_for(n);
    if (!L) { /* the strong entries of M, compacted */
        k_flags_strong<<<grid_for(M->nnz), kThreads, 0, st>>>(M->nnz, h->w,
                                                              h->head);
        CMRS_LAUNCH_CHECK();
        int64_t m = 0;
        CMRS_CHECK(exclusive_sum(h, h->head, h->pos, M->nnz, &m, st));
        k_keys<<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, h->step, h->w,
                                       h->pos, h->keys);
        CMRS_LAUNCH_CHECK();
        CMRS_CHECK(aggregate_keys(h, m, nullptr, nc, Ln, st));
    } else {
        k_keys<<<g, kThreads, 0, st>>>(n, L->ptr, L->idx, h->step, nullptr,
                                       nullptr, h->keys);
        CMRS_LAUNCH_CHECK();
        CMRS_CHECK(aggregate_keys(h, L->nnz, nullptr, nc, Ln, st));
    }
    k_keys<<<g, kThreads, 0, st>>>(n, M->ptr, M->idx, h->step, nullptr,
                                   nullptr, h->keys);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(aggregate_keys(h, M->nnz, M->val, nc, Mn, st));
    return CMRS_OK;
}

cmrs_code upload(const cmrs_csr *A, dcsr *M, cudaStream_t st)
{
    M->rows = A->rows;
    M->nnz = A->nnz;
    CMRS_CUDA(cudaMemcpyAsync(M->ptr, A->indptr, (size_t)(A->rows + 1) *
                              sizeof(int64_t), cudaMemcpyHostToDevice, st));
    CMRS_CUDA(cudaMemcpyAsync(M->idx, A->indices, (size_t)A->nnz *
                              sizeof(int32_t), cudaMemcpyHostToDevice, st));
    CMRS_CUDA(cudaMemcpyAsync(M->val, A->values, (size_t)A->nnz *
                              sizeof(double), cudaMemcpyHostToDevice, st));
    return CMRS_OK;
}

/* *Ac = the device CSR M, downloaded. */
cmrs_code download(const dcsr *M, cmrs_csr *Ac, cudaStream_t st)
{
    CMRS_CHECK(cmrs_csr_alloc(Ac, M->rows, M->rows, M->nnz));
    CMRS_CUDA(cudaMemcpyAsync(Ac->indptr, M->ptr, (size_t)(M->rows + 1) *
                              sizeof(int64_t), cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaMemcpyAsync(Ac->indices, M->idx, (size_t)M->nnz *
                              sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaMemcpyAsync(Ac->values, M->val, (size_t)M->nnz *
                              sizeof(double), cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaStreamSynchronize(st));
    return CMRS_OK;
}

/* Q^T A Q = Q_k^T M_k Q_k for the last pass k (M_k is A aggregated by the
 * passes before), into the spare matrix buffer, then to the host. */
cmrs_code galerkin(hs_dev *h, const dcsr *M, int64_t nc, dcsr *spare,
                   cmrs_csr *Ac, cudaStream_t st)
{
    k_keys<<<grid_for(M->rows), kThreads, 0, st>>>(
        M->rows, M->ptr, M->idx, h->step, nullptr, nullptr, h->keys);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(aggregate_keys(h, M->nnz, M->val, nc, spare, st));
    CMRS_CHECK(download(spare, Ac, st));
    return CMRS_OK;
}

cmrs_code run(hs_dev *h, const cmrs_csr *A, const cmrs_amg_params *p,
              int32_t *agg, int64_t *naggs, cmrs_csr *Ac, cudaStream_t st)
{
    int64_t n0 = A->rows;
    int passes = 0;
    for (int k = p->agg_size; k > 1; k /= 2) ++passes;
    CMRS_CHECK(hs_alloc(h, n0, A->nnz));
    CMRS_CHECK(upload(A, &h->M[0], st));
    k_iota<<<grid_for(n0), kThreads, 0, st>>>(n0, h->agg);
    CMRS_LAUNCH_CHECK();
    *naggs = n0;
    int cur = 0;
    for (int pass = 0; pass < passes; ++pass) {
        const dcsr *M = &h->M[cur], *L = pass ? &h->L[cur] : nullptr;
        int64_t nc = 0;
        CMRS_CHECK(one_pass(h, M, L, p->theta, &nc, st));
        k_compose<<<grid_for(n0), kThreads, 0, st>>>(n0, h->step, h->agg);
        CMRS_LAUNCH_CHECK();
        *naggs = nc;
        if (nc == M->rows || pass + 1 == passes) {
            if (Ac) CMRS_CHECK(galerkin(h, M, nc, &h->M[1 - cur], Ac, st));
            break;
        }
        CMRS_CHECK(next_pass(h, M, L, nc, &h->M[1 - cur], &h->L[1 - cur],
                             st));
        cur = 1 - cur;
    }
    CMRS_CUDA(cudaMemcpyAsync(agg, h->agg, (size_t)n0 * sizeof(int32_t),
                              cudaMemcpyDeviceToHost, st));
    CMRS_CUDA(cudaStreamSynchronize(st));
    return CMRS_OK;
}

} // namespace

extern "C" cmrs_code cmrs_gpu_handshake(cudaStream_t stream,
                                        const cmrs_csr *A,
                                        const cmrs_amg_params *p,
                                        int32_t *agg, int64_t *naggs,
                                        cmrs_csr *Ac)
{
    *naggs = 0;
    if (Ac) memset(Ac, 0, sizeof *Ac);
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "GPU aggregation: matrix "
                "is %lld x %lld, not square", (long long)A->rows,
                (long long)A->cols);
    CMRS_ENSURE(A->rows < INT32_MAX, CMRS_E_LIMIT, "GPU aggregation: %lld "
                "rows do not fit 32-bit aggregate numbers", (long long)A->rows);
    if (A->rows == 0) return Ac ? cmrs_csr_alloc(Ac, 0, 0, 0) : CMRS_OK;
    hs_dev h;
    cmrs_code rc = run(&h, A, p, agg, naggs, Ac, stream);
    if (rc != CMRS_OK) {
        cudaStreamSynchronize(stream);
        if (Ac) cmrs_csr_free(Ac);
    }
    hs_free(&h);
    return rc == CMRS_OK ? CMRS_OK
                         : cmrs_error_trace(rc, __FILE__, __LINE__);
}
