/* The GPU back end's cuBLAS handle, made in a helper thread while the
 * creating thread uploads and converts A (backend_gpu.h). Loading cuBLAS
 * (dlopen of ~100 MB, base/gpu/cuda_dl.h) and cublasCreate take about 0.05 s
 * on a cold process, as long as the upload and the conversion of a 5M-row
 * matrix: run side by side, the setup pays the longer of the two, not
 * their sum.
 *
 * Error state is per thread (base/status.h): the helper keeps its code and
 * message, and the join re-raises them in the caller's thread. The
 * setup profile is per thread too: the helper charges nothing, and the
 * join charges the time it waits to the libraries phase, so the phases
 * stay exclusive and say what the setup actually waited for. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/profile.h"
#include "base/thread.h"
#include "solver/amg/gpu/amg_rowprod_gpu.h"
#include "solver/amg/gpu/amg_spgemm_dev.h"
#include "backend_gpu.h"

/* cuBLAS handles kept for the process, BLAS_KEEP a device: cublasCreate
 * costs about 3 ms of host time even in a warm process (a CUPTI trace of
 * `compare`'s AMG row on the vessel 0.5M, H100: the helper thread's first
 * CUDA call 3 ms after its start, the setup waiting for it once the
 * upload was done), paid by every back end (`compare`'s rows, a library
 * user's next solver). A destroyed back end's handle comes here, and the
 * next back end on that device takes it, its stream and pointer mode set
 * again (the only state the back ends set). Kept handles sit on the
 * legacy stream (their back end's is gone) and are destroyed at exit, so
 * that a leak check sees their workspace freed (before the runtime's own
 * teardown, which registered its exit handler earlier). */
#define BLAS_KEEP 2 /* each holds its workspace (tens of MB) */
static cublasHandle_t g_blas_kept[CMRS_MAX_DEVICES][BLAS_KEEP];
static int g_blas_count[CMRS_MAX_DEVICES];
static pthread_mutex_t g_blas_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_blas_exit_once = PTHREAD_ONCE_INIT;

static void blas_release_all(void)
{
    pthread_mutex_lock(&g_blas_lock);
    for (int d = 0; d < CMRS_MAX_DEVICES; ++d) {
        while (g_blas_count[d] > 0)
            cublasDestroy(g_blas_kept[d][--g_blas_count[d]]);
    }
    pthread_mutex_unlock(&g_blas_lock);
}

static void blas_exit_register(void) { (void)atexit(blas_release_all); }

/* A kept handle of device d, or NULL. */
static cublasHandle_t blas_take(int d)
{
    cublasHandle_t h = NULL;
    if (!cmrs_device_kept(d)) return NULL;
    pthread_mutex_lock(&g_blas_lock);
    if (g_blas_count[d] > 0) h = g_blas_kept[d][--g_blas_count[d]];
    pthread_mutex_unlock(&g_blas_lock);
    return h;
}

void cmrs_gpu_blas_give(int d, cublasHandle_t h)
{
    int kept = 0;
    if (cmrs_device_kept(d) &&
        cublasSetStream(h, NULL) == CUBLAS_STATUS_SUCCESS) {
        pthread_once(&g_blas_exit_once, blas_exit_register);
        pthread_mutex_lock(&g_blas_lock);
        if (g_blas_count[d] < BLAS_KEEP) {
            g_blas_kept[d][g_blas_count[d]++] = h;
            kept = 1;
        }
        pthread_mutex_unlock(&g_blas_lock);
    }
    if (!kept) cublasDestroy(h);
}

/* The handle on the back end's stream, in host pointer mode. The runtime's
 * current device is per thread: the helper takes the creator's. */
static cmrs_code make_blas(gpu_impl *g)
{
    CMRS_CUDA(cudaSetDevice(g->libs_device));
    g->blas = blas_take(g->libs_device);
    if (!g->blas) CMRS_CUBLAS(cublasCreate(&g->blas));
    g->have_blas = 1;
    CMRS_CUBLAS(cublasSetStream(g->blas, g->stream));
    CMRS_CUBLAS(cublasSetPointerMode(g->blas, CUBLAS_POINTER_MODE_HOST));
    return CMRS_OK;
}

/* make_blas with its failure kept for the join (the message read here:
 * it lives in this thread's error state). */
static void run_libs(gpu_impl *g)
{
    g->libs_rc = make_blas(g);
    if (g->libs_rc != CMRS_OK)
        snprintf(g->libs_msg, sizeof g->libs_msg, "%s", cmrs_error_message());
}

static void *libs_main(void *arg)
{
    run_libs(arg);
    cmrs_error_clear();
    return NULL;
}

cmrs_code cmrs_gpu_libs_start(gpu_impl *g)
{
    CMRS_CUDA(cudaGetDevice(&g->libs_device));
    g->libs_rc = CMRS_OK;
    g->libs_msg[0] = '\0';
    g->libs_pending = cmrs_thread_start(&g->libs_thread, libs_main, g);
    if (!g->libs_pending) { /* no thread: the same work here, in full */
        cmrs_phase_push(CMRS_PHASE_LIBRARIES);
        run_libs(g);
        cmrs_phase_pop();
        cmrs_error_clear(); /* re-raised by the join, as from the helper */
    }
    return CMRS_OK;
}

