/* The CSR chores of the AMG host code (amg_csr.h). */
#include <stdlib.h>

#include "amg_csr.h"

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void cmrs_amg_sort_cols(int32_t *c, int64_t n)
{
    if (n > 32) {
        qsort(c, (size_t)n, sizeof *c, cmp_i32);
        return;
    }
    for (int64_t i = 1; i < n; ++i) {
        int32_t v = c[i];
        int64_t j = i;
        for (; j > 0 && c[j - 1] > v; --j) c[j] = c[j - 1];
        c[j] = v;
    }
}

void cmrs_amg_shrink_csr(cmrs_csr *A)
{
    size_t n = A->nnz > 0 ? (size_t)A->nnz : 1;
    int32_t *i = realloc(A->indices, n * sizeof *i);
    if (i) A->indices = i;
    double *v = realloc(A->values, n * sizeof *v);
    if (v) A->values = v;
}

/* Each array rounded up to whole doubles: every start stays 8-aligned. */
static size_t words(size_t n, size_t size) { return (n * size + 7) / 8; }

cmrs_code cmrs_amg_workspace(const cmrs_csr *A, const char *what, int count,
                             const size_t *size, void **block, double **w,
                             void **arr)
{
    size_t n = (size_t)A->rows, nw = A->nnz > 0 ? (size_t)A->nnz : 1;
    size_t total = nw;
    for (int k = 0; k < count; ++k) total += words(n, size[k]);
    double *b = cmrs_malloc_array(total, sizeof *b);
    CMRS_ENSURE(b, CMRS_E_NOMEM, "amg: cannot allocate the %s workspace of "
                "%lld rows", what, (long long)A->rows);
    *block = b;
    *w = b;
    b += nw;
    for (int k = 0; k < count; ++k) {
        arr[k] = b;
        b += words(n, size[k]);
    }
    return CMRS_OK;
}
