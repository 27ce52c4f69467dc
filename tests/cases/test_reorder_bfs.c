/* --order bfs is a breadth-first order: on the odd graphs of
 * reorder_check.h and on a shuffled grid, each component is numbered
 * contiguously from its first node in levels of distance from it (a row's
 * neighbours lie within one level of it), level by level in queue order
 * (the parents of consecutive nodes are numbered in order, and the
 * children of one parent in the order its row lists them), from a
 * pseudo-peripheral node (an end of a path, a corner of a cube). */
#include <stdlib.h>

#include "base/csr_rcm.h"
#include "check.h"
#include "reorder_check.h"

/* The order's inverse and, from a search of the test's own, each node's
 * level (distance from the first-numbered node of its component) and
 * parent (its lowest-numbered neighbour one level up; -1 for a root). */
typedef struct bfs_view {
    int64_t n;
    int32_t *new_of_old, *old_of_new;
    int64_t *level, *parent_new, *component_end;
} bfs_view;

static void view_free(bfs_view *v)
{
    CMRS_FREE_ALL(v->new_of_old, v->old_of_new, v->level, v->parent_new,
                  v->component_end);
}

/* Levels of the component of old node root, found by a search in the
 * test's own queue; its nodes' end (in the new numbering) in
 * component_end. */
static void search_component(const cmrs_csr *A, bfs_view *v, int32_t root,
                             int64_t *queue)
{
    int64_t head = 0, tail = 0, first = v->new_of_old[root], last = first;
    v->level[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        int64_t u = queue[head++];
        last = v->new_of_old[u] > last ? v->new_of_old[u] : last;
        for (int64_t k = A->indptr[u]; k < A->indptr[u + 1]; ++k)
            if (v->level[A->indices[k]] < 0) {
                v->level[A->indices[k]] = v->level[u] + 1;
                queue[tail++] = A->indices[k];
            }
    }
    CHECK(last - first + 1 == tail, "component of %d: %lld nodes numbered "
          "over %lld places", root, (long long)tail,
          (long long)(last - first + 1));
    for (int64_t q = 0; q < tail; ++q) v->component_end[queue[q]] = last + 1;
}

static void find_parents(const cmrs_csr *A, bfs_view *v)
{
    for (int64_t u = 0; u < v->n; ++u) {
        v->parent_new[u] = -1;
        for (int64_t k = A->indptr[u]; k < A->indptr[u + 1]; ++k) {
            int32_t w = A->indices[k];
            if (v->level[w] == v->level[u] - 1 &&
                (v->parent_new[u] < 0 || v->new_of_old[w] < v->parent_new[u]))
                v->parent_new[u] = v->new_of_old[w];
        }
    }
}

static int view_make(const cmrs_csr *A, bfs_view *v)
{
    size_t n = (size_t)A->rows + 1;
    int64_t *queue = malloc(n * sizeof *queue);
    v->n = A->rows;
    v->new_of_old = malloc(n * sizeof *v->new_of_old);
    v->old_of_new = malloc(n * sizeof *v->old_of_new);
    v->level = malloc(n * sizeof *v->level);
    v->parent_new = malloc(n * sizeof *v->parent_new);
    v->component_end = malloc(n * sizeof *v->component_end);
    CHECK_OK(cmrs_bfs_perm(A, v->new_of_old));
    if (!is_permutation(v->new_of_old, v->n)) {
        CHECK(0, "BFS: not a permutation");
        free(queue);
        return 0;
    }
    for (int64_t i = 0; i < v->n; ++i) {
        v->old_of_new[v->new_of_old[i]] = (int32_t)i;
        v->level[i] = -1;
    }
    for (int64_t k = 0; k < v->n; ++k)
        if (v->level[v->old_of_new[k]] < 0)
            search_component(A, v, v->old_of_new[k], queue);
    find_parents(A, v);
    free(queue);
    return 1;
}

