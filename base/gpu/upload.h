/* Host-to-device uploads at the transfer floor (docs/API.md, "Uploads"):
 * the one helper every setup and host-values update goes through.
 *
 * Three paths, chosen by the environment variable CMRS_UPLOAD:
 *   staged (default)  two pinned buffers of CMRS_UPLOAD_CHUNK_BYTES each
 *                     (default 1 MiB), double-buffered: the host copies
 *                     (or narrows) chunk k+1 into one while the DMA of
 *                     chunk k runs from the other (a stream, two events);
 *   registered        the caller's array page-locked (cudaHostRegister,
 *                     read-only where the device supports it), one copy,
 *                     unregistered; narrowing uploads and a failed
 *                     registration take the staged path;
 *   pageable          the old path: one cudaMemcpy from pageable memory
 *                     (narrowing first into a malloc'd array).
 * Staged uploads of at least CMRS_UPLOAD_PARALLEL_MIN_BYTES device bytes
 * (default 32 MiB) are split over CMRS_UPLOAD_THREADS workers (default
 * min(8, online CPUs / 2)): contiguous parts of about n / T elements, each
 * through its own pair of pinned buffers and its own stream with the same
 * double-buffered loop, worker 0 on the calling thread and the others on
 * threads made for the upload and joined before it returns (no more
 * workers than chunks). CMRS_UPLOAD_THREADS=1 is the single-thread path.
 * A failure is the lowest failed worker's (a bad value: the smallest
 * index, as with one thread); every stream is drained first.
 * Uploads of fewer than CMRS_UPLOAD_MIN_BYTES device bytes (default 1 MiB)
 * are one plain cudaMemcpy on every path. A source that is already
 * page-locked is copied directly (staged and registered).
 *
 * The pinned buffers, streams and events (one set per worker) are the
 * calling thread's (thread_local: contexts on different threads never
 * share them), made on first use, kept, and freed by cmrs_upload_release (the API's
 * cmrs_context_destroy) or at thread exit. A pinned allocation that fails
 * makes the upload take the pageable path (slower, not an error).
 *
 * Every upload returns once its bytes have landed, ordered after earlier
 * work on the legacy default stream (the staging stream is a blocking
 * one), as cmrs_dev_copy_to always did. */
#ifndef CMRS_UPLOAD_H
#define CMRS_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cmrs_upload_mode {
    CMRS_UPLOAD_STAGED = 0,
    CMRS_UPLOAD_REGISTERED,
    CMRS_UPLOAD_PAGEABLE
} cmrs_upload_mode;

/* What an upload does to its n source elements on the way. */
typedef enum cmrs_h2d_kind {
    CMRS_H2D_BYTES = 0, /* n bytes as they are */
    CMRS_H2D_I64_I32,   /* n int64 to int32 (the caller knows they fit) */
    CMRS_H2D_F64_F32,   /* n doubles to floats; a value outside the float
                           range (NaN, Inf too): CMRS_E_INPUT naming `what`
                           and the smallest such index */
    CMRS_H2D_PERM       /* n doubles v (a converted index pattern) to
                           int32 v - 1 (cmrs_dev_perm_upload) */
} cmrs_h2d_kind;

/* 1 MiB: the pinned buffers are allocated at the first upload of a
 * process (cudaHostAlloc pins them), which a cold solve pays: 8 workers
 * x 2 x 8 MiB cost more than they saved (docs/BENCHMARKS.md). */
#define CMRS_UPLOAD_CHUNK_DEFAULT ((size_t)1 << 20)
#define CMRS_UPLOAD_MIN_DEFAULT ((size_t)1 << 20)
#define CMRS_UPLOAD_CHUNK_MIN ((size_t)64)
#define CMRS_UPLOAD_CHUNK_MAX ((size_t)1 << 30)
#define CMRS_UPLOAD_THREADS_MAX 64
#define CMRS_UPLOAD_PARALLEL_MIN_DEFAULT ((size_t)32 << 20)

typedef struct cmrs_upload_cfg {
    cmrs_upload_mode mode;
    size_t chunk_bytes;   /* each of the two pinned buffers */
    size_t min_bytes;     /* smaller uploads: one plain cudaMemcpy */
    int64_t fail_chunk;   /* tests: the staged upload fails with
                             CMRS_E_GPU at this chunk (-1: never) */
    int fail_alloc;       /* tests: the pinned allocation "fails" */
    /* Parallel staging (fields after this line: a zeroed one is today's
     * single-thread path). */
    int threads;          /* staged-path workers, 1..CMRS_UPLOAD_THREADS_MAX
                             (0 or 1: the single-thread path) */
    size_t parallel_min_bytes; /* smaller staged uploads: one thread */
    int fail_worker;      /* tests: fail_chunk counts this worker's
                             chunks (0: the single-thread numbering) */
} cmrs_upload_cfg;

/* The defaults, then the environment: CMRS_UPLOAD, CMRS_UPLOAD_CHUNK_BYTES
 * (64 B .. 1 GiB), CMRS_UPLOAD_MIN_BYTES, CMRS_UPLOAD_THREADS (1..64),
 * CMRS_UPLOAD_PARALLEL_MIN_BYTES, and the test hooks
 * CMRS_TEST_FAIL_UPLOAD_CHUNK=k, CMRS_TEST_FAIL_UPLOAD_WORKER=w and
 * CMRS_TEST_FAIL_UPLOAD_ALLOC=1. A bad value is CMRS_E_USAGE naming the
 * variable. */
cmrs_code cmrs_upload_cfg_env(cmrs_upload_cfg *c);
/* CMRS_UPLOAD_THREADS' default: min(8, online CPUs / 2), at least 1. */
int cmrs_upload_threads_default(void);
const char *cmrs_upload_mode_name(cmrs_upload_mode m);

/* dst_d[0..n) = the n elements of src_h converted as `kind` says, on the
 * path c chooses; *used (may be NULL) = the path that moved the bytes
 * (staged falls back to pageable without pinned memory; registered to
 * staged for narrowing or a failed registration; small uploads are
 * pageable). On failure dst_d holds an unspecified prefix and the
 * thread's staging stays usable. Charged to the profile's transfer phase
 * (base/profile.h). */
cmrs_code cmrs_h2d_with(const cmrs_upload_cfg *c, void *dst_d,
                        const void *src_h, int64_t n, cmrs_h2d_kind kind,
                        const char *what, cmrs_upload_mode *used);
/* The same with cmrs_upload_cfg_env's configuration. */
cmrs_code cmrs_h2d(void *dst_d, const void *src_h, int64_t n,
                   cmrs_h2d_kind kind, const char *what);

/* Frees the calling thread's pinned buffers, stream and events (made
 * again on the next staged upload). Never fails; NULL-safe in spirit. */
void cmrs_upload_release(void);

/* Host-to-device bandwidth from pinned memory: `reps` copies of `bytes`
 * (after one warm-up) timed with events on a fresh stream; the median,
 * in bytes per second. Allocates and frees its own buffers. */
cmrs_code cmrs_h2d_pinned_bandwidth(size_t bytes, int reps,
                                    double *bytes_per_s);

#ifdef __cplusplus
}
#endif

#endif
