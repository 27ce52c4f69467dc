/* The diagonal scaling every preconditioner but none starts from (Jacobi,
 * the Chebyshev polynomial, the AMG smoothers): the inverted diagonal,
 * computed once in double on the host. */
#include "solver/backend/backend.h"

/* a_ii in *d (row i of A is global row row0 + i, its diagonal in that
 * column), or CMRS_E_INPUT saying why global row i cannot be scaled. */
static cmrs_code rows_diagonal(const cmrs_csr *A, int64_t row0,
                               const char *what, int64_t local, double *d)
{
    int found;
    int64_t i = row0 + local;
    *d = cmrs_csr_lookup(A, local, (int32_t)i, &found);
    CMRS_ENSURE(found, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row %lld "
                "(0-based) has no diagonal entry (use --precond none)",
                what, (long long)i);
    CMRS_ENSURE(*d >= 0, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row "
                "%lld (0-based) has a negative diagonal (%g): negative "
                "definite? solve -A (--negate), as for OpenFOAM pressure "
                "matrices", what, (long long)i, *d);
    CMRS_ENSURE(*d > 0, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row %lld "
                "(0-based) has a zero diagonal (use --precond none)", what,
                (long long)i);
    return CMRS_OK;
}

static cmrs_code row_diagonal(const cmrs_csr *A, const char *what, int64_t i,
                              double *d)
{
    return rows_diagonal(A, 0, what, i, d); /* A is square */
}

cmrs_code cmrs_jacobi_inverse_diagonal_rows(const cmrs_csr *A, int64_t row0,
                                            const char *what, double *dinv)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        double d;
        CMRS_CHECK(rows_diagonal(A, row0, what, i, &d));
        dinv[i] = 1.0 / d;
    }
    return CMRS_OK;
}

cmrs_code cmrs_jacobi_inverse_diagonal(const cmrs_csr *A, const char *what,
                                       double *dinv)
{
    return cmrs_jacobi_inverse_diagonal_rows(A, 0, what, dinv);
}

cmrs_code cmrs_jacobi_row_error(const cmrs_csr *A, const char *what,
                                int64_t i)
{
    double d;
    CMRS_ENSURE(i >= 0 && i < A->rows, CMRS_E_INTERNAL, "%s: diagonal "
                "scaling: row %lld flagged, the matrix has %lld", what,
                (long long)i, (long long)A->rows);
    CMRS_CHECK(row_diagonal(A, what, i, &d));
    CMRS_FAIL(CMRS_E_INTERNAL, "%s: diagonal scaling: the device flagged row "
              "%lld, whose diagonal (%g) is positive on the host", what,
              (long long)i, d);
}
