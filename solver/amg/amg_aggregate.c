/* Aggregation for the AMG hierarchy (amg_host.h): the strength graph,
 * repeated pairwise matching (AmgX SIZE_k, AGMG) and the Vanek-Mandel-
 * Brezina greedy aggregation (pyamg's standard_aggregation).
 *
 * Strength and weights. j != i is a strong neighbour of i when a_ij has the
 * sign opposite to a_ii and |a_ij| >= theta sqrt|a_ii a_jj|; its weight is
 * the normalised magnitude |a_ij| / sqrt|a_ii a_jj| (= -a_ij / sqrt(a_ii
 * a_jj) for an M-matrix, and scale-free, so rows of different scale compare
 * fairly). A row or column whose diagonal is zero or missing has no strong
 * connection at all, which is also what keeps every division safe. The
 * graph is symmetrised (union of the two directions, weight the larger one)
 * so that matching and aggregates do not depend on which triangle holds an
 * entry.
 *
 * Determinism. A matrix formed in another summation order (the GPU's
 * Galerkin product) differs from ours in the last bits; it must aggregate
 * the same way. Every comparison of two strengths therefore treats values
 * within AMG_TIE_REL relative as equal, and equal ones go to the lower index
 * (rows are scanned in increasing column order and a later candidate wins
 * only when it is stronger by more than AMG_TIE_REL); the threshold test is
 * loosened by AMG_TIE_REL for the same reason. The tie rule is not transitive
 * (a chain of candidates each within 1e-12 of the next), which only matters
 * for weights spread over a band of a few 1e-12: not a practical case.
 */
#include "amg_csr.h"
#include "amg_handshake.h"
#include "amg_host.h"
#include "amg_mis2.h"
#include "amg_rules.h"
#include "base/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


void cmrs_amg_params_default(cmrs_amg_params *p)
{
    /* Smoothed aggregation, theta 0.02: measured on the CPU (docs/AMG.md
     * "Why smoothed aggregation is the default"); MIS-2 aggregates, the
     * greedy ones made parallel, which the GPU forms with the level's
     * operators from one copy of A (docs/AMG.md "MIS-2 aggregation"). */
    p->theta = 0.02;
    p->agg = CMRS_AMG_AGG_MIS2;
    p->agg_size = 8;
    p->smooth_p = 1;
    p->p_omega = 4.0 / 3.0;
    p->coarse_rows = 1000;
    p->max_levels = 20;
    p->max_op_complexity = 3.0;
}

/* ---- strength graph ---------------------------------------------------- */

/* a_ii (0 when missing) and sqrt|a_ii| per row. */
cmrs_code cmrs_amg_diagonal(const cmrs_csr *M, double **d_out,
                            double **s_out)
{
    double *d = cmrs_malloc_array((size_t)M->rows, sizeof *d);
    double *s = cmrs_malloc_array((size_t)M->rows, sizeof *s);
    if (!d || !s) {
        free(d);
        free(s);
        CMRS_FAIL(CMRS_E_NOMEM, "amg: cannot allocate the diagonal of %lld "
                  "rows", (long long)M->rows);
    }
    for (int64_t i = 0; i < M->rows; ++i) {
        int found;
        d[i] = cmrs_csr_lookup(M, i, (int32_t)i, &found); /* 0: missing */
        s[i] = sqrt(fabs(d[i]));
    }
    *d_out = d;
    *s_out = s;
    return CMRS_OK;
}

/* The strong connections of each row (directed, no diagonal), weights in
 * values. */
static cmrs_code strong_directed(const cmrs_csr *M, double theta, cmrs_csr *D)
{
    cmrs_code rc = CMRS_OK;
    double *d = NULL, *s = NULL;
    memset(D, 0, sizeof *D);
    CMRS_TRY(cmrs_amg_diagonal(M, &d, &s));
    CMRS_TRY(cmrs_csr_alloc(D, M->rows, M->cols, M->nnz));
    int64_t nz = 0;
    for (int64_t i = 0; i < M->rows; ++i) {
        for (int64_t k = M->indptr[i]; k < M->indptr[i + 1]; ++k) {
            int32_t j = M->indices[k];
            if (j == i) continue;
            double w = amg_strong_weight(M->values[k], d[i], s[i], s[j], theta);
            if (w < 0) continue;
            D->indices[nz] = j;
            D->values[nz++] = w;
        }
        D->indptr[i + 1] = nz;
    }
    D->nnz = nz;
    cmrs_amg_shrink_csr(D);
done:
    free(d);
    free(s);
    if (rc != CMRS_OK) cmrs_csr_free(D);
    return rc;
}

