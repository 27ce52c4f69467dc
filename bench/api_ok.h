/* How the benchmarks of the public API (bench_api, time_loop_bench) stop on
 * a failed call: there is nothing left to measure, so the call's text and
 * the library's message go to stderr and the program exits 1. */
#ifndef CMRS_BENCH_API_OK_H
#define CMRS_BENCH_API_OK_H

#include <stdio.h>
#include <stdlib.h>

#include "cmrs.h"

static inline void bench_fail(const char *program, const char *call,
                              const char *message)
{
    fprintf(stderr, "%s: %s: %s\n", program, call, message);
    exit(1);
}

/* call, an API call of context ctx, must succeed; text is #call, taken by
 * the caller's own macro before NULL and the like are expanded. A macro:
 * ctx is read after the call (which may be the one that creates it). */
#define BENCH_API_OK(program, ctx, call, text)                              \
    do {                                                                    \
        if ((call) != CMRS_SUCCESS)                                         \
            bench_fail((program), (text), cmrs_last_error(ctx));            \
    } while (0)

#endif
