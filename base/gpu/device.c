/* base/device.h over the CUDA runtime (the build with CUDA; without it,
 * base/nocuda/device_none.c). */
#include <stdatomic.h>
#include <stdio.h>

#include "cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/pinned_small.h"

int cmrs_gpu_built(void) { return 1; }

const char *cmrs_gpu_missing(void) { return "no CUDA GPU found"; }

int cmrs_gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver: as no GPU */
        return 0;
    }
    return count;
}

int cmrs_gpu_available(void) { return cmrs_gpu_count() > 0; }

/* name = device's name (n bytes, truncated) when the runtime gives it. */
static cudaError_t read_name(int device, char *name, size_t n)
{
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, device);
    if (e == cudaSuccess) snprintf(name, n, "%s", prop.name);
    return e;
}

const char *cmrs_gpu_name(void)
{
    static _Thread_local char name[256]; /* each thread's: no shared buffer */
    int dev = 0;
    if (!cmrs_gpu_available() || cudaGetDevice(&dev) != cudaSuccess ||
        read_name(dev, name, sizeof name) != cudaSuccess)
        return "cpu";
    return name;
}

cmrs_code cmrs_gpu_device_name(int device, char *name, size_t n)
{
    CMRS_CUDA(read_name(device, name, n));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_set(int device)
{
    CMRS_CUDA(cudaSetDevice(device));
    return CMRS_OK;
}

int cmrs_gpu_select(int device)
{
    int ok = cudaSetDevice(device) == cudaSuccess;
    (void)cudaGetLastError();
    return ok;
}

cmrs_code cmrs_gpu_start(void)
{
    CMRS_CUDA(cudaFree(0)); /* makes the primary context */
    cmrs_pinned_small_warm(); /* beside the file read, not in a setup */
    return CMRS_OK;
}

cmrs_code cmrs_gpu_pointer_device(const void *p, int *device)
{
    struct cudaPointerAttributes at;
    CMRS_CUDA(cudaPointerGetAttributes(&at, p));
    *device = at.type == cudaMemoryTypeDevice ||
                      at.type == cudaMemoryTypeManaged
                  ? at.device : -1;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_wait_legacy(void)
{
    CMRS_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_sync(void)
{
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

cmrs_code cmrs_gpu_stream_sync(cmrs_stream s)
{
    CMRS_CUDA(cudaStreamSynchronize(s));
    return CMRS_OK;
}

void cmrs_gpu_sync_quiet(void) { (void)cudaDeviceSynchronize(); }

cmrs_code cmrs_gpu_malloc(void **p, size_t bytes)
{
    CMRS_CUDA(cmrs_dev_malloc(p, bytes));
    return CMRS_OK;
}

void cmrs_gpu_free(void *p)
{
    if (p) (void)cmrs_dev_free(p);
}

/* cudaMemcpy of `what`, an error naming it as "cudaMemcpy(what)". */
static cmrs_code copy(void *dst, const void *src, size_t bytes,
                      enum cudaMemcpyKind kind, const char *what)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, kind);
    if (e != cudaSuccess) {
        char expr[128];
        snprintf(expr, sizeof expr, "cudaMemcpy(%s)", what);
        return cmrs_cuda_error(e, expr, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_d2h(void *dst_h, const void *src_d, size_t bytes,
                       const char *what)
{
    CMRS_CHECK(copy(dst_h, src_d, bytes, cudaMemcpyDeviceToHost, what));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_h2d(void *dst_d, const void *src_h, size_t bytes,
                       const char *what)
{
    CMRS_CHECK(copy(dst_d, src_h, bytes, cudaMemcpyHostToDevice, what));
    return CMRS_OK;
}

void cmrs_gpu_clear_error(void) { (void)cudaGetLastError(); }

/* Live cmrs_gpu_host_alloc blocks: while none, cmrs_gpu_host_free answers
 * 0 without a runtime call, so CPU runs and plain arrays never reach the
 * driver. */
static atomic_long g_pinned_live;

void *cmrs_gpu_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) !=
        cudaSuccess) {
        (void)cudaGetLastError(); /* refused: the caller mallocs */
        return NULL;
    }
    atomic_fetch_add(&g_pinned_live, 1);
    return p;
}

int cmrs_gpu_page_locked(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

int cmrs_gpu_host_free(void *p)
{
    if (!p || atomic_load(&g_pinned_live) == 0) return 0;
    /* Page-locked is also memory a caller registered; only our own blocks
     * are freed here, and cudaFreeHost refuses the others. */
    if (!cmrs_gpu_page_locked(p) || cudaFreeHost(p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    atomic_fetch_sub(&g_pinned_live, 1);
    return 1;
}
