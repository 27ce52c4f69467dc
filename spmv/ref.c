#include "ref.h"

#include <math.h>
#include <string.h>

void cmrs_ref_spmv(const cmrs_csr *A, double alpha, const double *x,
                   double beta, double *y)
{
    cmrs_csr_spmv(A, alpha, x, beta, y);
}

double cmrs_ref_dot(int64_t n, const double *x, const double *y)
{
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
}

double cmrs_ref_nrm2(int64_t n, const double *x)
{
    return sqrt(cmrs_ref_dot(n, x, x));
}

void cmrs_ref_axpy(int64_t n, double a, const double *x, double *y)
{
    for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void cmrs_ref_scal(int64_t n, double a, double *x)
{
    for (int64_t i = 0; i < n; ++i) x[i] *= a;
}

void cmrs_ref_copy(int64_t n, const double *x, double *y)
{
    if (n > 0) memmove(y, x, (size_t)n * sizeof *x);
}

double cmrs_ref_rel_err(int64_t n, const double *a, const double *b)
{
    double err = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= err)) err = d; /* NaN propagates as a failure */
        if (fabs(b[i]) > scale) scale = fabs(b[i]);
    }
    return err / (scale > 1e-300 ? scale : 1e-300);
}
