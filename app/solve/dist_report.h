/* How `cmrs solve` reports a distributed solve (--parts): parts, method,
 * edge cut, halo and load imbalance of the partition. */
#ifndef CMRS_APP_DIST_REPORT_H
#define CMRS_APP_DIST_REPORT_H

#include <stdio.h>

#include "io/json.h"
#include "solver/backend/backend.h"

/* One indented line for the summary; nothing for other back ends. */
void dist_report_print(FILE *f, const cmrs_backend *be);
/* A "partition" object; nothing for other back ends. */
void dist_report_json(cmrs_json *j, const cmrs_backend *be);

#endif
