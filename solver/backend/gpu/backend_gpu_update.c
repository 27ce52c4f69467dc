/* The GPU back end's values-only update from device values: the format's
 * buffer rewritten on the device, D^-1 recomputed there, one wait at the
 * end for the error words. Every buffer is made at creation, so an
 * update allocates nothing (formats with an `after` step aside). And the
 * setup's D^-1 (own_dinv) from the diagonal the format's setup found on
 * the device: the Jacobi setup then scans nothing on the host. */
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/profile.h"
#include "spmv/device.h"
#include "backend_gpu.h"
#include "gpu_kernels.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/pinned_small.h"

#define NO_BAD (~0ULL) /* an error word's "nothing found" */

/* The diagonal the format's setup found on the device (cmrs_diag_d),
 * taken over: positions for dinv_d, values and error word for own_dinv. */
static void take_diagonal(gpu_impl *g, const cmrs_csr *A)
{
    cmrs_diag_d *d = &g->spmv->diag;
    g->diag_d = d->pos_d;
    g->diagval_d = d->value_d;
    g->diagbad_d = d->bad_d;
    memset(d, 0, sizeof *d);
    g->diag_of = A;
    g->diag_fresh = 1;
}

/* Diagonal positions by a host scan (one int32 per row), for formats
 * whose setup did not find them. */
static cmrs_code scan_diagonal(gpu_impl *g, const cmrs_csr *A)
{
    cmrs_code rc = CMRS_OK;
    int32_t *pos = cmrs_malloc_array((size_t)A->rows, sizeof *pos);
    CMRS_ENSURE(pos, CMRS_E_NOMEM, "cannot allocate %lld diagonal positions",
                (long long)A->rows);
    cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
    for (int64_t i = 0; i < A->rows; ++i) {
        pos[i] = -1;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] == i) pos[i] = (int32_t)k;
    }
    cmrs_phase_pop();
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&g->diag_d,
                             (size_t)A->rows * sizeof *pos));
    CMRS_TRY(cmrs_dev_copy_to(g->diag_d, pos, (size_t)A->rows * sizeof *pos));
done:
    free(pos);
    return rc;
}

/* The error words (backend_gpu.h): two pairs and own_dinv's word, all
 * ~0 to start with. */
#define FLAG_WORDS 5
#define OWN_WORD 4

static cmrs_code alloc_flags(gpu_impl *g)
{
    size_t bytes = FLAG_WORDS * sizeof *g->flags_d;
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->flags_d, bytes));
    CMRS_CUDA(cmrs_pinned_small_alloc((void **)&g->flags_h,
                                      2 * sizeof *g->flags_h));
    CMRS_CUDA(cudaMemsetAsync(g->flags_d, 0xff, bytes, g->stream));
    g->flags_cur = g->flags_d;
    return CMRS_OK;
}

/* The pair this update flags errors in (clean), and the other one, which
 * it must leave clean for the next: the fused kernel sets it on the way
 * (no memset call: 13 us of host time an update at 5M rows, H100); the
 * other paths by a memset here. */
static cmrs_code take_flags(gpu_impl *g, int fused,
                            unsigned long long **other)
{
    if (g->flags_dirty)
        CMRS_CUDA(cudaMemsetAsync(g->flags_d, 0xff, 4 * sizeof *g->flags_d,
                                  g->stream));
    g->flags_dirty = 1; /* until the clean-up is queued */
    g->flags_cur = g->flags_d + 2 * g->flags_next;
    *other = g->flags_d + 2 * (1 - g->flags_next);
    g->flags_next = 1 - g->flags_next;
    if (fused) return CMRS_OK; /* the caller clears flags_dirty */
    CMRS_CUDA(cudaMemsetAsync(*other, 0xff, 2 * sizeof **other, g->stream));
    g->flags_dirty = 0;
    return CMRS_OK;
}

/* The fused update's tiles, once the diagonal positions are there
 * (queued on the stream: microseconds at 5M rows), where the format's
 * update is a gather alone: the fused kernel does it. */
