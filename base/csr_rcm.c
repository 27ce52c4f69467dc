/* Level-structure orderings (RCM and plain BFS): see csr_rcm.h. One
 * breadth-first search serves the pseudo-peripheral search and the
 * numbering of both orders; RCM only adds the degree sort and the reversal.
 * Workspace: three int32 arrays of one entry per row, plus, for RCM, one
 * longest-row buffer of int64 sort keys. */
#include "csr_rcm.h"

#include <stdlib.h>

#include "memory.h"

#define NUMBERED (-1) /* mark of a node already in the final order */

typedef struct level_work {
    const cmrs_csr *A;
    int32_t *mark;   /* 0 unseen, NUMBERED, or the stamp of a search BFS */
    int32_t stamp;   /* current search stamp */
    int32_t *queue;  /* scratch queue of the searches */
    int32_t *order;  /* the numbering searches' order (old ids) */
    int64_t *nbuf;   /* RCM: (degree << 32 | id) keys of one node's
                      * neighbours; NULL: neighbours in row order */
} level_work;

/* What one search found: `count` nodes written, the root's eccentricity
 * `depth`, and its last level starting at `last_begin` of the output. */
typedef struct bfs_result {
    int64_t count, depth, last_begin;
} bfs_result;

static int64_t degree(const cmrs_csr *A, int64_t v)
{
    return A->indptr[v + 1] - A->indptr[v];
}

/* A new stamp; when they run out, forget the marks of old searches. */
static int32_t next_stamp(level_work *w)
{
    if (w->stamp == INT32_MAX) {
        for (int64_t i = 0; i < w->A->rows; ++i)
            if (w->mark[i] > 0) w->mark[i] = 0;
        w->stamp = 0;
    }
    return ++w->stamp;
}

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Appends to out at `tail` the neighbours of v that are neither numbered
 * nor marked `mark` yet, marking them; with by_degree (and w->nbuf) by
 * increasing degree, ties by lower id, else in row order. Returns the new
 * tail. */
static int64_t queue_neighbours(level_work *w, int32_t v, int32_t mark,
                                int by_degree, int32_t *out, int64_t tail)
{
    const cmrs_csr *A = w->A;
    size_t n = 0;
    for (int64_t k = A->indptr[v]; k < A->indptr[v + 1]; ++k) {
        int32_t u = A->indices[k];
        if (w->mark[u] == mark || w->mark[u] == NUMBERED) continue;
        w->mark[u] = mark;
        if (by_degree) w->nbuf[n++] = (degree(A, u) << 32) | u;
        else out[tail++] = u;
    }
    if (!by_degree) return tail;
    qsort(w->nbuf, n, sizeof *w->nbuf, cmp_key);
    for (size_t i = 0; i < n; ++i)
        out[tail++] = (int32_t)(w->nbuf[i] & 0xffffffff);
    return tail;
}

/* The breadth-first search of both uses: from root over the unnumbered
 * nodes, writing them to out in the order visited, each marked `mark` (a
 * search's stamp, or NUMBERED when it numbers them). */
static bfs_result bfs(level_work *w, int32_t root, int32_t mark,
                      int by_degree, int32_t *out)
{
    int64_t head = 0, tail = 1, level_begin = 0, level_end = 1, depth = 0;
    out[0] = root;
    w->mark[root] = mark;
    while (head < tail) {
        if (head == level_end) {
            level_begin = head;
            level_end = tail;
            ++depth;
        }
        tail = queue_neighbours(w, out[head++], mark, by_degree, out, tail);
    }
    return (bfs_result){tail, depth, level_begin};
}

/* George-Liu: restart from a minimum-degree node of the last level while
 * that increases the eccentricity (a few rounds at most in practice). */
static int32_t pseudo_peripheral(level_work *w, int32_t start)
{
    int32_t root = start;
    bfs_result levels = bfs(w, root, next_stamp(w), 0, w->queue);
    for (int round = 0; round < 16; ++round) {
        int32_t best = w->queue[levels.last_begin];
        for (int64_t q = levels.last_begin + 1; q < levels.count; ++q)
            if (degree(w->A, w->queue[q]) < degree(w->A, best))
                best = w->queue[q];
        bfs_result from_best = bfs(w, best, next_stamp(w), 0, w->queue);
        if (from_best.depth <= levels.depth) break;
        root = best;
        levels = from_best;
    }
    return root;
}

static int64_t longest_row(const cmrs_csr *A)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (degree(A, i) > longest) longest = degree(A, i);
    return longest;
}

/* Numbers each component by a search from its pseudo-peripheral node;
 * cuthill_mckee: neighbours by degree and the whole order reversed. */
static cmrs_code level_perm(const cmrs_csr *A, int cuthill_mckee,
                            int32_t *new_of_old)
{
    const char *name = cuthill_mckee ? "RCM" : "BFS";
    size_t n = (size_t)A->rows;
    level_work w = {A, calloc(n ? n : 1, sizeof(int32_t)), 0,
                    cmrs_malloc_array(n, sizeof(int32_t)),
                    cmrs_malloc_array(n, sizeof(int32_t)), NULL};
    cmrs_code rc = CMRS_OK;
    if (cuthill_mckee)
        w.nbuf = cmrs_malloc_array((size_t)longest_row(A), sizeof(int64_t));
    if (!w.mark || !w.queue || !w.order || (cuthill_mckee && !w.nbuf))
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate %s workspace for %lld "
                      "rows", name, (long long)A->rows);
    int64_t pos = 0;
    for (int64_t s = 0; s < A->rows; ++s)
        if (w.mark[s] != NUMBERED)
            pos += bfs(&w, pseudo_peripheral(&w, (int32_t)s), NUMBERED,
                       cuthill_mckee, w.order + pos).count;
    if (pos != A->rows)
        CMRS_TRY_FAIL(CMRS_E_INTERNAL, "%s numbered %lld of %lld rows", name,
                      (long long)pos, (long long)A->rows);
    for (int64_t k = 0; k < A->rows; ++k)
        new_of_old[w.order[k]] =
            (int32_t)(cuthill_mckee ? A->rows - 1 - k : k);
done:
    CMRS_FREE_ALL(w.mark, w.queue, w.order, w.nbuf);
    return rc;
}

cmrs_code cmrs_rcm_perm(const cmrs_csr *A, int32_t *new_of_old)
{
    CMRS_CHECK(level_perm(A, 1, new_of_old));
    return CMRS_OK;
}

cmrs_code cmrs_bfs_perm(const cmrs_csr *A, int32_t *new_of_old)
{
    CMRS_CHECK(level_perm(A, 0, new_of_old));
    return CMRS_OK;
}
