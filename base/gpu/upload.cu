/* Host-to-device uploads: staged, registered or pageable (upload.h). Host
 * code only; compiled by nvcc for thread_local with a destructor. No
 * standard-library templates: their instantiations would be exported from
 * libcmrs.so (tests/api/check_symbols.sh). */
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <pthread.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "base/device.h"
#include "base/csr.h"
#include "upload.h"
#include "cuda_check.h"
extern "C" {
#include "base/csr.h"
#include "base/thread.h"
#include "base/profile.h"
}

namespace {

/* One worker's staging: two pinned buffers, a blocking stream (ordered
 * with the legacy default stream, as cudaMemcpy was) and an event per
 * buffer marking the end of its last DMA. Idle between uploads: every
 * upload drains its stream before it returns. */
struct slot {
    void *buf[2] = {nullptr, nullptr};
    size_t cap = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};

    /* Errors are ignored: this also runs at thread exit. */
    void release()
    {
        if (stream) (void)cudaStreamSynchronize(stream);
        for (int b = 0; b < 2; ++b) {
            if (buf[b]) (void)cudaFreeHost(buf[b]);
            if (ev[b]) (void)cudaEventDestroy(ev[b]);
            buf[b] = nullptr;
            ev[b] = nullptr;
        }
        if (stream) (void)cudaStreamDestroy(stream);
        stream = nullptr;
        cap = 0;
    }

    /* Buffers of `chunk` bytes, the stream, the events; false (and
     * nothing held, the error cleared) when any cannot be had. */
    bool prepare(size_t chunk)
    {
        bool ok = true;
        if (cap < chunk) {
            for (int b = 0; b < 2; ++b) {
                if (buf[b]) (void)cudaFreeHost(buf[b]);
                buf[b] = nullptr;
            }
            cap = 0;
            for (int b = 0; b < 2 && ok; ++b)
                ok = cudaHostAlloc(&buf[b], chunk, cudaHostAllocDefault) ==
                     cudaSuccess;
            if (ok) cap = chunk;
        }
        if (ok && !stream) ok = cudaStreamCreate(&stream) == cudaSuccess;
        for (int b = 0; b < 2 && ok; ++b)
            if (!ev[b])
                ok = cudaEventCreateWithFlags(&ev[b],
                                              cudaEventDisableTiming) ==
                     cudaSuccess;
        if (ok) return true;
        (void)cudaGetLastError();
        release();
        return false;
    }
};

/* The calling thread's staging: slot 0 for the single-thread path (and
 * worker 0 of a parallel upload, run on the calling thread), slots
 * 1..T-1 for the parallel upload's workers, made on first need. */
struct staging {
    slot s[CMRS_UPLOAD_THREADS_MAX];
    int device = -1;

    void release()
    {
        for (int w = 0; w < CMRS_UPLOAD_THREADS_MAX; ++w) s[w].release();
        device = -1;
    }
    ~staging() { release(); }
};

thread_local staging t_stage;

/* The thread's staging for chunks of `chunk` bytes on the current device,
 * slot 0 ready, or NULL when it cannot be had (the pageable path then):
 * any failure here is a fallback, its error cleared so later launch
 * checks do not see it. */
staging *get_staging(const cmrs_upload_cfg *c)
{
    staging *s = &t_stage;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    if (c->fail_alloc) {
        s->release();
        return nullptr;
    }
    if (s->device != dev) s->release(); /* streams and events are per device */
    s->device = dev;
    if (s->s[0].prepare(c->chunk_bytes)) return s;
    s->release();
    return nullptr;
}

void kind_sizes(cmrs_h2d_kind kind, size_t *in, size_t *out)
{
    switch (kind) {
    case CMRS_H2D_I64_I32: *in = 8; *out = 4; return;
    case CMRS_H2D_F64_F32: *in = 8; *out = 4; return;
    case CMRS_H2D_PERM: *in = 8; *out = 4; return;
    case CMRS_H2D_BYTES: break;
    }
    *in = *out = 1;
}

