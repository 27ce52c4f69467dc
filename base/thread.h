/* Helper threads that never take the process's signals: app/main.c's
 * SIGINT/SIGTERM handler must run on the main thread, which removes the
 * temporaries and exits. Every thread the library or the CLI makes (the
 * upload's workers, cuBLAS's loader, CUDA's start, the symmetry check)
 * starts here. */
#ifndef CMRS_IO_THREAD_H
#define CMRS_IO_THREAD_H

#include <pthread.h>

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

#ifdef __cplusplus
}
#endif

#endif
