/* --order metis (METIS_NodeND): a permutation, the same on every run and
 * applied as P A P^T with b and x0 alike, on a vessel and on the odd
 * graphs of reorder_check.h (several components, empty rows, one row, none,
 * a nonsymmetric pattern); on a shuffled 7-point grid it restores locality
 * (mean |i - j| and profile far below the shuffled one's: nested dissection
 * puts each separator after the parts it splits, so its bandwidth stays
 * large and is not checked). Skipped (77) in a build without METIS;
 * test_reorder checks the refusal there. */
#include <stdio.h>

#include "base/csr_metis.h"
#include "check.h"
#include "reorder_check.h"

static void check_vessel(void)
{
    cmrs_vessel_opts vo = {2000, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_vessel(&vo, &s));
    if (!s.b) return;
    s.x0 = malloc((size_t)s.A.rows * sizeof(double));
    for (int64_t i = 0; i < s.A.rows; ++i) s.x0[i] = 1.0 - 0.25 * (double)i;
    check_order(&s, CMRS_ORDER_METIS);
    cmrs_system_free(&s);
}

static void check_graphs(void)
{
    check_order_on_graphs(CMRS_ORDER_METIS);
}

/* 20^3 unknowns: nested dissection of the shuffled grid. Measured: mean
 * |i - j| 4x below the shuffled one's, profile 5x (the ratios grow with
 * the grid, as n^(1/3): the separators hold the far entries). */
static void check_locality(void)
{
    double shuffled, renumbered, shuffled_profile, renumbered_profile;
    shuffled_then(CMRS_ORDER_METIS, 20, mean_distance, &shuffled,
                  &renumbered);
    shuffled_then(CMRS_ORDER_METIS, 20, profile_of, &shuffled_profile,
                  &renumbered_profile);
    CHECK(renumbered >= 0 && renumbered < shuffled / 3, "metis: mean |i - j| "
          "%.1f, shuffled %.1f", renumbered, shuffled);
    CHECK(renumbered_profile >= 0 && renumbered_profile < shuffled_profile / 4,
          "metis: profile %.0f, shuffled %.0f", renumbered_profile,
          shuffled_profile);
}

int main(void)
{
    if (!cmrs_metis_built()) {
        printf("built without METIS: skipped\n");
        return 77;
    }
    return CHECK_RUN(check_vessel, check_graphs, check_locality);
}
