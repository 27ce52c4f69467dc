/* The AMG setup's scratch pool (amg_pool_gpu.h). */
#include <pthread.h>
#include <stdint.h>

#include "amg_pool_gpu.h"
#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"


/* Per device: its pool, or none (pools unsupported or its creation
 * failed, so plain cudaMalloc and cudaFree: what the setup used before,
 * never an error of its own). Keeps what is freed (release threshold:
 * all) until trimmed. */
static cmrs_dev_pools g_pools = {.keep = UINT64_MAX};
/* amg_pool_hold's depth per device: trims wait while it is above 0;
 * g_deferred counts the trims that waited (amg_pool_deferred). */
static int g_hold[CMRS_MAX_DEVICES];
static size_t g_deferred;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* The current device's pool (made on first use when `make`), or NULL:
 * none (yet). Never an error. */
static cudaMemPool_t pool_of_device(int make)
{
    return cmrs_dev_pools_current(&g_pools, make);
}

cmrs_code amg_pool_alloc(void **p, size_t bytes, cudaStream_t stream)
{
    cudaMemPool_t pool = pool_of_device(1);
    *p = NULL;
    if (bytes == 0) bytes = 1;
    if (!pool) {
        CMRS_CUDA(cudaMalloc(p, bytes));
        return CMRS_OK;
    }
    CMRS_CUDA(cudaMallocFromPoolAsync(p, bytes, pool, stream));
    return CMRS_OK;
}

void amg_pool_free(void *p, cudaStream_t stream)
{
    if (!p) return;
    if (pool_of_device(0)) (void)cudaFreeAsync(p, stream);
    else (void)cudaFree(p); /* amg_pool_alloc's cudaMalloc */
}

/* Whether a hold on the current device defers this trim (counted). */
static int held(void)
{
    int device = cmrs_dev_current(), h = 0;
    if (device < 0) return 0;
    pthread_mutex_lock(&g_lock);
    h = g_hold[device] > 0;
    if (h) ++g_deferred;
    pthread_mutex_unlock(&g_lock);
    return h;
}

/* The trim itself: the frees queued on `stream` (every_stream: on any)
 * observed, the pool emptied. */
static void trim_now(cudaMemPool_t pool, cudaStream_t stream,
                     int every_stream)
{
    /* frees observed first; neither call touches cmrs's error state (a
     * failure being reported stays as it is), CUDA's is cleared */
    if (every_stream) (void)cudaDeviceSynchronize();
    else (void)cudaStreamSynchronize(stream);
    (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
}

void amg_pool_trim(cudaStream_t stream)
{
    cudaMemPool_t pool = pool_of_device(0);
    if (!pool || held()) return;
    trim_now(pool, stream, 0);
}

void amg_pool_hold(int on, cudaStream_t stream)
{
    int device = cmrs_dev_current(), depth = 0;
    if (device < 0) return;
    pthread_mutex_lock(&g_lock);
    if (on) ++g_hold[device];
    else if (g_hold[device] > 0) --g_hold[device];
    depth = g_hold[device];
    pthread_mutex_unlock(&g_lock);
    if (!on && depth == 0) amg_pool_trim(stream);
}

cmrs_code amg_dev_malloc(void **p, size_t bytes)
{
    *p = NULL;
    cudaError_t e = cmrs_dev_malloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        /* the held pool may sit on what this needs: every stream's frees
         * observed (a rare path), the pool given back, once more */
        (void)cudaGetLastError();
        cudaMemPool_t pool = pool_of_device(0);
        if (pool) trim_now(pool, NULL, 1);
        e = cmrs_dev_malloc(p, bytes ? bytes : 1);
    }
    CMRS_CUDA(e);
    return CMRS_OK;
}

size_t amg_pool_deferred(void)
{
    pthread_mutex_lock(&g_lock);
    size_t n = g_deferred;
    pthread_mutex_unlock(&g_lock);
    return n;
}

size_t amg_pool_reserved(void)
{
    cudaMemPool_t pool = pool_of_device(0);
    uint64_t bytes = 0; /* cuuint64_t, cuda.h's name for it */
    if (!pool) return 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent,
                                &bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (size_t)bytes;
}
