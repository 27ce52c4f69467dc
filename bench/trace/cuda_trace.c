/* A CUPTI activity tracer for any CUDA program, loaded by the driver
 * through CUDA_INJECTION64_PATH (nsys is not on the GPU machines):
 *
 *   CUDA_INJECTION64_PATH=build/bench/libcuda_trace.so \
 *   CMRS_TRACE_OUT=trace.csv build/cmrs compare FILE --preconds amg
 *
 * writes every runtime and driver API call (name, host thread), kernel,
 * copy and memset of the process (start and end in ns, stream, the
 * correlation id that ties a launch to its kernel, bytes) to
 * $CMRS_TRACE_OUT (default trace.csv) when the process exits;
 * scripts/trace-summary.py summarises a window of it (docs/BENCHMARKS.md,
 * "What is measured and how"). Recording each API call costs ~1-2 us:
 * a chain of many small calls (an AMG setup at 0.5M rows) runs up to 2.7x
 * longer traced, a 5M-row one within 10%. */
#include <cupti.h>
#include <stdio.h>
#if CUPTI_API_VERSION < 130000
#error "cuda_trace reads CUPTI 13's record layouts (CUpti_ActivityKernel10)"
#endif
#include <stdlib.h>
#include <string.h>

static FILE *g_out;
#define BUF (8u << 20)

static void CUPTIAPI buf_req(uint8_t **buf, size_t *size, size_t *maxrec)
{
    *buf = aligned_alloc(8, BUF);
    *size = *buf ? BUF : 0; /* no buffer: CUPTI drops the records */
    *maxrec = 0;
}

static const char *api_name(CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    const char *n = NULL;
    cuptiGetCallbackName(d, id, &n);
    return n ? n : "?";
}

static void CUPTIAPI buf_done(CUcontext ctx, uint32_t sid, uint8_t *buf,
                              size_t size, size_t valid)
{
    (void)ctx; (void)sid; (void)size;
    CUpti_Activity *r = NULL;
    if (!g_out) { /* after the exit's flush: dropped */
        free(buf);
        return;
    }
    while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)r;
            int rt = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
            fprintf(g_out, "%s,%s,%llu,%llu,0,%u,%u,0\n", rt ? "rt" : "drv",
                    api_name(rt ? CUPTI_CB_DOMAIN_RUNTIME_API
                                : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid),
                    (unsigned long long)a->start, (unsigned long long)a->end,
                    a->threadId, a->correlationId);
            break;
        }
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
            char name[120];
            snprintf(name, sizeof name, "%s", k->name ? k->name : "?");
            for (char *c = name; *c; ++c) if (*c == ',') *c = ';';
            fprintf(g_out, "kern,%s,%llu,%llu,%u,0,%u,0\n", name,
                    (unsigned long long)k->start, (unsigned long long)k->end,
                    k->streamId, k->correlationId);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)r;
            fprintf(g_out, "copy,kind%u,%llu,%llu,%u,0,%u,%llu\n",
                    m->copyKind, (unsigned long long)m->start,
                    (unsigned long long)m->end, m->streamId, m->correlationId,
                    (unsigned long long)m->bytes);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)r;
            fprintf(g_out, "set,memset,%llu,%llu,%u,0,%u,%llu\n",
                    (unsigned long long)m->start, (unsigned long long)m->end,
                    m->streamId, m->correlationId,
                    (unsigned long long)m->bytes);
            break;
        }
        default: break;
        }
    }
    free(buf);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(1);
    FILE *f = g_out;
    g_out = NULL; /* a buffer delivered later is dropped, not written */
    if (f) fclose(f);
}

int InitializeInjection(void)
{
    const char *path = getenv("CMRS_TRACE_OUT");
    g_out = fopen(path && *path ? path : "trace.csv", "w");
    if (!g_out) {
        fprintf(stderr, "cuda_trace: cannot write %s\n",
                path && *path ? path : "trace.csv");
        return 0;
    }
    fprintf(g_out, "kind,name,start,end,stream,thread,corr,bytes\n");
    cuptiActivityRegisterCallbacks(buf_req, buf_done);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    atexit(at_exit);
    return 1;
}
