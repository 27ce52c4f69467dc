/* Host tests of the setup profile (base/profile.h): the sync hook at
 * every phase boundary, none between cmrs_profile_overlap(1) and (0)
 * (nested, counted), the phases exclusive and summing to the total, and
 * every call a no-op without a current profile. */
#include <string.h>

#include "check.h"
#include "base/profile.h"

static int g_syncs;
static void count_sync(void) { ++g_syncs; }

/* Pushes and pops one phase: two boundaries. */
static void one_phase(cmrs_phase ph)
{
    cmrs_phase_push(ph);
    cmrs_phase_pop();
}

static void test_overlap(void)
{
    cmrs_profile p;
    cmrs_profile_start(&p, count_sync);
    g_syncs = 0;
    one_phase(CMRS_PHASE_TRANSFER);
    CHECK(g_syncs == 2, "a phase: %d syncs, want 2", g_syncs);
    cmrs_profile_overlap(1);
    cmrs_profile_overlap(1); /* nested */
    one_phase(CMRS_PHASE_TRANSFER);
    cmrs_profile_overlap(0);
    one_phase(CMRS_PHASE_CONVERSION);
    CHECK(g_syncs == 2, "inside overlap: %d syncs, want none more", g_syncs);
    cmrs_profile_overlap(0);
    one_phase(CMRS_PHASE_TRANSFER);
    CHECK(g_syncs == 4, "after overlap: %d syncs, want 4", g_syncs);
    cmrs_profile_overlap(0); /* unbalanced: ignored, the count stays 0 */
    one_phase(CMRS_PHASE_TRANSFER);
    CHECK(g_syncs == 6 && p.overlap == 0, "an extra overlap(0): %d syncs, "
          "count %d", g_syncs, p.overlap);
    cmrs_profile_stop(&p);
    double sum = 0;
    for (int ph = 0; ph < CMRS_PHASE_COUNT; ++ph) {
        CHECK(p.seconds[ph] >= 0, "phase %s: %g s",
              cmrs_phase_name((cmrs_phase)ph), p.seconds[ph]);
        sum += p.seconds[ph];
    }
    CHECK(sum <= p.total + 1e-9 && sum >= p.total - 1e-9,
          "phases %g s of a total %g s", sum, p.total);
    CHECK(cmrs_profile_current() == NULL, "stopped: no current profile");
}

static void test_no_profile(void)
{
    g_syncs = 0;
    cmrs_profile_overlap(1); /* no current profile: nothing */
    one_phase(CMRS_PHASE_TRANSFER);
    cmrs_profile_overlap(0);
    cmrs_profile p;
    cmrs_profile_start(&p, count_sync);
    g_syncs = 0;
    one_phase(CMRS_PHASE_TRANSFER);
    CHECK(g_syncs == 2 && p.overlap == 0, "a fresh profile: %d syncs, "
          "count %d", g_syncs, p.overlap);
    cmrs_profile_stop(&p);
}

int main(void)
{
    test_overlap();
    test_no_profile();
    return check_summary();
}
