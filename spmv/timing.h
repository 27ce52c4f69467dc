/* GPU timing with CUDA events: the SpMV of a format and the device-to-device
 * copy bandwidth that eta+- is measured against (GPU.md "Measuring"). Used
 * by `cmrs bench`, and meant for sweep/compare/autotuning.
 *
 * Each timed call is bracketed by events recorded back to back on one
 * stream, after warm-up calls that are not timed (module load, first-touch,
 * library start-up). The statistics are over the per-call times. */
#ifndef CMRS_TIMING_H
#define CMRS_TIMING_H

#include <stddef.h>

#include "spmv.h"

typedef struct cmrs_timing {
    double median, min, max, mean; /* seconds per call */
    int reps;
} cmrs_timing;

/* Fills t from n >= 1 per-call times in seconds (sorts samples in place). */
void cmrs_timing_from_samples(double *samples, int n, cmrs_timing *t);

/* One operation to time, enqueued on a stream by op(ctx). */
typedef cmrs_code (*cmrs_timed_op)(void *ctx);

/* Times op: warmup untimed calls, then reps calls with an event recorded
 * on stream between consecutive ones; t gets the per-call statistics. */
cmrs_code cmrs_time_op(cmrs_timed_op op, void *ctx, cmrs_stream stream,
                       int warmup, int reps, cmrs_timing *t);

/* Device-to-device cudaMemcpyAsync of a `bytes` buffer (reduced to a
 * quarter of the free device memory when that is short), 3 warm-ups, median
 * of reps; *bytes_per_s counts bytes read plus bytes written (2*bytes). */
cmrs_code cmrs_measure_copy_bandwidth(size_t bytes, int reps,
                                      double *bytes_per_s);

/* Times y = A*x (alpha 1, beta 0) of s on s->stream: warmup untimed calls,
 * then reps calls each between two events. x_d, y_d: device vectors of
 * s->cols and s->rows values of s->prec. */
cmrs_code cmrs_time_spmv(cmrs_spmv *s, const void *x_d, void *y_d, int warmup,
                         int reps, cmrs_timing *t);

#endif
