/* The GPU Galerkin product cmrs_gpu_galerkin (solver/amg/gpu/amg_spgemm_gpu.h)
 * against a reference computed here: a structural sparse-accumulate
 * product (every product r_ik a_kl p_lj creates entry (i, j), whatever
 * its value) formed as R (A P), rows sorted. The GPU result must have
 * the reference's shape and exact pattern (explicit zeros included: an
 * entry whose products cancel to 0 stays stored, as in the host AMG
 * code), strictly increasing columns in every row, and values within
 * 1e-12 of the reference relative to sum |r_ik a_kl p_lj| over the
 * entry's products (a bound that holds under cancellation too).
 *
 * Cases: a 2-D 5-point Laplacian (30 x 30 grid) with the tentative
 * prolongator of 2 x 2 aggregates and with the smoothed one
 * (I - 0.5 D^-1 A) P_tent, R = P^T; random rectangular operands with
 * empty rows and stored zeros; 1 x 1; exact cancellation and stored-zero
 * inputs; operands with nnz = 0; an empty intermediate A P; an empty
 * final product; zero rows and columns; a non-default non-blocking
 * stream and the legacy one; one long row of C with 300 columns (past
 * the warp path's 256) and a row of A P with 700 (past its 512 hash
 * slots); all of
 * it by rows first (one thread a row where X's rows are short, else one
 * warp), by the warp path first on every product, by the thread path
 * alone, by cuSPARSE's ALG2 (the default) and by its ALG1. Where the
 * row paths made both products in two modes, the results must be equal
 * bit for bit (the warp path sums in the thread path's order). Errors: mismatched shapes (CMRS_E_INPUT),
 * counts past 32 bits (CMRS_E_LIMIT), no GPU (CMRS_E_NODEVICE).
 *
 * Before any GPU work, the reference itself is checked against dense
 * triple products and the comparison against perturbed results (so the
 * test can fail); these host checks and the error paths that need no GPU
 * also run on a machine without one, which then exits 77 (skipped). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/csr.h"
#include "solver/amg/gpu/amg_spgemm_dev.h"
#include "solver/amg/gpu/amg_spgemm_gpu.h"
#include "tamg.h"
#include "base/gpu/cuda_check.h"

#define REL_TOL 1e-12

/* ---- small deterministic random numbers (xorshift64*) ---- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}

static double rng_unit(void) /* [0, 1) */
{
    return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- building matrices from triplets ---- */

typedef struct triplets {
    int64_t n, cap;
    int64_t *i;
    int32_t *j;
    double *v;
} triplets;

static void trip_add(triplets *t, int64_t i, int32_t j, double v)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->i = realloc(t->i, (size_t)t->cap * sizeof *t->i);
        t->j = realloc(t->j, (size_t)t->cap * sizeof *t->j);
        t->v = realloc(t->v, (size_t)t->cap * sizeof *t->v);
        if (!t->i || !t->j || !t->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->v[t->n] = v;
    ++t->n;
}

/* rows x cols CSR from t (freed), sorted, duplicates summed. */
static cmrs_csr from_triplets(int64_t rows, int64_t cols, triplets *t)
{
    cmrs_csr M;
    if (cmrs_csr_alloc(&M, rows, cols, t->n) != CMRS_OK) {
        fprintf(stderr, "cmrs_csr_alloc: %s\n", cmrs_error_message());
        exit(1);
    }
    memset(M.indptr, 0, ((size_t)rows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < t->n; ++k) ++M.indptr[t->i[k] + 1];
    for (int64_t r = 0; r < rows; ++r) M.indptr[r + 1] += M.indptr[r];
    int64_t *next = malloc(((size_t)rows + 1) * sizeof *next);
    memcpy(next, M.indptr, ((size_t)rows + 1) * sizeof *next);
    for (int64_t k = 0; k < t->n; ++k) {
        int64_t dst = next[t->i[k]]++;
        M.indices[dst] = t->j[k];
        M.values[dst] = t->v[k];
    }
    free(next);
    cmrs_csr_sort_sum_duplicates(&M);
    free(t->i);
    free(t->j);
    free(t->v);
    memset(t, 0, sizeof *t);
    return M;
}

/* 5-point Laplacian of an n x n grid (4 on the diagonal, -1 off it). */
static cmrs_csr laplacian_2d(int n)
{
    triplets t = {0};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            int64_t r = (int64_t)y * n + x;
            if (y > 0) trip_add(&t, r, (int32_t)(r - n), -1.0);
            if (x > 0) trip_add(&t, r, (int32_t)(r - 1), -1.0);
            trip_add(&t, r, (int32_t)r, 4.0);
            if (x < n - 1) trip_add(&t, r, (int32_t)(r + 1), -1.0);
            if (y < n - 1) trip_add(&t, r, (int32_t)(r + n), -1.0);
        }
    return from_triplets((int64_t)n * n, (int64_t)n * n, &t);
}

/* Tentative prolongator of the 2 x 2 blocks of an n x n grid: one 1 per
 * row, in the column of the row's aggregate. */
static cmrs_csr tentative_p(int n)
{
    int nc = (n + 1) / 2;
    triplets t = {0};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            trip_add(&t, (int64_t)y * n + x, (y / 2) * nc + x / 2, 1.0);
    return from_triplets((int64_t)n * n, (int64_t)nc * nc, &t);
}

/* rows x cols with about `per_row` entries in each non-empty row, a
 * fraction `empty` of rows empty, values in [-1, 1) of which a fraction
 * `zeros` are stored zeros. */
static cmrs_csr random_csr(int64_t rows, int64_t cols, int per_row,
                           double empty, double zeros)
{
    triplets t = {0};
    for (int64_t r = 0; r < rows; ++r) {
        if (rng_unit() < empty) continue;
        int len = 1 + (int)(rng_unit() * 2 * per_row);
        for (int k = 0; k < len; ++k) {
            int32_t c = (int32_t)(rng_unit() * (double)cols);
            double v = rng_unit() < zeros ? 0.0 : 2 * rng_unit() - 1;
            trip_add(&t, r, c, v);
        }
    }
    return from_triplets(rows, cols, &t);
}

/* ---- the reference ---- */

/* Z = X Y (abs: |X| |Y|), structural: a product creates its entry even
 * when it or the sum is 0. Sparse accumulate with a marker per column,
 * rows then sorted. */
static cmrs_csr ref_multiply(const cmrs_csr *X, const cmrs_csr *Y, int abs)
{
    triplets t = {0};
    int64_t *mark = malloc(((size_t)Y->cols + 1) * sizeof *mark);
    double *acc = calloc((size_t)Y->cols + 1, sizeof *acc);
    int32_t *cols = malloc(((size_t)Y->cols + 1) * sizeof *cols);
    for (int64_t c = 0; c < Y->cols; ++c) mark[c] = -1;
    for (int64_t i = 0; i < X->rows; ++i) {
        int64_t n = 0;
        for (int64_t k = X->indptr[i]; k < X->indptr[i + 1]; ++k) {
            int32_t l = X->indices[k];
            double x = abs ? fabs(X->values[k]) : X->values[k];
            for (int64_t q = Y->indptr[l]; q < Y->indptr[l + 1]; ++q) {
                int32_t c = Y->indices[q];
                double y = abs ? fabs(Y->values[q]) : Y->values[q];
                if (mark[c] != i) {
                    mark[c] = i;
                    acc[c] = 0;
                    cols[n++] = c;
                }
                acc[c] += x * y;
            }
        }
        for (int64_t m = 0; m < n; ++m) trip_add(&t, i, cols[m], acc[cols[m]]);
    }
    free(mark);
    free(acc);
    free(cols);
    return from_triplets(X->rows, Y->cols, &t);
}

/* Ref = R (A P) and Abs = |R| (|A| |P|) (same pattern). */
static void ref_galerkin(const cmrs_csr *R, const cmrs_csr *A,
                         const cmrs_csr *P, cmrs_csr *ref, cmrs_csr *abs)
{
    cmrs_csr ap = ref_multiply(A, P, 0), ap_abs = ref_multiply(A, P, 1);
    *ref = ref_multiply(R, &ap, 0);
    *abs = ref_multiply(R, &ap_abs, 1);
    cmrs_csr_free(&ap);
    cmrs_csr_free(&ap_abs);
}

/* ---- comparison ---- */

/* 0 when G has Ref's shape and pattern, strictly increasing columns and
 * values within REL_TOL of Ref relative to Abs; else 1 and the first
 * difference in msg. */
static int differs(const cmrs_csr *G, const cmrs_csr *ref,
                   const cmrs_csr *abs, char *msg, size_t len)
{
    if (G->rows != ref->rows || G->cols != ref->cols || G->nnz != ref->nnz) {
        snprintf(msg, len, "shape %lld x %lld nnz %lld, expected %lld x %lld "
                 "nnz %lld", (long long)G->rows, (long long)G->cols,
                 (long long)G->nnz, (long long)ref->rows,
                 (long long)ref->cols, (long long)ref->nnz);
        return 1;
    }
    for (int64_t i = 0; i <= G->rows; ++i)
        if (G->indptr[i] != ref->indptr[i]) {
            snprintf(msg, len, "indptr[%lld] = %lld, expected %lld",
                     (long long)i, (long long)G->indptr[i],
                     (long long)ref->indptr[i]);
            return 1;
        }
    for (int64_t i = 0; i < G->rows; ++i)
        for (int64_t k = G->indptr[i]; k < G->indptr[i + 1]; ++k) {
            if (k > G->indptr[i] && G->indices[k] <= G->indices[k - 1]) {
                snprintf(msg, len, "row %lld: columns not increasing at "
                         "entry %lld", (long long)i, (long long)k);
                return 1;
            }
            if (G->indices[k] != ref->indices[k]) {
                snprintf(msg, len, "row %lld: column %d, expected %d",
                         (long long)i, G->indices[k], ref->indices[k]);
                return 1;
            }
            double err = fabs(G->values[k] - ref->values[k]);
            if (!(err <= REL_TOL * abs->values[k])) {
                snprintf(msg, len, "(%lld, %d) = %.17g, expected %.17g "
                         "(error %g, bound %g)", (long long)i, G->indices[k],
                         G->values[k], ref->values[k], err,
                         REL_TOL * abs->values[k]);
                return 1;
            }
        }
    return 0;
}

static int64_t count_zeros(const cmrs_csr *M)
{
    int64_t z = 0;
    for (int64_t k = 0; k < M->nnz; ++k) z += M->values[k] == 0.0;
    return z;
}

/* ---- host-only checks: the reference and the comparison ---- */

/* (R A P)_ij from dense copies (csr_to_dense), for the small random
 * cases. */
static double *dense_product(const double *x, const double *y, int64_t m,
                             int64_t k, int64_t n)
{
    double *z = calloc((size_t)(m * n) + 1, sizeof *z);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t l = 0; l < k; ++l)
            for (int64_t j = 0; j < n; ++j)
                z[i * n + j] += x[i * k + l] * y[l * n + j];
    return z;
}

