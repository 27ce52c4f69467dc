/* MIS-2 aggregation on the host (amg_mis2.h): the reference the GPU's
 * kernels (amg_mis2_gpu.cu) follow step for step. */
#include <stdlib.h>

#include "amg_csr.h"
#include "amg_handshake.h"
#include "amg_mis2.h"
#include "amg_rules.h"

typedef struct mis_state {
    void *work; /* the block w and the per-row arrays live in */
    double *w;
    uint64_t *key, *t1;
    int32_t *root, *lead, *id;
} mis_state;

static cmrs_code mis_alloc(mis_state *s, const cmrs_csr *A)
{
    static const size_t size[5] = {sizeof *s->key, sizeof *s->t1,
                                   sizeof *s->root, sizeof *s->lead,
                                   sizeof *s->id};
    void *a[5];
    CMRS_CHECK(cmrs_amg_workspace(A, "MIS-2", 5, size, &s->work, &s->w, a));
    s->key = a[0], s->t1 = a[1], s->root = a[2], s->lead = a[3];
    s->id = a[4];
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
    free(s.work);
    return rc;
}
