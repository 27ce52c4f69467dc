/* METIS k-way partitioning (optional: CMRS_HAVE_METIS, set when CMake
 * finds libmetis and metis.h). The graph is A's pattern symmetrised,
 * without the diagonal; vertex weights are row lengths so that the parts
 * balance the SpMV work, as the block methods do. */
#include <stdlib.h>

#include "base/memory.h"
#include "partition.h"

#ifndef CMRS_HAVE_METIS
int cmrs_part_have_metis(void) { return 0; }

cmrs_code cmrs_part_metis(const cmrs_csr *A, int nparts, int32_t *owner)
{
    (void)A, (void)nparts, (void)owner;
    CMRS_FAIL(CMRS_E_USAGE, "--partition metis: this build has no METIS "
              "(install libmetis-dev and reconfigure; or use block or rcm)");
}
#else
#include <metis.h>

int cmrs_part_have_metis(void) { return 1; }

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

static cmrs_code graph_build(const cmrs_csr *A, const cmrs_csr *T, graph *g)
{
    g->n = (idx_t)A->rows;
    g->xadj = cmrs_malloc_array((size_t)g->n + 1, sizeof *g->xadj);
    g->vwgt = cmrs_malloc_array((size_t)g->n, sizeof *g->vwgt);
    CMRS_ENSURE(g->xadj && g->vwgt, CMRS_E_NOMEM, "METIS: cannot allocate "
                "the graph");
    g->xadj[0] = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        g->xadj[i + 1] = g->xadj[i] + merge_row(A, T, i, NULL);
        g->vwgt[i] = (idx_t)(A->indptr[i + 1] - A->indptr[i]);
    }
    g->adj = cmrs_malloc_array((size_t)g->xadj[g->n], sizeof *g->adj);
    CMRS_ENSURE(g->adj, CMRS_E_NOMEM, "METIS: cannot allocate the graph");
    for (int64_t i = 0; i < A->rows; ++i)
        merge_row(A, T, i, g->adj + g->xadj[i]);
    return CMRS_OK;
}

/* A fixed seed: the same matrix gives the same parts on every run. */
static cmrs_code run_kway(graph *g, int nparts, int32_t *owner)
{
    idx_t ncon = 1, np = nparts, objval = 0, opts[METIS_NOPTIONS];
    idx_t *part = cmrs_malloc_array((size_t)g->n, sizeof *part);
    CMRS_ENSURE(part, CMRS_E_NOMEM, "METIS: cannot allocate the parts");
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = 1;
    int st = METIS_PartGraphKway(&g->n, &ncon, g->xadj, g->adj, g->vwgt,
                                 NULL, NULL, &np, NULL, NULL, opts, &objval,
                                 part);
    for (idx_t i = 0; st == METIS_OK && i < g->n; ++i) owner[i] = part[i];
    free(part);
    CMRS_ENSURE(st == METIS_OK, st == METIS_ERROR_MEMORY ? CMRS_E_NOMEM
                : CMRS_E_INTERNAL, "METIS_PartGraphKway failed (status %d)",
                st);
    return CMRS_OK;
}

cmrs_code cmrs_part_metis(const cmrs_csr *A, int nparts, int32_t *owner)
{
    cmrs_code rc = CMRS_OK;
    cmrs_csr T = {0};
    graph g = {0};
    CMRS_ENSURE(2 * A->nnz <= INT32_MAX, CMRS_E_LIMIT, "METIS: %lld "
                "entries (twice, symmetrised) exceed this METIS build's "
                "32-bit indices", (long long)A->nnz);
    CMRS_TRY(cmrs_csr_transpose(A, &T));
    CMRS_TRY(graph_build(A, &T, &g));
    CMRS_TRY(run_kway(&g, nparts, owner));
done:
    cmrs_csr_free(&T);
    graph_free(&g);
    return rc;
}
#endif
