/* The AMG setup's scratch pool (amg_pool_gpu.h). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "amg_pool_gpu.h"
#include "base/gpu/cuda_check.h"

#define POOL_DEVICES 64

static cudaMemPool_t g_pool[POOL_DEVICES];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* A pool on `device` that keeps freed memory (release threshold: all). */
static cmrs_code pool_make(int device, cudaMemPool_t *out)
{
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t p = NULL;
    CMRS_CUDA(cudaMemPoolCreate(&p, &props));
    uint64_t keep = UINT64_MAX;
    cudaError_t e = cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold,
                                            &keep);
    if (e != cudaSuccess) {
        cudaMemPoolDestroy(p);
        CMRS_CUDA(e);
    }
    *out = p;
    return CMRS_OK;
}

/* The current device's pool, made on first use; NULL (no error) when
 * the device is beyond POOL_DEVICES. */
static cmrs_code pool_of_device(cudaMemPool_t *out)
{
    int device = 0;
    cmrs_code rc = CMRS_OK;
    *out = NULL;
    CMRS_CUDA(cudaGetDevice(&device));
    if (device < 0 || device >= POOL_DEVICES) return CMRS_OK;
    pthread_mutex_lock(&g_lock);
    if (!g_pool[device]) rc = pool_make(device, &g_pool[device]);
    *out = g_pool[device];
    pthread_mutex_unlock(&g_lock);
    return rc;
}

cmrs_code amg_pool_alloc(void **p, size_t bytes, cudaStream_t stream)
{
    cudaMemPool_t pool = NULL;
    *p = NULL;
    CMRS_CHECK(pool_of_device(&pool));
    if (bytes == 0) bytes = 1;
    if (!pool) {
        CMRS_CUDA(cudaMallocAsync(p, bytes, stream));
        return CMRS_OK;
    }
    CMRS_CUDA(cudaMallocFromPoolAsync(p, bytes, pool, stream));
    return CMRS_OK;
}

void amg_pool_free(void *p, cudaStream_t stream)
{
    if (p) (void)cudaFreeAsync(p, stream);
}

void amg_pool_trim(cudaStream_t stream)
{
    cudaMemPool_t pool = NULL;
    (void)cudaStreamSynchronize(stream); /* frees observed, then trimmed */
    if (pool_of_device(&pool) == CMRS_OK && pool)
        (void)cudaMemPoolTrimTo(pool, 0);
    cmrs_error_clear(); /* trimming is best effort */
}
