/* cmrs_system_rhs_ones (cases.h): the default right-hand side of a file
 * without one, made above the readers (io/ takes b or nothing). */
#include <stdlib.h>

#include "base/memory.h"
#include "cases.h"

cmrs_code cmrs_system_rhs_ones(cmrs_system *sys, const char *what)
{
    if (sys->b) return CMRS_OK;
    int64_t rows = sys->A.rows, cols = sys->A.cols;
    double *ones = cmrs_malloc_array((size_t)cols, sizeof(double));
    sys->b = cmrs_malloc_array((size_t)rows, sizeof(double));
    if (!ones || !sys->b) {
        free(ones);
        free(sys->b);
        sys->b = NULL;
        CMRS_FAIL(CMRS_E_NOMEM, "%s: cannot allocate b = A*1", what);
    }
    for (int64_t j = 0; j < cols; ++j) ones[j] = 1.0;
    cmrs_csr_spmv(&sys->A, 1.0, ones, 0.0, sys->b);
    free(ones);
    sys->b_generated = 1;
    return CMRS_OK;
}
