/* Smoothed aggregation's P, R = P^T and A_c = R A P on the GPU (see
 * amg_sa_gpu.h). The decisions are the host's, made the host's way on the
 * device: w as cmrs_amg_smoothing_weight and f_i = w / a_ii bitwise, so a
 * row the host would keep tentative (f not finite) sends the whole level
 * back to the host. Since the step profile (CMRS_AMG_PROFILE) showed the
 * host passes and transfers, not the SpGEMMs, dominating, at most A and
 * the aggregates go up, and P, R and A_c stay on the device for the
 * back end's level matrices (cmrs_gpu_sa_run) or come down once (the
 * host-side calls). */
#include <pthread.h>
#include <string.h>

#include "base/device.h"
#include "base/thread.h"
#include "solver/amg/amg_host.h"
#include "amg_mis2_gpu.h"
#include "amg_pool_gpu.h"
#include "solver/amg/amg_prof.h"
#include "amg_sa_gpu.h"
#include "amg_spgemm_dev.h"
#include "base/gpu/cuda_check.h"

typedef cmrs_gpu_sa_args sa_args;

/* The aggregates' download to the host's array, run in a helper thread
 * while the products run: into a fresh pageable array it costs the page
 * faults, 12 ms of 20 MB at 5M rows (CMRS_AMG_PROFILE, H100), and the
 * host copy is read only by later value updates and host paths. The
 * driver's own pageable copy blocked the main thread's CUDA calls for as
 * long (measured), so the thread copies through two pinned chunks (the
 * device's staging, below): DMA of chunk k + 1 while the CPU copies chunk
 * k out. Joined before agg_d is freed. */
#define AGG_CHUNK ((size_t)1 << 20)
struct agg_staging;
typedef struct agg_down {
    cmrs_thread_job job;
    struct agg_staging *staging; /* NULL: none could be made */
    int device, pending;
    const int32_t *agg_d;
    int32_t *agg;
    size_t bytes;
} agg_down;

/* The device arrays of one level, freed together (a: A_own, or the
 * caller's device A); pt (made only where the fused P declines), ap,
 * f_d and agg_d are scratch of the setup's pool (amg_pool_gpu.h: a
 * cudaFree waits for the device and unmaps; 6 ms a level at 5M rows with
 * the pool's trim, H100). */
typedef struct sa_dev {
    cusparseHandle_t handle;
    cudaStream_t stream; /* the handle's: the scratch's order */
    const amg_dev_mat *a;
    amg_dev_mat a_own, pt, p, r, ap, rap;
    int64_t naggs;
    double *f_d;
    int32_t *agg_d;
    int agg_kept; /* agg_d cudaMalloc'd for the caller, else the pool's */
    agg_down down;
} sa_dev;

/* Bytes of chunk k (the last one may be short). */
static size_t chunk_len(const agg_down *a, size_t k)
{
    size_t off = k * AGG_CHUNK;
    return a->bytes - off < AGG_CHUNK ? a->bytes - off : AGG_CHUNK;
}

/* Chunks of a->agg_d through buf (2 x AGG_CHUNK pinned bytes): chunk k's
 * DMA into buffer k & 1 (emptied by the copy-out of chunk k - 2), then
 * chunk k - 1 copied out once its DMA has landed. */
static cmrs_code agg_chunks(const agg_down *a, cudaStream_t st, char *buf,
                            cudaEvent_t ev[2])
{
    size_t nchunks = (a->bytes + AGG_CHUNK - 1) / AGG_CHUNK;
    const char *src = (const char *)a->agg_d;
    char *dst = (char *)a->agg;
    for (size_t k = 0; k <= nchunks; ++k) {
        if (k < nchunks) {
            CMRS_CUDA(cudaMemcpyAsync(buf + (k & 1) * AGG_CHUNK,
                                      src + k * AGG_CHUNK, chunk_len(a, k),
                                      cudaMemcpyDeviceToHost, st));
            CMRS_CUDA(cudaEventRecord(ev[k & 1], st));
        }
        if (k == 0) continue;
        size_t j = k - 1;
        CMRS_CUDA(cudaEventSynchronize(ev[j & 1]));
        memcpy(dst + j * AGG_CHUNK, buf + (j & 1) * AGG_CHUNK,
               chunk_len(a, j));
    }
    return CMRS_OK;
}

/* The download's stream, events and pinned chunks, one set per device,
 * made on first use by the setup's thread and kept for the process (as
 * the scratch pool is): made per level in the helper thread, their
 * cudaHostAlloc and cudaFreeHost held up the main thread's calls (the
 * tentative P's 1.0-1.3 ms a level at 5M rows, CMRS_AMG_PROFILE, H100).
 * `lock` serialises two setups' downloads on one device. */
