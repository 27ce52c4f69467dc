/* Host parts of the GPU measurement helpers: timing statistics, the
 * precision-aware error bound of verify.h, the test-vector generator. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "spmv/ref.h"
#include "spmv/timing.h"
#include "spmv/verify.h"

static void test_timing_stats(void)
{
    double odd[] = {5e-6, 1e-6, 3e-6, 2e-6, 4e-6};
    double even[] = {4, 1, 3, 2};
    cmrs_timing t;
    cmrs_timing_from_samples(odd, 5, &t);
    CHECK(t.median == 3e-6 && t.min == 1e-6 && t.max == 5e-6, "odd: %g %g %g",
          t.median, t.min, t.max);
    CHECK(fabs(t.mean - 3e-6) < 1e-18 && t.reps == 5, "odd mean %g", t.mean);
    cmrs_timing_from_samples(even, 4, &t);
    CHECK(t.median == 2.5 && t.mean == 2.5, "even: median %g", t.median);
    double one[] = {7};
    cmrs_timing_from_samples(one, 1, &t);
    CHECK(t.median == 7 && t.min == 7 && t.max == 7, "one sample");
}

/* 3x4 matrix, rows of length 2, 0 and 3. */
static void make_matrix(cmrs_csr *A)
{
    static const int64_t ptr[] = {0, 2, 2, 5};
    static const int32_t col[] = {0, 3, 0, 1, 2};
    static const double val[] = {2, -1, 0.5, 4, -3};
    CHECK_OK(cmrs_csr_alloc(A, 3, 4, 5));
    memcpy(A->indptr, ptr, sizeof ptr);
    memcpy(A->indices, col, sizeof col);
    memcpy(A->values, val, sizeof val);
}

static void test_tolerance(void)
{
    cmrs_csr A;
    double x[4] = {0.3, -0.7, 0.9, 0.45}, y0[3] = {1, -2, 3}, yref[3], y[3];
    make_matrix(&A);
    cmrs_ref_spmv(&A, 1.0, x, 0.0, yref);
    double tol_d = cmrs_spmv_tolerance(&A, CMRS_PREC_DOUBLE, 1, x, 0, NULL, yref);
    double tol_s = cmrs_spmv_tolerance(&A, CMRS_PREC_SINGLE, 1, x, 0, NULL, yref);
    CHECK(tol_d > 0 && tol_d < 1e-13, "double bound %g", tol_d);
    CHECK(tol_s > 1e3 * tol_d && tol_s < 1e-5, "single bound %g", tol_s);
    /* Rounding x to float stays inside the single bound ... */
    double xf[4];
    for (int i = 0; i < 4; ++i) xf[i] = (float)x[i];
    cmrs_ref_spmv(&A, 1.0, xf, 0.0, y);
    CHECK(cmrs_ref_rel_err(3, y, yref) <= tol_s, "float x: %g > %g",
          cmrs_ref_rel_err(3, y, yref), tol_s);
    /* ... a dropped entry is far outside it. */
    y[2] = yref[2] - A.values[4] * x[2];
    CHECK(cmrs_ref_rel_err(3, y, yref) > 1e3 * tol_s, "dropped entry missed");
    /* beta*y0 enters the scale; an empty matrix needs an exact zero. */
    cmrs_ref_copy(3, y0, yref);
    cmrs_ref_spmv(&A, -1.5, x, 0.75, yref);
    CHECK(cmrs_spmv_tolerance(&A, CMRS_PREC_DOUBLE, -1.5, x, 0.75, y0, yref) > 0,
          "beta bound");
    cmrs_csr E;
    CHECK_OK(cmrs_csr_alloc(&E, 3, 4, 0));
    for (int i = 0; i <= 3; ++i) E.indptr[i] = 0;
    double z[3] = {0, 0, 0};
    CHECK(cmrs_spmv_tolerance(&E, CMRS_PREC_SINGLE, 1, x, 0, NULL, z) == 0,
          "empty matrix: zero bound");
    cmrs_csr_free(&E);
    cmrs_csr_free(&A);
}

static void test_random_vector(void)
{
    double a[1000], b[1000];
    cmrs_random_vector(a, 1000, 42);
    cmrs_random_vector(b, 1000, 42);
    int in_range = 1, distinct = 0;
    for (int i = 0; i < 1000; ++i) {
        in_range &= a[i] >= -1 && a[i] < 1;
        distinct += i > 0 && a[i] != a[i - 1];
    }
    CHECK(!memcmp(a, b, sizeof a), "same seed, same vector");
    CHECK(in_range && distinct == 999, "range or repeats");
    cmrs_random_vector(b, 1000, 43);
    CHECK(memcmp(a, b, sizeof a) != 0, "another seed, another vector");
}

int main(void)
{
    test_timing_stats();
    test_tolerance();
    test_random_vector();
    return check_summary();
}
