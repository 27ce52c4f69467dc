/* The coarsest AMG level's host inverse (solver/amg/amg_dense.c): A inv = I to
 * rounding on SPD matrices up to 900 rows, exactly symmetric, and -1 for a
 * matrix that is not SPD. */
#include <stdlib.h>

#include "check.h"
#include "solver/amg/amg.h"
#include "tdense.h"

int main(void)
{
    cmrs_csr A;
    int spd;
    for (int k = 0; dense_case(k, &A, &spd); ++k) {
        int64_t n = A.rows;
        double *inv = malloc((size_t)(n * n) * sizeof *inv);
        int rc = cmrs_amg_dense_inverse(&A, inv);
        CHECK(rc == (spd ? 0 : -1), "case %d: returned %d", k, rc);
        if (spd && rc == 0) {
            double e = inverse_defect(&A, inv);
            CHECK(e < 1e-10, "case %d (%lld rows): |A inv - I| = %g", k,
                  (long long)n, e);
            CHECK(exactly_symmetric(n, inv), "case %d: not symmetric", k);
        }
        free(inv);
        cmrs_csr_free(&A);
    }
    return check_summary();
}
