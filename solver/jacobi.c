/* The diagonal scaling every preconditioner but none starts from (Jacobi,
 * the Chebyshev polynomial, the AMG smoothers): the inverted diagonal,
 * computed once in double on the host. */
#include "backend.h"

cmrs_code cmrs_jacobi_inverse_diagonal(const cmrs_csr *A, const char *what,
                                       double *dinv)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        int found;
        double d = cmrs_csr_lookup(A, i, (int32_t)i, &found); /* A is square */
        CMRS_ENSURE(found, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row %lld "
                    "(0-based) has no diagonal entry (use --precond none)",
                    what, (long long)i);
        CMRS_ENSURE(d >= 0, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row "
                    "%lld (0-based) has a negative diagonal (%g): negative "
                    "definite? solve -A (--negate), as for OpenFOAM pressure "
                    "matrices", what, (long long)i, d);
        CMRS_ENSURE(d > 0, CMRS_E_INPUT, "%s: diagonal scaling (jacobi, chebyshev, amg): row %lld "
                    "(0-based) has a zero diagonal (use --precond none)", what,
                    (long long)i);
        dinv[i] = 1.0 / d;
    }
    return CMRS_OK;
}