typedef struct agg_staging {
    pthread_mutex_t lock;
    cudaStream_t st;
    cudaEvent_t ev[2];
    char *buf; /* 2 x AGG_CHUNK pinned bytes */
    int state; /* 0 not tried, 1 made, 2 could not be made */
} agg_staging;

static agg_staging g_staging[CMRS_MAX_DEVICES];
static pthread_mutex_t g_staging_lock = PTHREAD_MUTEX_INITIALIZER;

/* What staging_make made, undone (a failure leaves no staging). */
static void staging_undo(agg_staging *s)
{
    if (s->buf) cudaFreeHost(s->buf);
    for (int i = 0; i < 2; ++i)
        if (s->ev[i]) cudaEventDestroy(s->ev[i]);
    if (s->st) cudaStreamDestroy(s->st);
    s->buf = NULL;
    s->ev[0] = s->ev[1] = NULL;
    s->st = NULL;
}

static int staging_make(agg_staging *s)
{
    if (pthread_mutex_init(&s->lock, NULL) != 0) return 0;
    int ok = cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking) ==
             cudaSuccess;
    for (int i = 0; ok && i < 2; ++i)
        ok = cudaEventCreateWithFlags(&s->ev[i], cudaEventDisableTiming) ==
             cudaSuccess;
    ok = ok && cudaHostAlloc((void **)&s->buf, 2 * AGG_CHUNK,
                             cudaHostAllocDefault) == cudaSuccess;
    if (!ok) { /* a failure only means no staging */
        (void)cudaGetLastError();
        staging_undo(s);
        pthread_mutex_destroy(&s->lock);
    }
    return ok;
}

/* The current device's staging, or NULL (the caller copies plainly). */
static agg_staging *staging_of(int device)
{
    if (!cmrs_device_kept(device)) return NULL;
    agg_staging *s = &g_staging[device];
    pthread_mutex_lock(&g_staging_lock);
    if (s->state == 0) s->state = staging_make(s) ? 1 : 2;
    pthread_mutex_unlock(&g_staging_lock);
    return s->state == 1 ? s : NULL;
}

