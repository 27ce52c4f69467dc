/* METIS k-way partition and nested-dissection order: see csr_metis.h.
 * CMRS_HAVE_METIS is set when CMake finds libmetis and metis.h. */
#include "csr_metis.h"

#include <stdlib.h>

#include "memory.h"

#ifndef CMRS_HAVE_METIS
int cmrs_metis_built(void) { return 0; }

static cmrs_code not_built(void)
{
    CMRS_FAIL(CMRS_E_USAGE, "this build has no METIS (install libmetis-dev "
              "and reconfigure)");
}

cmrs_code cmrs_metis_kway(const cmrs_csr *A, int nparts, int32_t *owner)
{
    (void)A, (void)nparts, (void)owner;
    CMRS_CHECK(not_built());
    return CMRS_OK;
}

cmrs_code cmrs_metis_nd_perm(const cmrs_csr *A, int32_t *new_of_old)
{
    (void)A, (void)new_of_old;
    CMRS_CHECK(not_built());
    return CMRS_OK;
}
#else
#include <metis.h>

int cmrs_metis_built(void) { return 1; }

typedef struct graph {
    idx_t n, *xadj, *adj, *vwgt;
} graph;

static void graph_free(graph *g)
{
    CMRS_FREE_ALL(g->xadj, g->adj, g->vwgt);
}

/* Row i of A + A^T without the diagonal, merged from the sorted rows of A
 * and T; returns the count (adj NULL: only counts). */
static idx_t merge_row(const cmrs_csr *A, const cmrs_csr *T, int64_t i,
                       idx_t *adj)
{
    int64_t a = A->indptr[i], ae = A->indptr[i + 1];
    int64_t t = T->indptr[i], te = T->indptr[i + 1];
    idx_t c = 0;
    while (a < ae || t < te) {
        int64_t ja = a < ae ? A->indices[a] : INT64_MAX;
        int64_t jt = t < te ? T->indices[t] : INT64_MAX;
        int64_t j = ja < jt ? ja : jt;
        a += ja == j;
        t += jt == j;
        if (j == i) continue;
        if (adj) adj[c] = (idx_t)j;
        ++c;
    }
    return c;
}

/* The graph of A (symmetrised pattern, no diagonal). */
static cmrs_code graph_build(const cmrs_csr *A, const cmrs_csr *T, graph *g)
{
    g->n = (idx_t)A->rows;
    g->xadj = cmrs_malloc_array((size_t)g->n + 1, sizeof *g->xadj);
    CMRS_ENSURE(g->xadj, CMRS_E_NOMEM, "METIS: cannot allocate the graph");
    g->xadj[0] = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        g->xadj[i + 1] = g->xadj[i] + merge_row(A, T, i, NULL);
    g->adj = cmrs_malloc_array((size_t)g->xadj[g->n], sizeof *g->adj);
    CMRS_ENSURE(g->adj, CMRS_E_NOMEM, "METIS: cannot allocate the graph");
    for (int64_t i = 0; i < A->rows; ++i)
        merge_row(A, T, i, g->adj + g->xadj[i]);
    return CMRS_OK;
}

/* The graph of square A (*g freed by the caller, also on failure). */
static cmrs_code graph_of(const cmrs_csr *A, graph *g)
{
    cmrs_csr T = {0};
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "METIS: a %lld x %lld "
                "matrix is not square", (long long)A->rows,
                (long long)A->cols);
    CMRS_ENSURE(2 * A->nnz <= INT32_MAX, CMRS_E_LIMIT, "METIS: %lld "
                "entries (twice, symmetrised) exceed this METIS build's "
                "32-bit indices", (long long)A->nnz);
    CMRS_CHECK(cmrs_csr_transpose(A, &T));
    cmrs_code rc = graph_build(A, &T, g);
    cmrs_csr_free(&T);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

/* Defaults, and a fixed seed: the same matrix gives the same result on
 * every run. */
static void default_options(idx_t *opts)
{
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = 1;
}

static cmrs_code metis_status(int st, const char *call)
{
    CMRS_ENSURE(st == METIS_OK, st == METIS_ERROR_MEMORY ? CMRS_E_NOMEM
                : CMRS_E_INTERNAL, "%s failed (status %d)", call, st);
    return CMRS_OK;
}

/* The k-way partition, balanced by row lengths as vertex weights (the
 * nested dissection order passes none). */
static cmrs_code run_kway(const cmrs_csr *A, graph *g, int nparts,
                          int32_t *owner)
{
    idx_t ncon = 1, np = nparts, objval = 0, opts[METIS_NOPTIONS];
    g->vwgt = cmrs_malloc_array((size_t)g->n, sizeof *g->vwgt);
    CMRS_ENSURE(g->vwgt, CMRS_E_NOMEM, "METIS: cannot allocate the graph");
    for (int64_t i = 0; i < A->rows; ++i)
        g->vwgt[i] = (idx_t)(A->indptr[i + 1] - A->indptr[i]);
    idx_t *part = cmrs_malloc_array((size_t)g->n, sizeof *part);
    CMRS_ENSURE(part, CMRS_E_NOMEM, "METIS: cannot allocate the parts");
    default_options(opts);
    int st = METIS_PartGraphKway(&g->n, &ncon, g->xadj, g->adj, g->vwgt,
                                 NULL, NULL, &np, NULL, NULL, opts, &objval,
                                 part);
    for (idx_t i = 0; st == METIS_OK && i < g->n; ++i) owner[i] = part[i];
    free(part);
    CMRS_CHECK(metis_status(st, "METIS_PartGraphKway"));
    return CMRS_OK;
}

/* iperm[i] is the new index of vertex i (METIS's manual: row i of A is
 * row iperm[i] of the permuted matrix). */
static cmrs_code run_nd(graph *g, int32_t *new_of_old)
{
    idx_t opts[METIS_NOPTIONS];
    idx_t *perm = cmrs_malloc_array((size_t)g->n, sizeof *perm);
    idx_t *iperm = cmrs_malloc_array((size_t)g->n, sizeof *iperm);
    if (!perm || !iperm) {
        CMRS_FREE_ALL(perm, iperm);
        CMRS_FAIL(CMRS_E_NOMEM, "METIS: cannot allocate the order");
    }
    default_options(opts);
    int st = METIS_NodeND(&g->n, g->xadj, g->adj, NULL, opts, perm, iperm);
    for (idx_t i = 0; st == METIS_OK && i < g->n; ++i)
        new_of_old[i] = iperm[i];
    CMRS_FREE_ALL(perm, iperm);
    CMRS_CHECK(metis_status(st, "METIS_NodeND"));
    return CMRS_OK;
}

cmrs_code cmrs_metis_kway(const cmrs_csr *A, int nparts, int32_t *owner)
{
    graph g = {0};
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(graph_of(A, &g));
    CMRS_TRY(run_kway(A, &g, nparts, owner));
done:
    graph_free(&g);
    return rc;
}

cmrs_code cmrs_metis_nd_perm(const cmrs_csr *A, int32_t *new_of_old)
{
    graph g = {0};
    cmrs_code rc = CMRS_OK;
    if (A->rows == 0) return CMRS_OK; /* (METIS 5.1 crashes on none) */
    CMRS_TRY(graph_of(A, &g));
    CMRS_TRY(run_nd(&g, new_of_old));
done:
    graph_free(&g);
    return rc;
}
#endif
