/* Reverse Cuthill-McKee: see rcm.h. Workspace is three int32/int64 arrays
 * of one entry per row plus one longest-row buffer. */
#include "csr_rcm.h"

#include <stdlib.h>

#include "memory.h"

#define NUMBERED (-1) /* mark of a node already in the final order */

typedef struct rcm_work {
    const cmrs_csr *A;
    int32_t *mark;   /* 0 unseen, NUMBERED, or the stamp of a search BFS */
    int32_t stamp;   /* current search stamp */
    int32_t *queue;  /* scratch queue of the searches */
    int32_t *order;  /* Cuthill-McKee order (old ids) */
    int64_t *nbuf;   /* (degree << 32 | id) keys of one node's neighbours */
} rcm_work;

static int64_t degree(const cmrs_csr *A, int64_t v)
{
    return A->indptr[v + 1] - A->indptr[v];
}

/* A new stamp; when they run out, forget the marks of old searches. */
static int32_t next_stamp(rcm_work *w)
{
    if (w->stamp == INT32_MAX) {
        for (int64_t i = 0; i < w->A->rows; ++i)
            if (w->mark[i] > 0) w->mark[i] = 0;
        w->stamp = 0;
    }
    return ++w->stamp;
}

/* Level-structure BFS from root over unnumbered nodes. Returns the
 * eccentricity of root; the last level is queue[*last_begin, *last_end). */
static int64_t bfs_levels(rcm_work *w, int32_t root, int64_t *last_begin,
                          int64_t *last_end)
{
    const cmrs_csr *A = w->A;
    int32_t stamp = next_stamp(w);
    int64_t head = 0, tail = 1, level_begin = 0, level_end = 1, depth = 0;
    w->queue[0] = root;
    w->mark[root] = stamp;
    while (head < tail) {
        if (head == level_end) {
            level_begin = head;
            level_end = tail;
            ++depth;
        }
        int32_t v = w->queue[head++];
        for (int64_t k = A->indptr[v]; k < A->indptr[v + 1]; ++k) {
            int32_t u = A->indices[k];
            if (w->mark[u] == stamp || w->mark[u] == NUMBERED) continue;
            w->mark[u] = stamp;
            w->queue[tail++] = u;
        }
    }
    *last_begin = level_begin;
    *last_end = level_end;
    return depth;
}

/* George-Liu: restart from a minimum-degree node of the last level while
 * that increases the eccentricity (a few rounds at most in practice). */
static int32_t pseudo_peripheral(rcm_work *w, int32_t start)
{
    int64_t begin, end;
    int32_t root = start;
    int64_t ecc = bfs_levels(w, root, &begin, &end);
    for (int round = 0; round < 16; ++round) {
        int32_t best = w->queue[begin];
        for (int64_t q = begin + 1; q < end; ++q)
            if (degree(w->A, w->queue[q]) < degree(w->A, best))
                best = w->queue[q];
        int64_t ecc_best = bfs_levels(w, best, &begin, &end);
        if (ecc_best <= ecc) break;
        root = best;
        ecc = ecc_best;
    }
    return root;
}

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Cuthill-McKee BFS from root, appending to order at *pos: the unnumbered
 * neighbours of each node in order of increasing degree (ties: lower id). */
static void cm_bfs(rcm_work *w, int32_t root, int64_t *pos)
{
    const cmrs_csr *A = w->A;
    int64_t head = *pos, tail = *pos;
    w->order[tail++] = root;
    w->mark[root] = NUMBERED;
    while (head < tail) {
        int32_t v = w->order[head++];
        size_t n = 0;
        for (int64_t k = A->indptr[v]; k < A->indptr[v + 1]; ++k) {
            int32_t u = A->indices[k];
            if (w->mark[u] == NUMBERED) continue;
            w->mark[u] = NUMBERED;
            w->nbuf[n++] = (degree(A, u) << 32) | u;
        }
        qsort(w->nbuf, n, sizeof *w->nbuf, cmp_key);
        for (size_t i = 0; i < n; ++i)
            w->order[tail++] = (int32_t)(w->nbuf[i] & 0xffffffff);
    }
    *pos = tail;
}

static int64_t longest_row(const cmrs_csr *A)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (degree(A, i) > longest) longest = degree(A, i);
    return longest;
}

cmrs_code cmrs_rcm_perm(const cmrs_csr *A, int32_t *new_of_old)
{
    size_t n = (size_t)A->rows;
    rcm_work w = {A, calloc(n ? n : 1, sizeof(int32_t)), 0,
                  cmrs_malloc_array(n, sizeof(int32_t)),
                  cmrs_malloc_array(n, sizeof(int32_t)),
                  cmrs_malloc_array((size_t)longest_row(A), sizeof(int64_t))};
    cmrs_code rc = CMRS_OK;
    if (!w.mark || !w.queue || !w.order || !w.nbuf)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate RCM workspace for %lld "
                      "rows", (long long)A->rows);
    int64_t pos = 0;
    for (int64_t s = 0; s < A->rows; ++s)
        if (w.mark[s] != NUMBERED)
            cm_bfs(&w, pseudo_peripheral(&w, (int32_t)s), &pos);
    if (pos != A->rows)
        CMRS_TRY_FAIL(CMRS_E_INTERNAL, "RCM numbered %lld of %lld rows",
                      (long long)pos, (long long)A->rows);
    for (int64_t k = 0; k < A->rows; ++k) /* reversed */
        new_of_old[w.order[k]] = (int32_t)(A->rows - 1 - k);
done:
    CMRS_FREE_ALL(w.mark, w.queue, w.order, w.nbuf);
    return rc;
}
