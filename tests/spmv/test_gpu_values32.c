/* Float values under double vectors (cmrs_spmv_opts.values32, the inner
 * solver of --mixed values): the cmrs format's products against a CPU
 * reference of the operator it promises, A' = fl(A) + diag(c) with
 * c_i = sum_j (a_ij - fl(a_ij)), on the edge-case matrices, every layout
 * of the rows kernel (CSR order, lanes per row, reordered, one width),
 * from host and device arrays, with the output poisoned (beta = 0) and
 * then alpha = -1.5, beta = 0.75; the x'y epilogue; A' 1 = A 1 (the row
 * sums kept); new values; and the refusals. The bound is double's: a
 * product of A in double misses it by float's rounding, which each matrix
 * is checked to show (else the case could not tell them apart). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "spmv/spmv.h"
#include "spmv/csr_view.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "test_gpu_product.h"

static const test_spec k_specs[] = {
    TEST_SPEC_N1,
    TEST_SPEC_ROWS17,
    TEST_KIND("rand mu=7 skewed", 3000, 3000, SKEWED, 7),
    TEST_KIND("rand mu=33 uniform", 1500, 1500, UNIFORM, 33),
    TEST_EMPTY_ROWS("30% empty rows", 2000, 2000, 4, 1, 0.3),
    TEST_LONG_ROW("one row of 5000 among mu=3", 6000, 6000, 3, 1, 3001, 5000,
                  1),
};
#define N_SPECS (int)(sizeof k_specs / sizeof k_specs[0])

/* Layouts of the rows kernel (CMRS_CMRS_VARIANT; NULL: the rules). */
static const char *const k_variants[] = {NULL,      "nosl", "rows2,b1",
                                         "rows4",   "reorder", "su",
                                         "su,b4",   "sl"};
#define N_VARIANTS (int)(sizeof k_variants / sizeof k_variants[0])

static double frand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* y = alpha A' x + beta y0 (y0 NULL: beta 0) in long double, with each
 * row's bound: 8 (n_i + 2) u_double times the sum of the magnitudes, the
 * magnitudes including sum_j |a_ij| |x_i|: the format finds c_i as the
 * difference of two row sums in double (A 1 - fl(A) 1), each off by up
 * to n_i u sum_j |a_ij|, which c_i x_i carries into the product. */
static void reference(const cmrs_csr *A, double alpha, const double *x,
                      double beta, const double *y0, double *y, double *tol)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        long double sum = 0, mag = 0, c = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            const double v = A->values[k], f = (double)(float)v;
            c += (long double)v - f;
            sum += (long double)f * x[A->indices[k]];
            mag += fabsl((long double)f * x[A->indices[k]]);
        }
        const double cf = (double)(float)(double)c; /* stored in float */
        sum += (long double)cf * x[i];
        mag += fabsl((long double)cf * x[i]);
        if (A->cols == A->rows) {
            long double row = 0;
            for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
                row += fabs(A->values[k]);
            mag += 2 * row * fabs(x[i]);
        }
        long double yi = alpha * sum, m = fabsl(alpha) * mag;
        if (y0) {
            yi += (long double)beta * y0[i];
            m += fabsl((long double)beta * y0[i]);
        }
        y[i] = (double)yi;
        const double n = (double)(A->indptr[i + 1] - A->indptr[i]);
        tol[i] = 8.0 * (n + 2.0) * 1.1102230246251565e-16 * (double)m + 1e-300;
    }
}

/* Worst |got - want| / tol (0: all within). */
static double worst(const double *got, const double *want, const double *tol,
                    int64_t n, int64_t *at)
{
    double w = 0;
    for (int64_t i = 0; i < n; ++i) {
        double r = fabs(got[i] - want[i]) / tol[i];
        if (!(r <= w)) { /* NaN counts */
            w = isnan(r) ? INFINITY : r;
            *at = i;
        }
    }
    return w;
}

typedef struct vecs {
    double *x, *y0, *y, *ref, *tol, *exact;
} vecs;

static int vecs_alloc(vecs *v, int64_t n)
{
    size_t b = (size_t)(n > 0 ? n : 1) * sizeof(double);
    v->x = malloc(b); v->y0 = malloc(b); v->y = malloc(b);
    v->ref = malloc(b); v->tol = malloc(b); v->exact = malloc(b);
    return v->x && v->y0 && v->y && v->ref && v->tol && v->exact;
}

static void vecs_free(vecs *v)
{
    free(v->x); free(v->y0); free(v->y); free(v->ref); free(v->tol);
    free(v->exact);
}

