/* Local rows sorted by column (halo.h): for inner back ends whose formats
 * need sorted rows (cuSPARSE CSR, the CMRS `sorted` variant merges rows as
 * sorted runs). Sorting gives up the bitwise agreement with the global
 * product: each row is then summed in its local column order. */
#include "base/memory.h"
#include "base/thread.h"
#include "halo.h"

/* Insertion sort of entries [lo, hi) by column, values and their global
 * positions (value_of, where there is one) moved alike (rows are short: a
 * few to a few tens). */
static void sort_row(cmrs_csr *A, int64_t *value_of, int64_t lo, int64_t hi)
{
    for (int64_t k = lo + 1; k < hi; ++k) {
        int32_t col = A->indices[k];
        double v = A->values[k];
        int64_t g = value_of ? value_of[k] : 0, m = k;
        for (; m > lo && A->indices[m - 1] > col; --m) {
            A->indices[m] = A->indices[m - 1];
            A->values[m] = A->values[m - 1];
            if (value_of) value_of[m] = value_of[m - 1];
        }
        A->indices[m] = col;
        A->values[m] = v;
        if (value_of) value_of[m] = g;
    }
}

/* A part's rows by threads (a pass over every entry: 250M at 50M rows). */
static void sort_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    cmrs_halo_part *hp = ctx;
    (void)t;
    for (int64_t r = lo; r < hi; ++r)
        sort_row(&hp->A, hp->value_of, hp->A.indptr[r], hp->A.indptr[r + 1]);
}

/* The value map value_base stood for (the sort moves the entries). */
static cmrs_code make_map(cmrs_halo_part *hp)
{
    if (hp->value_of || hp->A.nnz == 0) return CMRS_OK;
    hp->value_of = cmrs_malloc_array((size_t)hp->A.nnz, sizeof *hp->value_of);
    CMRS_ENSURE(hp->value_of, CMRS_E_NOMEM, "cannot allocate a value map of "
                "%lld entries", (long long)hp->A.nnz);
    for (int64_t e = 0; e < hp->A.nnz; ++e)
        hp->value_of[e] = hp->value_base + e;
    return CMRS_OK;
}

cmrs_code cmrs_halo_sort_rows(cmrs_halo *h)
{
    for (int p = 0; p < h->nparts; ++p) {
        cmrs_halo_part *hp = &h->part[p];
        CMRS_CHECK(make_map(hp));
        cmrs_parallel_ranges(hp->A.rows,
                             cmrs_parallel_threads(hp->A.nnz,
                                                   CMRS_DIST_GRAIN),
                             sort_rows, hp);
    }
    return CMRS_OK;
}
