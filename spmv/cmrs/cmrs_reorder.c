/* The host half of the cmrs format's locality reordering (cmrs_reorder.h):
 * the rule's count and B = P A P^T with its entry map. */
#include "base/memory.h"
#include "base/thread.h"
#include "cmrs_reorder.h"

#include <stdlib.h>
#include <string.h>


double cmrs_reorder_near_share(const cmrs_csr *A)
{
    const int64_t pairs = cmrs_reorder_pairs(A->rows);
    int64_t near = 0, counted = 0;
    for (int64_t s = 0; s < pairs; ++s) {
        const int64_t r = cmrs_reorder_sample_row(s, pairs, A->rows);
        const int64_t a0 = A->indptr[r], b0 = A->indptr[r + 1];
        int64_t seen = 0;
        near += cmrs_reorder_near(A->indices + a0, b0 - a0, A->indices + b0,
                                  A->indptr[r + 2] - b0, r + 1, &seen);
        counted += seen;
    }
    return counted > 0 ? (double)near / (double)counted : 1.0;
}

int cmrs_reorder_wanted(int token, int64_t rows, int64_t cols, int64_t nnz,
                        double near_share)
{
    if (token == 0 || rows != cols || rows < 2 || nnz > INT32_MAX) return 0;
    if (token > 0) return 1;
    return rows >= CMRS_REORDER_MIN_ROWS && near_share < CMRS_REORDER_MAX_NEAR;
}

/* 1 if row i has no entry off the diagonal. */
static int isolated(const cmrs_csr *A, int64_t i)
{
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
        if (A->indices[k] != i) return 0;
    return 1;
}

/* The order of cmrs_reorder.h into order[0 .. rows): sequential
 * breadth-first searches (a queue visits the level-synchronous order the
 * GPU builds), then the isolated rows. mark: 0 unnumbered, 1 numbered,
 * 2 isolated. */
static void bfs_order(const cmrs_csr *A, uint8_t *mark, int32_t *order)
{
    const int64_t n = A->rows;
    int64_t connected = n, placed = 0, seeds = 1, cursor = 0;
    for (int64_t i = 0; i < n; ++i) {
        mark[i] = isolated(A, i) ? 2 : 0;
        connected -= mark[i] == 2;
    }
    while (placed < connected) {
        int64_t head = placed;
        for (int64_t got = 0; cursor < n && got < seeds; ++cursor)
            if (mark[cursor] == 0) {
                mark[cursor] = 1;
                order[placed++] = (int32_t)cursor;
                ++got;
            }
        seeds = seeds < n ? 2 * seeds : n;
        while (head < placed) {
            const int32_t p = order[head++];
            for (int64_t k = A->indptr[p]; k < A->indptr[p + 1]; ++k) {
                const int32_t u = A->indices[k];
                if (mark[u] != 0) continue;
                mark[u] = 1;
                order[placed++] = u;
            }
        }
    }
    for (int64_t i = 0; i < n; ++i)
        if (mark[i] == 2) order[placed++] = (int32_t)i;
}

/* B's rows from A's through the row maps in r, entries in A's order. */
static void permute_rows(const cmrs_csr *A, cmrs_reordered *r)
{
    cmrs_csr *B = &r->B;
    B->indptr[0] = 0;
    for (int64_t row = 0; row < A->rows; ++row) {
        const int64_t i = r->old_of_new[row];
        B->indptr[row + 1] = B->indptr[row] + A->indptr[i + 1] - A->indptr[i];
    }
    for (int64_t row = 0; row < A->rows; ++row) {
        const int64_t i = r->old_of_new[row], b0 = B->indptr[row];
        for (int64_t e = A->indptr[i]; e < A->indptr[i + 1]; ++e) {
            const int64_t j = b0 + e - A->indptr[i];
            B->indices[j] = r->new_of_old[A->indices[e]];
            B->values[j] = A->values[e];
            r->entry_of[j] = (int32_t)e;
        }
    }
}

cmrs_code cmrs_reordered_build(const cmrs_csr *A, cmrs_reordered *out)
{
    cmrs_code rc = CMRS_OK;
    const size_t n = (size_t)A->rows;
    uint8_t *mark = NULL;
    memset(out, 0, sizeof *out);
    CMRS_ENSURE(A->rows == A->cols && A->nnz <= INT32_MAX, CMRS_E_INTERNAL,
                "cmrs: reordering needs a square matrix of at most %d "
                "entries, not %lld x %lld with %lld", INT32_MAX,
                (long long)A->rows, (long long)A->cols, (long long)A->nnz);
    out->new_of_old = cmrs_malloc_array(n, sizeof(int32_t));
    out->old_of_new = cmrs_malloc_array(n, sizeof(int32_t));
    out->entry_of = cmrs_malloc_array((size_t)A->nnz, sizeof(int32_t));
    mark = cmrs_malloc_array(n, 1);
    if (!out->new_of_old || !out->old_of_new || !out->entry_of || !mark)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cmrs: cannot allocate the reordering of "
                      "%lld rows and %lld entries", (long long)A->rows,
                      (long long)A->nnz);
    CMRS_TRY(cmrs_csr_alloc(&out->B, A->rows, A->cols, A->nnz));
    bfs_order(A, mark, out->old_of_new);
    for (int64_t r = 0; r < A->rows; ++r)
        out->new_of_old[out->old_of_new[r]] = (int32_t)r;
    permute_rows(A, out);
done:
    free(mark);
    if (rc != CMRS_OK) cmrs_reordered_free(out);
    return rc;
}

/* Insertion sorts of the rows [lo, hi), rows being short. */
static void sort_range(void *ctx, int t, int64_t lo, int64_t hi)
{
    cmrs_reordered *r = ctx;
    (void)t;
    for (int64_t row = lo; row < hi; ++row) {
        const int64_t a = r->B.indptr[row], b = r->B.indptr[row + 1];
        for (int64_t k = a + 1; k < b; ++k) {
            const int32_t col = r->B.indices[k], e = r->entry_of[k];
            const double v = r->B.values[k];
            int64_t m = k;
            for (; m > a && r->B.indices[m - 1] > col; --m) {
                r->B.indices[m] = r->B.indices[m - 1];
                r->B.values[m] = r->B.values[m - 1];
                r->entry_of[m] = r->entry_of[m - 1];
            }
            r->B.indices[m] = col;
            r->B.values[m] = v;
            r->entry_of[m] = e;
        }
    }
}

void cmrs_reordered_sort_rows(cmrs_reordered *r)
{
    cmrs_parallel_ranges(r->B.rows,
                         cmrs_parallel_threads(r->B.nnz, (int64_t)1 << 16),
                         sort_range, r);
}

void cmrs_reordered_free(cmrs_reordered *r)
{
    if (!r) return;
    cmrs_csr_free(&r->B);
    CMRS_FREE_ALL(r->new_of_old, r->old_of_new, r->entry_of);
    memset(r, 0, sizeof *r);
}
