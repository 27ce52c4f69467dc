/* The modified CMRS layout of paper 000 §6.7 (format "cmrs-mod").
 *
 * The kernel reads a strip in chunks of 32 entries (one per lane) and adds
 * lane i's product into the shared buffer slot (i % M, row_in_strip), with a
 * buffer of only M x 16 slots per warp. That is race-free only if, inside a
 * chunk, no two entries of one row sit at positions equal modulo M. The
 * paper's recipe: a chunk holds at most M entries of a row, stored
 * contiguously (M consecutive positions have distinct residues mod M), and
 * strips are zero-padded to a multiple of 32 so every chunk is aligned.
 *
 * Per strip of n entries we pick which entries share a chunk, then order each
 * chunk by row (stably) and pad it:
 *  - blocked: chunk c = entries 32c..32c+31 of the strip's sequence (CSR
 *    order, or sorted by column); allowed when no chunk gets more than M
 *    entries of a row. ceil(n/32) chunks: no padding beyond the last chunk.
 *  - dealt: otherwise, C = max(ceil(n/32), max_r ceil(len_r / M)) chunks and
 *    entry i of the CSR-ordered strip goes to chunk i % C, so a row of
 *    length L lands at most ceil(L/C) <= M times in any chunk. C is the least
 *    possible, so padding is only what long rows force.
 * Padding entries (value 0) take the column of their chunk's first entry (an
 * address the warp loads anyway) and a row whose slot is free at their
 * residue: preferably a slot >= height, which the kernel never reduces. A
 * free row always exists for M >= 2: a residue has 32/M <= 16 positions. */
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "cmrs_format.h"

