/* CUDA graphs for the layers above the GPU code (base/device.h): one
 * capture of a stream's work, replayed by one launch. */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "base/device.h"
#include "cuda_check.h"

struct cmrs_gpu_graph {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

cmrs_code cmrs_gpu_graph_capture(cmrs_stream s, cmrs_code (*fn)(void *arg),
                                 void *arg, cmrs_gpu_graph **g)
{
    *g = NULL;
    cmrs_gpu_graph *r = calloc(1, sizeof *r);
    CMRS_ENSURE(r, CMRS_E_NOMEM, "cannot allocate a CUDA graph");
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
        free(r);
        CMRS_CUDA(e);
    }
    cmrs_code rc = fn(arg);
    e = cudaStreamEndCapture(s, &r->graph); /* always ended */
    if (rc == CMRS_OK && e == cudaSuccess)
        e = cudaGraphInstantiate(&r->exec, r->graph, 0);
    if (rc != CMRS_OK || e != cudaSuccess) {
        if (r->graph) (void)cudaGraphDestroy(r->graph);
        free(r);
        CMRS_CHECK(rc);
        CMRS_CUDA(e);
    }
    *g = r;
    return CMRS_OK;
}

cmrs_code cmrs_gpu_graph_launch(cmrs_gpu_graph *g, cmrs_stream s)
{
    CMRS_CUDA(cudaGraphLaunch(g->exec, s));
    return CMRS_OK;
}

void cmrs_gpu_graph_destroy(cmrs_gpu_graph *g)
{
    if (!g) return;
    (void)cudaGraphExecDestroy(g->exec);
    (void)cudaGraphDestroy(g->graph);
    free(g);
}