/* S = D union D^T, row by row as a merge of two sorted lists; an edge
 * present both ways keeps the larger weight. */
static void merge_union(const cmrs_csr *D, const cmrs_csr *T, cmrs_csr *S)
{
    int64_t nz = 0;
    for (int64_t i = 0; i < D->rows; ++i) {
        int64_t a = D->indptr[i], ae = D->indptr[i + 1];
        int64_t b = T->indptr[i], be = T->indptr[i + 1];
        while (a < ae || b < be) {
            int32_t ca = a < ae ? D->indices[a] : INT32_MAX;
            int32_t cb = b < be ? T->indices[b] : INT32_MAX;
            double w;
            if (ca < cb) {
                w = D->values[a++];
            } else if (cb < ca) {
                w = T->values[b++];
            } else {
                double wa = D->values[a++], wb = T->values[b++];
                w = wa > wb ? wa : wb;
            }
            S->indices[nz] = ca < cb ? ca : cb;
            S->values[nz++] = w;
        }
        S->indptr[i + 1] = nz;
    }
    S->nnz = nz;
}

/* The common case needs no transpose: when every strong (i, j) has its
 * strong (j, i) (a symmetric matrix with a diagonal of one sign), D is
 * already the union, and both weights become the larger one. Rows are
 * sorted, so the partners of row i's upper entries (j, i), j > i, come in
 * increasing i within each row j: next[j] walks row j's lower part as the
 * rows above reach it, O(nnz) with no search. Returns 0 at the first
 * one-way edge (an upper entry whose partner is not at next[j], or a lower
 * entry no row above claimed); the weights maxed so far are what the merge
 * would give anyway (max is symmetric and idempotent). */
static cmrs_code symmetric_in_place(cmrs_csr *D, int *symmetric)
{
    int64_t n = D->rows;
    int64_t *next = cmrs_malloc_array((size_t)n + 1, sizeof *next);
    CMRS_ENSURE(next, CMRS_E_NOMEM, "amg: cannot allocate the symmetry walk "
                "of %lld rows", (long long)n);
    memcpy(next, D->indptr, (size_t)n * sizeof *next);
    *symmetric = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t k = D->indptr[i], e = D->indptr[i + 1];
        while (k < e && D->indices[k] < i) ++k;
        if (next[i] != k) goto done; /* a lower entry nobody claimed */
        for (; k < e; ++k) {
            int32_t j = D->indices[k];
            int64_t q = next[j];
            if (q >= D->indptr[j + 1] || D->indices[q] != i) goto done;
            double w = D->values[k] > D->values[q] ? D->values[k]
                                                   : D->values[q];
            D->values[k] = D->values[q] = w;
            next[j] = q + 1;
        }
    }
    *symmetric = 1;
done:
    free(next);
    return CMRS_OK;
}

/* The symmetric strength graph of M: rows sorted, no diagonal, weights. */
static cmrs_code strength_graph(const cmrs_csr *M, double theta, cmrs_csr *S)
{
    cmrs_code rc = CMRS_OK;
    cmrs_csr D = {0}, T = {0};
    memset(S, 0, sizeof *S);
    int symmetric = 0;
    CMRS_TRY(strong_directed(M, theta, &D));
    CMRS_TRY(symmetric_in_place(&D, &symmetric));
    if (symmetric) {
        *S = D; /* ownership moves to S */
        return CMRS_OK;
    }
    CMRS_TRY(cmrs_csr_transpose(&D, &T));
    CMRS_TRY(cmrs_csr_alloc(S, M->rows, M->cols, D.nnz + T.nnz));
    merge_union(&D, &T, S);
    cmrs_amg_shrink_csr(S);
done:
    cmrs_csr_free(&D);
    cmrs_csr_free(&T);
    if (rc != CMRS_OK) cmrs_csr_free(S);
    return rc;
}

/* ---- aggregated matrix ------------------------------------------------- */

/* Mc = Q^T M Q for the 0/1 matrix Q of the aggregates (one 1 per row): the
 * sum of M's entries over each pair of aggregates, without forming Q. Rows
 * of an aggregate are visited in increasing index, so the summation order,
 * and hence Mc, is reproducible. pattern_only: the columns alone, unsorted
 * and without values (enough for the link graph L of agg_pairwise). */
