/* CUDA-event timing of SpMV and of the device copy bandwidth (timing.h;
 * the statistics of the samples: measure_host.c). */
#include "timing.h"

#include <stdlib.h>

#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"

/* Records events[0..reps] between the calls, after the warm-up calls. */
static cmrs_code enqueue_timed(cmrs_timed_op op, void *ctx, cudaStream_t stream,
                               int warmup, int reps, cudaEvent_t *events)
{
    for (int i = 0; i < warmup; ++i) CMRS_CHECK(op(ctx));
    CMRS_CUDA(cudaEventRecord(events[0], stream));
    for (int i = 0; i < reps; ++i) {
        CMRS_CHECK(op(ctx));
        CMRS_CUDA(cudaEventRecord(events[i + 1], stream));
    }
    CMRS_CUDA(cudaEventSynchronize(events[reps]));
    return CMRS_OK;
}

cmrs_code cmrs_time_op(cmrs_timed_op op, void *ctx, cudaStream_t stream,
                       int warmup, int reps, cmrs_timing *t)
{
    cmrs_code rc = CMRS_OK;
    int created = 0;
    CMRS_ENSURE(reps >= 1 && warmup >= 0, CMRS_E_USAGE,
                "timing: %d repetitions, %d warm-ups", reps, warmup);
    cudaEvent_t *ev = cmrs_malloc_array((size_t)reps + 1, sizeof *ev);
    double *ms = cmrs_malloc_array((size_t)reps, sizeof *ms);
    if (!ev || !ms) CMRS_TRY_FAIL(CMRS_E_NOMEM, "timing: out of host memory");
    for (; created <= reps; ++created)
        CMRS_CUDA_TRY(cudaEventCreate(&ev[created]));
    CMRS_TRY(enqueue_timed(op, ctx, stream, warmup, reps, ev));
    for (int i = 0; i < reps; ++i) {
        float e = 0;
        CMRS_CUDA_TRY(cudaEventElapsedTime(&e, ev[i], ev[i + 1]));
        ms[i] = 1e-3 * e;
    }
    cmrs_timing_from_samples(ms, reps, t);
done:
    for (int i = 0; i < created; ++i) cudaEventDestroy(ev[i]);
    free(ev);
    free(ms);
    return rc;
}

typedef struct spmv_call {
    cmrs_spmv *s;
    const void *x_d;
    void *y_d;
} spmv_call;

static cmrs_code spmv_op(void *ctx)
{
    spmv_call *c = ctx;
    CMRS_CHECK(cmrs_spmv_apply(c->s, 1.0, c->x_d, 0.0, c->y_d));
    return CMRS_OK;
}

cmrs_code cmrs_time_spmv(cmrs_spmv *s, const void *x_d, void *y_d, int warmup,
                         int reps, cmrs_timing *t)
{
    spmv_call c = {s, x_d, y_d};
    CMRS_CHECK(cmrs_time_op(spmv_op, &c, s->stream, warmup, reps, t));
    return CMRS_OK;
}

typedef struct copy_call {
    void *dst_d, *src_d;
    size_t bytes;
    cudaStream_t stream;
} copy_call;

static cmrs_code copy_op(void *ctx)
{
    copy_call *c = ctx;
    CMRS_CUDA(cudaMemcpyAsync(c->dst_d, c->src_d, c->bytes,
                              cudaMemcpyDeviceToDevice, c->stream));
    return CMRS_OK;
}

cmrs_code cmrs_measure_copy_bandwidth(size_t bytes, int reps,
                                      double *bytes_per_s)
{
    cmrs_code rc = CMRS_OK;
    copy_call c = {NULL, NULL, bytes, 0};
    size_t free_b = 0, total_b = 0;
    cmrs_timing t;
    CMRS_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (c.bytes > free_b / 4) c.bytes = free_b / 4; /* two buffers + slack */
    c.bytes &= ~(size_t)255;
    CMRS_ENSURE(c.bytes > 0, CMRS_E_NOMEM,
                "copy bandwidth: only %zu bytes of device memory free", free_b);
    CMRS_CUDA_TRY(cudaMalloc(&c.dst_d, c.bytes));
    CMRS_CUDA_TRY(cudaMalloc(&c.src_d, c.bytes));
    /* Touch the source so the copy reads initialised memory. */
    CMRS_CUDA_TRY(cudaMemset(c.src_d, 0, c.bytes));
    CMRS_TRY(cmrs_time_op(copy_op, &c, c.stream, 3, reps, &t));
    *bytes_per_s = 2.0 * (double)c.bytes / t.median;
done:
    cmrs_dev_free(c.dst_d);
    cmrs_dev_free(c.src_d);
    return rc;
}