/* The product of s against the reference: poisoned with beta = 0, then
 * alpha = -1.5, beta = 0.75. */
static void check_products(cmrs_spmv *s, const cmrs_csr *A, vecs *v,
                           const char *what)
{
    int64_t at = 0;
    CHECK_OK(test_spmv_product(s, 1.0, v->x, 0.0, NULL, v->y));
    reference(A, 1.0, v->x, 0.0, NULL, v->ref, v->tol);
    double w = worst(v->y, v->ref, v->tol, A->rows, &at);
    CHECK(w <= 1.0, "%s, beta 0: row %lld off by %.3g bounds", what,
          (long long)at, w);
    CHECK_OK(test_spmv_product(s, -1.5, v->x, 0.75, v->y0, v->y));
    reference(A, -1.5, v->x, 0.75, v->y0, v->ref, v->tol);
    w = worst(v->y, v->ref, v->tol, A->rows, &at);
    CHECK(w <= 1.0, "%s, alpha -1.5 beta 0.75: row %lld off by %.3g bounds",
          what, (long long)at, w);
}

/* y = A x and the x'y partials, summed here, against the reference. */
static void check_dot(cmrs_spmv *s, const cmrs_csr *A, vecs *v,
                      const char *what)
{
    if (s->dot_parts <= 0 || A->rows == 0) return;
    cmrs_code rc = CMRS_OK;
    void *x_d = NULL, *y_d = NULL;
    double *parts_d = NULL, *parts = malloc((size_t)s->dot_parts * 8);
    CHECK(parts != NULL, "allocating partials");
    if (!parts) return;
    CMRS_TRY(cmrs_dev_upload_values(v->x, A->rows, CMRS_PREC_DOUBLE, "x", &x_d));
    CMRS_TRY(cmrs_dev_alloc_values(A->rows, CMRS_PREC_DOUBLE, &y_d));
    CMRS_CUDA_TRY(cudaMalloc((void **)&parts_d, (size_t)s->dot_parts * 8));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    CMRS_TRY(cmrs_spmv_apply_dot(s, x_d, y_d, parts_d));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    CMRS_CUDA_TRY(cudaMemcpy(parts, parts_d, (size_t)s->dot_parts * 8,
                             cudaMemcpyDeviceToHost));
    CMRS_TRY(cmrs_dev_download_values(y_d, A->rows, CMRS_PREC_DOUBLE, v->y));
    reference(A, 1.0, v->x, 0.0, NULL, v->ref, v->tol);
    long double dot = 0, mag = 0, got = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        dot += (long double)v->x[i] * v->ref[i];
        mag += fabsl((long double)v->x[i] * v->ref[i]) +
               fabs(v->x[i]) * v->tol[i];
    }
    for (int k = 0; k < s->dot_parts; ++k) got += parts[k];
    int64_t at = 0;
    double w = worst(v->y, v->ref, v->tol, A->rows, &at);
    CHECK(w <= 1.0, "%s, apply_dot: row %lld off by %.3g bounds", what,
          (long long)at, w);
    CHECK(fabsl(got - dot) <= 1e-13L * mag + 1e-300L,
          "%s: x'y %.17Lg, want %.17Lg", what, got, dot);
done:
    CHECK(rc == CMRS_OK, "%s, apply_dot: %s", what, cmrs_error_message());
    cudaFree(x_d);
    cudaFree(y_d);
    cudaFree(parts_d);
    free(parts);
}

/* A' 1 = A 1 to double's rounding: the corrections keep the row sums. */
static void check_row_sums(cmrs_spmv *s, const cmrs_csr *A, vecs *v,
                           const char *what)
{
    double *ones = malloc((size_t)(A->rows > 0 ? A->rows : 1) * 8);
    CHECK(ones != NULL, "allocating ones");
    if (!ones) return;
    for (int64_t i = 0; i < A->rows; ++i) ones[i] = 1.0;
    CHECK_OK(test_spmv_product(s, 1.0, ones, 0.0, NULL, v->y));
    int bad = 0;
    for (int64_t i = 0; i < A->rows && !bad; ++i) {
        long double sum = 0, mag = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            sum += A->values[k];
            mag += fabs(A->values[k]);
        }
        double n = (double)(A->indptr[i + 1] - A->indptr[i]);
        /* c_i in float adds up to u_float^2 (3.6e-15) of the magnitudes */
        if (!(fabsl(v->y[i] - sum) <=
              (8 * (n + 2) * 1.2e-16 + 4e-15) * mag + 1e-300)) {
            CHECK(0, "%s: row %lld sums to %.17g, A's to %.17Lg", what,
                  (long long)i, v->y[i], sum);
            bad = 1;
        }
    }
    if (!bad) CHECK(1, "row sums");
    free(ones);
}

