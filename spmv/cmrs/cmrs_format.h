/* The CMRS format on the host (paper 000 §3, §4 and §6.7).
 *
 * A matrix of `rows` rows is cut into strips of `height` (1..16) consecutive
 * rows; strip j holds rows j*height .. j*height+height-1 (the last strip may
 * be shorter). The entries of a strip are stored in one contiguous run,
 * strip_ptr[j] .. strip_ptr[j+1]-1, in any order inside the strip; each entry
 * keeps its value and one packed 32-bit word
 *     colrow = column << 4 | row_in_strip        (28-bit column, 4-bit row)
 * so StripPtr[j] = RowPtr[j*height] and the paper's RowInStrip array lives in
 * the low CMRS_ROW_BITS bits of ColInd, exactly as in the paper's kernel.
 *
 * Two layouts share this struct:
 *  - basic ("cmrs"): no padding, stored == nnz. Entries of a strip in CSR
 *    order, or sorted by column (ties by row) when `sorted`, the paper's
 *    optional reordering that groups the x reads of neighbouring rows.
 *  - modified ("cmrs-mod", §6.7): every strip is zero-padded to a multiple of
 *    32 entries, so each warp iteration reads one aligned 32-entry chunk, and
 *    the entries are placed so that the lanes of one chunk never hit the same
 *    slot (lane % modulo, row_in_strip) of the kernel's modulo buffer (see
 *    cmrs_mat_from_csr_mod). Padding entries have value 0, a column already
 *    read by their chunk and a collision-free row; chunk_fill says which
 *    entries are padding so the conversion back to CSR is exact.
 *
 * Limits (checked, never assumed): cols <= 2^28 - 1 (28-bit columns),
 * rows <= INT32_MAX, stored entries <= CMRS_MAX_ENTRIES (32-bit strip
 * pointers with headroom for the kernels' unsigned loop indices); beyond
 * them conversion fails with CMRS_E_LIMIT. docs/CMRS.md explains the choice.
 */
#ifndef CMRS_CMRS_FORMAT_H
#define CMRS_CMRS_FORMAT_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_ROW_BITS 4
#define CMRS_ROW_MASK 15u
#define CMRS_MAX_HEIGHT 16
#define CMRS_MAX_COLS ((int64_t)(1 << 28) - 1)
/* 2^32 - 256: a kernel index j < end <= this may still add 2*32 + 31
 * without wrapping around in 32 bits. */
#define CMRS_MAX_ENTRIES ((int64_t)0xFFFFFF00u)
#define CMRS_CHUNK 32 /* warp size: entries a warp reads per iteration */

typedef struct cmrs_mat {
    int64_t rows, cols;
    int height;          /* rows per strip, 1..16 */
    int sorted;          /* 1: entries ordered by column inside strips */
    int modulo;          /* cmrs-mod buffer size (2..32); 0: basic layout */
    int64_t strips;      /* ceil(rows / height) */
    int64_t nnz;         /* entries of the CSR matrix */
    int64_t stored;      /* entries stored, zero padding included */
    int slice_width;     /* sliced strips padded to one width (the longest
                            row): that width; 0 otherwise */
    uint32_t *strip_ptr; /* strips + 1 offsets into colrow/values */
    uint32_t *colrow;    /* stored packed column << 4 | row_in_strip */
    double *values;      /* stored values (0 for padding) */
    /* cmrs-mod only (NULL otherwise): for chunk k (entries 32k..32k+31)
     * the count of real entries, which come first in the chunk. */
    uint8_t *chunk_fill;
} cmrs_mat;

static inline uint32_t cmrs_pack(uint32_t col, uint32_t row_in_strip)
{
    return col << CMRS_ROW_BITS | row_in_strip;
}
static inline uint32_t cmrs_col_of(uint32_t colrow)
{
    return colrow >> CMRS_ROW_BITS;
}
static inline uint32_t cmrs_row_of(uint32_t colrow)
{
    return colrow & CMRS_ROW_MASK;
}

/* 1 if stored entry j is zero padding (only cmrs-mod pads). */
static inline int cmrs_mat_is_padding(const cmrs_mat *m, int64_t j)
{
    return m->chunk_fill && j % CMRS_CHUNK >= m->chunk_fill[j / CMRS_CHUNK];
}

/* CMRS_E_LIMIT unless A (only its sizes are read) fits the format's limits
 * above; `what` names the format in the message. */
