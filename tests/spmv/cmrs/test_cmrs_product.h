/* Host tests of the CMRS formats: the error of the host CMRS product
 * (cmrs_mat_spmv) against the CPU reference on random x and y0, with y
 * poisoned with NaN when beta == 0 (it must not be read). */
#ifndef CMRS_TEST_CMRS_PRODUCT_H
#define CMRS_TEST_CMRS_PRODUCT_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spmv/cmrs/cmrs_format.h"
#include "spmv/ref.h"
#include "test_cmrs_matrices.h"

static inline double test_cmrs_product_error(const cmrs_mat *m,
                                             const cmrs_csr *A, double alpha,
                                             double beta)
{
    size_t n = (size_t)A->rows;
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y = cmrs_malloc_array(n, sizeof *y);
    double *y_ref = cmrs_malloc_array(n, sizeof *y_ref);
    cmrs_random_vector(x, A->cols, 5);
    cmrs_random_vector(y, A->rows, 6);
    if (beta == 0)
        for (size_t i = 0; i < n; ++i) y[i] = NAN;
    memcpy(y_ref, y, n * sizeof *y);
    cmrs_mat_spmv(m, alpha, x, beta, y);
    cmrs_ref_spmv(A, alpha, x, beta, y_ref);
    double err = cmrs_ref_rel_err(A->rows, y, y_ref);
    free(x);
    free(y);
    free(y_ref);
    return err;
}

#endif
