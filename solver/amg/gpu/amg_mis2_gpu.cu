/* MIS-2 aggregation on the GPU (amg_mis2_gpu.h): one kernel per step of
 * the host reference (amg_mis2.c), one thread per row, or, for the
 * weights on levels of long rows, a group of lanes per row (each weight
 * computed alike: the same values). A round is two
 * kernels (the two max passes; the second also decides) and a flag read
 * back: at most CMRS_MIS_MAX_ROUNDS host synchronisations, 10-20 in
 * practice. */
#include <stdlib.h>
#include <string.h>

#include "amg_agg_dev.cuh"
#include "solver/amg/amg_mis2.h"
#include "amg_mis2_gpu.h"
#include "amg_pool_gpu.h"
#include "amg_spgemm_dev.h"
#include "solver/amg/amg_prof.h"
#include "spmv/csr_view.h"
#include "base/gpu/dev_alloc.h"

namespace {

using cmrs_grid::grid_for;
using cmrs_grid::kThreads;

__global__ void k_key_init(int64_t n, uint64_t *key)
{
    CMRS_GRID_LOOP(i, n) key[i] = amg_mis_key(AMG_MIS_UNDECIDED, i);
}

/* strong[k] = whether entry k is a strong connection (w[k] >= 0): the
 * rounds read a byte per entry instead of the weight's eight (the rounds
 * stream the graph twice each, 14-15 rounds at 5M rows). */
__global__ void k_strong(int64_t nnz, const double *w, uint8_t *strong)
{
    CMRS_GRID_LOOP(k, nnz) strong[k] = w[k] >= 0;
}

/* amg_mis_max on the strong mask: the largest key over node i and its
 * strong neighbours (the same value, w[k] >= 0 being strong[k]). The
 * rounds read the caller's int32 row offsets, not the widened ones: 8
 * bytes a row less per pass, 28 passes at 5M rows. */
__device__ uint64_t mis_max(const int32_t *__restrict__ ptr,
                            const int32_t *__restrict__ idx,
                            const uint8_t *__restrict__ strong,
                            const uint64_t *__restrict__ key, int64_t i)
{
    uint64_t m = key[i];
    for (int32_t k = ptr[i]; k < ptr[i + 1]; ++k)
        if (strong[k]) {
            uint64_t kj = key[idx[k]];
            m = kj > m ? kj : m;
        }
    return m;
}

__global__ void k_max(int64_t n, const int32_t *ptr, const int32_t *idx,
                      const uint8_t *strong, const uint64_t *key,
                      uint64_t *t1)
{
    CMRS_GRID_LOOP(i, n) t1[i] = mis_max(ptr, idx, strong, key, i);
}

/* The second max pass and the decision; *left = 1 when a node is still
 * undecided, written once per warp (a store per undecided node to one
 * word queued millions of stores on it in the first rounds). Every lane
 * reaches the vote: the loop has no early exit. */
__global__ void k_decide(int64_t n, const int32_t *ptr, const int32_t *idx,
                         const uint8_t *strong, const uint64_t *t1,
                         uint64_t *key, int *left)
{
    int undecided = 0;
    CMRS_GRID_LOOP(i, n)
    {
        uint64_t k = key[i];
        if (amg_mis_state(k) != AMG_MIS_UNDECIDED) continue;
        k = amg_mis_decide(k, mis_max(ptr, idx, strong, t1, i));
        key[i] = k;
        undecided |= amg_mis_state(k) == AMG_MIS_UNDECIDED;
    }
    if (__any_sync(0xffffffffu, undecided) && (threadIdx.x & 31) == 0)
        *left = 1;
}

__global__ void k_root(int64_t n, const int64_t *ptr, const int32_t *idx,
                       const double *w, const uint64_t *key, int32_t *root)
{
    CMRS_GRID_LOOP(i, n) root[i] = amg_mis_root(ptr, idx, w, key, i);
}

/* lead[i] = the root of i's aggregate, flag[i] = whether i is one. */
__global__ void k_join(int64_t n, const int64_t *ptr, const int32_t *idx,
                       const double *w, const int32_t *root, int32_t *lead,
                       int32_t *flag)
{
    CMRS_GRID_LOOP(i, n)
    {
        lead[i] = amg_mis_join(ptr, idx, w, root, i);
        flag[i] = lead[i] == i;
    }
}

__global__ void k_number(int64_t n, const int32_t *lead, const int32_t *id,
                         int32_t *agg)
{
    CMRS_GRID_LOOP(i, n) agg[i] = id[lead[i]];
}

struct mis_dev {
    int64_t *ptr = nullptr;
    double *w = nullptr, *d = nullptr, *s = nullptr;
    uint64_t *key = nullptr, *t1 = nullptr;
    int32_t *root = nullptr, *lead = nullptr, *flag = nullptr,
            *id = nullptr;
    uint8_t *strong = nullptr;
    int *left_d = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
};

/* The scratch back to the setup's pool, in stream order. */
void mis_free(mis_dev *m, cudaStream_t st)
{
    void *a[] = {m->ptr,  m->w,    m->d,    m->s,      m->key,
                 m->t1,   m->root, m->lead, m->flag,   m->id,
                 m->left_d, m->tmp, m->strong};
    for (void *p : a) amg_pool_free(p, st);
}

template <typename T> cmrs_code palloc(T **p, int64_t count, cudaStream_t st)
{
    return amg_pool_alloc((void **)p, (size_t)(count > 0 ? count : 1) *
                                          sizeof(T), st);
}

cmrs_code mis_alloc(mis_dev *m, int64_t n, int64_t nnz, cudaStream_t st)
{
    CMRS_CHECK(palloc(&m->ptr, n + 1, st));
    CMRS_CHECK(palloc(&m->w, nnz, st));
    CMRS_CHECK(palloc(&m->strong, nnz, st));
    CMRS_CHECK(palloc(&m->d, n, st));
    CMRS_CHECK(palloc(&m->s, n, st));
    CMRS_CHECK(palloc(&m->key, n, st));
    CMRS_CHECK(palloc(&m->t1, n, st));
    int32_t **ints[] = {&m->root, &m->lead, &m->flag, &m->id};
    for (int32_t **p : ints) CMRS_CHECK(palloc(p, n, st));
    CMRS_CHECK(palloc(&m->left_d, 1, st));
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, m->tmp_bytes,
                                            (int32_t *)nullptr,
                                            (int32_t *)nullptr, n));
    CMRS_CHECK(palloc((char **)&m->tmp, (int64_t)m->tmp_bytes, st));
    return CMRS_OK;
}