static int modulo_ok(int modulo)
{
    return modulo == 2 || modulo == 4 || modulo == 8 || modulo == 16 ||
           modulo == 32;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int blocked_fits(const uint32_t *keys, int64_t n, int modulo)
{
    for (int64_t c0 = 0; c0 < n; c0 += CMRS_CHUNK) {
        int count[CMRS_MAX_HEIGHT] = {0};
        for (int64_t k = c0; k < n && k < c0 + CMRS_CHUNK; ++k)
            if (++count[cmrs_row_of(keys[k])] > modulo) return 0;
    }
    return 1;
}

/* Chunks of strip s; *blocked = 1 when the sequence keys[0..n) can be cut
 * into consecutive chunks. */
static int64_t strip_chunks(const cmrs_csr *A, int height, int64_t s,
                            const uint32_t *keys, int64_t n, int modulo,
                            int *blocked)
{
    int64_t chunks = ceil_div(n, CMRS_CHUNK);
    *blocked = blocked_fits(keys, n, modulo);
    if (*blocked) return chunks;
    int64_t r1 = s * height + height < A->rows ? s * height + height : A->rows;
    for (int64_t r = s * height; r < r1; ++r) {
        int64_t need = ceil_div(A->indptr[r + 1] - A->indptr[r], modulo);
        if (need > chunks) chunks = need;
    }
    return chunks;
}

/* A row for a padding entry whose residue's slots hold the rows in `used`. */
static uint32_t pad_row(unsigned used, int height, uint32_t row0)
{
    for (int r = height; r < CMRS_MAX_HEIGHT; ++r) /* never-reduced slot */
        if (!(used >> r & 1u)) return (uint32_t)r;
    if (!(used >> row0 & 1u)) return row0; /* row0 already reads the column */
    for (int r = 0; r < CMRS_MAX_HEIGHT; ++r)
        if (!(used >> r & 1u)) return (uint32_t)r;
    return 0; /* unreachable for modulo >= 2; cmrs_mat_validate catches it */
}

/* Writes n (1..32) entries as one 32-entry chunk: stable by row, padded. */
static void emit_chunk(const uint32_t *keys, const double *vals, int n,
                       int height, int modulo, uint32_t *out_keys,
                       double *out_vals, uint8_t *fill)
{
    int next[CMRS_MAX_HEIGHT + 1] = {0};
    for (int k = 0; k < n; ++k) ++next[cmrs_row_of(keys[k]) + 1];
    for (int r = 0; r < CMRS_MAX_HEIGHT; ++r) next[r + 1] += next[r];
    for (int k = 0; k < n; ++k) {
        int pos = next[cmrs_row_of(keys[k])]++;
        out_keys[pos] = keys[k];
        out_vals[pos] = vals[k];
    }
    unsigned used[CMRS_CHUNK] = {0}; /* per residue: rows holding a slot */
    for (int p = 0; p < n; ++p)
        used[p % modulo] |= 1u << cmrs_row_of(out_keys[p]);
    for (int p = n; p < CMRS_CHUNK; ++p) {
        uint32_t r = pad_row(used[p % modulo], height,
                             cmrs_row_of(out_keys[0]));
        used[p % modulo] |= 1u << r;
        out_keys[p] = cmrs_pack(cmrs_col_of(out_keys[0]), r);
        out_vals[p] = 0.0;
    }
    *fill = (uint8_t)n;
}

typedef struct strip_work {
    uint32_t *keys, *csr_keys; /* the strip's sequence; its CSR order */
    double *vals, *csr_vals;
    cmrs_strip_scratch sort;   /* all NULL when the strips stay unsorted */
    uint32_t chunk_keys[CMRS_CHUNK];
    double chunk_vals[CMRS_CHUNK];
} strip_work;

/* The strip's sequence: sorted by column when the scratch is there. */
static int64_t strip_sequence(const cmrs_csr *A, int height, int64_t s,
                              strip_work *w)
{
    return cmrs_strip_entries(A, height, s, w->sort.keys ? &w->sort : NULL,
                              w->keys, w->vals);
}

/* Fills strip s of m starting at m->strip_ptr[s] with `chunks` chunks. */
static void emit_strip(const cmrs_csr *A, cmrs_mat *m, int64_t s,
                       strip_work *w, int64_t n, int64_t chunks, int blocked)
{
    const uint32_t *keys = w->keys;
    const double *vals = w->vals;
    if (!blocked && m->sorted) { /* dealing needs rows contiguous */
        cmrs_strip_entries(A, m->height, s, NULL, w->csr_keys, w->csr_vals);
        keys = w->csr_keys;
        vals = w->csr_vals;
    }
    int64_t base = m->strip_ptr[s];
    for (int64_t c = 0; c < chunks; ++c) {
        int count = 0;
        for (int64_t i = blocked ? c * CMRS_CHUNK : c;
             i < n && (!blocked || i < (c + 1) * CMRS_CHUNK);
             i += blocked ? 1 : chunks, ++count) {
            w->chunk_keys[count] = keys[i];
            w->chunk_vals[count] = vals[i];
        }
        int64_t at = base + c * CMRS_CHUNK;
        emit_chunk(w->chunk_keys, w->chunk_vals, count, m->height, m->modulo,
                   m->colrow + at, m->values + at,
                   m->chunk_fill + at / CMRS_CHUNK);
    }
}

/* First pass: the padded size of every strip, into strip_ptr. */
static cmrs_code plan_strips(const cmrs_csr *A, int height, int modulo,
                             strip_work *w, uint32_t *strip_ptr,
                             int64_t strips)
{
    int64_t total = 0;
    strip_ptr[0] = 0;
    for (int64_t s = 0; s < strips; ++s) {
        int blocked;
        int64_t n = strip_sequence(A, height, s, w);
        total += CMRS_CHUNK * strip_chunks(A, height, s, w->keys, n, modulo,
                                           &blocked);
        CMRS_ENSURE(total <= CMRS_MAX_ENTRIES, CMRS_E_LIMIT,
                    "cmrs-mod: padding strips to multiples of %d needs more "
                    "than %lld stored entries (32-bit strip pointers); use "
                    "the cmrs format or a larger modulo", CMRS_CHUNK,
                    (long long)CMRS_MAX_ENTRIES);
        strip_ptr[s + 1] = (uint32_t)total;
    }
    return CMRS_OK;
}

static cmrs_code alloc_work(strip_work *w, const cmrs_csr *A, int height,
                            int sorted)
{
    size_t n = (size_t)cmrs_longest_strip(A, height);
    if (sorted) CMRS_CHECK(cmrs_strip_scratch_alloc(A, height, &w->sort));
    w->keys = cmrs_malloc_array(n, sizeof *w->keys);
    w->csr_keys = cmrs_malloc_array(n, sizeof *w->csr_keys);
    w->vals = cmrs_malloc_array(n, sizeof *w->vals);
    w->csr_vals = cmrs_malloc_array(n, sizeof *w->csr_vals);
    CMRS_ENSURE(w->keys && w->csr_keys && w->vals && w->csr_vals,
                CMRS_E_NOMEM, "cmrs-mod: cannot allocate a strip buffer of "
                "%zu entries", n);
    return CMRS_OK;
}

static void free_work(strip_work *w)
{
    CMRS_FREE_ALL(w->keys, w->csr_keys, w->vals, w->csr_vals);
    cmrs_strip_scratch_free(&w->sort);
}

cmrs_code cmrs_mat_from_csr_mod(const cmrs_csr *A, int height, int modulo,
                                int sorted, cmrs_mat *m)
{
    cmrs_code rc = CMRS_OK;
    strip_work w = {0};
    uint32_t *plan = NULL;
    memset(m, 0, sizeof *m);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs-mod"));
    CMRS_ENSURE(modulo_ok(modulo), CMRS_E_USAGE, "cmrs-mod: modulo %d is not "
                "one of 2, 4, 8, 16, 32", modulo);
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs-mod: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    int64_t strips = (A->rows + height - 1) / height;
    plan = cmrs_malloc_array((size_t)strips + 1, sizeof *plan);
    if (!plan) CMRS_TRY_FAIL(CMRS_E_NOMEM, "cmrs-mod: cannot allocate %lld "
                             "strip pointers", (long long)strips + 1);
    CMRS_TRY(alloc_work(&w, A, height, sorted != 0));
    CMRS_TRY(plan_strips(A, height, modulo, &w, plan, strips));
    CMRS_TRY(cmrs_mat_alloc(m, A, height, plan[strips], 1));
    m->sorted = sorted != 0;
    m->modulo = modulo;
    memcpy(m->strip_ptr, plan, ((size_t)strips + 1) * sizeof *plan);
    for (int64_t s = 0; s < strips; ++s) {
        int blocked;
        int64_t n = strip_sequence(A, height, s, &w);
        int64_t chunks =
            strip_chunks(A, height, s, w.keys, n, modulo, &blocked);
        emit_strip(A, m, s, &w, n, chunks, blocked);
    }
done:
    free(plan);
    free_work(&w);
    return rc;
}