/* The sparse reference equals the dense triple product wherever it
 * stores an entry, and the dense product is 0 elsewhere. */
static void check_reference_dense(const cmrs_csr *R, const cmrs_csr *A,
                                  const cmrs_csr *P, const char *name)
{
    cmrs_csr ref, abs;
    ref_galerkin(R, A, P, &ref, &abs);
    double *r = csr_to_dense(R), *a = csr_to_dense(A);
    double *p = csr_to_dense(P);
    double *ap = dense_product(a, p, A->rows, A->cols, P->cols);
    double *rap = dense_product(r, ap, R->rows, R->cols, P->cols);
    double *got = csr_to_dense(&ref);
    int bad = 0;
    for (int64_t q = 0; q < R->rows * P->cols; ++q)
        bad += !(fabs(got[q] - rap[q]) <= 1e-12 * (1 + fabs(rap[q])));
    CHECK(bad == 0, "%s: sparse reference differs from the dense product in "
          "%d entries", name, bad);
    CHECK(cmrs_csr_validate(&ref, name) == CMRS_OK, "%s: reference invalid: "
          "%s", name, cmrs_error_message());
    free(r), free(a), free(p), free(ap), free(rap), free(got);
    cmrs_csr_free(&ref);
    cmrs_csr_free(&abs);
}

