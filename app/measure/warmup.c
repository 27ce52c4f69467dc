/* The warm-up system (warmup.h). */
#include "warmup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cmrs_code cmrs_warmup_system(int64_t n, cmrs_system *sys)
{
    memset(sys, 0, sizeof *sys);
    CMRS_CHECK(cmrs_csr_alloc(&sys->A, n, n, n > 0 ? 3 * n - 2 : 0));
    sys->b = cmrs_malloc_array((size_t)n, sizeof *sys->b);
    if (!sys->b) {
        cmrs_system_free(sys);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the warm-up system");
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j) {
            if (j < 0 || j >= n) continue;
            sys->A.indices[k] = (int32_t)j;
            sys->A.values[k++] = j == i ? 4.0 : -1.0;
        }
        sys->A.indptr[i + 1] = k;
        sys->b[i] = 1.0;
    }
    snprintf(sys->layout, sizeof sys->layout, "warm-up");
    return CMRS_OK;
}
