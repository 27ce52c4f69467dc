/* Jacobi preconditioner setup shared by the back ends: the inverted
 * diagonal, computed once in double on the host. */
#include "backend.h"

/* a_ii by binary search in the sorted row i; *found 0 when not stored. */
static double diagonal(const cmrs_csr *A, int64_t i, int *found)
{
    int64_t lo = A->indptr[i], hi = A->indptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->indices[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < A->indptr[i + 1] && A->indices[lo] == i;
    return *found ? A->values[lo] : 0.0;
}

cmrs_code cmrs_jacobi_inverse_diagonal(const cmrs_csr *A, const char *what,
                                       double *dinv)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        int found;
        double d = diagonal(A, i, &found);
        CMRS_ENSURE(found, CMRS_E_INPUT, "%s: Jacobi preconditioner: row %lld "
                    "(0-based) has no diagonal entry (use --precond none)",
                    what, (long long)i);
        CMRS_ENSURE(d >= 0, CMRS_E_INPUT, "%s: Jacobi preconditioner: row "
                    "%lld (0-based) has a negative diagonal (%g): negative "
                    "definite? solve -A (--negate), as for OpenFOAM pressure "
                    "matrices", what, (long long)i, d);
        CMRS_ENSURE(d > 0, CMRS_E_INPUT, "%s: Jacobi preconditioner: row %lld "
                    "(0-based) has a zero diagonal (use --precond none)", what,
                    (long long)i);
        dinv[i] = 1.0 / d;
    }
    return CMRS_OK;
}