/* Lanes a row for the weights: CMRS_AMG_MIS_LANES (1, 8, 16 or 32: tests
 * and benchmarks), else by the average row length (a thread a row up to
 * 12 entries: level 0 of a 7-point stencil). The rounds keep a thread a
 * row: by groups they took longer on the same levels (vessel 5M level 1,
 * 15 rounds: 2.3 against 1.8 ms; Poisson 200^3: 3.8 against 2.5 ms). */
int lanes_for(int64_t n, int64_t nnz)
{
    const char *e = getenv("CMRS_AMG_MIS_LANES");
    int forced = e ? atoi(e) : 0;
    if (forced == 1 || forced == 8 || forced == 16 || forced == 32)
        return forced;
    double avg = n > 0 ? (double)nnz / (double)n : 0;
    return avg < 12 ? 1 : avg < 24 ? 8 : avg < 48 ? 16 : 32;
}

cmrs_code weights(mis_dev *m, int64_t n, const int32_t *idx,
                  const double *val, double theta, int lanes,
                  cudaStream_t st)
{
    unsigned g = cmrs_grid::blocks(n * lanes, kThreads, 1 << 20);
    const int64_t *p = m->ptr;
    switch (lanes) { /* cmrs_agg::k_weights, no link graph */
    case 8: cmrs_agg::k_weights<8><<<g, kThreads, 0, st>>>(
            n, p, idx, val, m->d, m->s, theta, nullptr, nullptr, m->w); break;
    case 16: cmrs_agg::k_weights<16><<<g, kThreads, 0, st>>>(
            n, p, idx, val, m->d, m->s, theta, nullptr, nullptr, m->w); break;
    case 32: cmrs_agg::k_weights<32><<<g, kThreads, 0, st>>>(
            n, p, idx, val, m->d, m->s, theta, nullptr, nullptr, m->w); break;
    default: cmrs_agg::k_weights<1><<<g, kThreads, 0, st>>>(
            n, p, idx, val, m->d, m->s, theta, nullptr, nullptr, m->w);
    }
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* Step 2: rounds until no node is undecided. */
cmrs_code rounds(mis_dev *m, int64_t n, const int32_t *ptr32,
                 const int32_t *idx, cudaStream_t st, int *nrounds)
{
    unsigned g = grid_for(n);
    k_key_init<<<g, kThreads, 0, st>>>(n, m->key);
    CMRS_LAUNCH_CHECK();
    for (int r = 0; r < CMRS_MIS_MAX_ROUNDS; ++r) {
        int left = 0;
        CMRS_CUDA(cudaMemsetAsync(m->left_d, 0, sizeof(int), st));
        k_max<<<g, kThreads, 0, st>>>(n, ptr32, idx, m->strong, m->key,
                                      m->t1);
        CMRS_LAUNCH_CHECK();
        k_decide<<<g, kThreads, 0, st>>>(n, ptr32, idx, m->strong, m->t1,
                                         m->key, m->left_d);
        CMRS_LAUNCH_CHECK();
        CMRS_CUDA(cudaMemcpyAsync(&left, m->left_d, sizeof(int),
                                  cudaMemcpyDeviceToHost, st));
        CMRS_CUDA(cudaStreamSynchronize(st));
        *nrounds = r + 1;
        if (!left) break;
    }
    return CMRS_OK;
}

cmrs_code run(mis_dev *m, int64_t n, int64_t nnz, const int32_t *ptr32,
              const int32_t *idx, const double *val, double theta,
              int32_t *agg_d, int64_t *naggs, cudaStream_t st)
{
    unsigned g = grid_for(n);
    double t = 0;
    int nrounds = 0;
    amg_prof_begin(&t);
    CMRS_CHECK(mis_alloc(m, n, nnz, st));
    CMRS_CHECK(amg_prof_step(st, &t, "  mis2 alloc"));
    CMRS_CHECK(cmrs_dev_widen_offsets(ptr32, n + 1, m->ptr, st));
    cmrs_agg::k_diag<<<g, kThreads, 0, st>>>(n, m->ptr, idx, val, m->d,
                                             m->s);
    CMRS_LAUNCH_CHECK();
    int lanes = lanes_for(n, nnz);
    CMRS_CHECK(weights(m, n, idx, val, theta, lanes, st));
    if (nnz > 0) {
        k_strong<<<grid_for(nnz), kThreads, 0, st>>>(nnz, m->w, m->strong);
        CMRS_LAUNCH_CHECK();
    }
    CMRS_CHECK(amg_prof_step(st, &t, "  mis2 diagonal, weights (%d lanes)",
                             lanes));
    CMRS_CHECK(rounds(m, n, ptr32, idx, st, &nrounds));
    CMRS_CHECK(amg_prof_step(st, &t, "  mis2 rounds (%d)", nrounds));
    k_root<<<g, kThreads, 0, st>>>(n, m->ptr, idx, m->w, m->key, m->root);
    CMRS_LAUNCH_CHECK();
    k_join<<<g, kThreads, 0, st>>>(n, m->ptr, idx, m->w, m->root, m->lead,
                                   m->flag);
    CMRS_LAUNCH_CHECK();
    int32_t total = 0;
    CMRS_CHECK(cmrs_agg::exclusive_sum(m->tmp, m->tmp_bytes, m->flag, m->id,
                                       n, &total, st));
    k_number<<<g, kThreads, 0, st>>>(n, m->lead, m->id, agg_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaStreamSynchronize(st));
    CMRS_CHECK(amg_prof_step(st, &t, "  mis2 roots, join, number"));
    *naggs = total;
    return CMRS_OK;
}

} // namespace

