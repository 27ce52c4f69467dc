/* ELLPACK-R / ELLR-T host conversion (layout in fmt_ellr.h). */
#include "base/memory.h"
#include "fmt_ellr.h"

#include <stdlib.h>
#include <string.h>

#include "spmv/spmv.h"

int cmrs_ellr_default_T(const cmrs_csr *A)
{
    double mean = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0.0;
    int T = 1;
    while (T < CMRS_ELLR_MAX_T && (double)T < mean / 4.0) T *= 2;
    return T;
}

cmrs_code cmrs_ellr_resolve_T(int requested, const cmrs_csr *A, int *T)
{
    if (requested == 0) {
        *T = cmrs_ellr_default_T(A);
        return CMRS_OK;
    }
    /* T must divide the warp so that a row never straddles two warps. */
    CMRS_ENSURE(requested > 0 && requested <= CMRS_ELLR_MAX_T &&
                    (requested & (requested - 1)) == 0,
                CMRS_E_USAGE,
                "ellr: threads per row %d is not 1, 2, 4, 8, 16 or 32",
                requested);
    *T = requested;
    return CMRS_OK;
}

static int64_t max_row_length(const cmrs_csr *A)
{
    int64_t longest = 0;
    for (int64_t r = 0; r < A->rows; ++r) {
        int64_t len = A->indptr[r + 1] - A->indptr[r];
        if (len > longest) longest = len;
    }
    return longest;
}

/* Sets width and stored, refusing too much padding before allocating. */
static cmrs_code size_layout(const cmrs_csr *A, int T, cmrs_ellr_host *E)
{
    int64_t longest = max_row_length(A);
    E->width = (longest + T - 1) / T * T;
    size_t stored = 0, bytes = 0;
    /* 12 bytes per slot (int32 column + double value) must fit in size_t. */
    CMRS_ENSURE(cmrs_mul_size((size_t)A->rows, (size_t)E->width, &stored) == 0 &&
                    cmrs_mul_size(stored, 12, &bytes) == 0 &&
                    stored <= (size_t)INT64_MAX / 16,
                CMRS_E_LIMIT, "ellr: %lld rows x %lld slots overflow",
                (long long)A->rows, (long long)E->width);
    E->stored = (int64_t)stored;
    return cmrs_check_padding("ellr", E->stored, A->nnz, A->rows);
}

static void fill_slots(const cmrs_csr *A, cmrs_ellr_host *E)
{
    memset(E->col, 0, (size_t)E->stored * sizeof *E->col);
    for (int64_t s = 0; s < E->stored; ++s) E->val[s] = 0.0;
    for (int64_t r = 0; r < A->rows; ++r) {
        int64_t begin = A->indptr[r], len = A->indptr[r + 1] - begin;
        E->rl[r] = (int32_t)len;
        for (int64_t k = 0; k < len; ++k) {
            int64_t s = cmrs_ellr_slot(A->rows, E->T, r, k);
            E->col[s] = A->indices[begin + k];
            E->val[s] = A->values[begin + k];
        }
    }
}

cmrs_code cmrs_ellr_build(const cmrs_csr *A, int T, cmrs_ellr_host *E)
{
    memset(E, 0, sizeof *E);
    CMRS_ENSURE(T >= 1 && T <= CMRS_ELLR_MAX_T && (T & (T - 1)) == 0,
                CMRS_E_INTERNAL, "ellr: unresolved threads per row %d", T);
    cmrs_code rc = CMRS_OK;
    E->rows = A->rows;
    E->cols = A->cols;
    E->nnz = A->nnz;
    E->T = T;
    CMRS_TRY(size_layout(A, T, E));
    E->rl = cmrs_malloc_array((size_t)A->rows, sizeof *E->rl);
    E->col = cmrs_malloc_array((size_t)E->stored, sizeof *E->col);
    E->val = cmrs_malloc_array((size_t)E->stored, sizeof *E->val);
    if (!E->rl || !E->col || !E->val) {
        rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__,
                            "ellr: cannot allocate %lld padded slots",
                            (long long)E->stored);
        goto done;
    }
    fill_slots(A, E);
done:
    if (rc != CMRS_OK) cmrs_ellr_host_free(E);
    return rc;
}

void cmrs_ellr_host_free(cmrs_ellr_host *E)
{
    if (!E) return;
    CMRS_FREE_ALL(E->rl, E->col, E->val);
    E->rl = NULL;
    E->col = NULL;
    E->val = NULL;
}
