/* Strict parsing of command-line values. Each returns CMRS_E_USAGE with a
 * one-line message naming the option when the text is not a valid value in
 * range (no trailing junk, no overflow). */
#ifndef CMRS_API_ARGS_H
#define CMRS_API_ARGS_H

#include <stdint.h>

#include "base/status.h"

cmrs_code cmrs_arg_int(const char *opt, const char *text, int64_t min,
                       int64_t max, int64_t *out);
/* The same into an int (min and max within int's range). */
/* --block-size: threads per block, a multiple of 32 in [32, 1024]. */
cmrs_code cmrs_arg_block_size(const char *text, int *out);
cmrs_code cmrs_arg_int32(const char *opt, const char *text, int64_t min,
                         int64_t max, int *out);
cmrs_code cmrs_arg_double(const char *opt, const char *text, double min,
                          double max, double *out);
/* Index of text in the NULL-terminated list choices. */
cmrs_code cmrs_arg_choice(const char *opt, const char *text,
                          const char *const *choices, int *out);
/* on | off | auto into 1 | -1 | 0 (the options' "by rule" zero). */
cmrs_code cmrs_arg_on_off_auto(const char *opt, const char *text, int *out);
/* Integer list with ranges, "1-4,8,12-16", each in [min, max], into out
 * (capacity cap, count in *n). Duplicates are kept once, order preserved. */
cmrs_code cmrs_arg_int_list(const char *opt, const char *text, int64_t min,
                            int64_t max, int64_t *out, int cap, int *n);

#endif