/* differs() accepts the reference and catches a wrong value, a moved
 * column, a missing entry and unsorted columns: the test can fail. */
static void check_comparison(const cmrs_csr *R, const cmrs_csr *A,
                             const cmrs_csr *P)
{
    char msg[256];
    cmrs_csr ref, abs, bad;
    ref_galerkin(R, A, P, &ref, &abs);
    CHECK(ref.nnz >= 4 && ref.indptr[1] - ref.indptr[0] >= 2,
          "self-check needs a reference with a 2-entry first row");
    CHECK(!differs(&ref, &ref, &abs, msg, sizeof msg), "reference vs "
          "itself: %s", msg);
    cmrs_csr_copy(&bad, &ref);
    bad.values[bad.nnz / 2] += 1e-9 * (1 + fabs(bad.values[bad.nnz / 2]));
    CHECK(differs(&bad, &ref, &abs, msg, sizeof msg), "a value off by 1e-9 "
          "is not caught");
    cmrs_csr_free(&bad);
    cmrs_csr_copy(&bad, &ref);
    bad.indices[0] = (bad.indices[0] + 1) % (int32_t)bad.cols;
    CHECK(differs(&bad, &ref, &abs, msg, sizeof msg), "a moved column is "
          "not caught");
    cmrs_csr_free(&bad);
    cmrs_csr_copy(&bad, &ref);
    bad.nnz -= 1;
    bad.indptr[bad.rows] -= 1;
    CHECK(differs(&bad, &ref, &abs, msg, sizeof msg), "a missing entry is "
          "not caught");
    cmrs_csr_free(&bad);
    cmrs_csr_copy(&bad, &ref);
    int32_t c = bad.indices[0];
    bad.indices[0] = bad.indices[1];
    bad.indices[1] = c;
    CHECK(differs(&bad, &ref, &abs, msg, sizeof msg), "swapped columns are "
          "not caught");
    cmrs_csr_free(&bad);
    cmrs_csr_free(&ref);
    cmrs_csr_free(&abs);
}