cmrs_code cmrs_mat_check_limits(const cmrs_csr *A, const char *what);

/* Basic layout of a valid CSR matrix A with strip height 1..16; sorted: 1
 * orders each strip by column, 0 keeps CSR order. *m is allocated (free
 * with cmrs_mat_free). Bad height: CMRS_E_USAGE. */
cmrs_code cmrs_mat_from_csr(const cmrs_csr *A, int height, int sorted,
                            cmrs_mat *m);

/* Modified layout (§6.7) with modulo 2, 4, 8, 16 or 32 and height 1..16
 * (the paper uses 16). Fails with CMRS_E_LIMIT if padding pushes the stored
 * entries beyond CMRS_MAX_ENTRIES. */
cmrs_code cmrs_mat_from_csr_mod(const cmrs_csr *A, int height, int modulo,
                                int sorted, cmrs_mat *m);

/* The CSR matrix m was built from, bit for bit (padding dropped). *A is
 * allocated. */
cmrs_code cmrs_mat_to_csr(const cmrs_mat *m, cmrs_csr *A);

/* Checks every invariant of m: strip pointers, packed rows and columns in
 * range, and for cmrs-mod the 32-alignment of strips, the chunk fills and
 * that no two lanes of a chunk share a modulo-buffer slot. A violation is a
 * bug of the conversion: CMRS_E_INTERNAL naming the strip and entry. */
cmrs_code cmrs_mat_validate(const cmrs_mat *m);

/* Host product y = alpha*A*x + beta*y that follows the GPU algorithm: per
 * strip, lane = position % 32 of each entry adds v*x[col] into buffer slot
 * (lane % M, row_in_strip) (M = modulo, 32 for basic), then the slots are
 * reduced per row. beta == 0: y is not read. */
void cmrs_mat_spmv(const cmrs_mat *m, double alpha, const double *x,
                   double beta, double *y);

/* stored / nnz: the memory overhead of padding (1 when nnz == 0). */
double cmrs_mat_padding_ratio(const cmrs_mat *m);

void cmrs_mat_free(cmrs_mat *m); /* NULL-safe, idempotent */

/* Sliced strips (the rows kernel's variants "sl" and "su", cmrs_slice.c):
 * each strip padded to its longest row (or, su, all to the longest of the
 * matrix) and stored column-major, entry j of the strip's row l at
 * strip_ptr[s] + j * h_s + l; padding entries have column 0, value 0 and
 * another row's tag. Rows of at most CMRS_SLICE_MAX_ROW entries (the
 * bound of sl's first version, which read 16-bit row lengths; the kernels
 * now tell padding by its tag, and su's GPU build has no such bound);
 * CMRS_E_LIMIT when the padded layout outgrows the 32-bit strip pointers. */
#define CMRS_SLICE_MAX_ROW 65535
/* uniform: every strip padded to the matrix's longest row (ELL-like), so
 * strip s starts at s * height * width and m->slice_width = width. */
cmrs_code cmrs_mat_from_csr_sliced(const cmrs_csr *A, int height, int uniform,
                                   cmrs_mat *m);

/* Helpers shared by the two layouts (cmrs_format.c). */
/* Allocates the arrays of *m for `stored` entries (zeroing *m first). */
cmrs_code cmrs_mat_alloc(cmrs_mat *m, const cmrs_csr *A, int height,
                         int64_t stored, int with_chunk_fill);
/* Entries in the longest strip of A. */
int64_t cmrs_longest_strip(const cmrs_csr *A, int height);
/* Scratch for sorting the strips of A: two arrays of its longest strip;
 * alloc fills a zeroed *w (free it even when alloc fails). */
typedef struct cmrs_strip_scratch {
    uint32_t *keys;
    double *vals;
} cmrs_strip_scratch;
cmrs_code cmrs_strip_scratch_alloc(const cmrs_csr *A, int height,
                                   cmrs_strip_scratch *w);
void cmrs_strip_scratch_free(cmrs_strip_scratch *w); /* idempotent */
/* The entries of strip s of A, packed, into keys[0..n) and vals[0..n);
 * returns n. sort == NULL: CSR order; else sorted by (column, row) (the
 * rows, each sorted, are merged through the scratch). */
int64_t cmrs_strip_entries(const cmrs_csr *A, int height, int64_t s,
                           cmrs_strip_scratch *sort, uint32_t *keys,
                           double *vals);

#ifdef __cplusplus
}
#endif

#endif