cmrs_code cmrs_amg_coarsen(const cmrs_csr *M, const int32_t *agg, int64_t nc,
                           int pattern_only, cmrs_csr *Mc)
{
    cmrs_code rc = CMRS_OK;
    int64_t n = M->rows;
    int64_t *start = cmrs_malloc_array((size_t)nc + 1, sizeof *start);
    int32_t *members = cmrs_malloc_array((size_t)n, sizeof *members);
    int32_t *mark = cmrs_malloc_array((size_t)nc, sizeof *mark);
    double *acc = cmrs_malloc_array((size_t)nc, sizeof *acc);
    memset(Mc, 0, sizeof *Mc);
    if (!start || !members || !mark || !acc)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "amg: cannot allocate the workspace to "
                      "aggregate %lld rows", (long long)n);
    /* Members of each aggregate by counting sort: increasing i inside each. */
    memset(start, 0, ((size_t)nc + 1) * sizeof *start);
    for (int64_t i = 0; i < n; ++i) ++start[agg[i] + 1];
    for (int64_t a = 0; a < nc; ++a) start[a + 1] += start[a];
    for (int64_t i = 0; i < n; ++i) members[start[agg[i]]++] = (int32_t)i;
    for (int64_t a = nc; a > 0; --a) start[a] = start[a - 1];
    start[0] = 0;
    for (int64_t a = 0; a < nc; ++a) mark[a] = -1;

    CMRS_TRY(cmrs_csr_alloc(Mc, nc, nc, M->nnz)); /* nnz(Mc) <= nnz(M) */
    int64_t nz = 0;
    for (int64_t a = 0; a < nc; ++a) {
        int64_t row0 = nz;
        for (int64_t m = start[a]; m < start[a + 1]; ++m) {
            int32_t i = members[m];
            for (int64_t k = M->indptr[i]; k < M->indptr[i + 1]; ++k) {
                int32_t c = agg[M->indices[k]];
                if (mark[c] != a) {
                    mark[c] = (int32_t)a;
                    acc[c] = 0.0;
                    Mc->indices[nz++] = c;
                }
                if (!pattern_only) acc[c] += M->values[k];
            }
        }
        if (!pattern_only) {
            cmrs_amg_sort_cols(Mc->indices + row0, nz - row0);
            for (int64_t k = row0; k < nz; ++k)
                Mc->values[k] = acc[Mc->indices[k]];
        }
        Mc->indptr[a + 1] = nz;
    }
    Mc->nnz = nz;
    cmrs_amg_shrink_csr(Mc);
done:
    CMRS_FREE_ALL(start, members, mark, acc);
    if (rc != CMRS_OK) cmrs_csr_free(Mc);
    return rc;
}

/* ---- pairwise matching ------------------------------------------------- */

/* One pass of matching on the strength graph G, restricted to the edges also
 * in L when L is given (see agg_pairwise). Nodes in index order; an
 * unmatched node pairs with its strongest unmatched neighbour. A node left
 * with no unmatched neighbour joins the pair of its strongest neighbour
 * (making a triple; a triple takes no one else, so a pass grows aggregates
 * by at most 3x), else stays a singleton for the next pass to match. */
static cmrs_code match_pass(const cmrs_csr *G, const cmrs_csr *L,
                           int32_t *step, int64_t *nc_out)
{
    int64_t n = G->rows, nc = 0;
    int32_t *mark = cmrs_malloc_array((size_t)n, sizeof *mark);
    unsigned char *size = cmrs_malloc_array((size_t)n, 1);
    if (!mark || !size) {
        free(mark);
        free(size);
        CMRS_FAIL(CMRS_E_NOMEM, "amg: cannot allocate the matching workspace "
                  "of %lld rows", (long long)n);
    }
    for (int64_t i = 0; i < n; ++i) step[i] = mark[i] = -1;
    for (int64_t i = 0; i < n; ++i) {
        if (step[i] >= 0) continue;
        if (L)
            for (int64_t k = L->indptr[i]; k < L->indptr[i + 1]; ++k)
                mark[L->indices[k]] = (int32_t)i;
        int32_t pick = -1, join = -1;
        double best = -1.0, best_join = -1.0;
        for (int64_t k = G->indptr[i]; k < G->indptr[i + 1]; ++k) {
            int32_t j = G->indices[k];
            double w = G->values[k];
            if (L && mark[j] != i) continue;
            if (step[j] < 0) {
                if (amg_stronger(w, best)) {
                    best = w;
                    pick = j;
                }
            } else if (size[step[j]] == 2 && amg_stronger(w, best_join)) {
                best_join = w;
                join = j;
            }
        }
        if (pick >= 0) {
            step[i] = step[pick] = (int32_t)nc;
            size[nc++] = 2;
        } else if (join >= 0) {
            step[i] = step[join];
            size[step[i]] = 3;
        } else {
            step[i] = (int32_t)nc;
            size[nc++] = 1;
        }
    }
    free(mark);
    free(size);
    *nc_out = nc;
    return CMRS_OK;
}

