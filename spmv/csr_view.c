/* What the device CSR view's checks and counts need no GPU for
 * (csr_view.h): host code, so that a build without CUDA refuses a bad view
 * with the same messages before it says there is no GPU. */
#include <stdint.h>
#include <string.h>

#include "csr_view.h"

cmrs_code cmrs_csr_view_check_counts(const cmrs_csr_view_d *M,
                                     const char *what)
{
    CMRS_ENSURE(M, CMRS_E_USAGE, "%s: no device matrix given", what);
    CMRS_ENSURE(M->rows >= 0 && M->cols >= 0 && M->nnz >= 0, CMRS_E_USAGE,
                "%s: device matrix of %lld x %lld with %lld entries: counts "
                "must not be negative", what, (long long)M->rows,
                (long long)M->cols, (long long)M->nnz);
    CMRS_ENSURE(M->cols <= INT32_MAX && M->nnz <= INT32_MAX, CMRS_E_USAGE,
                "%s: device matrix of %lld columns and %lld entries: its "
                "32-bit indices reach %d at most", what, (long long)M->cols,
                (long long)M->nnz, INT32_MAX);
    CMRS_ENSURE(M->indptr_d, CMRS_E_USAGE, "%s: device matrix without row "
                "offsets (indptr_d is NULL)", what);
    CMRS_ENSURE(M->nnz == 0 || (M->indices_d && M->values_d), CMRS_E_USAGE,
                "%s: device matrix of %lld entries without column indices or "
                "values", what, (long long)M->nnz);
    return CMRS_OK;
}

cmrs_csr cmrs_csr_view_counts(const cmrs_csr_view_d *M)
{
    cmrs_csr counts;
    memset(&counts, 0, sizeof counts);
    counts.rows = M->rows;
    counts.cols = M->cols;
    counts.nnz = M->nnz;
    return counts;
}
