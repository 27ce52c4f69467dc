/* Handshake aggregation on the host (amg_handshake.h): the reference the
 * GPU's kernels follow step for step. */
#include <stdlib.h>
#include <string.h>

#include "amg_csr.h"
#include "amg_handshake.h"
#include "amg_rules.h"
#include "base/memory.h"

/* Step 1 for row i: w[k] for its entries; mark[] holds i at the columns of
 * L's row i (L NULL: every entry is a link). */
static void weights_row(const cmrs_csr *M, const double *d, const double *s,
                        double theta, const int32_t *mark, int64_t i,
                        double *w)
{
    for (int64_t k = M->indptr[i]; k < M->indptr[i + 1]; ++k) {
        int32_t j = M->indices[k];
        w[k] = j == i || (mark && mark[j] != i)
                   ? -1.0
                   : amg_hs_weight(M->indptr, M->indices, M->values, d, s,
                                   theta, i, k);
    }
}

cmrs_code cmrs_amg_hs_weights(const cmrs_csr *M, const cmrs_csr *L,
                              double theta, double *w)
{
    cmrs_code rc = CMRS_OK;
    double *d = NULL, *s = NULL;
    int32_t *mark = NULL;
    CMRS_TRY(cmrs_amg_diagonal(M, &d, &s));
    if (L) {
        mark = cmrs_malloc_array((size_t)M->rows, sizeof *mark);
        if (!mark) CMRS_TRY_FAIL(CMRS_E_NOMEM, "amg: cannot allocate marks");
        for (int64_t i = 0; i < M->rows; ++i) mark[i] = -1;
    }
    for (int64_t i = 0; i < M->rows; ++i) {
        if (L)
            for (int64_t k = L->indptr[i]; k < L->indptr[i + 1]; ++k)
                mark[L->indices[k]] = (int32_t)i;
        weights_row(M, d, s, theta, mark, i, w);
    }
done:
    CMRS_FREE_ALL(d, s, mark);
    return rc;
}

/* Steps 2 and 3: mate[i] (partner, or -1) and join[i] (the matched
 * neighbour whose pair i joins, or -1). */
static void match(const cmrs_csr *M, const double *w, int32_t *mate,
                  int32_t *cand, int32_t *join)
{
    int64_t n = M->rows;
    for (int64_t i = 0; i < n; ++i) mate[i] = -1;
    for (int r = 0; r < CMRS_HS_ROUNDS; ++r) {
        for (int64_t i = 0; i < n; ++i)
            cand[i] = mate[i] < 0 ? amg_hs_best(M->indptr, M->indices, w, mate, i, 0) : -1;
        for (int64_t i = 0; i < n; ++i)
            if (cand[i] >= 0 && cand[cand[i]] == i) mate[i] = cand[i];
    }
    for (int64_t i = 0; i < n; ++i)
        join[i] = mate[i] < 0 ? amg_hs_best(M->indptr, M->indices, w, mate, i,
                                              1) : -1;
}

/* Step 4: step[i] = the aggregate of node i; *nc aggregates. */
static void number(int64_t n, const int32_t *mate, const int32_t *join,
                   int32_t *id, int32_t *step, int64_t *nc)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) { /* leaders, in index order */
        id[i] = (int32_t)c;
        c += amg_hs_leads(mate, join, i);
    }
    for (int64_t i = 0; i < n; ++i) step[i] = id[amg_hs_leader(mate, join, i)];
    *nc = c;
}

/* The entries of M with w >= 0, as a pattern (pass 0's links). */
static cmrs_code strong_pattern(const cmrs_csr *M, const double *w,
                                cmrs_csr *S)
{
    int64_t nz = 0;
    for (int64_t k = 0; k < M->nnz; ++k) nz += w[k] >= 0;
    CMRS_CHECK(cmrs_csr_alloc(S, M->rows, M->cols, nz));
    nz = 0;
    for (int64_t i = 0; i < M->rows; ++i) {
        for (int64_t k = M->indptr[i]; k < M->indptr[i + 1]; ++k)
            if (w[k] >= 0) S->indices[nz++] = M->indices[k];
        S->indptr[i + 1] = nz;
    }
    return CMRS_OK;
}

typedef struct hs_state {
    cmrs_csr M, L, next;
    void *work; /* the block w and the per-row arrays live in */
    double *w;
    int32_t *mate, *cand, *join, *id, *step;
} hs_state;

static void hs_free(hs_state *s)
{
    cmrs_csr_free(&s->M);
    cmrs_csr_free(&s->L);
    cmrs_csr_free(&s->next);
    free(s->work);
}

static cmrs_code hs_alloc(hs_state *s, const cmrs_csr *A)
{
    static const size_t size[5] = {sizeof *s->mate, sizeof *s->cand,
                                   sizeof *s->join, sizeof *s->id,
                                   sizeof *s->step};
    void *a[5];
    CMRS_CHECK(cmrs_amg_workspace(A, "handshake", 5, size, &s->work, &s->w,
                                  a));
    s->mate = a[0], s->cand = a[1], s->join = a[2], s->id = a[3];
    s->step = a[4];
    return CMRS_OK;
}

/* Pass k+1's M and L from pass k's (M, the links L or pass 0's strong
 * pattern) and its aggregates. */
static cmrs_code next_pass(hs_state *s, const cmrs_csr *M, int first,
                           int64_t nc)
{
    cmrs_code rc = CMRS_OK;
    cmrs_csr S = {0};
    if (first) CMRS_TRY(strong_pattern(M, s->w, &S));
    CMRS_TRY(cmrs_amg_coarsen(first ? &S : &s->L, s->step, nc, 1, &s->next));
    cmrs_csr_free(&s->L);
    s->L = s->next;
    memset(&s->next, 0, sizeof s->next);
    CMRS_TRY(cmrs_amg_coarsen(M, s->step, nc, 0, &s->next));
    cmrs_csr_free(&s->M);
    s->M = s->next;
    memset(&s->next, 0, sizeof s->next);
done:
    cmrs_csr_free(&S);
    return rc;
}

cmrs_code cmrs_amg_handshake(const cmrs_csr *A, const cmrs_amg_params *p,
                             int32_t *agg, int64_t *naggs)
{
    cmrs_code rc = CMRS_OK;
    hs_state s;
    memset(&s, 0, sizeof s);
    int passes = 0;
    for (int k = p->agg_size; k > 1; k /= 2) ++passes;
    CMRS_TRY(hs_alloc(&s, A));
    for (int64_t i = 0; i < A->rows; ++i) agg[i] = (int32_t)i;
    *naggs = A->rows;
    for (int pass = 0; pass < passes; ++pass) {
        const cmrs_csr *M = pass == 0 ? A : &s.M;
        int64_t nc = 0;
        CMRS_TRY(cmrs_amg_hs_weights(M, pass == 0 ? NULL : &s.L, p->theta,
                                     s.w));
        match(M, s.w, s.mate, s.cand, s.join);
        number(M->rows, s.mate, s.join, s.id, s.step, &nc);
        for (int64_t i = 0; i < A->rows; ++i) agg[i] = s.step[agg[i]];
        *naggs = nc;
        if (nc == M->rows || pass + 1 == passes) break;
        CMRS_TRY(next_pass(&s, M, pass == 0, nc));
    }
done:
    hs_free(&s);
    return rc;
}
