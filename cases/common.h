/* Helpers shared by the generators (internal to cases/). */
#ifndef CMRS_CASES_COMMON_H
#define CMRS_CASES_COMMON_H

#include "io/system.h"

/* Fails with CMRS_E_NOMEM ("gen KIND: OPTION (about R rows and N
 * nonzeros) needs about X GB of host memory; Y GB available") unless
 * `bytes`, the generator's peak estimated from its options alone, fits in
 * the memory available. Called before the generator allocates anything. */
cmrs_code cases_check_memory(const char *kind, const char *option,
                             double rows, double nnz, double bytes);

/* Allocates sys->b (rows entries, zeroed) after sys->A is built. */
cmrs_code cases_alloc_rhs(cmrs_system *sys, const char *kind);

/* Last step of every generator: validates A (a failure here is a bug, so it
 * is reported as CMRS_E_INTERNAL) and marks the system as native. */
cmrs_code cases_finish(cmrs_system *sys, const char *kind);

#endif
