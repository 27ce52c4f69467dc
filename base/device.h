/* The GPU as the layers above the GPU code see it (issue 28 item 4): an
 * opaque stream type and the few runtime calls the API, the distributed
 * solver and the command line make themselves (which devices there are,
 * which is current, whether a pointer is device memory, a copy back, the
 * waits). No CUDA header here: spmv.h, the solver's, dist's and the API's
 * headers compile without the toolkit.
 *
 * base/gpu/device.c implements it over the CUDA runtime. A build without
 * CUDA (CMRS_CUDA=OFF) compiles base/nocuda/device_none.c instead: no
 * device is ever present there, and a call that needs one fails with
 * CMRS_E_NODEVICE (exit 4) and the message of cmrs_gpu_missing(). */
#ifndef CMRS_BASE_DEVICE_H
#define CMRS_BASE_DEVICE_H

#include <stddef.h>

#include "base/memory.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA stream for the layers that never touch one: the very type of
 * cudaStream_t (struct CUstream_st *), so the GPU code passes one for the
 * other without a cast. NULL is the default stream. */
typedef struct CUstream_st *cmrs_stream;

/* 1 when this build has the GPU back end (CMRS_CUDA=ON), else 0. */
int cmrs_gpu_built(void);

/* Devices 0 .. CMRS_MAX_DEVICES - 1 have the state kept for the process
 * (the AMG setup's pools and staging, cuBLAS handles, warm-ups); a device
 * past them goes without (cmrs_device_kept). */
#define CMRS_MAX_DEVICES 64
static inline int cmrs_device_kept(int device)
{
    return device >= 0 && device < CMRS_MAX_DEVICES;
}
/* Why no GPU can be used, for messages: "no CUDA GPU found", or "this
 * build has no CUDA GPU support (CMRS_CUDA=OFF)". */
const char *cmrs_gpu_missing(void);
/* CUDA devices present (0 without a driver, or without CUDA); never
 * fails (counting starts the driver: 0.13-0.24 s, ask only for a GPU). */
int cmrs_gpu_count(void);
/* 1 if at least one usable CUDA device is present, else 0 (never fails). */
int cmrs_gpu_available(void);
/* Name of the current device, or "cpu" when none (a buffer of the calling
 * thread, valid until its next call). */
const char *cmrs_gpu_name(void);
/* name = device's name (n bytes, truncated): thread-safe. */
cmrs_code cmrs_gpu_device_name(int device, char *name, size_t n);

/* Makes `device` the calling thread's current GPU. */
cmrs_code cmrs_gpu_set(int device);
/* The same where a failure has no one to tell (destroy paths): 1 when the
 * device is current, else 0, and the thread's error state untouched. */
int cmrs_gpu_select(int device);
/* Starts the runtime on the current GPU: the driver, then the device's
 * primary context (0.29-0.41 s on an H100 machine, the one-time cost a
 * timing must leave out). */
cmrs_code cmrs_gpu_start(void);

/* *device = the GPU whose memory p is (device or managed memory), -1 for
 * host memory. A runtime failure is an error. */
cmrs_code cmrs_gpu_pointer_device(const void *p, int *device);

/* Waits for the legacy default stream (a caller's plain cudaMemcpy). */
cmrs_code cmrs_gpu_wait_legacy(void);
/* Waits for the whole current device. */
cmrs_code cmrs_gpu_sync(void);
/* Waits for stream s. */
cmrs_code cmrs_gpu_stream_sync(cmrs_stream s);
/* cmrs_gpu_sync ignoring the outcome (the setup profile's hook): an error
 * stays the runtime's last one, for the next check to report. */
void cmrs_gpu_sync_quiet(void);

/* *p = bytes of device memory on the current GPU. */
cmrs_code cmrs_gpu_malloc(void **p, size_t bytes);
void cmrs_gpu_free(void *p); /* NULL-safe */
/* dst_h = bytes of src_d; `what` names the copy in an error. */
cmrs_code cmrs_gpu_d2h(void *dst_h, const void *src_d, size_t bytes,
                       const char *what);
/* dst_d = bytes of src_h, one plain copy (the library's own uploads go
 * through base/gpu/upload.h, at the transfer floor). */
cmrs_code cmrs_gpu_h2d(void *dst_d, const void *src_h, size_t bytes,
                       const char *what);
/* Clears the runtime's last error (after a failure that was handled). */
void cmrs_gpu_clear_error(void);

/* A stream's work recorded once and replayed with one launch (a CUDA
 * graph): the host issues one call where it issued many kernels. */
typedef struct cmrs_gpu_graph cmrs_gpu_graph;
/* *g = the work fn(arg) queues on stream s (current device), captured:
 * fn must neither wait nor allocate; the capture is ended whatever fn
 * returns (its error then, *g NULL). */
cmrs_code cmrs_gpu_graph_capture(cmrs_stream s, cmrs_code (*fn)(void *arg),
                                 void *arg, cmrs_gpu_graph **g);
/* Queues g's work on stream s (its device current). */
cmrs_code cmrs_gpu_graph_launch(cmrs_gpu_graph *g, cmrs_stream s);
void cmrs_gpu_graph_destroy(cmrs_gpu_graph *g); /* NULL-safe */

/* Timing marks (CUDA events): the GPU's own clock between two points of
 * a stream's work, read later, so the host does not wait at each point
 * (a profile that does not change what it measures). */
typedef struct cmrs_gpu_marks cmrs_gpu_marks;
/* *m = count marks on the current device. */
cmrs_code cmrs_gpu_marks_create(int count, cmrs_gpu_marks **m);
/* Mark i recorded on stream s (its device current). */
cmrs_code cmrs_gpu_mark(cmrs_gpu_marks *m, int i, cmrs_stream s);
/* *ms from mark i to mark j, both recorded (waits for j). */
cmrs_code cmrs_gpu_marks_ms(cmrs_gpu_marks *m, int i, int j, double *ms);
void cmrs_gpu_marks_free(cmrs_gpu_marks *m); /* NULL-safe */

/* Page-locked host memory (cudaHostAlloc): an upload from it runs at the
 * DMA's speed instead of through the staging threads (base/gpu/upload.h).
 * NULL, and no error state, when the build or machine has no GPU or the
 * driver refuses (page-locked memory is limited): the caller mallocs
 * instead. The runtime must be started (cmrs_gpu_start) or it starts here. */
void *cmrs_gpu_host_alloc(size_t bytes);
/* 1 when p is page-locked host memory (cudaHostAlloc'd or registered),
 * else 0; never fails. */
int cmrs_gpu_page_locked(const void *p);
/* Frees p and returns 1 when it came from cmrs_gpu_host_alloc; else 0 and
 * p is untouched (the caller frees it). While no such allocation is live
 * the runtime is not asked at all. */
int cmrs_gpu_host_free(void *p);

#ifdef __cplusplus
}
#endif

/* cmrs_gpu_free of each argument (CMRS_FREE_WITH, base/memory.h). */
#define CMRS_GPU_FREE_ALL(...) CMRS_FREE_WITH(cmrs_gpu_free, __VA_ARGS__)

#endif
