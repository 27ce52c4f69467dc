/* Helpers common to every back end. */
#include <stdlib.h>

#include "base/timer.h"
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

cmrs_code cmrs_backend_time_spmv_of(cmrs_backend *be, const double *x_h,
                                    int reps, double *median_s)
{
    cmrs_code rc = CMRS_OK;
    cmrs_vec *x = NULL, *y = NULL;
    CMRS_ENSURE(be->ops->time_spmv, CMRS_E_USAGE, "%s back end: no SpMV "
                "timing", be->device);
    CMRS_TRY(be->ops->vec_create(be, &x));
    CMRS_TRY(be->ops->vec_create(be, &y));
    CMRS_TRY(be->ops->vec_set(be, x, x_h));
    CMRS_TRY(be->ops->time_spmv(be, x, y, reps, median_s));
done:
    be->ops->vec_destroy(be, x);
    be->ops->vec_destroy(be, y);
    return rc;
}

cmrs_code cmrs_backend_time_spmv_host(cmrs_backend *be, const cmrs_vec *x,
                                      cmrs_vec *y, int reps,
                                      double *median_s)
{
    cmrs_code rc = CMRS_OK;
    double *t = cmrs_malloc_array((size_t)(reps > 0 ? reps : 1), sizeof *t);
    CMRS_ENSURE(t, CMRS_E_NOMEM, "cannot allocate %d timings", reps);
    CMRS_TRY(be->ops->spmv(be, 1.0, x, 0.0, y)); /* warm-up: caches, pages */
    CMRS_TRY(be->ops->sync(be));
    for (int i = 0; i < reps; ++i) {
        double t0 = cmrs_wtime();
        CMRS_TRY(be->ops->spmv(be, 1.0, x, 0.0, y));
        CMRS_TRY(be->ops->sync(be));
        t[i] = cmrs_wtime() - t0;
    }
    *median_s = cmrs_median(t, reps);
done:
    free(t);
    return rc;
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
