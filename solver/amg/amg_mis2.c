/* MIS-2 aggregation on the host (amg_mis2.h): the reference the GPU's
 * kernels (amg_mis2_gpu.cu) follow step for step. */
#include <stdlib.h>

#include "amg_csr.h"
#include "amg_handshake.h"
#include "amg_mis2.h"
#include "amg_rules.h"

typedef struct mis_state {
    double *w;
    uint64_t *key, *t1;
    int32_t *root, *lead, *id;
} mis_state;

static void mis_free(mis_state *s)
{
    free(s->w);
    free(s->key);
    free(s->t1);
    free(s->root);
    free(s->lead);
    free(s->id);
}

static cmrs_code mis_alloc(mis_state *s, const cmrs_csr *A)
{
    size_t n = (size_t)A->rows;
    s->w = cmrs_malloc_array(A->nnz > 0 ? (size_t)A->nnz : 1, sizeof *s->w);
    s->key = cmrs_malloc_array(n, sizeof *s->key);
    s->t1 = cmrs_malloc_array(n, sizeof *s->t1);
    s->root = cmrs_malloc_array(n, sizeof *s->root);
    s->lead = cmrs_malloc_array(n, sizeof *s->lead);
    s->id = cmrs_malloc_array(n, sizeof *s->id);
    CMRS_ENSURE(s->w && s->key && s->t1 && s->root && s->lead && s->id,
                CMRS_E_NOMEM, "amg: cannot allocate the MIS-2 workspace of "
                "%lld rows", (long long)A->rows);
    return CMRS_OK;
}

/* Step 2: rounds until no node is undecided. Each round reads only the
 * keys of the round before: t1 holds the first max pass, the second is
 * taken node by node from t1 into the new keys. */
static void rounds(const cmrs_csr *A, mis_state *s)
{
    int64_t n = A->rows;
    for (int64_t i = 0; i < n; ++i)
        s->key[i] = amg_mis_key(AMG_MIS_UNDECIDED, i);
    for (int r = 0; r < CMRS_MIS_MAX_ROUNDS; ++r) {
        int64_t undecided = 0;
        for (int64_t i = 0; i < n; ++i)
            s->t1[i] = amg_mis_max(A->indptr, A->indices, s->w, s->key, i);
        /* The second pass reads t1 only; decisions go into key, which the
         * pass does not read. */
        for (int64_t i = 0; i < n; ++i) {
            uint64_t m2 = amg_mis_max(A->indptr, A->indices, s->w, s->t1, i);
            s->key[i] = amg_mis_decide(s->key[i], m2);
            undecided += amg_mis_state(s->key[i]) == AMG_MIS_UNDECIDED;
        }
        if (undecided == 0) break;
    }
}

cmrs_code cmrs_amg_mis2(const cmrs_csr *A, const cmrs_amg_params *p,
                        int32_t *agg, int64_t *naggs)
{
    cmrs_code rc = CMRS_OK;
    mis_state s = {0};
    int64_t n = A->rows;
    CMRS_TRY(mis_alloc(&s, A));
    CMRS_TRY(cmrs_amg_hs_weights(A, NULL, p->theta, s.w));
    rounds(A, &s);
    for (int64_t i = 0; i < n; ++i)
        s.root[i] = amg_mis_root(A->indptr, A->indices, s.w, s.key, i);
    for (int64_t i = 0; i < n; ++i)
        s.lead[i] = amg_mis_join(A->indptr, A->indices, s.w, s.root, i);
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) { /* roots, in index order */
        s.id[i] = (int32_t)c;
        c += s.lead[i] == i;
    }
    for (int64_t i = 0; i < n; ++i) agg[i] = s.id[s.lead[i]];
    *naggs = c;
done:
    mis_free(&s);
    return rc;
}
