/* symmetry.h: the CG warning's check, overlapped with the setup. */
#include "symmetry.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static struct {
    const cmrs_csr *A;
    const char *file;
    int symmetric;
    int running; /* a thread to join */
    int done;    /* a result to report */
    pthread_t thread;
} g_check;

/* Values equal to their transposes: entries above the diagonal looked up
 * below it (the pattern's other half follows from nnz counts only when
 * every lookup succeeds, so the lower half is counted as well). */
static int is_symmetric(const cmrs_csr *A)
{
    if (A->rows != A->cols) return 0;
    int64_t upper = 0, lower = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int32_t j = A->indices[k];
            if (j < i) {
                ++lower;
                continue;
            }
            if (j == i) continue;
            ++upper;
            int found = 0;
            double v = cmrs_csr_lookup(A, j, (int32_t)i, &found);
            if (!found || v != A->values[k]) return 0;
        }
    /* Every upper (i, j) has its (j, i): equal counts leave no lower entry
     * without an upper partner (rows sorted, no duplicates). */
    return upper == lower;
}

static void *check_main(void *arg)
{
    (void)arg;
    g_check.symmetric = is_symmetric(g_check.A);
    return NULL;
}

void symmetry_start(const cmrs_csr *A, const char *file)
{
    symmetry_finish(0);
    g_check.A = A;
    g_check.file = file;
    g_check.done = 1;
    /* Signals stay with the main thread (app/main.c's handler). */
    sigset_t all, old;
    sigfillset(&all);
    int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    g_check.running =
        pthread_create(&g_check.thread, NULL, check_main, NULL) == 0;
    if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!g_check.running) g_check.symmetric = is_symmetric(A);
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
