/* The setup profile (profile.h): a per-thread stack of phases. */
#include <string.h>

#include "profile.h"
#include "timer.h"

static _Thread_local cmrs_profile *g_current;

const char *cmrs_phase_name(cmrs_phase ph)
{
    static const char *const names[CMRS_PHASE_COUNT] = {
        "other", "host_staging", "transfer", "conversion", "precond",
        "libraries", "allocation"};
    return (unsigned)ph < CMRS_PHASE_COUNT ? names[ph] : "unknown";
}

cmrs_profile *cmrs_profile_current(void) { return g_current; }

/* Charges the time since the last mark to the phase on top. */
static void charge(cmrs_profile *p)
{
    if (p->sync && p->overlap == 0) p->sync();
    double now = cmrs_wtime();
    cmrs_phase top = p->depth > 0 ? p->stack[p->depth - 1] : CMRS_PHASE_OTHER;
    p->seconds[top] += now - p->mark;
    p->mark = now;
}

void cmrs_profile_start(cmrs_profile *p, void (*sync)(void))
{
    memset(p, 0, sizeof *p);
    p->sync = sync;
    if (sync) sync(); /* work queued before setup is not setup's */
    p->t0 = p->mark = cmrs_wtime();
    g_current = p;
}

void cmrs_profile_stop(cmrs_profile *p)
{
    charge(p);
    p->total = p->mark - p->t0;
    p->depth = p->lost = 0;
    if (g_current == p) g_current = NULL;
}

void cmrs_phase_push(cmrs_phase ph)
{
    cmrs_profile *p = g_current;
    if (!p) return;
    if (p->depth >= CMRS_PROFILE_DEPTH) {
        ++p->lost; /* too deep: the outer phase keeps the time */
        return;
    }
    charge(p);
    p->stack[p->depth++] = ph;
}

void cmrs_phase_pop(void)
{
    cmrs_profile *p = g_current;
    if (!p) return;
    if (p->lost > 0) {
        --p->lost;
        return;
    }
    if (p->depth == 0) return; /* unbalanced: ignored */
    charge(p);
    --p->depth;
}

void cmrs_profile_overlap(int on)
{
    cmrs_profile *p = g_current;
    if (!p) return;
    if (on) ++p->overlap;
    else if (p->overlap > 0) --p->overlap;
}

void cmrs_profile_bytes(double bytes)
{
    cmrs_profile *p = g_current;
    if (!p) return;
    p->transfer_bytes += bytes;
    ++p->transfers;
}
