/* The slab of small page-locked blocks (pinned_small.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/gpu/pinned_small.h"

#define SLOTS 64 /* 64 KB: a few dozen solvers' blocks at once */

static unsigned char *g_slab;
static uint64_t g_used; /* bit i: slot i handed out */
static int g_tried;     /* the slab's allocation was attempted */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* At exit, the slab given back where no block is left in it (a leak
 * check then sees only what its owners did not free). Registered after
 * the runtime's own exit handler, so it runs before the runtime's
 * teardown. */
static void slab_release(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_slab && g_used == 0) {
        (void)cudaFreeHost(g_slab);
        (void)cudaGetLastError();
        g_slab = NULL;
    }
    pthread_mutex_unlock(&g_lock);
}

/* Called with g_lock held. */
static void slab_make(void)
{
    if (g_tried) return;
    g_tried = 1;
    void *p = NULL;
    if (cudaHostAlloc(&p, (size_t)SLOTS * CMRS_PINNED_SMALL_MAX,
                      cudaHostAllocPortable) == cudaSuccess) {
        g_slab = p;
        (void)atexit(slab_release);
    } else {
        (void)cudaGetLastError(); /* no slab: every block by cudaHostAlloc */
    }
}

void cmrs_pinned_small_warm(void)
{
    pthread_mutex_lock(&g_lock);
    slab_make();
    pthread_mutex_unlock(&g_lock);
}

cudaError_t cmrs_pinned_small_alloc(void **p, size_t bytes)
{
    *p = NULL;
    if (bytes <= CMRS_PINNED_SMALL_MAX) {
        pthread_mutex_lock(&g_lock);
        slab_make();
        for (int i = 0; g_slab && i < SLOTS; ++i)
            if (!(g_used >> i & 1)) {
                g_used |= (uint64_t)1 << i;
                *p = g_slab + (size_t)i * CMRS_PINNED_SMALL_MAX;
                break;
            }
        pthread_mutex_unlock(&g_lock);
        if (*p) return cudaSuccess;
    }
    return cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable);
}

void cmrs_pinned_small_free(void *p)
{
    if (!p) return;
    /* as cudaFreeHost does: no copy into the block is left queued when
     * its slot is handed out again */
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    pthread_mutex_lock(&g_lock);
    const unsigned char *c = p;
    int mine = g_slab && c >= g_slab &&
               c < g_slab + (size_t)SLOTS * CMRS_PINNED_SMALL_MAX;
    if (mine)
        g_used &= ~((uint64_t)1 << ((size_t)(c - g_slab) /
                                    CMRS_PINNED_SMALL_MAX));
    pthread_mutex_unlock(&g_lock);
    if (!mine) (void)cudaFreeHost(p);
}

int cmrs_pinned_small_live(void)
{
    pthread_mutex_lock(&g_lock);
    int n = __builtin_popcountll(g_used);
    pthread_mutex_unlock(&g_lock);
    return n;
}
