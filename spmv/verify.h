/* Checking a GPU SpMV format against the CPU reference (ref.h), with an
 * error bound that fits the precision: used by the GPU format tests and by
 * `cmrs bench`, which refuses to report timings of a wrong kernel.
 *
 * The bound. Any summation order of a row of n products, each computed
 * from inputs rounded to the precision (unit roundoff u), is within
 * (n + 4) u sum_j |a_ij x_j| of the exact value (Higham's gamma_n, plus the
 * rounding of a, x, alpha and the beta*y term); the double reference adds
 * its own n u_d. So the check is
 *   max_i |y_i - yref_i| <= 2 (n_max + 4) (u + u_d) max_i s_i,
 *   s_i = |alpha| sum_j |a_ij x_j| + |beta y0_i|,
 * reported relative to max_i |yref_i| like cmrs_ref_rel_err. It is a
 * worst-case bound, so it never fails by bad luck, yet a dropped, doubled
 * or misplaced entry moves y by O(1) relative to s_i and is caught. */
#ifndef CMRS_VERIFY_H
#define CMRS_VERIFY_H

#include <stdint.h>

#include "spmv.h"

typedef struct cmrs_spmv_check {
    double rel_err;    /* cmrs_ref_rel_err(y_gpu, y_ref); NaN if y has NaN */
    double tol;        /* the bound above, in the same relative units */
    int64_t nonfinite; /* entries of y_gpu that are NaN or Inf */
    int ok;            /* nonfinite == 0 && rel_err <= tol (and, after
                          cmrs_spmv_verify_dot, dot_rel_err <= dot_tol) */
    /* cmrs_spmv_verify_dot only: the sum of the x'y partials against
     * x'y_ref, relative to |x'y_ref|, and its bound: sum_i |x_i| times
     * y's absolute bound, plus (n + 4)(u + u_d) sum_i |x_i yref_i| for the
     * products x_i y_i and their sum. */
    double dot_rel_err, dot_tol;
} cmrs_spmv_check;

/* Runs y = alpha*A*x + beta*y0 with s (set up from A) and compares with the
 * reference. y0_h == NULL: y is poisoned with NaN first, and beta must be
 * 0 (the format must then not read y). Synchronises; allocates its own
 * device vectors. A failure of s itself is returned as its error code. */
cmrs_code cmrs_spmv_verify(cmrs_spmv *s, const cmrs_csr *A, double alpha,
                           const double *x_h, double beta, const double *y0_h,
                           cmrs_spmv_check *out);

/* The same, with the apply captured into a CUDA graph (global capture
 * mode) and the graph launched: checks that apply neither allocates nor
 * synchronises, as the contract requires. s->stream must not be the
 * legacy default stream 0, which cannot be captured. */
cmrs_code cmrs_spmv_verify_graph(cmrs_spmv *s, const cmrs_csr *A,
                                 double alpha, const double *x_h, double beta,
                                 const double *y0_h, cmrs_spmv_check *out);

/* y = A x with the x'y epilogue (cmrs_spmv_apply_dot; rows <= cols), y and
 * the partials poisoned with NaN first; checks y as cmrs_spmv_verify does
 * and the sum of the s->dot_parts partials, in index order, against x'y
 * of the reference. CMRS_E_USAGE where s has no such product. */
cmrs_code cmrs_spmv_verify_dot(cmrs_spmv *s, const cmrs_csr *A,
                               const double *x_h, cmrs_spmv_check *out);

/* The bound for a product computed in prec (see above); y_ref is the
 * reference result, y0_h may be NULL when beta == 0. */
double cmrs_spmv_tolerance(const cmrs_csr *A, cmrs_prec prec, double alpha,
                           const double *x_h, double beta, const double *y0_h,
                           const double *y_ref);

/* Deterministic pseudo-random numbers (splitmix64) for test vectors and
 * test matrices. NOTE: cases/rng.h has same-named static inline functions
 * over a cmrs_rng struct; a file cannot include both headers. */
uint64_t cmrs_rng_next(uint64_t *state);
double cmrs_rng_uniform(uint64_t *state); /* in [0, 1) */
/* v[0..n) uniform in [-1, 1), from seed. */
void cmrs_random_vector(double *v, int64_t n, uint64_t seed);

#endif
