/* Host conversion CSR -> hyb (see fmt_hyb.h and docs/formats/hyb.md). */
#include "fmt_hyb.h"

#include <stdlib.h>
#include <string.h>

#include "spmv/spmv.h"

static int64_t row_len(const cmrs_csr *A, int64_t r)
{
    return A->indptr[r + 1] - A->indptr[r];
}

static int64_t max_row_len(const cmrs_csr *A)
{
    int64_t m = 0;
    for (int64_t r = 0; r < A->rows; ++r)
        if (row_len(A, r) > m) m = row_len(A, r);
    return m;
}

/* at_least(k) = rows with k or more entries is non-increasing in k, so
 * the answer is the first k, counting down from the longest row, where it
 * reaches the threshold. The histogram has max_len + 1 <= nnz + 1 counts. */
cmrs_code cmrs_hyb_width(const cmrs_csr *A, int64_t breakeven, int32_t *K)
{
    *K = 0;
    if (A->rows == 0) return CMRS_OK;
    int64_t threshold = A->rows / 3 > breakeven ? A->rows / 3 : breakeven;
    if (threshold < 1) threshold = 1;
    int64_t max_len = max_row_len(A);
    int64_t *hist = (int64_t *)cmrs_malloc_array((size_t)max_len + 1,
                                                 sizeof *hist);
    CMRS_ENSURE(hist, CMRS_E_NOMEM, "hyb: cannot allocate a row-length "
                "histogram of %lld counts", (long long)max_len + 1);
    memset(hist, 0, ((size_t)max_len + 1) * sizeof *hist);
    for (int64_t r = 0; r < A->rows; ++r) ++hist[row_len(A, r)];
    int64_t at_least = 0;
    for (int64_t k = max_len; k >= 1; --k) {
        at_least += hist[k];
        if (at_least >= threshold) {
            /* K <= max_len <= cols <= INT32_MAX (int32 column indices) */
            *K = (int32_t)(k < INT32_MAX ? k : INT32_MAX);
            break;
        }
    }
    free(hist);
    return CMRS_OK;
}

int64_t cmrs_hyb_stored(const cmrs_hyb_host *h)
{
    return h->rows * (int64_t)h->width + h->coo_nnz;
}

void cmrs_hyb_host_free(cmrs_hyb_host *h)
{
    if (!h) return;
    free(h->ell_cols);
    free(h->ell_vals); /* coo_vals points into it */
    free(h->coo_rows);
    free(h->coo_cols);
    memset(h, 0, sizeof *h);
}

/* Counts the COO entries and refuses sizes the device layout cannot hold:
 * int32 row indices, int64 slot offsets, size_t byte counts. */
static cmrs_code plan_sizes(const cmrs_csr *A, int32_t K, cmrs_hyb_host *h,
                            size_t *ell_n)
{
    CMRS_ENSURE(K >= 0, CMRS_E_INTERNAL, "hyb: negative ELL width %d", K);
    CMRS_ENSURE(A->rows <= INT32_MAX, CMRS_E_LIMIT,
                "hyb: %lld rows exceed the int32 row indices of the COO part",
                (long long)A->rows);
    CMRS_ENSURE(cmrs_mul_size((size_t)A->rows, (size_t)K, ell_n) == 0 &&
                    *ell_n <= (size_t)INT64_MAX / sizeof(double),
                CMRS_E_LIMIT, "hyb: ELL part of %lld rows x %d slots overflows",
                (long long)A->rows, K);
    h->rows = A->rows;
    h->cols = A->cols;
    h->width = K;
    for (int64_t r = 0; r < A->rows; ++r)
        if (row_len(A, r) > K) h->coo_nnz += row_len(A, r) - K;
    return cmrs_check_padding("hyb", cmrs_hyb_stored(h), A->nnz, A->rows);
}

/* Fills the allocated arrays: the first K entries of a row go to its ELL
 * slots (column-major, so thread r of a warp reads slot k coalesced), the
 * rest to COO in row order. */
static void fill(const cmrs_csr *A, cmrs_hyb_host *h, size_t ell_n)
{
    for (size_t i = 0; i < ell_n; ++i) {
        h->ell_cols[i] = CMRS_HYB_PAD;
        h->ell_vals[i] = 0.0;
    }
    int64_t c = 0;
    for (int64_t r = 0; r < A->rows; ++r)
        for (int64_t j = A->indptr[r]; j < A->indptr[r + 1]; ++j) {
            int64_t k = j - A->indptr[r];
            if (k < h->width) {
                h->ell_cols[k * A->rows + r] = A->indices[j];
                h->ell_vals[k * A->rows + r] = A->values[j];
            } else {
                h->coo_rows[c] = (int32_t)r;
                h->coo_cols[c] = A->indices[j];
                h->coo_vals[c++] = A->values[j];
            }
        }
}

cmrs_code cmrs_hyb_build(const cmrs_csr *A, int32_t K, cmrs_hyb_host *h)
{
    cmrs_code rc = CMRS_OK;
    size_t ell_n = 0;
    memset(h, 0, sizeof *h);
    CMRS_TRY(plan_sizes(A, K, h, &ell_n));
    size_t coo_n = (size_t)h->coo_nnz;
    h->ell_cols = (int32_t *)cmrs_malloc_array(ell_n, sizeof(int32_t));
    /* One value block, ELL then COO: setup uploads one permutation. The
     * sum cannot overflow: ell_n + coo_n = stored <= 4 nnz + 1024. */
    h->ell_vals = (double *)cmrs_malloc_array(ell_n + coo_n, sizeof(double));
    h->coo_rows = (int32_t *)cmrs_malloc_array(coo_n, sizeof(int32_t));
    h->coo_cols = (int32_t *)cmrs_malloc_array(coo_n, sizeof(int32_t));
    if (!h->ell_cols || !h->ell_vals || !h->coo_rows || !h->coo_cols)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "hyb: cannot allocate %zu ELL slots and %zu "
                  "COO entries", ell_n, coo_n);
    h->coo_vals = h->ell_vals + ell_n;
    fill(A, h, ell_n);
done:
    if (rc != CMRS_OK) cmrs_hyb_host_free(h);
    return rc;
}
