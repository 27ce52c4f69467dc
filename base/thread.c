/* cmrs_thread_start (thread.h): a new thread inherits the creator's signal
 * mask, so the mask is full only while it is made. */
#include "thread.h"

#include <signal.h>
#include <stdio.h>

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
