/* The prolongator of an aggregation level and the host sparse products
 * (amg_host.h): tentative or smoothed P, C = A B by Gustavson's row-by-row
 * method, and the Galerkin operator R (A P), the reference the GPU's SpGEMM
 * is checked against. Every output row is sorted by column and keeps every
 * entry its pattern produces, explicit zeros from cancellation included, so
 * that the pattern does not depend on rounding. */
#include "amg_csr.h"
#include "amg_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A dense row accumulator over `n` columns: mark[c] == row says column c
 * is already in the current row. One per product, not per row. */
typedef struct row_acc {
    int64_t *mark;
    double *val;
} row_acc;

static cmrs_code acc_init(row_acc *a, int64_t n)
{
    a->mark = cmrs_malloc_array((size_t)n, sizeof *a->mark);
    a->val = cmrs_malloc_array((size_t)n, sizeof *a->val);
    if (!a->mark || !a->val) {
        free(a->mark);
        free(a->val);
        a->mark = NULL;
        a->val = NULL;
        CMRS_FAIL(CMRS_E_NOMEM, "amg: cannot allocate a row accumulator of "
                  "%lld columns", (long long)n);
    }
    for (int64_t c = 0; c < n; ++c) a->mark[c] = -1;
    return CMRS_OK;
}

static void acc_free(row_acc *a)
{
    free(a->mark);
    free(a->val);
}

/* Adds v at column c of row `row`, appending c to the row's column list
 * (cols, *len) the first time it is seen. */
static inline void acc_add(row_acc *a, int64_t row, int32_t c, double v,
                           int32_t *cols, int64_t *len)
{
    if (a->mark[c] != row) {
        a->mark[c] = row;
        a->val[c] = v;
        cols[(*len)++] = c;
    } else {
        a->val[c] += v;
    }
}

/* Sorts the row just accumulated at C->indices[row0, nz) and gathers its
 * values. */
static void acc_flush(const row_acc *a, cmrs_csr *C, int64_t row0, int64_t nz)
{
    cmrs_amg_sort_cols(C->indices + row0, nz - row0);
    for (int64_t k = row0; k < nz; ++k) C->values[k] = a->val[C->indices[k]];
}

/* ---- prolongator ------------------------------------------------------- */

static double diag_of(const cmrs_csr *A, int64_t i)
{
    int found;
    return cmrs_csr_lookup(A, i, (int32_t)i, &found); /* 0 when missing */
}

/* rho(D^-1 A) <= max_i sum_j |a_ij| / |a_ii| (Gershgorin), over the rows
 * with a nonzero diagonal (the others are not smoothed). */
static double gershgorin_rho(const cmrs_csr *A)
{
    double rho = 0.0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double d = fabs(diag_of(A, i)), sum = 0.0;
        if (!(d > 0)) continue;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            sum += fabs(A->values[k]);
        if (sum / d > rho) rho = sum / d;
    }
    return rho;
}

static void tentative(const int32_t *agg, cmrs_csr *P)
{
    for (int64_t i = 0; i < P->rows; ++i) {
        P->indptr[i + 1] = i + 1;
        P->indices[i] = agg[i];
        P->values[i] = 1.0;
    }
}

/* Row i of (I - w D^-1 A) P_tent: column agg[k] gets delta_ik - (w/a_ii)
 * a_ik summed over the row. A row with a zero or missing diagonal (or whose
 * scaling is not finite) keeps its tentative row. */
double cmrs_amg_smoothing_weight(const cmrs_csr *A, double omega)
{
    double rho = gershgorin_rho(A);
    return rho > 0 ? omega / rho : 0.0;
}

static cmrs_code smoothed(const cmrs_csr *A, const int32_t *agg, int64_t naggs,
                          double omega, cmrs_csr *P)
{
    cmrs_code rc = CMRS_OK;
    row_acc acc = {0};
    double w = cmrs_amg_smoothing_weight(A, omega);
    CMRS_TRY(acc_init(&acc, naggs));
    int64_t nz = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double f = w / diag_of(A, i);
        if (!isfinite(f)) {
            P->indices[nz] = agg[i];
            P->values[nz++] = 1.0;
            P->indptr[i + 1] = nz;
            continue;
        }
        int64_t row0 = nz;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int32_t j = A->indices[k];
            double v = (j == i ? 1.0 : 0.0) - f * A->values[k];
            acc_add(&acc, i, agg[j], v, P->indices, &nz);
        }
        acc_flush(&acc, P, row0, nz);
        P->indptr[i + 1] = nz;
    }
    P->nnz = nz;
    cmrs_amg_shrink_csr(P);
done:
    acc_free(&acc);
    return rc;
}

cmrs_code cmrs_amg_check_aggregates(int64_t rows, int64_t cols,
                                    const int32_t *agg, int64_t naggs)
{
    CMRS_ENSURE(rows == cols, CMRS_E_INPUT, "amg: prolongator of a "
                "non-square matrix (%lld x %lld)", (long long)rows,
                (long long)cols);
    CMRS_ENSURE(naggs >= 0 && naggs <= INT32_MAX, CMRS_E_INPUT,
                "amg: %lld aggregates is out of range", (long long)naggs);
    for (int64_t i = 0; i < rows; ++i)
        CMRS_ENSURE(agg[i] >= 0 && agg[i] < naggs, CMRS_E_INPUT,
                    "amg: row %lld is in aggregate %d, not in [0, %lld)",
                    (long long)i, agg[i], (long long)naggs);
    return CMRS_OK;
}