extern "C" cmrs_code cmrs_gpu_mis2_dev(cudaStream_t stream, int64_t n,
                                       int64_t nnz, const int32_t *indptr_d,
                                       const int32_t *indices_d,
                                       const double *values_d, double theta,
                                       int32_t *agg_d, int64_t *naggs)
{
    *naggs = 0;
    if (n <= 0) return CMRS_OK;
    mis_dev m;
    cmrs_code rc = run(&m, n, nnz, indptr_d, indices_d, values_d, theta,
                       agg_d, naggs, stream);
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    double t = 0;
    amg_prof_begin(&t);
    mis_free(&m, stream);
    if (rc == CMRS_OK) rc = amg_prof_step(stream, &t, "  mis2 free");
    return rc == CMRS_OK ? CMRS_OK
                         : cmrs_error_trace(rc, __FILE__, __LINE__);
}

extern "C" cmrs_code cmrs_gpu_mis2_down(cudaStream_t stream,
                                        const amg_dev_mat *a, double theta,
                                        int32_t *agg, int64_t *naggs)
{
    cmrs_code rc = CMRS_OK;
    int32_t *agg_d = nullptr;
    size_t bytes = (size_t)a->rows * sizeof(int32_t);
    CMRS_CHECK(amg_dev_malloc((void **)&agg_d, bytes));
    CMRS_TRY(cmrs_gpu_mis2_dev(stream, a->rows, a->nnz, a->indptr_d,
                               a->indices_d, a->values_d, theta, agg_d,
                               naggs));
    CMRS_CUDA_TRY(cudaMemcpy(agg, agg_d, bytes, cudaMemcpyDeviceToHost));
done:
    amg_pool_trim(stream);
    cmrs_dev_free(agg_d);
    return rc;
}

extern "C" cmrs_code cmrs_gpu_mis2(cudaStream_t stream, const cmrs_csr *A,
                                   const cmrs_amg_params *p, int32_t *agg,
                                   int64_t *naggs)
{
    *naggs = 0;
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "GPU aggregation: matrix "
                "is %lld x %lld, not square", (long long)A->rows,
                (long long)A->cols);
    if (A->rows == 0) return CMRS_OK;
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    cmrs_code rc = CMRS_OK;
    amg_dev_mat a;
    memset(&a, 0, sizeof a);
    if (A->nnz > 0) {
        CMRS_TRY(amg_dev_upload(A, &a));
    } else { /* no entries: every row a singleton, from an all-zero ptr */
        CMRS_TRY(amg_dev_alloc(&a, A->rows, A->cols, 0));
        CMRS_CUDA_TRY(cudaMemsetAsync(a.indptr_d, 0, ((size_t)A->rows + 1) *
                                      sizeof(int32_t), stream));
    }
    CMRS_TRY(cmrs_gpu_mis2_down(stream, &a, p->theta, agg, naggs));
done:
    if (rc != CMRS_OK) cudaStreamSynchronize(stream);
    amg_dev_free(&a);
    return rc;
}