/* A helper thread joined if it runs (*pending), the wait charged to the
 * libraries phase. */
static void join_helper(pthread_t thread, int *pending)
{
    if (!*pending) return;
    cmrs_phase_push(CMRS_PHASE_LIBRARIES);
    (void)pthread_join(thread, NULL);
    cmrs_phase_pop();
    *pending = 0;
}

void cmrs_gpu_libs_wait(gpu_impl *g)
{
    join_helper(g->libs_thread, &g->libs_pending);
}

cmrs_code cmrs_gpu_libs_join(gpu_impl *g)
{
    cmrs_gpu_libs_wait(g);
    if (g->libs_rc == CMRS_OK) return CMRS_OK;
    return cmrs_error_set(g->libs_rc, __FILE__, __LINE__, "%s", g->libs_msg);
}

/* Kernel modules load once per process and device: the SpGEMM warm-up,
 * once it ran to its end, is not run again by a later back end on the
 * same device (compare's rows, a library user's next setup), whose AMG
 * setup it would only contend with for the driver (CUPTI trace of the
 * 0.5M vessel's, H100: the warm-up threads' allocations and launches
 * beside the main thread's). */
static int g_spgemm_warm[CMRS_MAX_DEVICES];

static int spgemm_warmed(int device)
{
    return cmrs_device_kept(device) &&
           __atomic_load_n(&g_spgemm_warm[device], __ATOMIC_ACQUIRE);
}

static void spgemm_mark_warm(int device)
{
    if (cmrs_device_kept(device))
        __atomic_store_n(&g_spgemm_warm[device], 1, __ATOMIC_RELEASE);
}

/* A A (A 4 x 4 tridiagonal) by cuSPARSE's SpGEMM and by rows (a thread
 * a row, then a warp a row), on a
 * stream of the thread's own: kernels load on their first launch
 * (cuSPARSE's: 0.033 s of the first level's products in a fresh process;
 * 6 ms of the first cuSPARSE product after a setup whose warm-up took the
 * row path; CMRS_AMG_PROFILE, vessel 5M and 0.5M, H100); here they load
 * beside the first level's aggregation. */
static int spgemm_warm(void)
{
    int ok = 0;
    int64_t ptr[] = {0, 2, 5, 8, 10};
    int32_t col[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    double val[] = {2, -1, -1, 2, -1, -1, 2, -1, -1, 2};
    cmrs_csr A = {4, 4, 10, ptr, col, val};
    amg_dev_mat a, c;
    cusparseHandle_t h = NULL;
    cudaStream_t st = NULL;
    memset(&a, 0, sizeof a);
    memset(&c, 0, sizeof c);
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess &&
        cusparseCreate(&h) == CUSPARSE_STATUS_SUCCESS &&
        cusparseSetStream(h, st) == CUSPARSE_STATUS_SUCCESS &&
        amg_dev_upload(&A, &a) == CMRS_OK &&
        amg_dev_spgemm_cusparse(h, st, &a, &a, &c, "warm-up A A") ==
            CMRS_OK) {
        amg_dev_free(&c);
        ok = amg_dev_spgemm(h, st, &a, &a, &c, "warm-up A A by rows") ==
             CMRS_OK;
        amg_dev_free(&c);
        /* the warp path's kernels too (R (A P) takes it) */
        int done = 0;
        ok = ok && amg_dev_rowprod(st, AMG_ROWPROD_WARP, &a, &a, &c,
                                   &done) == CMRS_OK &&
             done && cudaStreamSynchronize(st) == cudaSuccess;
    }
    amg_dev_free(&c);
    amg_dev_free(&a);
    if (h) cusparseDestroy(h);
    /* not trimmed here: the pool is the setup's, which runs beside */
    if (st) cudaStreamDestroy(st);
    return ok;
}

/* A thread of its own, so that the first level's products find the
 * kernels loaded. */
static void *spgemm_main(void *arg)
{
    gpu_impl *g = arg;
    if (cudaSetDevice(g->libs_device) == cudaSuccess && spgemm_warm())
        spgemm_mark_warm(g->libs_device);
    (void)cudaGetLastError();
    cmrs_error_clear();
    return NULL;
}

void cmrs_gpu_spgemm_warm_start(gpu_impl *g)
{
    if (g->spgemm_started) return;
    g->spgemm_started = 1;
    if (!spgemm_warmed(g->libs_device))
        g->spgemm_pending =
            cmrs_thread_start(&g->spgemm_thread, spgemm_main, g);
}

void cmrs_gpu_spgemm_warm_join(gpu_impl *g)
{
    join_helper(g->spgemm_thread, &g->spgemm_pending);
}
