/* The AMG setup's step profile, asked for with CMRS_AMG_PROFILE=1 in the
 * environment: each step waits for the stream (only then: the setup runs
 * unsynchronised otherwise) and prints its host wall time to stderr as
 * "amg-profile: <step> <seconds>", so one device run splits the setup into
 * its parts. A step's time is from the previous mark to this one. */
#ifndef CMRS_SOLVER_AMG_PROF_H
#define CMRS_SOLVER_AMG_PROF_H

#include "base/device.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when CMRS_AMG_PROFILE is set to something other than "0". */
int amg_prof_on(void);
/* *t = now (when profiling). */
void amg_prof_begin(double *t);
/* When profiling: synchronises `stream` (NULL: none), prints the time
 * since *t under the label, and sets *t = now. */
cmrs_code amg_prof_step(cmrs_stream stream, double *t, const char *fmt,
                        ...);

#ifdef __cplusplus
}
#endif

#endif
