/* cmrs_thread_start (thread.h): a new thread inherits the creator's signal
 * mask, so the mask is full only while it is made. */
#include "thread.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cmrs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    const int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    const int started = pthread_create(t, NULL, fn, arg) == 0;
    if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

void cmrs_thread_job_end(cmrs_thread_job *job, cmrs_code rc)
{
    job->rc = rc;
    if (rc != CMRS_OK)
        snprintf(job->msg, sizeof job->msg, "%s", cmrs_error_message());
}

cmrs_code cmrs_thread_job_raise(const cmrs_thread_job *job)
{
    if (job->rc == CMRS_OK) return CMRS_OK;
    return cmrs_error_set(job->rc, __FILE__, __LINE__, "%s", job->msg);
}

int cmrs_parallel_threads(int64_t work, int64_t grain)
{
    const char *env = getenv("CMRS_HOST_THREADS");
    long cap = env && *env ? strtol(env, NULL, 10) : 0;
    if (cap < 1 || cap > CMRS_PARALLEL_CHUNKS) {
        cap = sysconf(_SC_NPROCESSORS_ONLN);
        if (cap > CMRS_PARALLEL_MAX) cap = CMRS_PARALLEL_MAX;
    }
    /* Tests set a grain of 1 to split tiny inputs into chunks. */
    const char *grain_env = getenv("CMRS_PARALLEL_GRAIN");
    if (grain_env && *grain_env) grain = strtoll(grain_env, NULL, 10);
    int64_t by_work = grain > 0 ? work / grain : 1;
    if (by_work < cap) cap = (long)by_work;
    return cap < 1 ? 1 : (int)cap;
}

typedef struct range_job {
    void (*fn)(void *ctx, int t, int64_t lo, int64_t hi);
    void *ctx;
    int t;
    int64_t lo, hi;
    pthread_t thread;
    int started;
} range_job;

static void *run_range(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->t, j->lo, j->hi);
    return NULL;
}

void cmrs_parallel_ranges(int64_t n, int threads,
                          void (*fn)(void *ctx, int t, int64_t lo,
                                     int64_t hi),
                          void *ctx)
{
    range_job job[CMRS_PARALLEL_CHUNKS];
    int nt = threads < 1                      ? 1
             : threads > CMRS_PARALLEL_CHUNKS ? CMRS_PARALLEL_CHUNKS
                                              : threads;
    for (int t = 0; t < nt; ++t) {
        job[t] = (range_job){.fn = fn, .ctx = ctx, .t = t,
                             .lo = n * t / nt, .hi = n * (t + 1) / nt};
        job[t].started = t > 0 && cmrs_thread_start(&job[t].thread,
                                                    run_range, &job[t]);
    }
    for (int t = 0; t < nt; ++t)
        if (!job[t].started) run_range(&job[t]);
    for (int t = 0; t < nt; ++t)
        if (job[t].started) pthread_join(job[t].thread, NULL);
}

/* Chunk [lo, hi) of the bytes at ctx: one write every 4 KiB from lo (a
 * page the chunk ends inside may be left to the next chunk's first write,
 * or at the array's end to the copy). */
static void touch_range(void *ctx, int t, int64_t lo, int64_t hi)
{
    volatile char *p = ctx;
    (void)t;
    for (int64_t at = lo; at < hi; at += 4096) p[at] = 0;
}

/* Arrays below this touch in one thread (a thread's start costs more
 * than the faults of 16 MiB of huge pages). */
#define TOUCH_GRAIN ((int64_t)16 << 20)

void cmrs_touch_pages(void *p, size_t bytes)
{
    if (!p || bytes == 0) return;
    cmrs_parallel_ranges((int64_t)bytes,
                         cmrs_parallel_threads((int64_t)bytes, TOUCH_GRAIN),
                         touch_range, p);
}

static void *touch_main(void *arg)
{
    cmrs_touch *t = arg;
    for (int i = 0; i < t->n; ++i) cmrs_touch_pages(t->r[i].p, t->r[i].bytes);
    return NULL;
}

void cmrs_touch_start(cmrs_touch *t)
{
    t->started = cmrs_thread_start(&t->thread, touch_main, t);
}

void cmrs_touch_join(cmrs_touch *t)
{
    if (!t->started) return;
    pthread_join(t->thread, NULL);
    t->started = 0;
}