/* Errors found before any GPU work (no GPU needed): shapes that do not
 * chain, counts past cuSPARSE's 32-bit indices (matrices that only
 * claim those sizes: the check reads no array). *Ac is left empty. */
static void check_refusals(void)
{
    cmrs_csr A = laplacian_2d(4), P = tentative_p(4), R, Ac;
    cmrs_csr_transpose(&P, &R);
    memset(&Ac, 0x5a, sizeof Ac);
    CHECK_FAILS(cmrs_gpu_galerkin(0, &R, &A, &R, &Ac), CMRS_E_INPUT,
                "shapes");
    CHECK(Ac.rows == 0 && Ac.nnz == 0 && !Ac.indptr && !Ac.indices &&
              !Ac.values, "a refused call leaves *Ac empty");
    CHECK_FAILS(cmrs_gpu_galerkin(0, &P, &A, &P, &Ac), CMRS_E_INPUT,
                "shapes");
    cmrs_csr big = {0};
    big.rows = (int64_t)INT32_MAX + 1;
    big.cols = A.rows;
    CHECK_FAILS(cmrs_gpu_galerkin(0, &big, &A, &P, &Ac), CMRS_E_LIMIT,
                "32-bit");
    cmrs_csr many = A;
    many.nnz = (int64_t)INT32_MAX + 1;
    CHECK_FAILS(cmrs_gpu_galerkin(0, &R, &many, &P, &Ac), CMRS_E_LIMIT,
                "32-bit");
    cmrs_csr_free(&A);
    cmrs_csr_free(&P);
    cmrs_csr_free(&R);
}

/* ---- the GPU cases ---- */

typedef struct gcase {
    const char *name;
    cmrs_csr R, A, P;
} gcase;

/* The GPU product against the reference; returns the GPU result's count
 * of stored zeros (-1 on failure); *G the result (empty on failure). */
static int64_t run_case(cudaStream_t stream, const gcase *c, cmrs_csr *out)
{
    char msg[256] = "";
    cmrs_csr ref, abs, G = {0};
    ref_galerkin(&c->R, &c->A, &c->P, &ref, &abs);
    cmrs_error_clear();
    cmrs_code rc = cmrs_gpu_galerkin(stream, &c->R, &c->A, &c->P, &G);
    CHECK(rc == CMRS_OK, "%s: cmrs_gpu_galerkin -> %s: %s (%s)", c->name,
          cmrs_code_name(rc), cmrs_error_message(), cmrs_error_traceback());
    int64_t zeros = -1;
    if (rc == CMRS_OK) {
        CHECK(G.rows == c->R.rows && G.cols == c->P.cols, "%s: result is "
              "%lld x %lld, expected %lld x %lld", c->name, (long long)G.rows,
              (long long)G.cols, (long long)c->R.rows, (long long)c->P.cols);
        CHECK(!differs(&G, &ref, &abs, msg, sizeof msg), "%s: %s", c->name,
              msg);
        CHECK(cmrs_csr_validate(&G, c->name) == CMRS_OK, "%s: invalid CSR: "
              "%s", c->name, cmrs_error_message());
        zeros = count_zeros(&G);
        printf("%-44s %6lld x %-6lld nnz %7lld (stored zeros %lld, "
               "reference %lld)\n", c->name, (long long)G.rows,
               (long long)G.cols, (long long)G.nnz, (long long)zeros,
               (long long)count_zeros(&ref));
    }
    if (out) *out = G;
    else cmrs_csr_free(&G);
    cmrs_csr_free(&ref);
    cmrs_csr_free(&abs);
    return zeros;
}

/* Two calls on the same operands: identical bits? Reported only (the AMG
 * setup does not rely on it: amg_host.h compares strengths with a
 * tolerance). */
static void report_repeatability(cudaStream_t stream, const gcase *c)
{
    cmrs_csr G1, G2;
    if (cmrs_gpu_galerkin(stream, &c->R, &c->A, &c->P, &G1) != CMRS_OK)
        return;
    if (cmrs_gpu_galerkin(stream, &c->R, &c->A, &c->P, &G2) == CMRS_OK) {
        size_t bytes = (size_t)G1.nnz * sizeof(double);
        int same = G1.nnz == G2.nnz && !memcmp(G1.values, G2.values, bytes);
        printf("%s: two runs bitwise identical: %s\n", c->name,
               same ? "yes" : "NO");
        cmrs_csr_free(&G2);
    }
    cmrs_csr_free(&G1);
}

/* P_s = (I - 0.5 D^-1 A) P_t, formed with the reference product. */
static cmrs_csr smoothed_p(const cmrs_csr *A, const cmrs_csr *Pt)
{
    triplets t = {0};
    for (int64_t i = 0; i < A->rows; ++i) {
        int found = 0;
        double d = cmrs_csr_lookup(A, i, (int32_t)i, &found);
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            double s = -0.5 * A->values[k] / d;
            if (A->indices[k] == i) s += 1.0;
            trip_add(&t, i, A->indices[k], s);
        }
    }
    cmrs_csr S = from_triplets(A->rows, A->cols, &t);
    cmrs_csr P = ref_multiply(&S, Pt, 0);
    cmrs_csr_free(&S);
    return P;
}