/* Does the case tell float values from double ones? The reference of A
 * in double must lie outside A''s bound somewhere. */
static void check_discriminates(const cmrs_csr *A, vecs *v, const char *name)
{
    /* one row: its entry is the diagonal, which c restores exactly */
    if (A->nnz == 0 || A->rows < 2) return;
    for (int64_t i = 0; i < A->rows; ++i) {
        long double sum = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            sum += (long double)A->values[k] * v->x[A->indices[k]];
        v->exact[i] = (double)sum;
    }
    reference(A, 1.0, v->x, 0.0, NULL, v->ref, v->tol);
    int64_t at = 0;
    CHECK(worst(v->exact, v->ref, v->tol, A->rows, &at) > 10.0,
          "%s: the double product lies within the float-values bound: the "
          "case cannot tell them apart", name);
}

static void one_instance(cmrs_spmv *s, const cmrs_csr *A, vecs *v,
                         const char *what)
{
    CHECK(s->opts.values32 > 0, "%s: values32 not kept", what);
    check_products(s, A, v, what);
    check_dot(s, A, v, what);
    check_row_sums(s, A, v, what);
}

static cmrs_code upload_view(const cmrs_csr *A, cmrs_csr_dev *d,
                             cmrs_csr_view_d *M)
{
    CMRS_CHECK(cmrs_csr_dev_upload(A, CMRS_PREC_DOUBLE, d));
    CMRS_ENSURE(!d->offsets64, CMRS_E_INTERNAL, "test: 64-bit offsets");
    *M = (cmrs_csr_view_d){A->rows, A->cols, A->nnz,
                           (const int32_t *)d->indptr_d, d->indices_d,
                           (const double *)d->values_d};
    return CMRS_OK;
}

/* New values (A scaled and shifted entry by entry) through the value
 * store: the products follow them. */
static void check_update(cmrs_spmv *s, cmrs_csr *A, vecs *v, const char *what)
{
    uint64_t seed = 99;
    for (int64_t k = 0; k < A->nnz; ++k)
        A->values[k] = 1.7 * A->values[k] + 0.01 * frand(&seed);
    CHECK_OK(cmrs_spmv_update_values(s, A));
    char w[160];
    snprintf(w, sizeof w, "%s after new values", what);
    check_products(s, A, v, w);
    check_row_sums(s, A, v, w);
}

static void test_case(int c)
{
    cmrs_csr A;
    memset(&A, 0, sizeof A);
    CHECK_OK(test_random_csr(&k_specs[c], 500 + (uint64_t)c, &A));
    vecs v;
    CHECK(vecs_alloc(&v, A.rows), "allocating vectors");
    uint64_t seed = 7 + (uint64_t)c;
    for (int64_t i = 0; i < A.rows; ++i) {
        v.x[i] = frand(&seed);
        v.y0[i] = frand(&seed);
    }
    check_discriminates(&A, &v, k_specs[c].name);
    cmrs_spmv_opts o = {0};
    o.values32 = 1;
    for (int k = 0; k < N_VARIANTS; ++k) {
        char what[160];
        snprintf(what, sizeof what, "%s, %s", k_specs[c].name,
                 k_variants[k] ? k_variants[k] : "rules");
        if (k_variants[k]) setenv("CMRS_CMRS_VARIANT", k_variants[k], 1);
        else unsetenv("CMRS_CMRS_VARIANT");
        cmrs_spmv *s = NULL;
        cmrs_code rc = cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s);
        /* su, sl where the rows are too uneven: the layout refuses */
        if (k_variants[k] && k_variants[k][0] == 's' &&
            (rc == CMRS_E_USAGE || rc == CMRS_E_LIMIT)) {
            cmrs_error_clear();
            continue;
        }
        CHECK(rc == CMRS_OK, "%s: %s", what, cmrs_error_message());
        if (rc != CMRS_OK) continue;
        one_instance(s, &A, &v, what);
        cmrs_spmv_destroy(s);
        /* the same from device arrays (a twin's path) */
        cmrs_csr_dev d;
        cmrs_csr_view_d M;
        memset(&d, 0, sizeof d);
        CHECK_OK(upload_view(&A, &d, &M));
        s = NULL;
        CHECK_OK(cmrs_spmv_create_dev("cmrs", &M, CMRS_PREC_DOUBLE, &o, 0, &s));
        cmrs_csr_dev_free(&d);
        if (!s) continue;
        strncat(what, ", from device", sizeof what - strlen(what) - 1);
        one_instance(s, &A, &v, what);
        cmrs_spmv_destroy(s);
    }
    unsetenv("CMRS_CMRS_VARIANT");
    cmrs_spmv *s = NULL;
    CHECK_OK(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s));
    if (s) check_update(s, &A, &v, k_specs[c].name);
    cmrs_spmv_destroy(s);
    vecs_free(&v);
    cmrs_csr_free(&A);
}