/* log2(agg_size) passes of matching, each on the aggregated matrix of the
 * previous one (M_{k+1} = Q_k^T M_k Q_k), composing the maps. A coarse
 * connection can be strong while every fine link under it is weak (many
 * weak links add up), which would leave an aggregate disconnected in A's
 * strength graph; so pass k matches only along coarse edges that also lie
 * over a fine strong edge: L_k, the strength graph of A aggregated the same
 * way (pattern only). */
typedef struct pw_state {
    cmrs_csr M, S, L, next; /* M, L: this pass's (pass 0: A and none); L's
                               rows are unsorted and its values unset */
    int32_t *step;
} pw_state;

static void pw_free(pw_state *s)
{
    cmrs_csr_free(&s->M);
    cmrs_csr_free(&s->S);
    cmrs_csr_free(&s->L);
    cmrs_csr_free(&s->next);
    free(s->step);
}

static int pairwise_passes(int agg_size)
{
    switch (agg_size) {
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return 0;
    }
}

static cmrs_code agg_pairwise(const cmrs_csr *A, const cmrs_amg_params *p,
                              int32_t *agg, int64_t *naggs)
{
    cmrs_code rc = CMRS_OK;
    pw_state s;
    memset(&s, 0, sizeof s);
    int passes = pairwise_passes(p->agg_size);
    int64_t n = A->rows;
    s.step = cmrs_malloc_array((size_t)n, sizeof *s.step);
    if (!s.step)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "amg: cannot allocate the aggregates of "
                      "%lld rows", (long long)n);
    for (int64_t i = 0; i < n; ++i) agg[i] = (int32_t)i;
    for (int pass = 0; pass < passes; ++pass) {
        const cmrs_csr *M = pass == 0 ? A : &s.M;
        int64_t nk = M->rows, nc = 0;
        CMRS_TRY(strength_graph(M, p->theta, &s.S));
        CMRS_TRY(match_pass(&s.S, pass == 0 ? NULL : &s.L, s.step, &nc));
        for (int64_t i = 0; i < n; ++i) agg[i] = s.step[agg[i]];
        *naggs = nc;
        /* No pair formed: the next pass would see the same graph. */
        if (nc == nk || pass + 1 == passes) break;
        CMRS_TRY(cmrs_amg_coarsen(pass == 0 ? &s.S : &s.L, s.step, nc, 1, &s.next));
        cmrs_csr_free(&s.L);
        s.L = s.next;
        memset(&s.next, 0, sizeof s.next);
        CMRS_TRY(cmrs_amg_coarsen(M, s.step, nc, 0, &s.next));
        cmrs_csr_free(&s.M);
        s.M = s.next;
        memset(&s.next, 0, sizeof s.next);
        cmrs_csr_free(&s.S);
    }
done:
    pw_free(&s);
    return rc;
}

/* ---- greedy (Vanek-Mandel-Brezina) ------------------------------------- */

/* Phase 1: a node whose strong neighbours are all free roots an aggregate
 * of itself and its neighbours. Returns the number of aggregates. */
static int64_t vmb_phase1(const cmrs_csr *S, int32_t *agg)
{
    int64_t nc = 0;
    for (int64_t i = 0; i < S->rows; ++i) {
        int64_t b = S->indptr[i], e = S->indptr[i + 1];
        if (agg[i] != -1 || b == e) continue; /* isolated: phase 3 */
        int64_t k = b;
        while (k < e && agg[S->indices[k]] == -1) ++k;
        if (k < e) continue;
        agg[i] = (int32_t)nc;
        for (k = b; k < e; ++k) agg[S->indices[k]] = (int32_t)nc;
        ++nc;
    }
    return nc;
}

/* Phase 2: a free node joins the phase-1 aggregate of its strongest
 * neighbour. Joins are written as -2 - a so that a later node does not join
 * through a node joined in this phase (pyamg does the same), then decoded. */
static void vmb_phase2(const cmrs_csr *S, int32_t *agg)
{
    for (int64_t i = 0; i < S->rows; ++i) {
        if (agg[i] != -1) continue;
        int32_t pick = -1;
        double best = -1.0;
        for (int64_t k = S->indptr[i]; k < S->indptr[i + 1]; ++k) {
            int32_t j = S->indices[k];
            if (agg[j] >= 0 && amg_stronger(S->values[k], best)) {
                best = S->values[k];
                pick = j;
            }
        }
        if (pick >= 0) agg[i] = -2 - agg[pick];
    }
    for (int64_t i = 0; i < S->rows; ++i)
        if (agg[i] < -1) agg[i] = -2 - agg[i];
}