static cmrs_csr transpose(const cmrs_csr *M)
{
    cmrs_csr T;
    if (cmrs_csr_transpose(M, &T) != CMRS_OK) exit(1);
    return T;
}

static cmrs_csr empty_csr(int64_t rows, int64_t cols)
{
    triplets t = {0};
    return from_triplets(rows, cols, &t);
}

/* A small matrix from a row-major table: NAN cells are not stored, so
 * 0.0 cells are stored zeros. */
static cmrs_csr table(int64_t rows, int64_t cols, const double *v)
{
    triplets t = {0};
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            if (!isnan(v[i * cols + j])) trip_add(&t, i, (int32_t)j,
                                                  v[i * cols + j]);
    return from_triplets(rows, cols, &t);
}

#define N_CASES 19
#define CASE_CANCEL 7 /* indices in build_cases */
#define CASE_ZEROS 8
#define CASE_WIDE 4
#define CASE_LONG 16
#define CASE_FULL 17
#define CASE_CHUNKS 18

/* R (2 x 150): row 0 every column, row 1 column 0; A = I; P (150 x 300):
 * row r at columns 2r and 2r + 1. R A P's row 0 has all 300 columns:
 * past the warp path's cap of 256. */
static void long_row_case(gcase *c)
{
    const int k = 150;
    triplets r = {0}, a = {0}, p = {0};
    for (int j = 0; j < k; ++j) {
        trip_add(&r, 0, j, 1.0 + j % 7);
        trip_add(&a, j, j, 2.0);
        trip_add(&p, j, 2 * j, 0.5);
        trip_add(&p, j, 2 * j + 1, -0.25 * (1 + j % 3));
    }
    trip_add(&r, 1, 0, 1.0);
    *c = (gcase){"one long row of C (300 columns)", from_triplets(2, k, &r),
                 from_triplets(k, k, &a), from_triplets(k, 2 * k, &p)};
}

/* R = [1 1; 1 0], A = I (2 x 2), P's row 0 all 700 columns, row 1 column
 * 5: a single row of Y fills the warp path's 512 hash slots. */
static void full_hash_case(gcase *c)
{
    triplets r = {0}, a = {0}, p = {0};
    trip_add(&r, 0, 0, 1.0);
    trip_add(&r, 0, 1, 1.0);
    trip_add(&r, 1, 0, 1.0);
    trip_add(&a, 0, 0, 3.0);
    trip_add(&a, 1, 1, 2.0);
    for (int j = 0; j < 700; ++j) trip_add(&p, 0, j, 1.0 / (1 + j));
    trip_add(&p, 1, 5, -1.0);
    *c = (gcase){"a row of A P with 700 columns (the hash full)",
                 from_triplets(2, 2, &r), from_triplets(2, 2, &a),
                 from_triplets(2, 700, &p)};
}

