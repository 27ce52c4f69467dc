/* Monotonic wall clock in seconds, for host-side phase timings. GPU work is
 * timed with CUDA events instead (it is asynchronous). */
#ifndef CMRS_TIMER_H
#define CMRS_TIMER_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>

static inline double cmrs_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