/* Phase 3: each node still free roots an aggregate with its free strong
 * neighbours (a node with none, a singleton). */
static int64_t vmb_phase3(const cmrs_csr *S, int32_t *agg, int64_t nc)
{
    for (int64_t i = 0; i < S->rows; ++i) {
        if (agg[i] != -1) continue;
        agg[i] = (int32_t)nc;
        for (int64_t k = S->indptr[i]; k < S->indptr[i + 1]; ++k)
            if (agg[S->indices[k]] == -1) agg[S->indices[k]] = (int32_t)nc;
        ++nc;
    }
    return nc;
}

static cmrs_code agg_greedy(const cmrs_csr *A, const cmrs_amg_params *p,
                            int32_t *agg, int64_t *naggs)
{
    cmrs_csr S;
    CMRS_CHECK(strength_graph(A, p->theta, &S));
    for (int64_t i = 0; i < A->rows; ++i) agg[i] = -1;
    int64_t nc = vmb_phase1(&S, agg);
    vmb_phase2(&S, agg);
    *naggs = vmb_phase3(&S, agg, nc);
    cmrs_csr_free(&S);
    return CMRS_OK;
}

/* ---- the registry and the entry point ------------------------------- */

/* The methods, indexed by cmrs_amg_agg (the option's words in this order:
 * api/options_pc.c reads their names from here). */
static const cmrs_amg_agg_method k_methods[CMRS_AMG_AGG_COUNT] = {
    [CMRS_AMG_AGG_PAIRWISE] = {.id = CMRS_AMG_AGG_PAIRWISE,
                               .name = "pairwise", .host = agg_pairwise,
                               .sized = 1},
    [CMRS_AMG_AGG_GREEDY] = {.id = CMRS_AMG_AGG_GREEDY, .name = "greedy",
                             .host = agg_greedy},
    [CMRS_AMG_AGG_HANDSHAKE] = {.id = CMRS_AMG_AGG_HANDSHAKE,
                                .name = "handshake",
                                .host = cmrs_amg_handshake, .sized = 1},
    [CMRS_AMG_AGG_MIS2] = {.id = CMRS_AMG_AGG_MIS2, .name = "mis2",
                           .host = cmrs_amg_mis2},
};

const cmrs_amg_agg_method *cmrs_amg_agg_method_of(int id)
{
    return id >= 0 && id < CMRS_AMG_AGG_COUNT ? &k_methods[id] : NULL;
}

static cmrs_code check_params(const cmrs_amg_agg_method *m,
                              const cmrs_amg_params *p)
{
    CMRS_ENSURE(isfinite(p->theta) && p->theta >= 0, CMRS_E_USAGE,
                "amg: strength threshold theta = %g is not a finite number "
                ">= 0", p->theta);
    CMRS_ENSURE(!m->sized || pairwise_passes(p->agg_size) > 0, CMRS_E_USAGE,
                "amg: pairwise aggregate size %d is not 2, 4, 8 or 16",
                p->agg_size);
    return CMRS_OK;
}

cmrs_code cmrs_amg_aggregate_by(const cmrs_amg_agg_method *m,
                                const cmrs_csr *A, const cmrs_amg_params *p,
                                int32_t *agg, int64_t *naggs)
{
    CMRS_CHECK(check_params(m, p));
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "amg: cannot aggregate a "
                "non-square matrix (%lld x %lld)", (long long)A->rows,
                (long long)A->cols);
    *naggs = 0;
    if (A->rows == 0) return CMRS_OK;
    CMRS_CHECK(m->host(A, p, agg, naggs));
    return CMRS_OK;
}

cmrs_code cmrs_amg_aggregate(const cmrs_csr *A, const cmrs_amg_params *p,
                             int32_t *agg, int64_t *naggs)
{
    cmrs_amg_params def;
    if (!p) { /* convenience: NULL means the defaults */
        cmrs_amg_params_default(&def);
        p = &def;
    }
    const cmrs_amg_agg_method *m = cmrs_amg_agg_method_of(p->agg);
    CMRS_ENSURE(m, CMRS_E_USAGE, "amg: unknown aggregation method %d",
                (int)p->agg);
    CMRS_CHECK(cmrs_amg_aggregate_by(m, A, p, agg, naggs));
    return CMRS_OK;
}
