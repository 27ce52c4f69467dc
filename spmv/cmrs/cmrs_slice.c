/* The sliced strips of the rows kernel's variants "sl" and "su"
 * (docs/CMRS.md):
 * the basic layout's strip pointers and packed words, with each strip
 * padded to its longest row and stored column-major, entry j of the
 * strip's row l at strip_ptr[s] + j * h_s + l (h_s: the strip's rows).
 * A warp's lanes (a row each) then read neighbouring words at every step,
 * as in SELL, and need only the strip pointer and their row's length
 * before their matrix loads. Padding: column 0, value 0 and the row tag
 * of the strip's next row (mod 16), never the row's own, so the kernel
 * tells entries from padding without row lengths. */
#include "cmrs_format.h"

#include <string.h>

static int64_t row_len(const cmrs_csr *A, int64_t r)
{
    return A->indptr[r + 1] - A->indptr[r];
}

/* Rows of strip s and its width: its longest row, or `width` if > 0. */
static void strip_shape(const cmrs_csr *A, int height, int64_t width,
                        int64_t s, int64_t *rows, int64_t *longest)
{
    const int64_t r0 = s * height;
    *rows = r0 + height < A->rows ? height : A->rows - r0;
    *longest = width;
    for (int64_t r = r0; width == 0 && r < r0 + *rows; ++r)
        if (row_len(A, r) > *longest) *longest = row_len(A, r);
}

static void fill_strip(const cmrs_csr *A, int height, int64_t width,
                       int64_t s, cmrs_mat *m)
{
    int64_t rows = 0, longest = 0;
    strip_shape(A, height, width, s, &rows, &longest);
    const int64_t r0 = s * height, base = m->strip_ptr[s];
    for (int64_t j = 0; j < longest; ++j)
        for (int64_t l = 0; l < rows; ++l) {
            const int64_t at = base + j * rows + l;
            const int in = j < row_len(A, r0 + l);
            const int64_t k = A->indptr[r0 + l] + j;
            m->colrow[at] = in ? cmrs_pack((uint32_t)A->indices[k], (uint32_t)l)
                               : cmrs_pack(0u, (uint32_t)(l + 1) & CMRS_ROW_MASK);
            m->values[at] = in ? A->values[k] : 0.0;
        }
}

cmrs_code cmrs_mat_from_csr_sliced(const cmrs_csr *A, int height, int uniform,
                                   cmrs_mat *m)
{
    int64_t width = 0;
    memset(m, 0, sizeof *m);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs"));
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "CMRS strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    const int64_t strips = (A->rows + height - 1) / height;
    int64_t stored = 0;
    for (int64_t r = 0; uniform && r < A->rows; ++r)
        if (row_len(A, r) > width) width = row_len(A, r);
    if (uniform && width == 0 && A->rows > 0) width = 1; /* all padding */
    for (int64_t s = 0; s < strips; ++s) {
        int64_t rows = 0, longest = 0;
        strip_shape(A, height, width, s, &rows, &longest);
        CMRS_ENSURE(longest <= CMRS_SLICE_MAX_ROW, CMRS_E_USAGE,
                    "cmrs: sl (sliced strips) takes rows of at most %d "
                    "entries; row lengths here reach %lld", CMRS_SLICE_MAX_ROW,
                    (long long)longest);
        stored += rows * longest;
    }
    CMRS_ENSURE(stored <= CMRS_MAX_ENTRIES, CMRS_E_LIMIT,
                "cmrs: sl (sliced strips) would store %lld entries with its "
                "padding; 32-bit strip pointers hold at most %lld",
                (long long)stored, (long long)CMRS_MAX_ENTRIES);
    /* one padding slot for a matrix without entries: allocations of 0 */
    CMRS_CHECK(cmrs_mat_alloc(m, A, height, stored > 0 ? stored : 1, 0));
    m->colrow[0] = 0;
    m->values[0] = 0.0;
    m->strip_ptr[0] = 0;
    for (int64_t s = 0; s < strips; ++s) {
        int64_t rows = 0, longest = 0;
        strip_shape(A, height, width, s, &rows, &longest);
        m->strip_ptr[s + 1] = m->strip_ptr[s] + (uint32_t)(rows * longest);
        fill_strip(A, height, width, s, m);
    }
    m->slice_width = (int)width;
    return CMRS_OK;
}
