/* Helper threads that never take the process's signals: app/main.c's
 * SIGINT/SIGTERM handler must run on the main thread, which removes the
 * temporaries and exits. Every thread the library or the CLI makes (the
 * upload's workers, cuBLAS's loader, CUDA's start, the symmetry check)
 * starts here. */
#ifndef CMRS_IO_THREAD_H
#define CMRS_IO_THREAD_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pthread_create(t, NULL, fn, arg) with every signal blocked in the new
 * thread; 1 when it started, 0 when not (the caller then does the work
 * itself). */
int cmrs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif
