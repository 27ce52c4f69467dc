/* The host halves of the SpMV measurement helpers, apart from their GPU
 * halves so that a build without CUDA has them too (the host tests check
 * them): verify.h's random vectors and error bound, timing.h's statistics
 * of samples, autotune.h's order of the heights tried. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "autotune.h"
#include "model.h"
#include "timing.h"
#include "verify.h"

uint64_t cmrs_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double cmrs_rng_uniform(uint64_t *state)
{
    return (double)(cmrs_rng_next(state) >> 11) * 0x1.0p-53;
}

void cmrs_random_vector(double *v, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; ++i) v[i] = 2.0 * cmrs_rng_uniform(&seed) - 1.0;
}

double cmrs_spmv_tolerance(const cmrs_csr *A, cmrs_prec prec, double alpha,
                           const double *x_h, double beta, const double *y0_h,
                           const double *y_ref)
{
    double u = cmrs_prec_unit_roundoff(prec);
    double s_max = 0, y_max = 0;
    int64_t n_max = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double s = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            s += fabs(A->values[k] * x_h[A->indices[k]]);
        s = fabs(alpha) * s + (beta != 0 ? fabs(beta * y0_h[i]) : 0.0);
        if (s > s_max) s_max = s;
        if (fabs(y_ref[i]) > y_max) y_max = fabs(y_ref[i]);
        if (A->indptr[i + 1] - A->indptr[i] > n_max)
            n_max = A->indptr[i + 1] - A->indptr[i];
    }
    double abs_tol = 2.0 * ((double)n_max + 4) * (u + DBL_EPSILON / 2) * s_max;
    return abs_tol / (y_max > 1e-300 ? y_max : 1e-300); /* as rel_err scales */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cmrs_timing_from_samples(double *samples, int n, cmrs_timing *t)
{
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += samples[i];
    t->reps = n;
    t->min = samples[0];
    t->max = samples[n - 1];
    t->mean = sum / n;
    t->median = n % 2 ? samples[n / 2]
                      : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

int cmrs_tune_height_order(double mu, int heights[16])
{
    int n = 0;
    heights[n++] = cmrs_default_height(mu); /* the default first */
    /* Then from tall to short: taller strips mean fewer pointer bytes, and
     * the default kernels' cost does not depend on h otherwise. */
    for (int h = 16; h >= 1; --h)
        if (h != heights[0]) heights[n++] = h;
    return n;
}