static void test_cases(void)
{
    for (int c = 0; c < N_SPECS; ++c) test_case(c);
}

/* A generated pressure-like matrix (the vessel): the same checks. */
static void test_vessel(void)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    cmrs_vessel_opts vo = {20000, 7};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    vecs v;
    CHECK(vecs_alloc(&v, sys.A.rows), "allocating vectors");
    uint64_t seed = 3;
    for (int64_t i = 0; i < sys.A.rows; ++i) {
        v.x[i] = frand(&seed);
        v.y0[i] = frand(&seed);
    }
    check_discriminates(&sys.A, &v, "vessel");
    cmrs_spmv_opts o = {0};
    o.values32 = 1;
    cmrs_spmv *s = NULL;
    CHECK_OK(cmrs_spmv_create("cmrs", &sys.A, CMRS_PREC_DOUBLE, &o, 0, &s));
    if (s) one_instance(s, &sys.A, &v, "vessel");
    cmrs_spmv_destroy(s);
    vecs_free(&v);
    cmrs_system_free(&sys);
}

/* A random square n x n matrix (4-5 entries a row) and options asking
 * for float values. */
static void square_values32(int64_t n, uint64_t seed, cmrs_csr *A,
                            cmrs_spmv_opts *o)
{
    test_spec sq = TEST_NORMAL("sq", n, n, 5, 1);
    memset(A, 0, sizeof *A);
    memset(o, 0, sizeof *o);
    CHECK_OK(test_random_csr(&sq, seed, A));
    o->values32 = 1;
}

static void test_refusals(void)
{
    cmrs_csr A;
    cmrs_spmv_opts o;
    test_spec wide = TEST_NORMAL("wide", 50, 80, 4, 1);
    square_values32(50, 1, &A, &o);
    cmrs_spmv *s = NULL;
    CHECK_FAILS(cmrs_spmv_create("csr-vector", &A, CMRS_PREC_DOUBLE, &o, 0, &s),
                CMRS_E_USAGE, "cmrs only");
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_SINGLE, &o, 0, &s),
                CMRS_E_USAGE, "double precision");
    setenv("CMRS_CMRS_VARIANT", "tile", 1);
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s),
                CMRS_E_USAGE, "rows kernel");
    unsetenv("CMRS_CMRS_VARIANT");
    cmrs_csr_free(&A);
    CHECK_OK(test_random_csr(&wide, 2, &A));
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s),
                CMRS_E_USAGE, "square");
    CHECK(s == NULL, "a refused creation left a handle");
    cmrs_csr_free(&A);
}

/* A value float cannot hold is refused (the single-precision message's
 * CSR index), at creation and by a values update, not rounded to inf. */
static void test_out_of_range(void)
{
    cmrs_csr A;
    cmrs_spmv_opts o;
    square_values32(300, 3, &A, &o);
    cmrs_spmv *s = NULL;
    char want[64];
    int64_t k = A.nnz / 3;
    double keep = A.values[k];
    A.values[k] = 1e300;
    snprintf(want, sizeof want, "at index %lld does not fit a float",
             (long long)k);
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s),
                CMRS_E_INPUT, want);
    CHECK(s == NULL, "a refused creation left a handle");
    A.values[k] = keep;
    CHECK_OK(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &o, 0, &s));
    k = A.nnz - 2;
    A.values[k] = -3.5e38;
    snprintf(want, sizeof want, "at index %lld does not fit a float",
             (long long)k);
    if (s)
        CHECK_FAILS(cmrs_spmv_update_values(s, &A), CMRS_E_INPUT, want);
    A.values[k] = -3.0e38; /* still a float */
    if (s) CHECK_OK(cmrs_spmv_update_values(s, &A));
    cmrs_spmv_destroy(s);
    cmrs_csr_free(&A);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    return CHECK_RUN(test_cases, test_vessel, test_refusals,
                     test_out_of_range);
}
