/* The interleaved strips of the rows kernel's variant "il" (docs/CMRS.md):
 * the basic layout's strips, strip pointers and packed words, with the
 * entries of a strip ordered by their place in the row first and the row
 * second: entry j of every row of the strip that has one, then entry j + 1.
 * A warp's lanes (a row each) then read neighbouring words at every step,
 * as ELL and SELL do, with no padding. Row lengths come from the same
 * 16-bit row offsets as the CSR-order layout's. */
#include "cmrs_format.h"

#include <string.h>

/* Length of row r. */
static int64_t row_len(const cmrs_csr *A, int64_t r)
{
    return A->indptr[r + 1] - A->indptr[r];
}

/* Strip s: entry j of row i goes to strip_ptr[s] + sum over the strip's
 * rows i' of min(len(i'), j) + #{i' < i : len(i') > j}, the position the
 * kernel computes with a ballot per step. */
static void interleave_strip(const cmrs_csr *A, int height, int64_t s,
                             cmrs_mat *m)
{
    const int64_t r0 = s * height;
    const int64_t r1 = r0 + height < A->rows ? r0 + height : A->rows;
    int64_t longest = 0, pos = A->indptr[r0];
    for (int64_t r = r0; r < r1; ++r)
        if (row_len(A, r) > longest) longest = row_len(A, r);
    for (int64_t j = 0; j < longest; ++j)
        for (int64_t r = r0; r < r1; ++r) {
            if (row_len(A, r) <= j) continue;
            const int64_t k = A->indptr[r] + j;
            m->colrow[pos] = cmrs_pack((uint32_t)A->indices[k],
                                       (uint32_t)(r - r0));
            m->values[pos] = A->values[k];
            ++pos;
        }
}

cmrs_code cmrs_mat_from_csr_interleaved(const cmrs_csr *A, int height,
                                        cmrs_mat *m)
{
    memset(m, 0, sizeof *m);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs"));
    CMRS_CHECK(cmrs_mat_alloc(m, A, height, A->nnz, 0));
    for (int64_t s = 0; s < m->strips; ++s) {
        m->strip_ptr[s] = (uint32_t)A->indptr[s * height];
        interleave_strip(A, height, s, m);
    }
    m->strip_ptr[m->strips] = (uint32_t)A->nnz;
    return CMRS_OK;
}
