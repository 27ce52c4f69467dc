/* Helpers shared by the generators (internal to cases/). */
#ifndef CMRS_CASES_COMMON_H
#define CMRS_CASES_COMMON_H

#include "../io/system.h"

/* Allocates sys->b (rows entries, zeroed) after sys->A is built. */
cmrs_code cases_alloc_rhs(cmrs_system *sys, const char *kind);

/* Last step of every generator: validates A (a failure here is a bug, so it
 * is reported as CMRS_E_INTERNAL) and marks the system as native. */
cmrs_code cases_finish(cmrs_system *sys, const char *kind);

#endif
