/* base/device.h in a build without CUDA (CMRS_CUDA=OFF): no device is
 * ever present, so the layers above take their CPU paths; a call that
 * needs a GPU fails with CMRS_E_NODEVICE (exit 4) saying why. */
#include <stdio.h>

#include "none.h"

int cmrs_gpu_built(void) { return 0; }

const char *cmrs_gpu_missing(void)
{
    return "this build has no CUDA GPU support (CMRS_CUDA=OFF)";
}

int cmrs_gpu_count(void) { return 0; }

int cmrs_gpu_available(void) { return 0; }

const char *cmrs_gpu_name(void) { return "cpu"; }

cmrs_code cmrs_gpu_device_name(int device, char *name, size_t n)
{
    (void)device;
    snprintf(name, n, "cpu");
    return no_cuda("GPU name");
}

cmrs_code cmrs_gpu_set(int device)
{
    return no_cuda(device >= 0 ? "GPU" : "device");
}

int cmrs_gpu_select(int device)
{
    (void)device;
    return 0;
}

cmrs_code cmrs_gpu_start(void) { return no_cuda("GPU start"); }

/* Nothing is device memory here, so callers refuse p as not device
 * memory of their GPU, with their own message. */
cmrs_code cmrs_gpu_pointer_device(const void *p, int *device)
{
    (void)p;
    *device = -1;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_wait_legacy(void) { return CMRS_OK; }

cmrs_code cmrs_gpu_sync(void) { return CMRS_OK; }

cmrs_code cmrs_gpu_stream_sync(cmrs_stream s)
{
    (void)s;
    return CMRS_OK;
}

void cmrs_gpu_sync_quiet(void) {}

cmrs_code cmrs_gpu_malloc(void **p, size_t bytes)
{
    (void)bytes;
    *p = NULL;
    return no_cuda("device memory");
}

void cmrs_gpu_free(void *p) { (void)p; }

cmrs_code cmrs_gpu_d2h(void *dst_h, const void *src_d, size_t bytes,
                       const char *what)
{
    (void)dst_h;
    (void)src_d;
    (void)bytes;
    return no_cuda(what);
}

cmrs_code cmrs_gpu_h2d(void *dst_d, const void *src_h, size_t bytes,
                       const char *what)
{
    (void)dst_d;
    (void)src_h;
    (void)bytes;
    return no_cuda(what);
}

void cmrs_gpu_clear_error(void) {}

void *cmrs_gpu_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

int cmrs_gpu_page_locked(const void *p)
{
    (void)p;
    return 0;
}

int cmrs_gpu_host_free(void *p)
{
    (void)p;
    return 0;
}

cmrs_code cmrs_gpu_graph_capture(cmrs_stream s, cmrs_code (*fn)(void *arg),
                                 void *arg, cmrs_gpu_graph **g)
{
    (void)s, (void)fn, (void)arg;
    *g = NULL;
    return no_cuda("CUDA graph");
}

cmrs_code cmrs_gpu_graph_launch(cmrs_gpu_graph *g, cmrs_stream s)
{
    (void)g, (void)s;
    return no_cuda("CUDA graph");
}

void cmrs_gpu_graph_destroy(cmrs_gpu_graph *g) { (void)g; }

cmrs_code cmrs_gpu_marks_create(int count, cmrs_gpu_marks **m)
{
    (void)count;
    *m = NULL;
    return no_cuda("CUDA events");
}

cmrs_code cmrs_gpu_mark(cmrs_gpu_marks *m, int i, cmrs_stream s)
{
    (void)m, (void)i, (void)s;
    return no_cuda("CUDA events");
}

cmrs_code cmrs_gpu_marks_ms(cmrs_gpu_marks *m, int i, int j, double *ms)
{
    (void)m, (void)i, (void)j;
    *ms = 0;
    return no_cuda("CUDA events");
}

void cmrs_gpu_marks_free(cmrs_gpu_marks *m) { (void)m; }