static cmrs_code prepare_tiles(cmrs_backend *be)
{
    gpu_impl *g = GPU(be);
    cmrs_value_store st;
    if (!g->diag_d || !cmrs_spmv_gather_store(g->spmv, &st)) return CMRS_OK;
    int64_t ntiles = cmrs_gpu_update_tiles(st.stored);
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->tile_rows_d,
                         (size_t)(ntiles + 1) * sizeof *g->tile_rows_d));
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->tiles_bad_d, sizeof *g->tiles_bad_d));
    CMRS_CHECK(cmrs_gpu_tile_rows(be->n, g->diag_d, be->nnz, st.stored,
                                  g->tile_rows_d, g->tiles_bad_d, g->stream));
    g->tiles_stored = st.stored;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_update_prepare_from(cmrs_backend *be, const gpu_impl *p,
                                       const cmrs_csr *A)
{
    gpu_impl *g = GPU(be);
    size_t n = (size_t)be->n;
    if (!p->diag_d || !p->diagval_d || !p->diagbad_d)
        return cmrs_gpu_update_prepare(be, A);
    CMRS_CHECK(alloc_flags(g));
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->diag_d, n * sizeof *g->diag_d));
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->diagval_d, n * sizeof *g->diagval_d));
    CMRS_CUDA(cmrs_dev_malloc((void **)&g->diagbad_d, sizeof *g->diagbad_d));
    CMRS_CUDA(cudaMemcpyAsync(g->diag_d, p->diag_d, n * sizeof *g->diag_d,
                              cudaMemcpyDeviceToDevice, g->stream));
    CMRS_CUDA(cudaMemcpyAsync(g->diagval_d, p->diagval_d,
                              n * sizeof *g->diagval_d,
                              cudaMemcpyDeviceToDevice, g->stream));
    CMRS_CUDA(cudaMemcpyAsync(g->diagbad_d, p->diagbad_d,
                              sizeof *g->diagbad_d,
                              cudaMemcpyDeviceToDevice, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    g->diag_of = A;
    g->diag_fresh = p->diag_fresh && p->diag_of == A;
    CMRS_CHECK(prepare_tiles(be));
    return CMRS_OK;
}

/* Diagonal positions (from the format's setup, else a host scan) and
 * error words. */
cmrs_code cmrs_gpu_update_prepare(cmrs_backend *be, const cmrs_csr *A)
{
    gpu_impl *g = GPU(be);
    CMRS_CHECK(alloc_flags(g));
    if (g->spmv->diag.pos_d) {
        take_diagonal(g, A);
    } else {
        if (A->nnz > INT32_MAX) return CMRS_OK; /* dinv_d then says so */
        CMRS_CHECK(scan_diagonal(g, A));
    }
    CMRS_CHECK(prepare_tiles(be));
    return CMRS_OK;
}

void cmrs_gpu_update_free(gpu_impl *g)
{
    CMRS_GPU_FREE_ALL(g->diag_d, g->diagval_d, g->diagbad_d, g->flags_d,
                      g->tile_rows_d, g->tiles_bad_d);
    cmrs_pinned_small_free(g->flags_h);
}

/* The format's gather and D^-1 in one kernel (st: the format's store),
 * the next update's error words cleaned on the way. */
static cmrs_code fused_update(cmrs_backend *be, const cmrs_value_store *st,
                              const void *values_d, void *dinv)
{
    gpu_impl *g = GPU(be);
    unsigned long long *other = NULL;
    CMRS_CHECK(take_flags(g, 1, &other));
    const cmrs_gpu_fused_update u = {
        .dst_d = st->values_d, .perm_d = st->perm_d, .stored = st->stored,
        .n = be->n, .diag_d = g->diag_d, .tile_rows_d = g->tile_rows_d,
        .tiles_bad_d = g->tiles_bad_d, .bad_value_d = &g->flags_cur[0],
        .bad_row_d = &g->flags_cur[1], .reset_d = other};
    CMRS_CHECK(cmrs_gpu_copy_dinv(be->prec, &u, values_d, dinv, g->stream));
    g->flags_dirty = 0;
    g->dinv_done = dinv;
    g->dinv_of = values_d;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_update_values_d(cmrs_backend *be, const void *values_d,
                                      void *dinv, int *in_place)
{
    gpu_impl *g = GPU(be);
    cmrs_value_store st;
    unsigned long long *other = NULL;
    g->diag_fresh = 0; /* own_dinv: the creation's diagonal is old */
    g->dinv_done = NULL;
    if (dinv && g->tile_rows_d && cmrs_spmv_gather_store(g->spmv, &st) &&
        st.stored == g->tiles_stored) { /* the tiles fit the store */
        CMRS_CHECK(fused_update(be, &st, values_d, dinv));
        *in_place = 1;
        return CMRS_OK;
    }
    CMRS_CHECK(take_flags(g, 0, &other));
    CMRS_CHECK(cmrs_spmv_update_values_d(g->spmv, values_d,
                                         &g->flags_cur[0], in_place));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_dinv_d(cmrs_backend *be, const void *values_d,
                             void *dinv)
{
    gpu_impl *g = GPU(be);
    CMRS_ENSURE(g->diag_d, CMRS_E_LIMIT, "%lld entries: the device update's "
                "diagonal positions are 32-bit (update from host values)",
                (long long)be->nnz);
    if (dinv == g->dinv_done && values_d == g->dinv_of) {
        g->dinv_done = NULL; /* written by update_values_d's fused pass */
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_gpu_dinv_values(be->prec, be->n, g->diag_d, values_d,
                                    dinv, &g->flags_cur[1], g->stream));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_update_check(cmrs_backend *be, int64_t *bad_value,
                                   int64_t *bad_row)
{
    gpu_impl *g = GPU(be);
    CMRS_CUDA(cudaMemcpyAsync(g->flags_h, g->flags_cur,
                              2 * sizeof *g->flags_h, cudaMemcpyDeviceToHost,
                              g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    *bad_value = g->flags_h[0] == NO_BAD ? -1 : (int64_t)g->flags_h[0];
    *bad_row = g->flags_h[1] == NO_BAD ? -1 : (int64_t)g->flags_h[1];
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_values_get(cmrs_backend *be, double *values_h)
{
    CMRS_CHECK(cmrs_spmv_values_get(GPU(be)->spmv, values_h));
    return CMRS_OK;
}

/* From the setup's flagged row: none means every a_ii is there (and > 0),
 * so no row is empty. A failed read says "unknown" (the host scans). */
int cmrs_gpu_op_rows_nonempty(cmrs_backend *be)
{
    gpu_impl *g = GPU(be);
    unsigned long long bad = 0;
    if (!g->diagbad_d) return 0;
    if (cudaMemcpyAsync(&bad, g->diagbad_d, sizeof bad,
                        cudaMemcpyDeviceToHost, g->stream) != cudaSuccess ||
        cudaStreamSynchronize(g->stream) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return bad == NO_BAD;
}

/* The words own_dinv waits for: the setup's flagged row (diagbad_d) and,
 * in single precision, the first inverse beyond a float (its own word). */
static cmrs_code read_dinv_words(gpu_impl *g, int64_t *bad_row,
                                 int64_t *overflow)
{
    CMRS_CUDA(cudaMemcpyAsync(&g->flags_h[0], g->diagbad_d,
                              sizeof *g->flags_h, cudaMemcpyDeviceToHost,
                              g->stream));
    CMRS_CUDA(cudaMemcpyAsync(&g->flags_h[1], &g->flags_d[OWN_WORD],
                              sizeof *g->flags_h, cudaMemcpyDeviceToHost,
                              g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    *bad_row = g->flags_h[0] == NO_BAD ? -1 : (int64_t)g->flags_h[0];
    *overflow = g->flags_h[1] == NO_BAD ? -1 : (int64_t)g->flags_h[1];
    return CMRS_OK;
}

/* D^-1 into the array a from diagval_d; the host path's errors, in its
 * order: a bad diagonal (any row) before an inverse beyond a float. */
static cmrs_code own_dinv_into(cmrs_backend *be, const cmrs_csr *A,
                               const char *what, void *a)
{
    gpu_impl *g = GPU(be);
    int64_t bad_row = -1, overflow = -1;
    CMRS_CUDA(cudaMemsetAsync(&g->flags_d[OWN_WORD], 0xff,
                              sizeof *g->flags_d, g->stream));
    CMRS_CHECK(cmrs_gpu_dinv_of_diag(be->prec, be->n, g->diagval_d, a,
                                     &g->flags_d[OWN_WORD], g->stream));
    CMRS_CHECK(read_dinv_words(g, &bad_row, &overflow));
    if (bad_row >= 0) CMRS_CHECK(cmrs_jacobi_row_error(A, what, bad_row));
    if (overflow >= 0) {
        int found = 0;
        double d = cmrs_csr_lookup(A, overflow, (int32_t)overflow, &found);
        CMRS_CHECK(cmrs_gpu_kit_float_error(overflow, 1.0 / d));
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_own_dinv(cmrs_backend *be, const cmrs_csr *A,
                               const char *what, void **dinv, int *done)
{
    gpu_impl *g = GPU(be);
    cmrs_code rc = CMRS_OK;
    *done = 0;
    if (!g->diagval_d || !g->diag_fresh || A != g->diag_of ||
        A->rows != be->n || A->nnz != be->nnz)
        return CMRS_OK;
    if (!*dinv) { /* the caller's from here on, also after a failure */
        cmrs_phase_push(CMRS_PHASE_ALLOCATION);
        rc = be->ops->arr_create(be, be->n, dinv);
        cmrs_phase_pop();
        CMRS_CHECK(rc);
    }
    CMRS_CHECK(own_dinv_into(be, A, what, *dinv));
    *done = 1;
    return CMRS_OK;
}
