/* The SpMV formats `cmrs bench` and `cmrs sweep` measure: every registered
 * one (spmv/spmv.h) by default, or those of --formats LIST. Each is kept
 * once, under the registry's name. */
#ifndef CMRS_APP_FORMAT_LIST_H
#define CMRS_APP_FORMAT_LIST_H

#include "base/status.h"

/* The first cap registered formats, in the registry's order. */
void format_list_all(const char **formats, int cap, int *n);

/* The comma-separated names of list, in their order, repeats dropped.
 * Messages begin with opt ("--formats"). An empty name ("a,,b") is skipped
 * when empty_ok, else refused; more than cap formats are refused. */
cmrs_code format_list_parse(const char *opt, const char *list, int empty_ok,
                            const char **formats, int cap, int *n);

#endif
