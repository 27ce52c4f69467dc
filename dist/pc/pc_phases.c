/* The distributed AMG's phase profile (pc_phases.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "pc_phases.h"

static const char *const k_phase[PH_COUNT] = {
    "pre-smoothing", "residual", "restriction and its sum", "scatter",
    "coarse cycles", "gather", "prolongation", "post-smoothing"};

void pc_phases_init(pc_phases *ph)
{
    const char *env = getenv("CMRS_DIST_AMG_PHASES");
    *ph = (pc_phases){.mode = !env                         ? PC_PHASES_OFF
                              : strcmp(env, "1") == 0      ? PC_PHASES_SYNC
                              : strcmp(env, "events") == 0 ? PC_PHASES_EVENTS
                                                           : PC_PHASES_OFF};
}

void pc_phases_free(pc_phases *ph)
{
    cmrs_gpu_marks_free(ph->marks);
    ph->marks = NULL;
}

cmrs_code pc_phases_make(pc_phases *ph, const dist_impl *d)
{
    pc_phases_free(ph);
    if (ph->mode != PC_PHASES_EVENTS) return CMRS_OK;
    int p = dist_first_mine(d);
    cmrs_backend *in = dist_inner(d, p);
    if (!cmrs_backend_gpu_stream(in)) {
        ph->mode = PC_PHASES_OFF;
        dist_home(d);
        return CMRS_OK;
    }
    ph->part = p;
    ph->half = 0; /* new marks: none recorded yet */
    ph->marked = 0;
    cmrs_code rc = cmrs_gpu_marks_create(2 * PHASE_MARKS, &ph->marks);
    dist_home(d);
    return rc;
}

/* Events: a mark on the first GPU part's stream (phase < 0: the apply
 * starts). */
static cmrs_code event_mark(pc_phases *ph, const dist_impl *d, int k,
                            int phase)
{
    if (phase < 0) ph->mark_n = 0;
    CMRS_ENSURE(ph->mark_n < PHASE_MARKS, CMRS_E_INTERNAL, "%d phase marks",
                ph->mark_n);
    ph->mark_of[ph->mark_n] = phase < 0 ? -1 : k * PH_COUNT + phase;
    cmrs_backend *in = dist_inner(d, ph->part);
    cmrs_code rc = cmrs_gpu_mark(ph->marks,
                                 ph->half * PHASE_MARKS + ph->mark_n++,
                                 cmrs_backend_gpu_stream(in));
    dist_home(d);
    return rc;
}

cmrs_code pc_phases_mark(pc_phases *ph, cmrs_backend *be, int k, int phase)
{
    if (ph->mode == PC_PHASES_OFF) return CMRS_OK;
    if (ph->mode == PC_PHASES_EVENTS) return event_mark(ph, DIST(be), k, phase);
    CMRS_CHECK(be->ops->sync(be));
    double now = cmrs_wtime();
    if (phase >= 0) ph->s[k][phase] += now - ph->t;
    ph->t = now;
    return CMRS_OK;
}

cmrs_code pc_phases_start(pc_phases *ph, cmrs_backend *be)
{
    if (ph->mode == PC_PHASES_OFF) return CMRS_OK;
    ph->applies++;
    return pc_phases_mark(ph, be, 0, -1);
}

/* Events: this apply's phases (and the time since the last apply
 * ended, where the same marks took it) from its marks, on the marks'
 * device. */
static cmrs_code event_times(pc_phases *ph)
{
    cmrs_gpu_marks *m = ph->marks;
    int base = ph->half * PHASE_MARKS, prev = (1 - ph->half) * PHASE_MARKS;
    double ms = 0;
    for (int i = 1; i < ph->mark_n; ++i) {
        CMRS_CHECK(cmrs_gpu_marks_ms(m, base + i - 1, base + i, &ms));
        int at = ph->mark_of[i];
        ph->s[at / PH_COUNT][at % PH_COUNT] += 1e-3 * ms;
    }
    CMRS_CHECK(cmrs_gpu_marks_ms(m, base, base + ph->mark_n - 1, &ms));
    if (ph->applies == 1) {
        ph->first_s = 1e-3 * ms;
    } else {
        ph->cycle_s += 1e-3 * ms;
        ph->cycle_n++;
    }
    if (++ph->marked > 1) { /* the other half's last mark: the last end */
        CMRS_CHECK(cmrs_gpu_marks_ms(m, prev + ph->mark_n - 1, base, &ms));
        ph->between_s += 1e-3 * ms;
        ph->between_n++;
    }
    ph->half = 1 - ph->half;
    return CMRS_OK;
}

cmrs_code pc_phases_end(pc_phases *ph, const dist_impl *d)
{
    if (ph->mode != PC_PHASES_EVENTS) return CMRS_OK;
    (void)dist_inner(d, ph->part); /* its device current */
    cmrs_code rc = event_times(ph);
    dist_home(d);
    return rc == CMRS_OK ? rc : cmrs_error_trace(rc, __FILE__, __LINE__);
}

void pc_phases_report(const pc_phases *ph)
{
    if (ph->mode == PC_PHASES_OFF || ph->applies == 0) return;
    if (ph->mode == PC_PHASES_EVENTS && ph->between_n > 0 && ph->cycle_n > 0)
        fprintf(stderr, "amg-phases: between applies (CG's steps) %.4f ms "
                "(GPU events); a cycle %.4f ms, the first %.4f ms\n",
                1e3 * ph->between_s / (double)ph->between_n,
                1e3 * ph->cycle_s / (double)ph->cycle_n, 1e3 * ph->first_s);
    for (int k = 0; k < PHASE_LEVELS; ++k)
        for (int p = 0; p < PH_COUNT; ++p)
            if (ph->s[k][p] > 0)
                fprintf(stderr, "amg-phases: level %d %-24s %.4f ms\n", k,
                        k_phase[p], 1e3 * ph->s[k][p] / (double)ph->applies);
}
