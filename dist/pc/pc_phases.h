/* The distributed AMG's V-cycle timed phase by phase, a profile asked
 * for by CMRS_DIST_AMG_PHASES (pc_global.c's level_cycle marks the end
 * of each phase):
 *   1       every part waited for at each phase's end, the host's clock
 *           (the waits slow the cycle: where it goes, not how fast);
 *   events  CUDA events on the first GPU part's stream, read after each
 *           apply (the GPU's clock, gaps where it waited for the host
 *           included), and the time between applies (CG's steps).
 * Reported on stderr when the preconditioner is destroyed. */
#ifndef CMRS_DIST_PC_PHASES_H
#define CMRS_DIST_PC_PHASES_H

#include "base/device.h"
#include "dist/dist_impl.h"

/* Most levels on the parts (pc_global.c's). */
#define PHASE_LEVELS 2

enum { PH_PRE, PH_RES, PH_RESTRICT, PH_SCATTER, PH_COARSE, PH_GATHER,
       PH_PROLONG, PH_POST, PH_COUNT };
/* Marks per apply (events): its start, then one per phase. */
#define PHASE_MARKS (PHASE_LEVELS * PH_COUNT + 1)

enum { PC_PHASES_OFF, PC_PHASES_SYNC, PC_PHASES_EVENTS };

typedef struct pc_phases {
    int mode;              /* PC_PHASES_*: off, 1, events */
    double s[PHASE_LEVELS][PH_COUNT]; /* each phase's seconds, summed */
    double t;              /* 1: the last mark's time */
    int64_t applies;
    /* events: */
    cmrs_gpu_marks *marks; /* 2 x PHASE_MARKS, applies alternating halves,
                              on part `part`'s device */
    int part;
    int mark_n, half;      /* marks of this apply, its half */
    int64_t marked;        /* applies since the marks were made */
    int mark_of[PHASE_MARKS]; /* the phase (k * PH_COUNT + ph) each ends */
    double between_s;      /* from an apply's end to the next's start,
                              summed (across solves: the time between
                              them too) */
    double first_s, cycle_s; /* the first apply's cycle, the rest's sum */
    int64_t cycle_n, between_n; /* the sums' terms */
} pc_phases;

/* The mode from CMRS_DIST_AMG_PHASES, the rest 0. */
void pc_phases_init(pc_phases *ph);
/* Events: marks on d's first local part, made anew (a new hierarchy);
 * a CPU part turns the profile off. Else nothing. */
cmrs_code pc_phases_make(pc_phases *ph, const dist_impl *d);
void pc_phases_free(pc_phases *ph); /* the marks; NULL-safe */
/* An apply starts, of be (d its distributed back end's state). */
cmrs_code pc_phases_start(pc_phases *ph, cmrs_backend *be);
/* Phase `phase` of level k ends. */
cmrs_code pc_phases_mark(pc_phases *ph, cmrs_backend *be, int k, int phase);
/* The apply is queued (events: its marks read, the last waited for). */
cmrs_code pc_phases_end(pc_phases *ph, const dist_impl *d);
void pc_phases_report(const pc_phases *ph);

#endif