cmrs_code cmrs_amg_prolongator(const cmrs_csr *A, const int32_t *agg,
                               int64_t naggs, const cmrs_amg_params *p,
                               cmrs_csr *P)
{
    memset(P, 0, sizeof *P);
    CMRS_CHECK(cmrs_amg_check_aggregates(A->rows, A->cols, agg, naggs));
    int smooth = p && p->smooth_p;
    if (smooth)
        CMRS_ENSURE(isfinite(p->p_omega), CMRS_E_USAGE, "amg: prolongator "
                    "damping p_omega = %g is not finite", p->p_omega);
    if (!smooth) {
        CMRS_CHECK(cmrs_csr_alloc(P, A->rows, naggs, A->rows));
        tentative(agg, P);
        return CMRS_OK;
    }
    /* Row i has at most one entry per stored a_ik, plus agg[i] when a_ii is
     * missing (then the row is tentative: one entry). */
    CMRS_CHECK(cmrs_csr_alloc(P, A->rows, naggs, A->nnz + A->rows));
    cmrs_code rc = smoothed(A, agg, naggs, p->p_omega, P);
    if (rc != CMRS_OK) {
        cmrs_csr_free(P);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

/* ---- sparse products --------------------------------------------------- */

/* Makes room for `need` nonzeros in C, growing by 1.5x so the copies cost
 * O(nnz) overall. On failure C keeps its (valid) arrays. */
static cmrs_code reserve(cmrs_csr *C, int64_t *cap, int64_t need)
{
    if (need <= *cap) return CMRS_OK;
    int64_t c = *cap + *cap / 2;
    if (c < need) c = need;
    size_t bi, bv;
    CMRS_ENSURE(cmrs_mul_size((size_t)c, sizeof(int32_t), &bi) == 0 &&
                    cmrs_mul_size((size_t)c, sizeof(double), &bv) == 0,
                CMRS_E_LIMIT, "sparse product: %lld nonzeros overflow a byte "
                "count", (long long)c);
    int32_t *ni = realloc(C->indices, bi);
    if (ni) C->indices = ni;
    double *nv = ni ? realloc(C->values, bv) : NULL;
    if (nv) C->values = nv;
    CMRS_ENSURE(ni && nv, CMRS_E_NOMEM, "sparse product: cannot grow the "
                "result to %lld nonzeros", (long long)c);
    *cap = c;
    return CMRS_OK;
}

/* Upper bound on the nonzeros of row i of A B: its flops, capped at the
 * number of columns. */
static int64_t row_bound(const cmrs_csr *A, const cmrs_csr *B, int64_t i)
{
    int64_t f = 0;
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
        int32_t j = A->indices[k];
        f += B->indptr[j + 1] - B->indptr[j];
    }
    return f < B->cols ? f : B->cols;
}

static cmrs_code gustavson(const cmrs_csr *A, const cmrs_csr *B, cmrs_csr *C,
                           int64_t cap)
{
    cmrs_code rc = CMRS_OK;
    row_acc acc = {0};
    CMRS_TRY(acc_init(&acc, B->cols));
    int64_t nz = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        CMRS_TRY(reserve(C, &cap, nz + row_bound(A, B, i)));
        int64_t row0 = nz;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int32_t j = A->indices[k];
            double a = A->values[k];
            for (int64_t q = B->indptr[j]; q < B->indptr[j + 1]; ++q)
                acc_add(&acc, i, B->indices[q], a * B->values[q], C->indices,
                        &nz);
        }
        acc_flush(&acc, C, row0, nz);
        C->indptr[i + 1] = nz;
    }
    C->nnz = nz;
    cmrs_amg_shrink_csr(C);
done:
    acc_free(&acc);
    return rc;
}

cmrs_code cmrs_csr_multiply(const cmrs_csr *A, const cmrs_csr *B,
                            cmrs_csr *C)
{
    memset(C, 0, sizeof *C);
    CMRS_ENSURE(A->cols == B->rows, CMRS_E_INPUT, "sparse product: shapes "
                "%lld x %lld and %lld x %lld do not match", (long long)A->rows,
                (long long)A->cols, (long long)B->rows, (long long)B->cols);
    /* A first guess; reserve() grows it when a row needs more. */
    int64_t cap = A->nnz > B->nnz ? A->nnz : B->nnz;
    CMRS_CHECK(cmrs_csr_alloc(C, A->rows, B->cols, cap));
    cmrs_code rc = gustavson(A, B, C, cap);
    if (rc != CMRS_OK) {
        cmrs_csr_free(C);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

cmrs_code cmrs_amg_galerkin_host(const cmrs_csr *R, const cmrs_csr *A,
                                 const cmrs_csr *P, cmrs_csr *Ac)
{
    memset(Ac, 0, sizeof *Ac);
    CMRS_ENSURE(R->cols == A->rows && A->cols == P->rows, CMRS_E_INPUT,
                "galerkin: shapes R %lld x %lld, A %lld x %lld, P %lld x %lld "
                "do not match", (long long)R->rows, (long long)R->cols,
                (long long)A->rows, (long long)A->cols, (long long)P->rows,
                (long long)P->cols);
    cmrs_csr AP;
    CMRS_CHECK(cmrs_csr_multiply(A, P, &AP));
    cmrs_code rc = cmrs_csr_multiply(R, &AP, Ac);
    cmrs_csr_free(&AP);
    if (rc != CMRS_OK) return cmrs_error_trace(rc, __FILE__, __LINE__);
    return CMRS_OK;
}
