/* Local rows sorted by column (halo.h): for inner back ends whose formats
 * need sorted rows (cuSPARSE CSR, the CMRS `sorted` variant merges rows as
 * sorted runs; AMG's products on the parts). Sorting gives up the bitwise
 * agreement with the global product: each row is then summed in its local
 * column order.
 *
 * A part whose entries are consecutive values of A (value_base, no map)
 * keeps no map: only its boundary rows move (their ghost columns, numbered
 * after the owned ones, came first in the global order), and the moved
 * entries are listed (patch_at, patch_from), a few per boundary row,
 * where a map would be 8 bytes an entry written to fresh pages, 1 GB a
 * part at 50M rows, in one thread (1.0-1.2 s of a 2-GPU setup at 50M). */
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/thread.h"
#include "halo.h"

/* What a chunk of rows collects: the moved entries (patches) and, while
 * it sorts a row, each entry's place before the sort. */
typedef struct sort_chunk {
    int64_t *at, *from, n, cap; /* the chunk's patches */
    int64_t *was, was_cap;      /* a row's entries' places before */
    int failed;                 /* an allocation failed */
} sort_chunk;

typedef struct sort_job {
    cmrs_halo_part *hp;
    sort_chunk chunk[CMRS_PARALLEL_CHUNKS];
} sort_job;

static int row_sorted(const int32_t *col, int64_t lo, int64_t hi)
{
    for (int64_t k = lo + 1; k < hi; ++k)
        if (col[k - 1] > col[k]) return 0;
    return 1;
}

/* Insertion sort of entries [lo, hi) by column, the values and `tag` (the
 * value map's entries, or the entries' places before: NULL, none) moved
 * alike (rows are short: a few to a few tens). */
static void sort_row(cmrs_csr *A, int64_t *tag, int64_t lo, int64_t hi)
{
    for (int64_t k = lo + 1; k < hi; ++k) {
        int32_t col = A->indices[k];
        double v = A->values[k];
        int64_t g = tag ? tag[k - lo] : 0, m = k;
        for (; m > lo && A->indices[m - 1] > col; --m) {
            A->indices[m] = A->indices[m - 1];
            A->values[m] = A->values[m - 1];
            if (tag) tag[m - lo] = tag[m - 1 - lo];
        }
        A->indices[m] = col;
        A->values[m] = v;
        if (tag) tag[m - lo] = g;
    }
}

/* Room for n more patches in c; 0 where it cannot grow. */
static int patch_room(sort_chunk *c, int64_t n)
{
    if (c->n + n <= c->cap) return 1;
    int64_t cap = 2 * (c->n + n);
    int64_t *at = realloc(c->at, (size_t)cap * sizeof *at);
    if (at) c->at = at;
    int64_t *from = realloc(c->from, (size_t)cap * sizeof *from);
    if (from) c->from = from;
    if (!at || !from) return 0;
    c->cap = cap;
    return 1;
}

/* An unsorted row [lo, hi) of a part without a map: sorted, each entry
 * that moved listed with its global index. 0: out of memory. */
static int sort_listed(cmrs_halo_part *hp, sort_chunk *c, int64_t lo,
                       int64_t hi)
{
    int64_t len = hi - lo;
    if (len > c->was_cap) {
        int64_t *was = realloc(c->was, (size_t)len * sizeof *was);
        if (!was) return 0;
        c->was = was;
        c->was_cap = len;
    }
    for (int64_t k = 0; k < len; ++k) c->was[k] = k;
    sort_row(&hp->A, c->was, lo, hi);
    if (!patch_room(c, len)) return 0;
    for (int64_t k = 0; k < len; ++k)
        if (c->was[k] != k) {
            c->at[c->n] = lo + k;
            c->from[c->n++] = hp->value_base + lo + c->was[k];
        }
    return 1;
}

/* A part's rows by threads (a pass over every entry: 250M at 50M rows). */
static void sort_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    sort_job *j = ctx;
    cmrs_halo_part *hp = j->hp;
    sort_chunk *c = &j->chunk[t];
    for (int64_t r = lo; r < hi && !c->failed; ++r) {
        int64_t b = hp->A.indptr[r], e = hp->A.indptr[r + 1];
        if (row_sorted(hp->A.indices, b, e)) continue;
        if (hp->value_of)
            sort_row(&hp->A, hp->value_of + b, b, e);
        else
            c->failed = !sort_listed(hp, c, b, e);
    }
}

/* The chunks' patches, in chunk order, into hp; the chunks' buffers
 * freed. */
static cmrs_code gather_patches(sort_job *j, int nt)
{
    cmrs_halo_part *hp = j->hp;
    cmrs_code rc = CMRS_OK;
    int64_t n = 0;
    for (int t = 0; t < nt; ++t) {
        n += j->chunk[t].n;
        if (j->chunk[t].failed)
            rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                                "allocate the sorted rows' moved entries");
    }
    if (rc == CMRS_OK && n > 0) {
        hp->patch_at = cmrs_malloc_array((size_t)n, sizeof *hp->patch_at);
        hp->patch_from = cmrs_malloc_array((size_t)n, sizeof *hp->patch_from);
        if (!hp->patch_at || !hp->patch_from)
            rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                                "allocate %lld moved entries", (long long)n);
    }
    for (int t = 0; t < nt; ++t) {
        sort_chunk *c = &j->chunk[t];
        if (rc == CMRS_OK && c->n > 0) {
            memcpy(hp->patch_at + hp->npatch, c->at,
                   (size_t)c->n * sizeof *c->at);
            memcpy(hp->patch_from + hp->npatch, c->from,
                   (size_t)c->n * sizeof *c->from);
            hp->npatch += c->n;
        }
        CMRS_FREE_ALL(c->at, c->from, c->was);
    }
    return rc;
}

/* Part hp's rows sorted (a part sorted before: none moves again). */
static cmrs_code sort_part(cmrs_halo_part *hp)
{
    sort_job j = {.hp = hp};
    int nt = cmrs_parallel_threads(hp->A.nnz, CMRS_DIST_GRAIN);
    cmrs_parallel_ranges(hp->A.rows, nt, sort_rows, &j);
    CMRS_CHECK(gather_patches(&j, nt));
    return CMRS_OK;
}

cmrs_code cmrs_halo_sort_rows(cmrs_halo *h)
{
    for (int p = 0; p < h->nparts; ++p)
        CMRS_CHECK(sort_part(&h->part[p]));
    return CMRS_OK;
}

void cmrs_halo_value_map(const cmrs_halo_part *hp, int64_t *out)
{
    for (int64_t e = 0; e < hp->A.nnz; ++e)
        out[e] = hp->value_of ? hp->value_of[e] : hp->value_base + e;
    if (hp->value_of) return; /* a map: no patches */
    for (int64_t k = 0; k < hp->npatch; ++k)
        out[hp->patch_at[k]] = hp->patch_from[k];
}