static int build_cases(gcase *cs)
{
    int n = 0;
    cmrs_csr A = laplacian_2d(30), Pt = tentative_p(30);
    cmrs_csr Ps = smoothed_p(&A, &Pt);
    cs[n++] = (gcase){"Laplacian 30x30, tentative P (2x2)", transpose(&Pt),
                      A, Pt};
    cmrs_csr A2;
    cmrs_csr_copy(&A2, &A);
    cs[n++] = (gcase){"Laplacian 30x30, smoothed P", transpose(&Ps), A2, Ps};
    cmrs_csr A3 = laplacian_2d(7), P3 = tentative_p(7); /* odd: 1-row aggs */
    cs[n++] = (gcase){"Laplacian 7x7, tentative P", transpose(&P3), A3, P3};
    cs[n++] = (gcase){"random 37x120 * 120x150 * 150x23, empty rows",
                      random_csr(37, 120, 4, 0.2, 0.05),
                      random_csr(120, 150, 5, 0.2, 0.05),
                      random_csr(150, 23, 2, 0.3, 0.05)};
    cs[n++] = (gcase){"random 200x9 * 9x300 * 300x250 (wide)",
                      random_csr(200, 9, 2, 0.1, 0),
                      random_csr(9, 300, 30, 0.1, 0),
                      random_csr(300, 250, 3, 0.5, 0)};
    cs[n++] = (gcase){"random 5x400 * 400x400 * 400x60, 60% empty",
                      random_csr(5, 400, 80, 0.0, 0.02),
                      random_csr(400, 400, 3, 0.6, 0.02),
                      random_csr(400, 60, 2, 0.6, 0.02)};
    const double one_r[] = {2}, one_a[] = {3}, one_p[] = {5};
    cs[n++] = (gcase){"1x1", table(1, 1, one_r), table(1, 1, one_a),
                      table(1, 1, one_p)};
    /* [1 1] I [1; -1] = 0, stored: structural pattern kept. */
    const double c_r[] = {1, 1}, c_a[] = {1, NAN, NAN, 1}, c_p[] = {1, -1};
    cs[n++] = (gcase){"exact cancellation (stored 0)", table(1, 2, c_r),
                      table(2, 2, c_a), table(2, 1, c_p)};
    /* A stores a 0: its products create entries with value 0. */
    const double z_r[] = {1, NAN, NAN, 1}, z_a[] = {0, 2, NAN, 0},
                 z_p[] = {1, NAN, NAN, 1};
    cs[n++] = (gcase){"stored zeros in A", table(2, 2, z_r),
                      table(2, 2, z_a), table(2, 2, z_p)};
    cs[n++] = (gcase){"A with nnz 0", random_csr(20, 30, 3, 0, 0),
                      empty_csr(30, 40), random_csr(40, 10, 2, 0, 0)};
    cs[n++] = (gcase){"R and P with nnz 0", empty_csr(20, 30),
                      random_csr(30, 40, 3, 0, 0), empty_csr(40, 10)};
    /* A uses only column 0, P's row 0 is empty: A P is empty. */
    const double e_a[] = {1, NAN, NAN, 2, NAN, NAN, 3, NAN, NAN};
    const double e_p[] = {NAN, NAN, 1, NAN, NAN, 1};
    const double e_r[] = {1, 1, 1};
    cs[n++] = (gcase){"empty intermediate A P", table(1, 3, e_r),
                      table(3, 3, e_a), table(3, 2, e_p)};
    /* A P has rows 1 and 2 only, R uses column 0 only: R A P is empty. */
    const double f_r[] = {1, NAN, NAN, 1, NAN, NAN};
    const double f_a[] = {NAN, NAN, NAN, 1, NAN, NAN, NAN, 1, NAN};
    const double f_p[] = {1, 1, 1};
    cs[n++] = (gcase){"empty final product", table(2, 3, f_r),
                      table(3, 3, f_a), table(3, 1, f_p)};
    cs[n++] = (gcase){"R with 0 rows", empty_csr(0, 30),
                      random_csr(30, 30, 3, 0, 0), random_csr(30, 8, 2, 0, 0)};
    cs[n++] = (gcase){"P with 0 columns", random_csr(6, 30, 3, 0, 0),
                      random_csr(30, 30, 3, 0, 0), empty_csr(30, 0)};
    cs[n++] = (gcase){"A 0 x 0", empty_csr(4, 0), empty_csr(0, 0),
                      empty_csr(0, 5)};
    long_row_case(&cs[n++]);
    full_hash_case(&cs[n++]);
    /* R's rows up to ~65 distinct entries (several chunks of 32 on the
     * warp path), C's rows within 40 columns (the thread path's too) */
    cs[n++] = (gcase){"rows of R past 32 entries, C within 40 columns",
                      random_csr(20, 200, 40, 0.0, 0.02),
                      random_csr(200, 200, 2, 0.1, 0.02),
                      random_csr(200, 40, 2, 0.1, 0.02)};
    return n;
}

static void free_cases(gcase *cs, int n)
{
    for (int k = 0; k < n; ++k) {
        cmrs_csr_free(&cs[k].R);
        cmrs_csr_free(&cs[k].A);
        cmrs_csr_free(&cs[k].P);
    }
}

/* Every case's operands are valid CSR (so a failure is the product's). */
static void check_operands(const gcase *cs, int n)
{
    for (int k = 0; k < n; ++k)
        CHECK(cmrs_csr_validate(&cs[k].R, cs[k].name) == CMRS_OK &&
                  cmrs_csr_validate(&cs[k].A, cs[k].name) == CMRS_OK &&
                  cmrs_csr_validate(&cs[k].P, cs[k].name) == CMRS_OK,
              "%s: operand invalid: %s", cs[k].name, cmrs_error_message());
}

static void host_checks(const gcase *cs)
{
    check_refusals();
    for (int k = 3; k <= 8; ++k)
        check_reference_dense(&cs[k].R, &cs[k].A, &cs[k].P, cs[k].name);
    check_comparison(&cs[0].R, &cs[0].A, &cs[0].P);
}

/* How the products are made (CMRS_AMG_SPGEMM). */
typedef enum {
    BY_ROWS, BY_WARPS, BY_THREADS, BY_THREADS_ALL, BY_CUSPARSE
} pmode;
static const char *const k_mode_env[] = {NULL, "warp", "thread",
                                         "thread-all", "cusparse"};
static const char *const k_mode_name[] = {
    "by rows first", "the warp path first", "the thread path alone",
    "the thread path on every product", "cuSPARSE (forced)"};

