/* Host tests of CSR-B (spmv/formats/fmt_csrb.h): Bound invariants on random and
 * edge-case matrices, limits, and a host emulation of the two kernels
 * (fragment partial sums, empty-row ownership, boundary-row merge) checked
 * against the CSR reference, including that every row is written exactly
 * once (so beta == 0 never reads y). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "spmv/formats/fmt_csrb.h"
#include "spmv/ref.h"
#include "spmv/cmrs/test_cmrs_matrices.h"

/* Bound[b] = (first, last) non-empty rows touching fragment b. */
static int bounds_ok(const cmrs_csr *A, const cmrs_csrb_bounds *h)
{
    int64_t F = h->fragment;
    if (h->blocks != (A->nnz + F - 1) / F) return 0;
    for (int64_t b = 0; b < h->blocks; ++b) {
        int64_t first = h->bound[2 * b], last = h->bound[2 * b + 1];
        int64_t end = (b + 1) * F < A->nnz ? (b + 1) * F : A->nnz;
        if (first < 0 || last < first || last >= A->rows) return 0;
        if (!(A->indptr[first] <= b * F && b * F < A->indptr[first + 1]))
            return 0;
        if (!(A->indptr[last] < end && end <= A->indptr[last + 1]))
            return 0;
    }
    return 1;
}

/* Kernel 1 of one block, on the host: partials and interior/empty rows. */
static void emulate_block(const cmrs_csr *A, const cmrs_csrb_bounds *h,
                          int64_t b, const double *x, double alpha,
                          double beta, double *y, double *part, int *writes)
{
    int64_t F = h->fragment, start = b * F;
    int64_t stop = start + F < A->nnz ? start + F : A->nnz;
    int64_t first = h->bound[2 * b], last = h->bound[2 * b + 1];
    for (int64_t r = first; r <= last; ++r) {
        double sum = 0;
        for (int64_t k = A->indptr[r]; k < A->indptr[r + 1]; ++k)
            if (k >= start && k < stop) sum += A->values[k] * x[A->indices[k]];
        if (r == first) part[2 * b] = sum;
        else if (r == last) part[2 * b + 1] = sum;
        else { y[r] = alpha * sum + beta * y[r]; ++writes[r]; }
    }
    int64_t gap0 = b == 0 ? 0 : h->bound[2 * b - 1] + 1;
    int64_t gap1 = b == h->blocks - 1 ? A->rows : first;
    for (int64_t r = gap0; r < gap1; ++r) {
        if (r >= first && r <= last) continue;
        y[r] = beta * y[r];
        ++writes[r];
    }
}

static double walk(const cmrs_csrb_bounds *h, const double *part, int64_t nb,
                   int32_t row, double sum)
{
    for (; nb < h->blocks && h->bound[2 * nb] == row; ++nb) {
        sum += part[2 * nb];
        if (h->bound[2 * nb + 1] != row) break;
    }
    return sum;
}

/* Kernel 2 on the host. */
static void emulate_merge(const cmrs_csrb_bounds *h, const double *part,
                          double alpha, double beta, double *y, int *writes)
{
    for (int64_t b = 0; b < h->blocks; ++b) {
        int32_t first = h->bound[2 * b], last = h->bound[2 * b + 1];
        if (last != first) {
            double s = walk(h, part, b + 1, last, part[2 * b + 1]);
            y[last] = alpha * s + beta * y[last];
            ++writes[last];
        }
        if (b > 0 && h->bound[2 * b - 1] == first) continue;
        double s = part[2 * b];
        if (last == first) s = walk(h, part, b + 1, first, s);
        y[first] = alpha * s + beta * y[first];
        ++writes[first];
    }
}

static void check_product(const cmrs_csr *A, const cmrs_csrb_bounds *h,
                          const char *name)
{
    size_t n = (size_t)A->rows + 1, m = (size_t)A->cols + 1;
    double *x = calloc(m, 8), *y = calloc(n, 8), *want = calloc(n, 8);
    double *part = calloc((size_t)h->blocks * 2 + 1, 8);
    int *writes = calloc(n, sizeof *writes);
    for (int64_t j = 0; j < A->cols; ++j) x[j] = 1.0 + 0.01 * (double)(j % 97);
    for (int64_t i = 0; i < A->rows; ++i) y[i] = want[i] = 0.5 - 0.003 * (double)i;
    cmrs_ref_spmv(A, -1.5, x, 0.75, want);
    for (int64_t b = 0; b < h->blocks; ++b)
        emulate_block(A, h, b, x, -1.5, 0.75, y, part, writes);
    emulate_merge(h, part, -1.5, 0.75, y, writes);
    if (h->blocks == 0) /* apply's empty-matrix path: y = beta*y */
        for (int64_t i = 0; i < A->rows; ++i) { y[i] *= 0.75; ++writes[i]; }
    int once = 1;
    for (int64_t i = 0; i < A->rows; ++i) once &= writes[i] == 1;
    CHECK(once, "%s F=%d: a row is not written exactly once", name,
          h->fragment);
    double err = cmrs_ref_rel_err(A->rows, y, want);
    CHECK(err < 1e-12, "%s F=%d: relative error %g", name, h->fragment, err);
    free(x); free(y); free(want); free(part); free(writes);
}

static void check_matrix(const cmrs_csr *A, const char *name)
{
    static const int fragments[] = {32, 64, 256, 1024};
    for (int f = 0; f < 4; ++f) {
        cmrs_csrb_bounds h;
        CHECK_OK(cmrs_csrb_bounds_build(A, fragments[f], &h));
        CHECK(bounds_ok(A, &h), "%s F=%d: bad Bound", name, fragments[f]);
        check_product(A, &h, name);
        cmrs_csrb_bounds_free(&h);
    }
}

/* Rows ending exactly at fragment ends, with empty rows between: the
 * empty rows lie in no fragment's row range and need an owner. */
static void check_boundary_gaps(void)
{
    cmrs_csr A;
    CHECK_OK(cmrs_csr_alloc(&A, 9, 40, 96));
    static const int64_t len[9] = {0, 32, 0, 0, 32, 0, 31, 1, 0};
    for (int i = 0; i < 9; ++i) A.indptr[i + 1] = A.indptr[i] + len[i];
    for (int64_t k = 0; k < A.nnz; ++k) {
        A.indices[k] = (int32_t)(k % 32);
        A.values[k] = 1.0 + (double)k;
    }
    check_matrix(&A, "fragment-aligned rows with gaps");
    cmrs_csr_free(&A);
}

static void check_limits(void)
{
    cmrs_csr A;
    cmrs_csrb_bounds h;
    CHECK_OK(cmrs_csr_alloc(&A, 3, 3, 0));
    CHECK_FAILS(cmrs_csrb_bounds_build(&A, 48, &h), CMRS_E_USAGE, "block");
    CHECK_FAILS(cmrs_csrb_bounds_build(&A, 2048, &h), CMRS_E_USAGE, "block");
    A.nnz = INT32_MAX; /* only the count is looked at before refusing */
    CHECK_FAILS(cmrs_csrb_bounds_build(&A, 256, &h), CMRS_E_LIMIT, "int32");
    CHECK(h.bound == NULL && h.blocks == 0, "refusal leaves bounds empty");
    A.nnz = 0;
    cmrs_csr_free(&A);
}

int main(void)
{
    for (int s = 0; s < N_TEST_SPECS; ++s) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_test_specs[s], 1234 + (uint64_t)s, &A));
        check_matrix(&A, k_test_specs[s].name);
        cmrs_csr_free(&A);
    }
    check_boundary_gaps();
    check_limits();
    return check_summary();
}
