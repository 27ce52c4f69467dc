/* One-time initialisation before anything is timed (`cmrs bench`,
 * `cmrs compare`): the CUDA context, the libraries' handles and, since CUDA
 * loads kernel modules lazily at their first launch, every kernel a run
 * will use. The commands run their own code paths once on a tiny system
 * built here, report that time on its own line and charge it to no row. */
#ifndef CMRS_APP_WARMUP_H
#define CMRS_APP_WARMUP_H

#include "io/system.h"

/* An n x n SPD system (tridiagonal 4, -1: condition number below 3, so a
 * solve takes a few iterations), b = 1, no x0. Free with
 * cmrs_system_free. */
cmrs_code cmrs_warmup_system(int64_t n, cmrs_system *sys);

/* Rows of the warm-up system: enough for every kernel variant to run
 * (several strips and blocks), small enough to cost microseconds. */
#define CMRS_WARMUP_ROWS 4096

#endif
