/* cmrs_jacobi_row_error (solver/pc/jacobi.c): the message of the host's Jacobi
 * setup for one row, which the GPU setup gives for the first row its
 * device scan flagged. It must be the loop's message for that row, word
 * for word, and an internal error for a row that is fine. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "solver/backend/backend.h"
#include "systems.h"

/* The loop's message (cmrs_jacobi_inverse_diagonal) against the row's. */
static void same_message(const char *label, const cmrs_csr *A, int64_t row)
{
    char want[1024];
    double *d = malloc((size_t)A->rows * sizeof *d);
    cmrs_error_clear();
    CHECK(cmrs_jacobi_inverse_diagonal(A, "m", d) == CMRS_E_INPUT, "%s: loop",
          label);
    snprintf(want, sizeof want, "%s", cmrs_error_message());
    cmrs_error_clear();
    CHECK(cmrs_jacobi_row_error(A, "m", row) == CMRS_E_INPUT &&
              strcmp(cmrs_error_message(), want) == 0,
          "%s: '%s' vs '%s'", label, cmrs_error_message(), want);
    free(d);
}

int main(void)
{
    static const struct {
        const char *label;
        double value;
    } bad[] = {{"negative", -2.0}, {"zero", 0.0}, {"nan", NAN}};
    cmrs_csr A;
    double *diag = malloc(9 * sizeof *diag);
    for (int i = 0; i < 9; ++i) diag[i] = 3.0;
    tridiag(&A, 9, diag, -1.0);
    for (int i = 0; i < 3; ++i) { /* row 4's diagonal, one at a time */
        set_diagonal(&A, 4, bad[i].value);
        same_message(bad[i].label, &A, 4);
    }
    set_diagonal(&A, 4, 3.0);
    CHECK_FAILS(cmrs_jacobi_row_error(&A, "m", 6), CMRS_E_INTERNAL,
                "positive on the host"); /* row 6 is fine */
    CHECK_FAILS(cmrs_jacobi_row_error(&A, "m", 9), CMRS_E_INTERNAL,
                "row 9 flagged");
    CHECK_FAILS(cmrs_jacobi_row_error(&A, "m", -1), CMRS_E_INTERNAL, NULL);
    cmrs_csr_free(&A);
    /* Row 1 without a diagonal entry: (0,0) 2, (1,0) 1, (2,2) 2. */
    tbuild t;
    tb_init(&t, &A, 3, 3);
    tb_put(&t, 0, 2.0);
    tb_end_row(&t, 0);
    tb_put(&t, 0, 1.0);
    tb_end_row(&t, 1);
    tb_put(&t, 2, 2.0);
    tb_end_row(&t, 2);
    tb_done(&t);
    same_message("missing", &A, 1);
    cmrs_csr_free(&A);
    free(diag);
    return check_summary();
}
