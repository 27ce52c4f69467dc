/* cmrs_thread_start (thread.h): a new thread inherits the creator's signal
 * mask, so the mask is full only while it is made. */
#include "thread.h"

#include <signal.h>

int cmrs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    const int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    const int started = pthread_create(t, NULL, fn, arg) == 0;
    if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}
