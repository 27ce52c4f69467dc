/* The device half of the cmrs format's locality reordering
 * (cmrs_reorder.h): the rule's count on a device matrix, the row maps and
 * buffers, and the two gathers around each product (x's through
 * cmrs_dev_gather_values, y's here). Both gathers write in
 * order and read at random (n loads per product where the unordered matrix
 * had nnz). */
#include <cstdint>
#include <cstdlib>

#include <cub/device/device_scan.cuh>

/* device.h first: it declares the C headers with C linkage. */
#include "base/device.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "spmv/prec.cuh"
#include "base/gpu/grid.cuh"
#include "cmrs_reorder.h"

namespace {

constexpr int gather_block = 256;

/* One thread per sampled pair; counts added with atomics (integers: the
 * result does not depend on their order). */
__global__ void near_count_kernel(const int32_t *indptr, const int32_t *indices,
                                  int64_t rows, int64_t pairs,
                                  unsigned long long *counts)
{
    const int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (s >= pairs) return;
    const int64_t r = cmrs_reorder_sample_row(s, pairs, rows);
    const int64_t a0 = indptr[r], b0 = indptr[r + 1];
    int64_t seen = 0;
    const int64_t near = cmrs_reorder_near(indices + a0, b0 - a0, indices + b0,
                                           indptr[r + 2] - b0, r + 1, &seen);
    atomicAdd(counts, (unsigned long long)near);
    atomicAdd(counts + 1, (unsigned long long)seen);
}

template <typename T>
__global__ void put_y_kernel(int64_t n, const int32_t *__restrict__ new_of_old,
                             T alpha, const T *__restrict__ yp, T beta,
                             T *__restrict__ y)
{
    CMRS_GRID_LOOP(i, n) {
        const T v = alpha * __ldg(yp + __ldg(new_of_old + i));
        y[i] = beta == T(0) ? v : v + beta * y[i];
    }
}


/* mark: 0 unnumbered, 1 numbered, 2 isolated (no off-diagonal entry);
 * owner: the smallest order position that claimed the node (none yet:
 * INT32_MAX). */
__global__ void bfs_init_kernel(int64_t n, const int32_t *__restrict__ indptr,
                                const int32_t *__restrict__ indices,
                                int32_t *mark, int32_t *owner)
{
    CMRS_GRID_LOOP(i, n) {
        int iso = 1;
        for (int32_t k = indptr[i]; k < indptr[i + 1] && iso; ++k)
            iso = indices[k] == i;
        mark[i] = iso ? 2 : 0;
        owner[i] = INT32_MAX;
    }
}

/* flags[i] = (mark[i] == want), flags[n] = 0: a scan then ranks them. */
__global__ void flag_kernel(int64_t n, const int32_t *mark, int32_t want,
                            int32_t *flags)
{
    CMRS_GRID_LOOP(i, n + 1)
        flags[i] = i < n && mark[i] == want;
}

/* The first k flagged nodes (rank < k, index order) to order[at + rank],
 * numbered. */
__global__ void take_kernel(int64_t n, const int32_t *flags,
                            const int32_t *rank, int64_t k, int32_t *order,
                            int64_t at, int32_t *mark)
{
    CMRS_GRID_LOOP(i, n)
        if (flags[i] && rank[i] < k) {
            order[at + rank[i]] = (int32_t)i;
            mark[i] = 1;
        }
}

/* Level step 1: every unnumbered neighbour of the level order[f0, f1)
 * remembers the first position that lists it. */
__global__ void claim_kernel(int64_t f0, int64_t f1, const int32_t *order,
                             const int32_t *__restrict__ indptr,
                             const int32_t *__restrict__ indices,
                             const int32_t *mark, int32_t *owner)
{
    CMRS_GRID_LOOP_AS(int64_t, q, f0, f1) {
        const int32_t p = order[q];
        for (int32_t k = indptr[p]; k < indptr[p + 1]; ++k) {
            const int32_t u = indices[k];
            if (mark[u] == 0) atomicMin(owner + u, (int32_t)q);
        }
    }
}

/* Level steps 2 and 3: each level node counts the neighbours it owns
 * (WRITE false: into counts[q - f0]), then, at its offset after the
 * level (WRITE true), lists them in its row order and numbers them. Only
 * a node's owner writes its mark, and the owner test fails for every
 * other, so the pass may mark as it goes. */
template <bool WRITE>
__global__ void own_kernel(int64_t f0, int64_t f1, int32_t *order,
                           const int32_t *__restrict__ indptr,
                           const int32_t *__restrict__ indices, int32_t *mark,
                           const int32_t *owner, int32_t *counts,
                           const int32_t *offsets)
{
    CMRS_GRID_LOOP_AS(int64_t, q, f0, f1) {
        const int32_t p = order[q];
        int64_t at = WRITE ? f1 + offsets[q - f0] : 0;
        int32_t owned = 0;
        for (int32_t k = indptr[p]; k < indptr[p + 1]; ++k) {
            const int32_t u = indices[k];
            if (mark[u] != 0 || owner[u] != (int32_t)q) continue;
            if (WRITE) {
                order[at++] = u;
                mark[u] = 1;
            }
            ++owned;
        }
        if (!WRITE) counts[q - f0] = owned;
    }
}

__global__ void inverse_kernel(int64_t n, const int32_t *old_of_new,
                               int32_t *new_of_old)
{
    CMRS_GRID_LOOP(r, n)
        new_of_old[old_of_new[r]] = (int32_t)r;
}

/* lengths[r] = the length of row map[r] of src_indptr (r < n);
 * lengths[n] = 0, so the scan's last entry is the entry count. */
__global__ void lengths_kernel(int64_t n, const int32_t *__restrict__ src_indptr,
                               const int32_t *__restrict__ map,
                               int32_t *__restrict__ lengths)
{
    CMRS_GRID_LOOP(r, n + 1)
        lengths[r] = r < n ? src_indptr[map[r] + 1] - src_indptr[map[r]] : 0;
}

/* B's row r: A's row old_of_new[r], columns renumbered. */
__global__ void permute_kernel(int64_t n, const int32_t *__restrict__ indptr,
                               const int32_t *__restrict__ indices,
                               const double *__restrict__ values,
                               const int32_t *__restrict__ old_of_new,
                               const int32_t *__restrict__ new_of_old,
                               const int32_t *__restrict__ b_indptr,
                               int32_t *b_indices, double *b_values,
                               int32_t *entry_of)
{
    CMRS_GRID_LOOP(r, n) {
        const int32_t i = old_of_new[r];
        int32_t j = b_indptr[r];
        for (int32_t e = indptr[i]; e < indptr[i + 1]; ++e, ++j) {
            b_indices[j] = new_of_old[indices[e]];
            b_values[j] = values[e];
            entry_of[j] = e;
        }
    }
}

/* The searches' device state (all n + 1 entries but scratch). */
struct bfs_state {
    int64_t n;
    const cmrs_csr_view_d *M;
    int32_t *order, *mark, *owner, *flags, *rank;
    void *scratch;
    size_t scratch_bytes;
};

unsigned grid_of(int64_t n) { return cmrs_dev_stride_grid(n, gather_block); }

/* rank = exclusive sum of in[0 .. m] (m + 1 entries); *total = rank[m]. */
cmrs_code scan_total(bfs_state *b, const int32_t *in, int64_t m,
                     int64_t *total)
{
    int32_t last = 0;
    size_t bytes = b->scratch_bytes;
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(b->scratch, bytes, in, b->rank,
                                            (int)(m + 1)));
    CMRS_CUDA(cudaMemcpy(&last, b->rank + m, sizeof last,
                         cudaMemcpyDeviceToHost));
    *total = last;
    return CMRS_OK;
}

