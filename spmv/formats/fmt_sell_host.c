/* CSR -> cuSPARSE sliced ELL on the host (layout in fmt_sell.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "fmt_sell.h"

/* Longest row among rows [r0, r0 + SLICE) of A (fewer in the last slice). */
static int64_t slice_width(const cmrs_csr *A, int64_t r0)
{
    int64_t r1 = r0 + CMRS_SELL_SLICE < A->rows ? r0 + CMRS_SELL_SLICE : A->rows;
    int64_t w = 0;
    for (int64_t r = r0; r < r1; ++r) {
        int64_t len = A->indptr[r + 1] - A->indptr[r];
        if (len > w) w = len;
    }
    return w;
}

int64_t cmrs_sell_count(const cmrs_csr *A)
{
    int64_t stored = 0;
    for (int64_t r0 = 0; r0 < A->rows; r0 += CMRS_SELL_SLICE) {
        int64_t add = CMRS_SELL_SLICE * slice_width(A, r0);
        /* Saturates instead of overflowing: the limits refuse it anyway. */
        stored = stored > INT64_MAX - add ? INT64_MAX : stored + add;
    }
    return stored;
}

static cmrs_code alloc_arrays(cmrs_sell_host *s)
{
    s->slice_offsets = cmrs_malloc_array((size_t)s->slices + 1, sizeof(int32_t));
    s->col_ind = cmrs_malloc_array((size_t)s->stored, sizeof(int32_t));
    s->values = cmrs_malloc_array((size_t)s->stored, sizeof(double));
    CMRS_ENSURE(s->slice_offsets && s->col_ind && s->values, CMRS_E_NOMEM,
                "sell: cannot allocate %lld stored entries on the host",
                (long long)s->stored);
    return CMRS_OK;
}

/* Fills slice s (offsets[s] already set) and sets offsets[s + 1]. Every
 * slot is first marked as padding, then the row's entries go into its
 * column of the slice. */
static void fill_slice(const cmrs_csr *A, cmrs_sell_host *s, int64_t slice)
{
    int64_t r0 = slice * CMRS_SELL_SLICE, w = slice_width(A, r0);
    int64_t base = s->slice_offsets[slice], n = CMRS_SELL_SLICE * w;
    for (int64_t k = 0; k < n; ++k) {
        s->col_ind[base + k] = -1;
        s->values[base + k] = 0.0;
    }
    for (int64_t i = 0; i < CMRS_SELL_SLICE && r0 + i < A->rows; ++i) {
        int64_t p0 = A->indptr[r0 + i], len = A->indptr[r0 + i + 1] - p0;
        for (int64_t k = 0; k < len; ++k) {
            s->col_ind[base + k * CMRS_SELL_SLICE + i] = A->indices[p0 + k];
            s->values[base + k * CMRS_SELL_SLICE + i] = A->values[p0 + k];
        }
    }
    s->slice_offsets[slice + 1] = (int32_t)(base + n);
}

cmrs_code cmrs_sell_build(const cmrs_csr *A, cmrs_sell_host *s)
{
    memset(s, 0, sizeof *s);
    int64_t stored = cmrs_sell_count(A);
    CMRS_CHECK(cmrs_check_padding("sell", stored, A->nnz, A->rows));
    CMRS_ENSURE(stored <= INT32_MAX, CMRS_E_LIMIT,
                "sell: %lld stored entries exceed the 32-bit slice offsets "
                "(at most %d); use cmrs or cusparse", (long long)stored,
                INT32_MAX);
    s->rows = A->rows;
    s->cols = A->cols;
    s->nnz = A->nnz;
    s->slices = (A->rows + CMRS_SELL_SLICE - 1) / CMRS_SELL_SLICE;
    s->stored = stored;
    cmrs_code rc = alloc_arrays(s);
    if (rc != CMRS_OK) {
        cmrs_sell_host_free(s);
        return rc;
    }
    s->slice_offsets[0] = 0;
    for (int64_t sl = 0; sl < s->slices; ++sl) fill_slice(A, s, sl);
    return CMRS_OK;
}

void cmrs_sell_host_free(cmrs_sell_host *s)
{
    if (!s) return;
    CMRS_FREE_ALL(s->slice_offsets, s->col_ind, s->values);
    memset(s, 0, sizeof *s);
}