/* Where node b (old id) stands in the row of old node a: its position. */
static int64_t position_in_row(const cmrs_csr *A, int64_t a, int32_t b)
{
    for (int64_t k = A->indptr[a]; k < A->indptr[a + 1]; ++k)
        if (A->indices[k] == b) return k;
    return -1;
}

/* Nodes k-1 and k of one component in queue order: levels do not go
 * down, parents' numbers do not go down, and one parent's children come
 * in its row's order. */
static int in_queue_order(const cmrs_csr *A, const bfs_view *v, int64_t k)
{
    int32_t a = v->old_of_new[k - 1], b = v->old_of_new[k];
    if (v->level[b] < v->level[a] || v->parent_new[b] < v->parent_new[a])
        return 0;
    if (v->parent_new[a] != v->parent_new[b] || v->parent_new[a] < 0)
        return 1;
    int32_t parent = v->old_of_new[v->parent_new[a]];
    return position_in_row(A, parent, a) < position_in_row(A, parent, b);
}

static void check_levels(const cmrs_csr *A, const char *what)
{
    bfs_view v = {0};
    int64_t far = 0, disorder = 0;
    if (view_make(A, &v)) {
        for (int64_t u = 0; u < v.n; ++u)
            for (int64_t k = A->indptr[u]; k < A->indptr[u + 1]; ++k)
                far += llabs(v.level[A->indices[k]] - v.level[u]) > 1;
        for (int64_t k = 1; k < v.n; ++k)
            if (v.component_end[v.old_of_new[k]] ==
                v.component_end[v.old_of_new[k - 1]])
                disorder += !in_queue_order(A, &v, k);
        CHECK(far == 0 && disorder == 0, "%s: %lld entries span more than one "
              "level, %lld nodes out of queue order", what, (long long)far,
              (long long)disorder);
    }
    view_free(&v);
}

static void check_graphs(void)
{
    for (size_t g = 0; g < GRAPH_COUNT; ++g) {
        cmrs_system s;
        if (!k_graphs[g].symmetric) continue; /* levels need edges both ways */
        graph_system(&k_graphs[g], &s);
        if (s.b) check_levels(&s.A, "graph");
        cmrs_system_free(&s);
    }
}

/* The eccentricity of the first node numbered in a connected A. */
static int64_t root_eccentricity(const cmrs_csr *A)
{
    bfs_view v = {0};
    int64_t ecc = -1;
    if (view_make(A, &v))
        for (int64_t u = 0; u < v.n; ++u)
            ecc = v.level[u] > ecc ? v.level[u] : ecc;
    view_free(&v);
    return ecc;
}

/* A shuffled 8^3 grid: the level property, and the search starts from a
 * corner (eccentricity 3 * 7). */
static void check_grid(void)
{
    cmrs_poisson_opts o = {8, 7, 0.0, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    CHECK_OK(cmrs_reorder(&s, CMRS_ORDER_RANDOM, 3));
    check_levels(&s.A, "shuffled grid");
    int64_t ecc = root_eccentricity(&s.A);
    CHECK(ecc == 21, "grid: BFS root eccentricity %lld, a corner's is 21",
          (long long)ecc);
    cmrs_system_free(&s);
}

/* A shuffled path of n nodes (no b): the search starts at an end. */
static void check_path(void)
{
    enum { n = 50 };
    cmrs_system s = {0};
    CHECK_OK(cmrs_csr_alloc(&s.A, n, n, 3 * n - 2));
    for (int64_t i = 0, nnz = 0; i < n; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j)
            if (j >= 0 && j < n) {
                s.A.indices[nnz] = (int32_t)j;
                s.A.values[nnz++] = 1.0;
            }
        s.A.indptr[i + 1] = nnz;
    }
    CHECK_OK(cmrs_reorder(&s, CMRS_ORDER_RANDOM, 4));
    int64_t ecc = root_eccentricity(&s.A);
    CHECK(ecc == n - 1, "path: BFS root eccentricity %lld, an end's is %d",
          (long long)ecc, n - 1);
    cmrs_system_free(&s);
}

int main(void)
{
    return CHECK_RUN(check_graphs, check_grid, check_path);
}