/* The products' paths (masks of A P's and R (A P)'s; 1 thread rows, 2
 * cuSPARSE, 4 warp rows) where the cases decide them: the Laplacian with
 * P_tent (X = A and R = P_tent^T: 5 and 4 entries a row) by threads; with
 * the smoothed P, A P by threads and R (A P) (R's rows hold ~16) by
 * warps; the wide case (A's rows hold 30; R's 2, but its products' rows
 * pass 64 columns) by warps; the long row's A P (A = I) by threads and
 * R (A P) by cuSPARSE (past 256 columns); the full hash's both by
 * cuSPARSE; the long rows of R's A P by threads and R (A P) by warps.
 * The warp path first makes every product it can; the thread path on
 * every product whose rows of C fit 64 columns (R (A P) of the smoothed
 * P and of the long rows of R too; the wide case's rows left open);
 * cuSPARSE alone where forced. */
static int expected_path(int k, pmode mode, int got)
{
    const int T = AMG_SPGEMM_ROWS, C = AMG_SPGEMM_CUSPARSE,
              W = AMG_SPGEMM_WARP;
    if (mode == BY_CUSPARSE || k == CASE_FULL) return C;
    if (k == CASE_CHUNKS)
        return mode == BY_WARPS ? W : mode == BY_THREADS_ALL ? T
               : mode == BY_THREADS ? T | C : T | W;
    if (k != 0 && k != 1 && k != CASE_WIDE && k != CASE_LONG) return got;
    if (k == CASE_WIDE && mode == BY_THREADS_ALL) return got; /* rows vary */
    if (mode == BY_WARPS) return k == CASE_LONG ? W | C : W;
    if (mode == BY_THREADS || mode == BY_THREADS_ALL)
        return k == 0 ? T
               : k == 1 ? (mode == BY_THREADS ? T | C : T)
               : k == CASE_LONG ? T | C
                                : C;
    return k == 0 ? T : k == 1 ? T | W : k == CASE_WIDE ? W : T | C;
}

static void check_paths(const int *path, int n, pmode mode)
{
    for (int k = 0; k < n; ++k) {
        if (!path[k]) continue; /* no product ran (an empty operand) */
        int want = expected_path(k, mode, path[k]);
        CHECK(path[k] == want, "%s, case %d: products' paths %d, expected "
              "%d (1 thread rows, 2 cuSPARSE, 4 warp rows)",
              k_mode_name[mode], k, path[k], want);
    }
}

/* Results of two modes, both made by row paths alone: the same bits. */
static void check_same_bits(const cmrs_csr *a, const cmrs_csr *b,
                            const int *path_a, const int *path_b, int n,
                            pmode mode)
{
    int compared = 0;
    for (int k = 0; k < n; ++k) {
        if (!path_a[k] || !path_b[k] ||
            ((path_a[k] | path_b[k]) & AMG_SPGEMM_CUSPARSE))
            continue;
        ++compared;
        int same = a[k].nnz == b[k].nnz && a[k].rows == b[k].rows &&
                   !memcmp(a[k].indptr, b[k].indptr,
                           ((size_t)a[k].rows + 1) * sizeof *a[k].indptr) &&
                   !memcmp(a[k].indices, b[k].indices,
                           (size_t)a[k].nnz * sizeof *a[k].indices) &&
                   !memcmp(a[k].values, b[k].values,
                           (size_t)a[k].nnz * sizeof *a[k].values);
        CHECK(same, "case %d: %s and %s differ in their bits", k,
              k_mode_name[BY_ROWS], k_mode_name[mode]);
    }
    CHECK(compared >= 3, "%s: %d cases compared bit for bit with %s, "
          "expected at least 3", k_mode_name[mode], compared,
          k_mode_name[BY_ROWS]);
    printf("%s: %d cases bit for bit equal to %s's\n", k_mode_name[mode],
           compared, k_mode_name[BY_ROWS]);
}

