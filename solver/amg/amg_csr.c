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