/* dst[0..m) = src[0..m) converted; `first` is src[0]'s index in the whole
 * upload (for the range error). */
cmrs_code convert(cmrs_h2d_kind kind, const void *src, void *dst, size_t m,
                  int64_t first, const char *what)
{
    switch (kind) {
    case CMRS_H2D_BYTES:
        memcpy(dst, src, m);
        return CMRS_OK;
    case CMRS_H2D_I64_I32: {
        const int64_t *s = (const int64_t *)src;
        int32_t *d = (int32_t *)dst;
        for (size_t i = 0; i < m; ++i) d[i] = (int32_t)s[i];
        return CMRS_OK;
    }
    case CMRS_H2D_F64_F32: {
        const double *s = (const double *)src;
        float *d = (float *)dst;
        for (size_t i = 0; i < m; ++i) {
            if (!(std::fabs(s[i]) <= FLT_MAX))
                return cmrs_float_range_error(what, s[i], first + (int64_t)i);
            d[i] = (float)s[i];
        }
        return CMRS_OK;
    }
    case CMRS_H2D_PERM: {
        const double *s = (const double *)src;
        int32_t *d = (int32_t *)dst;
        for (size_t i = 0; i < m; ++i) d[i] = (int32_t)(s[i] - 1.0);
        return CMRS_OK;
    }
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "upload: kind %d", (int)kind);
}

/* One cudaMemcpy of bytes already in their device form, then the legacy
 * stream drained: a pageable copy may return before its DMA completes,
 * and the kernels that read the data run on non-blocking streams. */
cmrs_code plain_copy(void *dst_d, const void *src_h, size_t bytes)
{
    CMRS_CUDA(cudaMemcpy(dst_d, src_h, bytes, cudaMemcpyHostToDevice));
    CMRS_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    return CMRS_OK;
}

