/* Helper threads that never take the process's signals: app/main.c's
 * SIGINT/SIGTERM handler must run on the main thread, which removes the
 * temporaries and exits. Every thread the library or the CLI makes (the
 * upload's workers, cuBLAS's loader, CUDA's start, the symmetry check)
 * starts here. */
#ifndef CMRS_IO_THREAD_H
#define CMRS_IO_THREAD_H

#include <pthread.h>
#include <stdint.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pthread_create(t, NULL, fn, arg) with every signal blocked in the new
 * thread; 1 when it started, 0 when not (the caller then does the work
 * itself). */
int cmrs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* A helper thread's work as its joiner sees it: the thread, whether it
 * started (else the joiner did the work itself), and its result. Errors
 * are thread-local, so the code and message travel here. */
typedef struct cmrs_thread_job {
    pthread_t thread;
    int started;
    cmrs_code rc;
    char msg[512];
} cmrs_thread_job;

/* In the helper: job->rc = rc and, on a failure, this thread's message. */
void cmrs_thread_job_end(cmrs_thread_job *job, cmrs_code rc);
/* In the joiner, after the join: the job's failure raised in this thread
 * (its code and message), or CMRS_OK. */
cmrs_code cmrs_thread_job_raise(const cmrs_thread_job *job);

/* Host loops over many rows split between helper threads (the
 * distributed setup's partition and transposes, D^-1): */
/* The threads for `work` items of at least `grain` each: 1 .. the online
 * cores (at most CMRS_PARALLEL_MAX), or CMRS_HOST_THREADS (1 ..
 * CMRS_PARALLEL_CHUNKS) where set. CMRS_PARALLEL_GRAIN, where set,
 * replaces every caller's grain (the tests' 1 splits small inputs into
 * CMRS_HOST_THREADS chunks, so the chunked paths run on edge cases). */
#define CMRS_PARALLEL_MAX 16
/* The most chunks cmrs_parallel_ranges runs (and CMRS_HOST_THREADS may
 * ask): the length of a caller's per-chunk results. */
#define CMRS_PARALLEL_CHUNKS 64
int cmrs_parallel_threads(int64_t work, int64_t grain);
/* fn(ctx, t, lo, hi) on each of the `threads` chunks of [0, n) (chunk t:
 * [n t / threads, n (t + 1) / threads)), chunk 0 in this thread, the
 * others in helper threads (one that cannot start: its chunk here);
 * returns when all are done. fn records any failure in ctx by chunk. */
void cmrs_parallel_ranges(int64_t n, int threads,
                          void (*fn)(void *ctx, int t, int64_t lo,
                                     int64_t hi),
                          void *ctx);

/* The first touch of fresh host memory: every 4 KiB page of [p, p +
 * bytes) written once (zeros), by helper threads for large arrays. A
 * pageable copy into memory never touched pays each page fault inside the
 * driver's one-thread staging loop; touched first, in parallel, the copy
 * runs at its own speed. */
void cmrs_touch_pages(void *p, size_t bytes);

/* cmrs_touch_pages of up to CMRS_TOUCH_MAX arrays in a helper thread,
 * while the caller does other work (the GPU's part of a build whose
 * result comes down into them). Fill r[] and n, then start; join before
 * the arrays are written or freed (on every path). A helper that cannot
 * start leaves the pages to the copy (no error). */
#define CMRS_TOUCH_MAX 8
typedef struct cmrs_touch {
    struct {
        void *p;
        size_t bytes;
    } r[CMRS_TOUCH_MAX];
    int n;
    int started;
    pthread_t thread;
} cmrs_touch;
void cmrs_touch_start(cmrs_touch *t);
void cmrs_touch_join(cmrs_touch *t); /* idempotent; a zeroed t: nothing */

#ifdef __cplusplus
}
#endif

#endif