static cmrs_code agg_copy(const agg_down *a)
{
    cmrs_code rc = CMRS_OK;
    CMRS_CUDA(cudaSetDevice(a->device));
    if (!a->staging) { /* no pinned chunks: the plain copy, still aside */
        cudaStream_t st = NULL;
        CMRS_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        cudaError_t e = cudaMemcpyAsync(a->agg, a->agg_d, a->bytes,
                                        cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(st);
        cudaStreamDestroy(st);
        CMRS_CUDA(e);
        return CMRS_OK;
    }
    agg_staging *s = a->staging;
    pthread_mutex_lock(&s->lock);
    rc = agg_chunks(a, s->st, s->buf, s->ev);
    if (rc != CMRS_OK) cudaStreamSynchronize(s->st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void *agg_down_main(void *arg)
{
    agg_down *a = arg;
    cmrs_thread_job_end(&a->job, agg_copy(a));
    return NULL;
}

cmrs_code cmrs_gpu_agg_download(cudaStream_t stream, const int32_t *agg_d,
                                int32_t *agg, int64_t n)
{
    if (n <= 0) return CMRS_OK;
    CMRS_CUDA(cudaMemcpyAsync(agg, agg_d, (size_t)n * sizeof *agg,
                              cudaMemcpyDeviceToHost, stream));
    CMRS_CUDA(cudaStreamSynchronize(stream));
    return CMRS_OK;
}

/* The download started (agg_d complete: the aggregation synchronised its
 * stream); done here on `stream` where it is small (a thread and its
 * pinned buffers are not worth 2 MB, vessel 0.5M's level 0) or no
 * thread starts. */
#define AGG_THREAD_MIN ((size_t)2 << 20)

static cmrs_code agg_down_start(agg_down *a, cudaStream_t stream,
                                const int32_t *agg_d, int32_t *agg,
                                size_t bytes)
{
    memset(a, 0, sizeof *a);
    if (bytes < AGG_THREAD_MIN)
        return cmrs_gpu_agg_download(stream, agg_d, agg,
                                     (int64_t)(bytes / sizeof *agg));
    CMRS_CUDA(cudaGetDevice(&a->device));
    a->staging = staging_of(a->device);
    a->agg_d = agg_d;
    a->agg = agg;
    a->bytes = bytes;
    a->job.started = cmrs_thread_start(&a->job.thread, agg_down_main, a);
    a->pending = a->job.started;
    if (!a->pending) CMRS_CHECK(agg_copy(a));
    return CMRS_OK;
}

/* raise 0: joined only (a failure elsewhere is being reported). */
static cmrs_code agg_down_join(agg_down *a, int raise)
{
    if (!a->pending) return CMRS_OK;
    (void)pthread_join(a->job.thread, NULL);
    a->pending = 0;
    return raise ? cmrs_thread_job_raise(&a->job) : CMRS_OK;
}

static void sa_free(sa_dev *d)
{
    amg_dev_free(&d->rap);
    amg_dev_free(&d->ap);
    amg_dev_free(&d->r);
    amg_dev_free(&d->p);
    amg_dev_free(&d->pt);
    amg_dev_free(&d->a_own);
    amg_pool_free(d->f_d, d->stream);
    if (d->agg_kept) /* a failure before agg_kept_out */
        cmrs_gpu_free(d->agg_d);
    else
        amg_pool_free(d->agg_d, d->stream);
    if (d->handle) cusparseDestroy(d->handle);
    memset(d, 0, sizeof *d);
}

/* The tentative P from the aggregates, for SpGEMM's A P_tent (the fused
 * pass reads the aggregates themselves). */
static cmrs_code tentative(cudaStream_t stream, sa_dev *d)
{
    int64_t n = d->a->rows;
    CMRS_CHECK(amg_dev_alloc_scratch(&d->pt, n, d->naggs, n, stream));
    CMRS_CHECK(cmrs_gpu_sa_tentative(stream, n, d->agg_d, d->pt.indptr_d,
                                     d->pt.indices_d, d->pt.values_d));
    CMRS_CHECK(amg_dev_describe(&d->pt));
    return CMRS_OK;
}

/* P (in place of A P_tent), R, A P, R A P on the device. */
static cmrs_code products(cudaStream_t stream, sa_dev *d)
{
    int64_t n = d->a->rows;
    double t = 0;
    int fused = 0;
    amg_prof_begin(&t);
    CMRS_CHECK(cmrs_gpu_sa_smoothed_p(stream, n, d->naggs,
                                      d->a->indptr_d, d->a->indices_d,
                                      d->a->values_d, d->agg_d, d->f_d,
                                      &d->p, &fused));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa P from A's rows (%s)",
                             fused ? "done" : "a row too long"));
    if (!fused) { /* A P_tent by SpGEMM, then smoothed in place */
        CMRS_CHECK(tentative(stream, d));
        CMRS_CHECK(amg_dev_spgemm(d->handle, stream, d->a, &d->pt, &d->p,
                                  "A P_tent"));
        CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM A P_tent"));
    }
    CMRS_ENSURE(d->p.nnz >= n, CMRS_E_INTERNAL, "GPU smoothed P (%s) has "
                "%lld entries for %lld rows with a diagonal", fused
                ? "from A's rows" : "A P_tent", (long long)d->p.nnz,
                (long long)n);
    if (!fused) {
        CMRS_CHECK(cmrs_gpu_sa_smooth_rows(stream, n, d->p.indptr_d,
                                           d->p.indices_d, d->p.values_d,
                                           d->f_d, d->agg_d));
        CMRS_CHECK(amg_prof_step(stream, &t, "sa smooth rows (P)"));
    }
    CMRS_CHECK(amg_dev_transpose(d->handle, d->stream, &d->p, &d->r));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa csr2csc R = P^T"));
    CMRS_CHECK(amg_dev_spgemm_scratch(d->handle, stream, d->a, &d->p,
                                      &d->ap, "A P"));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM A P"));
    CMRS_CHECK(amg_dev_spgemm(d->handle, stream, &d->r, &d->ap, &d->rap,
                              "R A P"));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa SpGEMM R (A P)"));
    CMRS_ENSURE(d->rap.nnz > 0, CMRS_E_INTERNAL, "GPU smoothed "
                "aggregation: R A P came out empty");
    return CMRS_OK;
}

/* The aggregates: up from the host, or (g->aggregate) made here by MIS-2
 * from the uploaded A and sent down once (the host keeps them for value
 * updates), or kept on the device for the caller (g->keep_d: no download
 * beside the products; cudaMalloc'd by amg_dev_malloc, since it outlives
 * the setup's pool, which it trims first if memory runs out). */
static cmrs_code aggregates(cudaStream_t stream, sa_dev *d,
                            const sa_args *g)
{
    size_t bytes = (size_t)d->a->rows * sizeof(int32_t);
    d->agg_kept = g->aggregate && g->keep_d;
    if (d->agg_kept)
        CMRS_CHECK(amg_dev_malloc((void **)&d->agg_d, bytes));
    else
        CMRS_CHECK(amg_pool_alloc((void **)&d->agg_d, bytes, stream));
    if (!g->aggregate) {
        CMRS_CUDA(cudaMemcpyAsync(d->agg_d, g->agg, bytes,
                                  cudaMemcpyHostToDevice, stream));
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_gpu_mis2_dev(stream, d->a->rows, d->a->nnz,
                                 d->a->indptr_d, d->a->indices_d,
                                 d->a->values_d, g->theta, d->agg_d,
                                 g->naggs));
    /* MIS-2's scratch (9 bytes an entry, 60 a row) back to the driver,
     * unless the hierarchy's setup holds the pool (its next level reuses
     * it; cudaMalloc'd level matrices trim it if memory runs out) */
    amg_pool_trim(stream);
    if (!d->agg_kept)
        CMRS_CHECK(agg_down_start(&d->down, stream, d->agg_d, g->agg,
                                  bytes));
    return CMRS_OK;
}

/* The kept aggregates: to the caller where the level was formed here,
 * else down to the host's array, which the host path reads. */
static cmrs_code agg_kept_out(cudaStream_t stream, sa_dev *d,
                              const sa_args *g, int done)
{
    if (!d->agg_kept) return CMRS_OK;
    if (!done)
        return cmrs_gpu_agg_download(stream, d->agg_d, g->agg, d->a->rows);
    *g->keep_d = d->agg_d;
    d->agg_d = NULL;
    d->agg_kept = 0;
    return CMRS_OK;
}

/* A (up from the host unless the caller has it on the device), the
 * aggregates and f (on the device: *ok = 0 when the host must form the
 * level instead). */
static cmrs_code inputs(cudaStream_t stream, sa_dev *d, const cmrs_csr *A_h,
                        const amg_dev_mat *A_d, const sa_args *g, int *ok)
{
    double t = 0, w = 0;
    amg_prof_begin(&t);
    d->a = A_d;
    if (!A_d) {
        CMRS_CHECK(amg_dev_upload(A_h, &d->a_own));
        d->a = &d->a_own;
        CMRS_CHECK(amg_prof_step(stream, &t, "sa upload A (nnz %lld)",
                                 (long long)A_h->nnz));
    }
    int64_t n = d->a->rows;
    CMRS_CHECK(aggregates(stream, d, g));
    CMRS_CHECK(amg_prof_step(stream, &t, g->aggregate
                             ? "sa aggregates (MIS-2, device), down"
                             : "sa aggregates up"));
    *ok = *g->naggs > 0;
    if (!*ok) return CMRS_OK;
    CMRS_CHECK(amg_pool_alloc((void **)&d->f_d, (size_t)n * sizeof(double),
                              stream));
    CMRS_CHECK(cmrs_gpu_sa_scales(stream, n, d->a->indptr_d,
                                  d->a->indices_d, d->a->values_d, g->omega,
                                  d->f_d, &w, ok));
    CMRS_CHECK(amg_prof_step(stream, &t, "sa w, f_i = w / a_ii (device)"));
    d->naggs = *g->naggs;
    return CMRS_OK;
}

/* d downloaded into C, sorted on the host only if the device check finds
 * a row out of order (cuSPARSE does not promise sorted output). */
static cmrs_code download_sorted(cudaStream_t stream, const amg_dev_mat *d,
                                 cmrs_csr *C)
{
    int sorted = 0;
    CMRS_CHECK(cmrs_gpu_csr_rows_sorted(stream, d->rows, d->indptr_d,
                                        d->indices_d, &sorted));
    CMRS_CHECK(amg_dev_download(stream, d, C));
    if (!sorted) CMRS_CHECK(cmrs_csr_sort_sum_duplicates(C));
    return CMRS_OK;
}

/* out = m, m left empty (so that sa_free keeps it). */
static void move_out(amg_dev_mat *m, amg_dev_mat *out)
{
    *out = *m;
    memset(m, 0, sizeof *m);
}

cmrs_code cmrs_gpu_sa_run(cudaStream_t stream, const cmrs_csr *A_h,
                          const amg_dev_mat *A_d, const cmrs_gpu_sa_args *g,
                          amg_dev_mat *P, amg_dev_mat *R, amg_dev_mat *Ac,
                          int *done)
{
    cmrs_code rc = CMRS_OK;
    sa_dev d;
    double t = 0;
    memset(&d, 0, sizeof d);
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    *done = 0;
    amg_prof_begin(&t);
    d.stream = stream;
    CMRS_CUSPARSE_TRY(cusparseCreate(&d.handle));
    CMRS_CUSPARSE_TRY(cusparseSetStream(d.handle, stream));
    CMRS_TRY(amg_prof_step(stream, &t, "sa cusparseCreate"));
    CMRS_TRY(inputs(stream, &d, A_h, A_d, g, done));
    if (!*done) goto done; /* joined there */
    CMRS_TRY(amg_prof_step(stream, &t, "sa inputs total"));
    CMRS_TRY(products(stream, &d));
    CMRS_TRY(amg_prof_step(stream, &t, "sa products total"));
    CMRS_TRY(agg_down_join(&d.down, 1));
    CMRS_TRY(amg_prof_step(stream, &t, "sa aggregates down (joined)"));
    move_out(&d.p, P);
    move_out(&d.r, R);
    move_out(&d.rap, Ac);
done:
    /* the host path (*done = 0) reads agg too */
    if (rc == CMRS_OK) rc = agg_down_join(&d.down, 1);
    if (rc == CMRS_OK) rc = agg_kept_out(stream, &d, g, *done);
    (void)agg_down_join(&d.down, 0);
    sa_free(&d);
    amg_pool_trim(stream);
    if (rc == CMRS_OK) rc = amg_prof_step(stream, &t, "sa free device");
    if (rc != CMRS_OK) *done = 0;
    if (!*done) {
        amg_dev_free(P);
        amg_dev_free(R);
        amg_dev_free(Ac);
    }
    return rc;
}

/* The host-side calls: the run, then its three results downloaded (and
 * freed on the device). */
static cmrs_code sa_host(cudaStream_t stream, const cmrs_csr *A,
                         const sa_args *g, cmrs_csr *P, cmrs_csr *R,
                         cmrs_csr *Ac, int *done)
{
    cmrs_code rc = CMRS_OK;
    amg_dev_mat p, r, ac;
    CMRS_TRY(cmrs_gpu_sa_run(stream, A, NULL, g, &p, &r, &ac, done));
    if (!*done) goto done;
    CMRS_TRY(download_sorted(stream, &p, P));
    CMRS_TRY(download_sorted(stream, &r, R));
    CMRS_TRY(download_sorted(stream, &ac, Ac));
done:
    amg_dev_free(&p);
    amg_dev_free(&r);
    amg_dev_free(&ac);
    if (rc != CMRS_OK) *done = 0;
    if (!*done) {
        cmrs_csr_free(P);
        cmrs_csr_free(R);
        cmrs_csr_free(Ac);
    }
    return rc;
}

cmrs_code cmrs_gpu_sa_level(cudaStream_t stream, const cmrs_csr *A,
                            const int32_t *agg, int64_t naggs, double omega,
                            cmrs_csr *P, cmrs_csr *R, cmrs_csr *Ac,
                            int *done)
{
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    *done = 0;
    if (A->rows == 0 || A->nnz == 0 || naggs == 0) return CMRS_OK;
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    CMRS_CHECK(cmrs_amg_check_aggregates(A->rows, A->cols, agg, naggs));
    sa_args g = {0, 0.0, omega, (int32_t *)agg, &naggs, NULL};
    CMRS_CHECK(sa_host(stream, A, &g, P, R, Ac, done));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_sa_coarsen(cudaStream_t stream, const cmrs_csr *A,
                              double theta, double omega, int32_t *agg,
                              int64_t *naggs, cmrs_csr *P, cmrs_csr *R,
                              cmrs_csr *Ac, int *done)
{
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    *done = 0;
    *naggs = 0;
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "GPU aggregation: matrix "
                "is %lld x %lld, not square", (long long)A->rows,
                (long long)A->cols);
    if (A->rows == 0) return CMRS_OK;
    if (A->nnz == 0) { /* no graph: every row its own aggregate */
        for (int64_t i = 0; i < A->rows; ++i) agg[i] = (int32_t)i;
        *naggs = A->rows;
        return CMRS_OK;
    }
    CMRS_CHECK(amg_dev_check_int32(A->rows, A->cols, A->nnz, "A"));
    sa_args g = {1, theta, omega, agg, naggs, NULL};
    CMRS_CHECK(sa_host(stream, A, &g, P, R, Ac, done));
    return CMRS_OK;
}
