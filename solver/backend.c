/* Helpers common to every back end. */
#include <stdlib.h>

#include "backend.h"

void cmrs_backend_destroy(cmrs_backend *be)
{
    if (!be) return;
    if (be->ops && be->ops->destroy) be->ops->destroy(be);
    free(be);
}

cmrs_code cmrs_history_grow(double **history, int64_t *cap, int64_t count)
{
    if (count <= *cap) return CMRS_OK;
    double *h = realloc(*history, (size_t)count * sizeof *h);
    CMRS_ENSURE(h, CMRS_E_NOMEM, "cannot allocate a residual history of "
                "%lld entries", (long long)count);
    *history = h;
    *cap = count;
    return CMRS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cmrs_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
