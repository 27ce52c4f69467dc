/* cmrs_reorder / cmrs_order_perm: random, RCM and BFS orders are
 * permutations (of a vessel and of small odd graphs: several components,
 * empty rows, one row, none), A' = P A P^T entry by entry with b and x0
 * moved alike, seeds are reproducible, RCM and BFS restore a narrow band
 * after a random shuffle and number each connected component contiguously,
 * natural is the identity; metis is refused in a build without METIS
 * (test_reorder_metis checks it where built, test_reorder_bfs the BFS
 * level structure). */
#include <stdlib.h>
#include <string.h>

#include "base/csr_metis.h"
#include "check.h"
#include "reorder_check.h"

static void check_band(cmrs_order order)
{
    double shuffled, renumbered;
    shuffled_then(order, 10, bandwidth_of, &shuffled, &renumbered);
    /* natural order has bandwidth n^2 = 100; the level sets of a cube
     * are diagonal planes of up to ~n^2 * 3/4 nodes */
    CHECK(shuffled > 800 && renumbered >= 0 && renumbered <= 160,
          "order %s: bandwidth shuffled %.0f, renumbered %.0f",
          cmrs_order_names[order], shuffled, renumbered);
}

/* Two disjoint grids side by side: each numbered contiguously. */
static void check_components(cmrs_order order)
{
    cmrs_poisson_opts o = {3, 7, 0.0, 1};
    cmrs_system g;
    cmrs_csr A;
    CHECK_OK(cmrs_gen_poisson3d(&o, &g));
    if (!g.b) return;
    int64_t n = g.A.rows, nnz = g.A.nnz;
    CHECK_OK(cmrs_csr_alloc(&A, 2 * n, 2 * n, 2 * nnz));
    for (int half = 0; half < 2; ++half) {
        for (int64_t i = 0; i <= n; ++i)
            A.indptr[half * n + i] = half * nnz + g.A.indptr[i];
        for (int64_t k = 0; k < nnz; ++k) {
            A.indices[half * nnz + k] = (int32_t)(half * n + g.A.indices[k]);
            A.values[half * nnz + k] = g.A.values[k];
        }
    }
    int32_t *p = NULL;
    CHECK_OK(cmrs_order_perm(&A, order, 0, &p));
    if (p) {
        int split = 1;
        for (int64_t i = 1; i < n; ++i)
            split &= (p[i] < n) == (p[0] < n) && (p[n + i] < n) == (p[n] < n);
        CHECK(is_permutation(p, 2 * n) && split && (p[0] < n) != (p[n] < n),
              "%s mixes two components", cmrs_order_names[order]);
    }
    free(p);
    cmrs_csr_free(&A);
    cmrs_system_free(&g);
}

static void check_not_square(void)
{
    cmrs_csr A;
    int32_t *p = NULL;
    CHECK_OK(cmrs_csr_alloc(&A, 2, 3, 0));
    A.indptr[1] = A.indptr[2] = 0;
    for (int order = CMRS_ORDER_RANDOM; order < CMRS_ORDER_COUNT; ++order)
        if (cmrs_order_check((cmrs_order)order) == CMRS_OK)
            CHECK_FAILS(cmrs_order_perm(&A, (cmrs_order)order, 0, &p),
                        CMRS_E_INPUT, "not square");
    CHECK(p == NULL, "permutation returned on failure");
    cmrs_csr_free(&A);
}

/* Without METIS the order is a usage error of this build, named so. */
static void check_metis_refused(void)
{
    cmrs_poisson_opts o = {3, 7, 0.0, 1};
    cmrs_system s;
    int32_t *p = NULL;
    if (cmrs_metis_built()) return;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    CHECK_FAILS(cmrs_order_perm(&s.A, CMRS_ORDER_METIS, 0, &p), CMRS_E_USAGE,
                "METIS order: cmrs was built without METIS");
    CHECK_FAILS(cmrs_reorder(&s, CMRS_ORDER_METIS, 0), CMRS_E_USAGE,
                "METIS order: cmrs was built without METIS");
    CHECK(p == NULL && s.b, "refused METIS order: a permutation or no system");
    cmrs_system_free(&s);
}

/* A bad permutation is refused before anything moves. */
static void check_bad_perm(void)
{
    cmrs_poisson_opts o = {3, 7, 0.0, 1};
    cmrs_system s, t;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    copy_system(&t, &s);
    int32_t p[27];
    for (int i = 0; i < 27; ++i) p[i] = (int32_t)((i * 5) % 27);
    p[26] = p[0]; /* a duplicate */
    CHECK_FAILS(cmrs_permute_system(&t, p), CMRS_E_INPUT, "no permutation");
    CHECK(t.b && same_system(&s, &t), "system changed by a refused perm");
    p[26] = 27;
    CHECK_FAILS(cmrs_permute_system(&t, p), CMRS_E_INPUT, "no permutation");
    cmrs_system_free(&t);
    cmrs_system_free(&s);
}

int main(void)
{
    cmrs_vessel_opts vo = {1000, 1};
    cmrs_system s, t;
    CHECK_OK(cmrs_gen_vessel(&vo, &s));
    if (!s.b) return check_summary();
    s.x0 = malloc((size_t)s.A.rows * sizeof(double));
    for (int64_t i = 0; i < s.A.rows; ++i) s.x0[i] = 3.0 + 0.5 * (double)i;
    static const cmrs_order level[] = {CMRS_ORDER_RCM, CMRS_ORDER_BFS};
    check_order(&s, CMRS_ORDER_RANDOM);
    check_order_on_graphs(CMRS_ORDER_RANDOM);
    for (int i = 0; i < 2; ++i) {
        check_order(&s, level[i]);
        check_order_on_graphs(level[i]);
        check_band(level[i]);
        check_components(level[i]);
    }
    copy_system(&t, &s);
    CHECK_OK(cmrs_reorder(&t, CMRS_ORDER_NATURAL, 3));
    CHECK(same_system(&s, &t), "natural order changed the system");
    cmrs_system_free(&t);
    cmrs_system_free(&s);
    check_not_square();
    check_bad_perm();
    check_metis_refused();
    return check_summary();
}
