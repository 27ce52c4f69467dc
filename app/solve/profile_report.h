/* How `cmrs solve` reports the setup profile (include/cmrs.h,
 * cmrs_setup_profile): a "setup_profile" JSON object and the one line of
 * --verbose. */
#ifndef CMRS_APP_PROFILE_REPORT_H
#define CMRS_APP_PROFILE_REPORT_H

#include <stdio.h>

#include "cmrs.h"
#include "io/json.h"

/* "setup_profile": phases in seconds (host_staging_s, transfer_s,
 * conversion_s, precond_s, other_s, total_s), transfer_bytes, csr_bytes,
 * h2d_pinned_gbs and transfer_floor_s (null on the CPU), upload. Nothing
 * when p is not valid. */
void profile_report_json(cmrs_json *j, const cmrs_setup_profile *p);
/* "setup profile: ..." on one line. Nothing when p is not valid. */
void profile_report_print(FILE *f, const cmrs_setup_profile *p);

#endif