/* Every case in one mode: results into G, paths into path. */
static void gpu_checks(const gcase *cs, int n, pmode mode, cmrs_csr *G,
                       int *path)
{
    cudaStream_t stream = NULL;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) ==
              cudaSuccess, "cudaStreamCreateWithFlags");
    int64_t zeros[N_CASES];
    const char *alg = getenv("CMRS_AMG_SPGEMM_ALG");
    if (k_mode_env[mode]) setenv("CMRS_AMG_SPGEMM", k_mode_env[mode], 1);
    else unsetenv("CMRS_AMG_SPGEMM");
    printf("products: %s%s\n", k_mode_name[mode],
           alg ? ", CMRS_AMG_SPGEMM_ALG set" : "");
    /* CMRS_AMG_SPGEMM_FAIL: ALG2 refuses, each cuSPARSE product made
     * again (by ALG3); else never again */
    const int refused = getenv("CMRS_AMG_SPGEMM_FAIL") != NULL;
    (void)amg_dev_spgemm_paths(); /* cleared */
    for (int k = 0; k < n; ++k) {
        zeros[k] = run_case(stream, &cs[k], &G[k]);
        path[k] = amg_dev_spgemm_paths();
        const int cus = path[k] & AMG_SPGEMM_CUSPARSE,
                  again = path[k] & AMG_SPGEMM_RETRIED;
        CHECK(refused ? !cus == !again : !again, "case %d: cuSPARSE %s, made "
              "again %s (ALG2 %s)", k, cus ? "ran" : "did not run",
              again ? "yes" : "no", refused ? "refusing" : "as it is");
        path[k] &= ~AMG_SPGEMM_RETRIED;
    }
    check_paths(path, n, mode);
    /* Stated outright, not only through the reference: cuSPARSE keeps
     * entries whose value is 0 (structural pattern). */
    CHECK(zeros[CASE_CANCEL] == 1, "exact cancellation: %lld stored zeros, "
          "expected 1 (did cuSPARSE drop it?)", (long long)zeros[CASE_CANCEL]);
    CHECK(zeros[CASE_ZEROS] == 2, "stored zeros in A: %lld stored zeros in "
          "the result, expected 2", (long long)zeros[CASE_ZEROS]);
    /* The legacy default stream too. */
    run_case(0, &cs[1], NULL);
    report_repeatability(stream, &cs[1]);
    unsetenv("CMRS_AMG_SPGEMM");
    if (stream) cudaStreamDestroy(stream);
}

static void free_results(cmrs_csr *G, int n)
{
    for (int k = 0; k < n; ++k) cmrs_csr_free(&G[k]);
}

/* Every mode; the row paths' results compared bit for bit. */
static void all_modes(const gcase *cs, int n)
{
    cmrs_csr rows[N_CASES], other[N_CASES];
    int path_rows[N_CASES], path[N_CASES];
    gpu_checks(cs, n, BY_ROWS, rows, path_rows);
    gpu_checks(cs, n, BY_WARPS, other, path);
    check_same_bits(rows, other, path_rows, path, n, BY_WARPS);
    free_results(other, n);
    gpu_checks(cs, n, BY_THREADS, other, path);
    check_same_bits(rows, other, path_rows, path, n, BY_THREADS);
    free_results(other, n);
    /* the warp path's sums over several chunks of X's row against the
     * thread path's, bit for bit */
    gpu_checks(cs, n, BY_THREADS_ALL, other, path);
    check_same_bits(rows, other, path_rows, path, n, BY_THREADS_ALL);
    CHECK(path_rows[CASE_CHUNKS] & AMG_SPGEMM_WARP &&
              path[CASE_CHUNKS] == AMG_SPGEMM_ROWS,
          "the long rows of R were not made by warps and by threads "
          "(paths %d and %d)", path_rows[CASE_CHUNKS], path[CASE_CHUNKS]);
    free_results(other, n);
    gpu_checks(cs, n, BY_CUSPARSE, other, path); /* ALG2, the default */
    free_results(other, n);
    setenv("CMRS_AMG_SPGEMM_ALG", "1", 1);
    gpu_checks(cs, n, BY_CUSPARSE, other, path); /* and its ALG1 */
    free_results(other, n);
    setenv("CMRS_AMG_SPGEMM_ALG", "3", 1);
    gpu_checks(cs, n, BY_CUSPARSE, other, path); /* ALG3, one chunk */
    free_results(other, n);
    unsetenv("CMRS_AMG_SPGEMM_ALG");
    /* ALG2 refusing every product: each made again by ALG3 in chunks of
     * a fifth, against the reference */
    setenv("CMRS_AMG_SPGEMM_FAIL", "1", 1);
    gpu_checks(cs, n, BY_CUSPARSE, other, path);
    free_results(other, n);
    gpu_checks(cs, n, BY_ROWS, other, path);
    check_same_bits(rows, other, path_rows, path, n, BY_ROWS);
    free_results(other, n);
    unsetenv("CMRS_AMG_SPGEMM_FAIL");
    free_results(rows, n);
}

int main(void)
{
    gcase cs[N_CASES];
    int n = build_cases(cs);
    CHECK(n == N_CASES, "%d cases built", n);
    check_operands(cs, n);
    host_checks(cs);
    if (!cmrs_gpu_available()) {
        cmrs_csr R = random_csr(3, 3, 1, 0, 0), Ac;
        CHECK_FAILS(cmrs_gpu_galerkin(0, &R, &R, &R, &Ac), CMRS_E_NODEVICE,
                    "no CUDA GPU");
        cmrs_csr_free(&R);
        free_cases(cs, n);
        if (g_checks_failed) return check_summary();
        printf("%d host checks passed; no GPU: skipped\n", g_checks_passed);
        return 77;
    }
    all_modes(cs, n);
    free_cases(cs, n);
    return check_summary();
}
