/* The diagonal scaling every preconditioner but none starts from (Jacobi,
 * the Chebyshev polynomial, the AMG smoothers): the inverted diagonal,
 * computed once in double on the host. */
#include "base/thread.h"
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

/* D^-1 by threads over the rows; each records its first row that cannot
 * be scaled (errors are thread-local: the caller reports the first of
 * all again in its own thread, the serial loop's message). */
typedef struct dinv_job {
    const cmrs_csr *A;
    int64_t row0;
    const char *what;
    double *dinv;
    int64_t bad[CMRS_PARALLEL_CHUNKS]; /* per chunk: its first bad local
                                          row, or -1 */
} dinv_job;

static void dinv_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    dinv_job *j = ctx;
    j->bad[t] = -1;
    for (int64_t i = lo; i < hi; ++i) {
        double d;
        if (rows_diagonal(j->A, j->row0, j->what, i, &d) != CMRS_OK) {
            j->bad[t] = i;
            return;
        }
        j->dinv[i] = 1.0 / d;
    }
}

cmrs_code cmrs_jacobi_inverse_diagonal_rows(const cmrs_csr *A, int64_t row0,
                                            const char *what, double *dinv)
{
    dinv_job j = {.A = A, .row0 = row0, .what = what, .dinv = dinv};
    int nt = cmrs_parallel_threads(A->rows, (int64_t)1 << 18);
    cmrs_parallel_ranges(A->rows, nt, dinv_rows, &j);
    for (int t = 0; t < nt; ++t)
        if (j.bad[t] >= 0) {
            double d;
            return rows_diagonal(A, row0, what, j.bad[t], &d);
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