/* Up to k nodes marked `want`, lowest first, to order[at ..), numbered;
 * *got: how many. */
cmrs_code take_marked(bfs_state *b, int32_t want, int64_t k, int64_t at,
                      int64_t *got)
{
    int64_t total = 0;
    flag_kernel<<<grid_of(b->n + 1), gather_block>>>(b->n, b->mark, want,
                                                     b->flags);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(scan_total(b, b->flags, b->n, &total));
    take_kernel<<<grid_of(b->n), gather_block>>>(b->n, b->flags, b->rank, k,
                                                 b->order, at, b->mark);
    CMRS_LAUNCH_CHECK();
    *got = total < k ? total : k;
    return CMRS_OK;
}

/* The levels after order[f0, f1) until none is left; *end: past the last. */
cmrs_code search(bfs_state *b, int64_t f0, int64_t f1, int64_t *end)
{
    const cmrs_csr_view_d *M = b->M;
    while (f1 > f0) {
        const int64_t m = f1 - f0;
        int64_t next = 0;
        claim_kernel<<<grid_of(m), gather_block>>>(
            f0, f1, b->order, M->indptr_d, M->indices_d, b->mark, b->owner);
        CMRS_LAUNCH_CHECK();
        CMRS_CUDA(cudaMemset(b->flags + m, 0, sizeof(int32_t)));
        own_kernel<false><<<grid_of(m), gather_block>>>(
            f0, f1, b->order, M->indptr_d, M->indices_d, b->mark, b->owner,
            b->flags, nullptr);
        CMRS_LAUNCH_CHECK();
        CMRS_CHECK(scan_total(b, b->flags, m, &next));
        own_kernel<true><<<grid_of(m), gather_block>>>(
            f0, f1, b->order, M->indptr_d, M->indices_d, b->mark, b->owner,
            nullptr, b->rank);
        CMRS_LAUNCH_CHECK();
        f0 = f1;
        f1 += next;
    }
    *end = f1;
    return CMRS_OK;
}

