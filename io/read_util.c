/* Checks shared by the HDF5 and Matrix Market readers. */
#include <math.h>
#include <stdio.h>

#include "readers.h"

cmrs_code cmrs_fail_not_square(const char *name, int64_t rows, int64_t cols)
{
    CMRS_FAIL(CMRS_E_INPUT, "%s: the matrix is %lld x %lld; a square matrix "
              "is required", name, (long long)rows, (long long)cols);
}

/* Host bytes a declaration needs at the reader's and the command's peak:
 * the CSR, plus the larger of the reader's own arrays and the vectors. */
static double declared_bytes(const cmrs_declared *d, const cmrs_read_opts *o)
{
    double rows = (double)d->rows;
    double vectors = 8.0 * rows * (1.0 + (d->has_x0 ? 1 : 0) +
                                   (o->work_vectors > 0 ? o->work_vectors : 0));
    if (d->generate_b) vectors += 8.0 * (double)d->cols; /* the ones */
    double extra = d->read_bytes > vectors ? d->read_bytes : vectors;
    return cmrs_csr_bytes(d->rows, d->max_nonzeros, 0) + extra;
}

cmrs_code cmrs_check_declared_shape(const cmrs_declared *d,
                                    const cmrs_read_opts *o)
{
    long long r = (long long)d->rows, c = (long long)d->cols;
    CMRS_ENSURE((double)d->entries <= (double)d->rows * (double)d->cols,
                CMRS_E_INPUT, "%s: %s: %lld entries declared, more than a "
                "%lld x %lld matrix has", d->name, d->what,
                (long long)d->entries, r, c);
    if (o->require_square && d->rows != d->cols)
        CMRS_CHECK(cmrs_fail_not_square(d->name, d->rows, d->cols));
    CMRS_ENSURE(!o->require_square || d->max_nonzeros >= d->rows,
                CMRS_E_INPUT, "%s: %s: %lld entries for %lld rows: some row "
                "has no entry, so the matrix is singular", d->name, d->what,
                (long long)d->entries, r);
    return CMRS_OK;
}

cmrs_code cmrs_check_declared(const cmrs_declared *d,
                              const cmrs_read_opts *o)
{
    long long r = (long long)d->rows, c = (long long)d->cols;
    CMRS_CHECK(cmrs_check_declared_shape(d, o));
    char what[160];
    snprintf(what, sizeof what, "a %lld x %lld matrix with %lld entries", r,
             c, (long long)d->entries);
    CMRS_CHECK(cmrs_check_memory(d->name, what, declared_bytes(d, o)));
    return CMRS_OK;
}

double cmrs_csr_bytes(int64_t rows, int64_t nnz, int vectors)
{
    return ((double)rows + 1) * 8.0 + (double)nnz * 12.0 +
           (double)vectors * (double)rows * 8.0;
}

cmrs_code cmrs_check_finite(const char *name, const char *what,
                            const double *v, int64_t n, int64_t first)
{
    for (int64_t i = 0; i < n; ++i)
        CMRS_ENSURE(isfinite(v[i]), CMRS_E_INPUT, "%s: %s[%lld] is %g (not "
                    "finite)", name, what, (long long)(first + i), v[i]);
    return CMRS_OK;
}

static int row_unsorted(const cmrs_csr *A, int64_t i, const void *ctx)
{
    (void)ctx;
    for (int64_t k = A->indptr[i] + 1; k < A->indptr[i + 1]; ++k)
        if (A->indices[k - 1] >= A->indices[k]) return 1;
    return 0;
}

int cmrs_csr_is_sorted(const cmrs_csr *A)
{
    return cmrs_csr_first_row(A, row_unsorted, NULL) == A->rows;
}
