/* Host side of CSR-B: the Bound array of each nnz fragment. */
#include "fmt_csrb.h"

#include <stdlib.h>
#include <string.h>

static cmrs_code check_limits(const cmrs_csr *A, int fragment)
{
    CMRS_ENSURE(fragment >= 32 && fragment <= 1024 && fragment % 32 == 0,
                CMRS_E_USAGE,
                "csrb: block size %d is not a multiple of 32 in [32, 1024]",
                fragment);
    /* Rows and entry offsets are int32 in the kernels; one fragment of
     * slack keeps the end of the last fragment representable too. */
    CMRS_ENSURE(A->rows <= INT32_MAX && A->nnz <= INT32_MAX - 1024,
                CMRS_E_LIMIT,
                "csrb: %lld rows, %lld nonzeros exceed the int32 limit of "
                "this format; use cmrs or cusparse",
                (long long)A->rows, (long long)A->nnz);
    return CMRS_OK;
}

cmrs_code cmrs_csrb_bounds_build(const cmrs_csr *A, int fragment,
                                 cmrs_csrb_bounds *out)
{
    memset(out, 0, sizeof *out);
    CMRS_CHECK(check_limits(A, fragment));
    int64_t blocks = (A->nnz + fragment - 1) / fragment;
    out->fragment = fragment;
    if (blocks == 0) return CMRS_OK;
    int32_t *bound = cmrs_malloc_array((size_t)blocks * 2, sizeof *bound);
    CMRS_ENSURE(bound, CMRS_E_NOMEM, "csrb: cannot allocate %lld bounds",
                (long long)blocks);
    /* Rows in order: a non-empty row touches fragments first..last; it is
     * the first row of the fragment where it is met first, and the last
     * row of every fragment it touches until a later row overwrites. */
    for (int64_t b = 0; b < blocks; ++b) bound[2 * b] = -1;
    for (int64_t r = 0; r < A->rows; ++r) {
        if (A->indptr[r] == A->indptr[r + 1]) continue;
        int64_t b0 = A->indptr[r] / fragment;
        int64_t b1 = (A->indptr[r + 1] - 1) / fragment;
        for (int64_t b = b0; b <= b1; ++b) {
            if (bound[2 * b] < 0) bound[2 * b] = (int32_t)r;
            bound[2 * b + 1] = (int32_t)r;
        }
    }
    out->blocks = blocks;
    out->bound = bound;
    return CMRS_OK;
}

void cmrs_csrb_bounds_free(cmrs_csrb_bounds *b)
{
    if (!b) return;
    free(b->bound);
    memset(b, 0, sizeof *b);
}
