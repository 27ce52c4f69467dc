/* symmetry.h: the CG warning's check, overlapped with the setup. */
#include "symmetry.h"

#include <pthread.h>
#include <stdio.h>

#include "base/thread.h"

static struct {
    const cmrs_csr *A;
    const char *file;
    int symmetric;
    int running; /* a thread to join */
    int done;    /* a result to report */
    pthread_t thread;
} g_check;

static void *check_main(void *arg)
{
    (void)arg;
    g_check.symmetric = cmrs_csr_is_symmetric(g_check.A);
    return NULL;
}

void symmetry_start(const cmrs_csr *A, const char *file)
{
    symmetry_finish(0);
    g_check.A = A;
    g_check.file = file;
    g_check.done = 1;
    g_check.running = cmrs_thread_start(&g_check.thread, check_main, NULL);
    if (!g_check.running) g_check.symmetric = cmrs_csr_is_symmetric(A);
}

void symmetry_finish(int warn)
{
    if (g_check.running) (void)pthread_join(g_check.thread, NULL);
    g_check.running = 0;
    if (g_check.done && warn && !g_check.symmetric)
        fprintf(stderr, "warning: %s: the matrix is not symmetric: CG may "
                "fail or stall (try --solver bicgstab)\n", g_check.file);
    g_check.done = 0;
}