/* The order of cmrs_reorder.h into b->order (see bfs_order, its host
 * twin). */
cmrs_code bfs_run(bfs_state *b)
{
    const int64_t n = b->n;
    int64_t isolated = 0, placed = 0, seeds = 1, got = 0;
    bfs_init_kernel<<<grid_of(n), gather_block>>>(
        n, b->M->indptr_d, b->M->indices_d, b->mark, b->owner);
    CMRS_LAUNCH_CHECK();
    flag_kernel<<<grid_of(n + 1), gather_block>>>(n, b->mark, 2, b->flags);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(scan_total(b, b->flags, n, &isolated));
    while (placed < n - isolated) {
        CMRS_CHECK(take_marked(b, 0, seeds, placed, &got));
        CMRS_ENSURE(got > 0, CMRS_E_INTERNAL, "cmrs: reordering numbered %lld "
                    "of %lld connected rows and found no seed",
                    (long long)placed, (long long)(n - isolated));
        CMRS_CHECK(search(b, placed, placed + got, &placed));
        seeds = seeds < n ? 2 * seeds : n;
    }
    CMRS_CHECK(take_marked(b, 2, isolated, placed, &got));
    return CMRS_OK;
}

cmrs_code bfs_alloc(const cmrs_csr_view_d *M, bfs_state *b)
{
    const size_t ints = ((size_t)M->rows + 1) * sizeof(int32_t);
    b->n = M->rows;
    b->M = M;
    CMRS_CUDA(cmrs_dev_malloc((void **)&b->order, ints));
    CMRS_CUDA(cmrs_dev_malloc((void **)&b->mark, ints));
    CMRS_CUDA(cmrs_dev_malloc((void **)&b->owner, ints));
    CMRS_CUDA(cmrs_dev_malloc((void **)&b->flags, ints));
    CMRS_CUDA(cmrs_dev_malloc((void **)&b->rank, ints));
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, b->scratch_bytes,
                                            b->flags, b->rank,
                                            (int)(M->rows + 1)));
    CMRS_CUDA(cmrs_dev_malloc(&b->scratch, b->scratch_bytes));
    return CMRS_OK;
}

void bfs_free(bfs_state *b)
{
    CMRS_GPU_FREE_ALL(b->order, b->mark, b->owner, b->flags, b->rank,
                      b->scratch);
}

/* B and its maps from M and the order b found. */
cmrs_code permute_matrix(bfs_state *b, cmrs_reordered_d *out)
{
    const cmrs_csr_view_d *M = b->M;
    const int64_t n = M->rows, nz = M->nnz > 0 ? M->nnz : 1;
    int32_t *indptr_d = NULL, *indices_d = NULL;
    double *values_d = NULL;
    out->old_of_new_d = b->order;
    b->order = NULL;
    CMRS_CUDA(cmrs_dev_malloc((void **)&out->new_of_old_d, (size_t)n * 4));
    CMRS_CUDA(cmrs_dev_malloc((void **)&out->entry_of_d, (size_t)nz * 4));
    CMRS_CUDA(cmrs_dev_malloc((void **)&indptr_d, ((size_t)n + 1) * 4));
    out->B.indptr_d = indptr_d;
    CMRS_CUDA(cmrs_dev_malloc((void **)&indices_d, (size_t)nz * 4));
    out->B.indices_d = indices_d;
    CMRS_CUDA(cmrs_dev_malloc((void **)&values_d, (size_t)nz * sizeof(double)));
    out->B.values_d = values_d;
    inverse_kernel<<<grid_of(n), gather_block>>>(n, out->old_of_new_d,
                                                 out->new_of_old_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CHECK(cmrs_reorder_indptr(n, M->indptr_d, out->old_of_new_d, indptr_d,
                                   0));
    permute_kernel<<<grid_of(n), gather_block>>>(
        n, M->indptr_d, M->indices_d, M->values_d, out->old_of_new_d,
        out->new_of_old_d, indptr_d, indices_d, values_d, out->entry_of_d);
    CMRS_LAUNCH_CHECK();
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_reordered_build_dev(const cmrs_csr_view_d *M,
                                   cmrs_reordered_d *out)
{
    bfs_state b = {};
    *out = cmrs_reordered_d{};
    CMRS_ENSURE(M->rows == M->cols && M->rows >= 1, CMRS_E_INTERNAL,
                "cmrs: reordering needs a square matrix, not %lld x %lld",
                (long long)M->rows, (long long)M->cols);
    out->B = *M;
    out->B.indptr_d = out->B.indices_d = nullptr;
    out->B.values_d = nullptr;
    cmrs_code rc = bfs_alloc(M, &b);
    if (rc == CMRS_OK) rc = bfs_run(&b);
    if (rc == CMRS_OK) rc = permute_matrix(&b, out);
    bfs_free(&b);
    if (rc != CMRS_OK) {
        cmrs_reordered_dev_free(out);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

void cmrs_reordered_dev_free(cmrs_reordered_d *r)
{
    if (!r) return;
    CMRS_GPU_FREE_ALL((void *)r->B.indptr_d, (void *)r->B.indices_d,
                      (void *)r->B.values_d, r->new_of_old_d, r->old_of_new_d,
                      r->entry_of_d);
    *r = cmrs_reordered_d{};
}

cmrs_code cmrs_reorder_indptr(int64_t n, const int32_t *src_indptr_d,
                              const int32_t *map_d, int32_t *dst_indptr_d,
                              cudaStream_t stream)
{
    cmrs_code rc = CMRS_OK;
    int32_t *lengths_d = NULL;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&lengths_d, ((size_t)n + 1) * 4));
    lengths_kernel<<<grid_of(n + 1), gather_block, 0, stream>>>(
        n, src_indptr_d, map_d, lengths_d);
    CMRS_LAUNCH_TRY();
    CMRS_TRY(cmrs_dev_offsets_from_lengths(lengths_d, n, dst_indptr_d, stream));
done:
    cmrs_dev_free(lengths_d);
    return rc;
}

cmrs_code cmrs_reorder_near_share_dev(const cmrs_csr_view_d *M, double *share)
{
    const int64_t pairs = cmrs_reorder_pairs(M->rows);
    unsigned long long counts_h[2] = {0, 0}, *counts_d = NULL;
    *share = 1.0;
    if (pairs == 0) return CMRS_OK;
    CMRS_CUDA(cmrs_dev_malloc((void **)&counts_d, sizeof counts_h));
    cmrs_code rc = CMRS_OK;
    CMRS_CUDA_TRY(cudaMemset(counts_d, 0, sizeof counts_h));
    near_count_kernel<<<(unsigned)((pairs + 127) / 128), 128>>>(
        M->indptr_d, M->indices_d, M->rows, pairs, counts_d);
    CMRS_LAUNCH_TRY();
    CMRS_CUDA_TRY(cudaMemcpy(counts_h, counts_d, sizeof counts_h,
                             cudaMemcpyDeviceToHost));
    if (counts_h[1] > 0) *share = (double)counts_h[0] / (double)counts_h[1];
done:
    cmrs_dev_free(counts_d);
    return rc;
}

cmrs_code cmrs_reorder_dev_make(cmrs_reordered_d *r, cmrs_prec prec,
                                cmrs_reorder_dev *d, size_t *bytes)
{
    const int64_t n = r->B.rows;
    d->old_of_new_d = r->old_of_new_d;
    d->new_of_old_d = r->new_of_old_d;
    r->old_of_new_d = r->new_of_old_d = nullptr;
    CMRS_CHECK(cmrs_dev_alloc_values(n, prec, &d->xp_d));
    CMRS_CHECK(cmrs_dev_alloc_values(n, prec, &d->yp_d));
    *bytes = 2 * (size_t)n * (sizeof(int32_t) + cmrs_prec_value_bytes(prec));
    return CMRS_OK;
}

void cmrs_reorder_dev_free(cmrs_reorder_dev *d)
{
    if (!d) return;
    CMRS_GPU_FREE_ALL(d->old_of_new_d, d->new_of_old_d, d->xp_d, d->yp_d);
    *d = cmrs_reorder_dev{};
}

cmrs_code cmrs_reorder_gather(const int32_t *map_d, int64_t n, cmrs_prec prec,
                              const void *src_d, void *dst_d,
                              cudaStream_t stream)
{
    CMRS_CHECK(cmrs_dev_gather_values(src_d, map_d, n, prec, dst_d, NULL,
                                      stream));
    return CMRS_OK;
}

cmrs_code cmrs_reorder_gather_x(const cmrs_reorder_dev *d, cmrs_prec prec,
                                int64_t rows, const void *x_d,
                                cudaStream_t stream)
{
    /* xp[i] = x[old_of_new[i]] */
    return cmrs_reorder_gather(d->old_of_new_d, rows, prec, x_d, d->xp_d,
                               stream);
}

cmrs_code cmrs_reorder_put_y(const cmrs_reorder_dev *d, cmrs_prec prec,
                             int64_t rows, double alpha, double beta,
                             void *y_d, cudaStream_t stream)
{
    const unsigned grid = cmrs_dev_stride_grid(rows, gather_block);
    CMRS_PREC_DISPATCH(prec, T,
                       put_y_kernel<T><<<grid, gather_block, 0, stream>>>(
                           rows, d->new_of_old_d, (T)alpha,
                           (const T *)d->yp_d, (T)beta, (T *)y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