/* The old path: narrowing (a host pass into a malloc'd array), one copy. */
cmrs_code pageable(void *dst_d, const void *src_h, size_t n,
                   cmrs_h2d_kind kind, const char *what)
{
    size_t in = 1, out = 1;
    kind_sizes(kind, &in, &out);
    if (kind == CMRS_H2D_BYTES) return plain_copy(dst_d, src_h, n);
    cmrs_code rc = CMRS_OK;
    void *tmp = cmrs_malloc_array(n, out);
    CMRS_ENSURE(tmp, CMRS_E_NOMEM, "%s: cannot allocate %zu staged values",
                what, n);
    cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
    rc = convert(kind, src_h, tmp, n, 0, what);
    cmrs_phase_pop();
    if (rc == CMRS_OK) rc = plain_copy(dst_d, tmp, n * out);
    free(tmp);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

/* Chunks through a slot's two pinned buffers: elements [lo, hi) of the
 * upload, chunk k (counted from lo) waits for buffer k % 2's previous DMA
 * (its event), is converted into it on the host while the other buffer's
 * DMA runs, then queued. The stream is drained on every path, so the
 * buffers are idle when this returns. In a parallel upload (min_fail not
 * NULL) the part stops early once a lower worker has failed: that
 * worker's error (at a smaller index) is the one returned. */
cmrs_code stage_part(const cmrs_upload_cfg *c, slot *sl, void *dst_d,
                     const void *src_h, size_t lo, size_t hi,
                     cmrs_h2d_kind kind, const char *what, int worker,
                     const int *min_fail)
{
    cmrs_code rc = CMRS_OK;
    size_t in = 1, out = 1;
    kind_sizes(kind, &in, &out);
    const size_t per = c->chunk_bytes / out > 0 ? c->chunk_bytes / out : 1;
    int64_t k = 0;
    for (size_t off = lo; off < hi; off += per, ++k) {
        if (min_fail && __atomic_load_n(min_fail, __ATOMIC_ACQUIRE) < worker)
            break;
        const size_t m = hi - off < per ? hi - off : per;
        const int b = (int)(k & 1);
        CMRS_CUDA_TRY(cudaEventSynchronize(sl->ev[b]));
        CMRS_TRY(convert(kind, (const char *)src_h + off * in, sl->buf[b], m,
                         (int64_t)off, what));
        if (k == c->fail_chunk && worker == c->fail_worker)
            CMRS_TRY_FAIL(CMRS_E_GPU, "%s: upload failed at chunk %lld of "
                          "worker %d (injected: CMRS_TEST_FAIL_UPLOAD_CHUNK)",
                          what, (long long)k, worker);
        CMRS_CUDA_TRY(cudaMemcpyAsync((char *)dst_d + off * out, sl->buf[b],
                                      m * out, cudaMemcpyHostToDevice,
                                      sl->stream));
        CMRS_CUDA_TRY(cudaEventRecord(sl->ev[b], sl->stream));
    }
done:
    cudaError_t e = cudaStreamSynchronize(sl->stream);
    if (rc == CMRS_OK && e != cudaSuccess)
        rc = cmrs_cuda_error(e, "cudaStreamSynchronize(upload)", __FILE__,
                             __LINE__);
    return rc;
}

/* The single-thread path: the whole upload through slot 0. */
cmrs_code staged(const cmrs_upload_cfg *c, staging *st, void *dst_d,
                 const void *src_h, size_t n, cmrs_h2d_kind kind,
                 const char *what)
{
    return stage_part(c, &st->s[0], dst_d, src_h, 0, n, kind, what, 0,
                      nullptr);
}

/* A parallel upload: what every worker shares, and each worker's part. */
struct par_job {
    const cmrs_upload_cfg *c;
    staging *st;
    void *dst_d;
    const void *src_h;
    cmrs_h2d_kind kind;
    const char *what;
    int device;
    int min_fail; /* the lowest failed worker (T: none); __atomic */
};

struct par_worker {
    par_job *job;
    int w;
    size_t lo, hi;    /* its elements */
    cmrs_code rc;     /* its result, and its thread's message */
    char msg[1024];
    pthread_t th;
    int started;      /* 1: runs on its own thread (joined) */
};

/* One worker's part on whatever thread runs it: the caller's device
 * first (a new thread has none current), then its slot's loop. A failure
 * is kept with its message (error state is per thread) and lowers
 * min_fail. */
void run_worker(par_worker *wk)
{
    par_job *j = wk->job;
    cmrs_code rc = CMRS_OK;
    cudaError_t e = cudaSetDevice(j->device);
    if (e != cudaSuccess)
        rc = cmrs_cuda_error(e, "cudaSetDevice(upload worker)", __FILE__,
                             __LINE__);
    else
        rc = stage_part(j->c, &j->st->s[wk->w], j->dst_d, j->src_h, wk->lo,
                        wk->hi, j->kind, j->what, wk->w, &j->min_fail);
    wk->rc = rc;
    if (rc == CMRS_OK) return;
    snprintf(wk->msg, sizeof wk->msg, "%s", cmrs_error_message());
    int cur = __atomic_load_n(&j->min_fail, __ATOMIC_ACQUIRE);
    while (wk->w < cur &&
           !__atomic_compare_exchange_n(&j->min_fail, &cur, wk->w, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

void *worker_main(void *p)
{
    run_worker((par_worker *)p);
    return nullptr;
}

/* The staged upload split over up to c->threads workers, each a
 * contiguous part of about n / T elements (rounded up to 256 device
 * bytes) through its own slot: worker 0 on the calling thread, the others
 * on threads made for this upload and joined before it returns (with
 * every signal blocked: they never take the process's handlers). Never
 * more workers than chunks; a slot that cannot be had lowers T (T = 1:
 * the single-thread path, as without memory for the workers' records); a
 * thread that cannot be made has its part run on the calling thread. The error returned is the lowest failed
 * worker's -- for a bad value, the smallest index, as with T = 1. */
cmrs_code staged_parallel(const cmrs_upload_cfg *c, staging *st,
                          void *dst_d, const void *src_h, size_t n,
                          cmrs_h2d_kind kind, const char *what)
{
    size_t in = 1, out = 1;
    kind_sizes(kind, &in, &out);
    const size_t per = c->chunk_bytes / out > 0 ? c->chunk_bytes / out : 1;
    const size_t nchunks = n / per + (n % per != 0);
    int T = c->threads < CMRS_UPLOAD_THREADS_MAX ? c->threads
                                                 : CMRS_UPLOAD_THREADS_MAX;
    if ((size_t)T > nchunks) T = (int)nchunks;
    for (int w = 1; w < T; ++w)
        if (!st->s[w].prepare(c->chunk_bytes)) {
            T = w; /* fewer workers, not an error */
            break;
        }
    if (T <= 1) return staged(c, st, dst_d, src_h, n, kind, what);

    const size_t align = 256 / out;
    size_t share = n / (size_t)T + (n % (size_t)T != 0);
    share = (share + align - 1) / align * align;
    par_job job = {c, st, dst_d, src_h, kind, what, st->device, T};
    par_worker *wk = (par_worker *)calloc((size_t)T, sizeof *wk);
    if (!wk) return staged(c, st, dst_d, src_h, n, kind, what);
    for (int w = 0; w < T; ++w) {
        const size_t lo = (size_t)w * share < n ? (size_t)w * share : n;
        wk[w].job = &job;
        wk[w].w = w;
        wk[w].lo = lo;
        wk[w].hi = n - lo < share ? n : lo + share;
        wk[w].rc = CMRS_OK;
        wk[w].msg[0] = '\0';
        wk[w].started = 0;
    }
    for (int w = 1; w < T; ++w)
        wk[w].started = cmrs_thread_start(&wk[w].th, worker_main, &wk[w]);
    run_worker(&wk[0]);
    for (int w = 1; w < T; ++w)
        if (!wk[w].started) run_worker(&wk[w]);
    for (int w = 1; w < T; ++w)
        if (wk[w].started) (void)pthread_join(wk[w].th, nullptr);
    cmrs_code rc = CMRS_OK;
    for (int w = 0; w < T && rc == CMRS_OK; ++w)
        if (wk[w].rc != CMRS_OK)
            rc = cmrs_error_set(wk[w].rc, __FILE__, __LINE__, "%s",
                                wk[w].msg);
    free(wk);
    return rc;
}

/* The caller's bytes page-locked for one copy. *done = 0 when they could
 * not be registered (the caller then stages). */
cmrs_code registered(void *dst_d, const void *src_h, size_t bytes, int *done)
{
    int dev = 0, ro = 0;
    *done = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported,
                               dev) != cudaSuccess) {
        (void)cudaGetLastError();
        ro = 0;
    }
    unsigned flags = ro ? cudaHostRegisterReadOnly : cudaHostRegisterDefault;
    if (cudaHostRegister((void *)src_h, bytes, flags) != cudaSuccess) {
        (void)cudaGetLastError(); /* e.g. already registered: stage */
        return CMRS_OK;
    }
    cudaError_t e = cudaMemcpy(dst_d, src_h, bytes, cudaMemcpyHostToDevice);
    cudaError_t u = cudaHostUnregister((void *)src_h);
    CMRS_CUDA(e);
    CMRS_CUDA(u);
    CMRS_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    *done = 1;
    return CMRS_OK;
}

cmrs_code h2d(const cmrs_upload_cfg *c, void *dst_d, const void *src_h,
              size_t n, cmrs_h2d_kind kind, const char *what,
              cmrs_upload_mode *used)
{
    size_t in = 1, out = 1;
    kind_sizes(kind, &in, &out);
    const size_t bytes = n * out;
    *used = CMRS_UPLOAD_PAGEABLE;
    if (c->mode == CMRS_UPLOAD_PAGEABLE || bytes < c->min_bytes)
        return pageable(dst_d, src_h, n, kind, what);
    if (kind == CMRS_H2D_BYTES && cmrs_gpu_page_locked(src_h)) {
        *used = CMRS_UPLOAD_REGISTERED;
        return plain_copy(dst_d, src_h, bytes);
    }
    if (c->mode == CMRS_UPLOAD_REGISTERED && kind == CMRS_H2D_BYTES) {
        int done = 0;
        CMRS_CHECK(registered(dst_d, src_h, bytes, &done));
        if (done) {
            *used = CMRS_UPLOAD_REGISTERED;
            return CMRS_OK;
        }
    }
    staging *st = get_staging(c);
    if (!st) return pageable(dst_d, src_h, n, kind, what);
    *used = CMRS_UPLOAD_STAGED;
    if (c->threads > 1 && bytes >= c->parallel_min_bytes)
        return staged_parallel(c, st, dst_d, src_h, n, kind, what);
    return staged(c, st, dst_d, src_h, n, kind, what);
}

/* An environment count (bytes, threads): unset keeps *v. */
cmrs_code env_size(const char *name, size_t lo, size_t hi, size_t *v)
{
    const char *s = getenv(name);
    if (!s || !*s) return CMRS_OK;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    CMRS_ENSURE(errno == 0 && *end == '\0' && s[0] != '-' && x >= lo &&
                    x <= hi, CMRS_E_USAGE, "%s=%s: expected %s in "
                "%zu..%zu", name, s,
                strstr(name, "THREADS") ? "a thread count" : "a byte count",
                lo, hi);
    *v = (size_t)x;
    return CMRS_OK;
}

} // namespace

const char *cmrs_upload_mode_name(cmrs_upload_mode m)
{
    switch (m) {
    case CMRS_UPLOAD_STAGED: return "staged";
    case CMRS_UPLOAD_REGISTERED: return "registered";
    case CMRS_UPLOAD_PAGEABLE: return "pageable";
    }
    return "unknown";
}

int cmrs_upload_threads_default(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const long t = cpus / 2 < 8 ? cpus / 2 : 8;
    return t >= 1 ? (int)t : 1;
}

cmrs_code cmrs_upload_cfg_env(cmrs_upload_cfg *c)
{
    c->mode = CMRS_UPLOAD_STAGED;
    c->chunk_bytes = CMRS_UPLOAD_CHUNK_DEFAULT;
    c->min_bytes = CMRS_UPLOAD_MIN_DEFAULT;
    c->fail_chunk = -1;
    c->fail_alloc = 0;
    c->threads = cmrs_upload_threads_default();
    c->parallel_min_bytes = CMRS_UPLOAD_PARALLEL_MIN_DEFAULT;
    c->fail_worker = 0;
    const char *m = getenv("CMRS_UPLOAD");
    if (m && *m) {
        int found = 0;
        for (int i = CMRS_UPLOAD_STAGED; i <= CMRS_UPLOAD_PAGEABLE; ++i)
            if (strcmp(m, cmrs_upload_mode_name((cmrs_upload_mode)i)) == 0) {
                c->mode = (cmrs_upload_mode)i;
                found = 1;
            }
        CMRS_ENSURE(found, CMRS_E_USAGE, "CMRS_UPLOAD=%s: expected staged, "
                    "registered or pageable", m);
    }
    CMRS_CHECK(env_size("CMRS_UPLOAD_CHUNK_BYTES", CMRS_UPLOAD_CHUNK_MIN,
                        CMRS_UPLOAD_CHUNK_MAX, &c->chunk_bytes));
    CMRS_CHECK(env_size("CMRS_UPLOAD_MIN_BYTES", 0, SIZE_MAX,
                        &c->min_bytes));
    size_t k = SIZE_MAX;
    CMRS_CHECK(env_size("CMRS_TEST_FAIL_UPLOAD_CHUNK", 0, INT64_MAX, &k));
    if (k != SIZE_MAX) c->fail_chunk = (int64_t)k;
    size_t t = (size_t)c->threads;
    CMRS_CHECK(env_size("CMRS_UPLOAD_THREADS", 1, CMRS_UPLOAD_THREADS_MAX,
                        &t));
    c->threads = (int)t;
    CMRS_CHECK(env_size("CMRS_UPLOAD_PARALLEL_MIN_BYTES", 0, SIZE_MAX,
                        &c->parallel_min_bytes));
    size_t fw = 0;
    CMRS_CHECK(env_size("CMRS_TEST_FAIL_UPLOAD_WORKER", 0,
                        CMRS_UPLOAD_THREADS_MAX - 1, &fw));
    c->fail_worker = (int)fw;
    const char *a = getenv("CMRS_TEST_FAIL_UPLOAD_ALLOC");
    c->fail_alloc = a && *a && strcmp(a, "0") != 0;
    return CMRS_OK;
}

cmrs_code cmrs_h2d_with(const cmrs_upload_cfg *c, void *dst_d,
                        const void *src_h, int64_t n, cmrs_h2d_kind kind,
                        const char *what, cmrs_upload_mode *used)
{
    cmrs_upload_mode u = CMRS_UPLOAD_PAGEABLE;
    size_t in = 1, out = 1, bytes = 0;
    if (used) *used = u;
    kind_sizes(kind, &in, &out);
    CMRS_ENSURE(n >= 0 && cmrs_mul_size((size_t)n, in, &bytes) == 0,
                CMRS_E_LIMIT, "%s: an upload of %lld elements overflows",
                what, (long long)n);
    CMRS_ENSURE(c->chunk_bytes >= CMRS_UPLOAD_CHUNK_MIN, CMRS_E_INTERNAL,
                "upload chunk of %zu bytes", c->chunk_bytes);
    if (n == 0) return CMRS_OK;
    cmrs_phase_push(CMRS_PHASE_TRANSFER);
    cmrs_code rc = h2d(c, dst_d, src_h, (size_t)n, kind, what, &u);
    cmrs_phase_pop();
    CMRS_CHECK(rc);
    cmrs_profile_bytes((double)n * (double)out);
    if (used) *used = u;
    return CMRS_OK;
}

cmrs_code cmrs_h2d(void *dst_d, const void *src_h, int64_t n,
                   cmrs_h2d_kind kind, const char *what)
{
    cmrs_upload_cfg c;
    CMRS_CHECK(cmrs_upload_cfg_env(&c));
    CMRS_CHECK(cmrs_h2d_with(&c, dst_d, src_h, n, kind, what, NULL));
    return CMRS_OK;
}

void cmrs_upload_release(void) { t_stage.release(); }

cmrs_code cmrs_h2d_pinned_bandwidth(size_t bytes, int reps,
                                    double *bytes_per_s)
{
    cmrs_code rc = CMRS_OK;
    void *h = NULL, *d = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    float ms[32];
    *bytes_per_s = 0;
    CMRS_ENSURE(bytes > 0 && reps > 0 && reps <= 32, CMRS_E_INTERNAL,
                "pinned bandwidth of %zu bytes, %d repetitions", bytes, reps);
    CMRS_CUDA_TRY(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
    memset(h, 1, bytes); /* pages touched before the timing */
    CMRS_CUDA_TRY(cudaMalloc(&d, bytes));
    CMRS_CUDA_TRY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CMRS_CUDA_TRY(cudaEventCreate(&ev[0]));
    CMRS_CUDA_TRY(cudaEventCreate(&ev[1]));
    CMRS_CUDA_TRY(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
    for (int r = 0; r < reps; ++r) {
        float t = 0;
        CMRS_CUDA_TRY(cudaEventRecord(ev[0], st));
        CMRS_CUDA_TRY(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
        CMRS_CUDA_TRY(cudaEventRecord(ev[1], st));
        CMRS_CUDA_TRY(cudaEventSynchronize(ev[1]));
        CMRS_CUDA_TRY(cudaEventElapsedTime(&t, ev[0], ev[1]));
        int i = r; /* insertion sort: ms[0..r] ascending */
        for (; i > 0 && ms[i - 1] > t; --i) ms[i] = ms[i - 1];
        ms[i] = t;
    }
    if (ms[reps / 2] > 0)
        *bytes_per_s = (double)bytes / (1e-3 * (double)ms[reps / 2]);
done:
    if (st) (void)cudaStreamSynchronize(st);
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    if (st) cudaStreamDestroy(st);
    cudaFree(d);
    cudaFreeHost(h);
    return rc;
}

