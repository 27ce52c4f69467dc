/* Pool allocations in a scope (dev_alloc.h). */
#include <pthread.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/dev_alloc.h"

static cmrs_dev_pools g_pools; /* keep 0: nothing freed kept */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int t_scope;
static _Thread_local size_t t_count;

/* A pool on `device` that keeps `keep` freed bytes, or NULL. */
static cudaMemPool_t pool_create(int device, uint64_t keep)
{
    int supported = 0;
    cudaMemPool_t p = NULL;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported,
                               device) == cudaSuccess && supported) {
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        if (cudaMemPoolCreate(&p, &props) != cudaSuccess) {
            p = NULL;
        } else if (keep && cudaMemPoolSetAttribute(
                               p, cudaMemPoolAttrReleaseThreshold, &keep) !=
                               cudaSuccess) {
            cudaMemPoolDestroy(p);
            p = NULL;
        }
    }
    (void)cudaGetLastError(); /* a failure here only means no pool */
    return p;
}

int cmrs_dev_current(void)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || !cmrs_device_kept(device)) {
        (void)cudaGetLastError();
        return -1;
    }
    return device;
}

cudaMemPool_t cmrs_dev_pools_current(cmrs_dev_pools *t, int make)
{
    int device = cmrs_dev_current();
    cudaMemPool_t p = NULL;
    if (device < 0) return NULL;
    pthread_mutex_lock(&g_lock);
    if (t->state[device] == 0 && make) {
        t->pool[device] = pool_create(device, t->keep);
        t->state[device] = t->pool[device] ? 1 : 2;
    }
    p = t->pool[device];
    pthread_mutex_unlock(&g_lock);
    return p;
}

cudaError_t cmrs_dev_malloc(void **p, size_t bytes)
{
    cudaMemPool_t pool =
        t_scope > 0 && bytes > 0 ? cmrs_dev_pools_current(&g_pools, 1) : NULL;
    *p = NULL;
    if (pool) {
        cudaError_t e = cudaMallocFromPoolAsync(p, bytes, pool,
                                                cudaStreamPerThread);
        if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
        if (e == cudaSuccess) {
            ++t_count;
            return cudaSuccess;
        }
        if (*p) (void)cudaFree(*p);
        *p = NULL;
        (void)cudaGetLastError(); /* cudaMalloc below reports */
    }
    return cudaMalloc(p, bytes);
}

/* The device p lives on (-1: unknown, e.g. not device memory). */
static int device_of(const void *p)
{
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return at.type == cudaMemoryTypeDevice ? at.device : -1;
}

cudaError_t cmrs_dev_free(void *p)
{
    int now = -1, owner = -1;
    if (!p) return cudaSuccess;
    /* cudaFree waits for the device's work only where p is not a pool's
     * (measured: test_gpu_amg_pool), so the device p lives on is waited
     * for here, made current for the wait if another is */
    if (cudaGetDevice(&now) != cudaSuccess) now = -1;
    owner = device_of(p);
    const int switch_to = owner >= 0 && now >= 0 && owner != now;
    if (switch_to && cudaSetDevice(owner) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaFree(p); /* cannot wait on its device: as before */
    }
    cudaError_t s = cudaDeviceSynchronize();
    cudaError_t f = cudaFree(p);
    if (switch_to) (void)cudaSetDevice(now);
    return s != cudaSuccess ? s : f;
}

void cmrs_dev_pool_scope(int on)
{
    if (on) ++t_scope;
    else if (t_scope > 0) --t_scope;
}

size_t cmrs_dev_pool_allocations(void)
{
    size_t n = t_count;
    t_count = 0;
    return n;
}
