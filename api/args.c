/* Strict parsing of option values, shared by the library (string options
 * of cmrs_solver_set_option) and the command line. */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cmrs_code cmrs_arg_int(const char *opt, const char *text, int64_t min,
                       int64_t max, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    CMRS_ENSURE(*text && end && *end == '\0' && errno == 0, CMRS_E_USAGE,
                "%s: '%s' is not an integer", opt, text);
    CMRS_ENSURE(v >= min && v <= max, CMRS_E_USAGE,
                "%s: %lld is out of range [%lld, %lld]", opt, v,
                (long long)min, (long long)max);
    *out = v;
    return CMRS_OK;
}

cmrs_code cmrs_arg_int32(const char *opt, const char *text, int64_t min,
                         int64_t max, int *out)
{
    int64_t v = 0;
    CMRS_CHECK(cmrs_arg_int(opt, text, min, max, &v));
    *out = (int)v;
    return CMRS_OK;
}

cmrs_code cmrs_arg_block_size(const char *text, int *out)
{
    int64_t v = 0;
    CMRS_CHECK(cmrs_arg_int("--block-size", text, 32, 1024, &v));
    CMRS_ENSURE(v % 32 == 0, CMRS_E_USAGE,
                "--block-size: %lld is not a multiple of 32 (the warp size)",
                (long long)v);
    *out = (int)v;
    return CMRS_OK;
}

cmrs_code cmrs_arg_double(const char *opt, const char *text, double min,
                          double max, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    CMRS_ENSURE(*text && end && *end == '\0' && errno == 0 && isfinite(v),
                CMRS_E_USAGE, "%s: '%s' is not a finite number", opt, text);
    CMRS_ENSURE(v >= min && v <= max, CMRS_E_USAGE,
                "%s: %g is out of range [%g, %g]", opt, v, min, max);
    *out = v;
    return CMRS_OK;
}

cmrs_code cmrs_arg_choice(const char *opt, const char *text,
                          const char *const *choices, int *out)
{
    char list[256] = "";
    for (int i = 0; choices[i]; ++i) {
        if (strcmp(text, choices[i]) == 0) {
            *out = i;
            return CMRS_OK;
        }
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    CMRS_FAIL(CMRS_E_USAGE, "%s: '%s' is not one of %s", opt, text, list);
}

cmrs_code cmrs_arg_on_off_auto(const char *opt, const char *text, int *out)
{
    static const char *const choices[] = {"off", "on", "auto", NULL};
    int i = 0;
    CMRS_CHECK(cmrs_arg_choice(opt, text, choices, &i));
    *out = i == 2 ? 0 : i ? 1 : -1;
    return CMRS_OK;
}

static cmrs_code add_unique(const char *opt, int64_t v, int64_t *out, int cap,
                            int *n)
{
    for (int i = 0; i < *n; ++i)
        if (out[i] == v) return CMRS_OK;
    CMRS_ENSURE(*n < cap, CMRS_E_USAGE, "%s: more than %d values", opt, cap);
    out[(*n)++] = v;
    return CMRS_OK;
}

cmrs_code cmrs_arg_int_list(const char *opt, const char *text, int64_t min,
                            int64_t max, int64_t *out, int cap, int *n)
{
    char buf[512];
    CMRS_ENSURE(strlen(text) < sizeof buf && *text, CMRS_E_USAGE,
                "%s: empty or overlong list", opt);
    strcpy(buf, text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int64_t lo, hi;
        char *dash = strchr(tok + 1, '-'); /* tok+1: allow a leading sign */
        if (dash) {
            *dash = '\0';
            CMRS_CHECK(cmrs_arg_int(opt, tok, min, max, &lo));
            CMRS_CHECK(cmrs_arg_int(opt, dash + 1, min, max, &hi));
            CMRS_ENSURE(lo <= hi, CMRS_E_USAGE, "%s: empty range %lld-%lld",
                        opt, (long long)lo, (long long)hi);
        } else {
            CMRS_CHECK(cmrs_arg_int(opt, tok, min, max, &lo));
            hi = lo;
        }
        for (int64_t v = lo; v <= hi; ++v)
            CMRS_CHECK(add_unique(opt, v, out, cap, n));
    }
    CMRS_ENSURE(*n > 0, CMRS_E_USAGE, "%s: empty list", opt);
    return CMRS_OK;
}
