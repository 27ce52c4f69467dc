/* Timing marks on streams (base/device.h): CUDA events, read after the
 * fact. */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "base/device.h"
#include "cuda_check.h"

struct cmrs_gpu_marks {
    int count;
    cudaEvent_t *ev;
};

void cmrs_gpu_marks_free(cmrs_gpu_marks *m)
{
    if (!m) return;
    for (int i = 0; m->ev && i < m->count; ++i)
        if (m->ev[i]) (void)cudaEventDestroy(m->ev[i]);
    free(m->ev);
    free(m);
}

cmrs_code cmrs_gpu_marks_create(int count, cmrs_gpu_marks **m)
{
    *m = calloc(1, sizeof **m);
    CMRS_ENSURE(*m, CMRS_E_NOMEM, "cannot allocate %d timing marks", count);
    (*m)->ev = calloc((size_t)count, sizeof *(*m)->ev);
    if (!(*m)->ev) {
        cmrs_gpu_marks_free(*m);
        *m = NULL;
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %d timing marks", count);
    }
    (*m)->count = count;
    for (int i = 0; i < count; ++i) {
        cudaError_t e = cudaEventCreate(&(*m)->ev[i]);
        if (e != cudaSuccess) {
            (*m)->ev[i] = NULL;
            cmrs_gpu_marks_free(*m);
            *m = NULL;
            CMRS_CUDA(e);
        }
    }
    return CMRS_OK;
}

cmrs_code cmrs_gpu_mark(cmrs_gpu_marks *m, int i, cmrs_stream s)
{
    CMRS_ENSURE(i >= 0 && i < m->count, CMRS_E_INTERNAL, "timing mark %d "
                "of %d", i, m->count);
    CMRS_CUDA(cudaEventRecord(m->ev[i], s));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_marks_ms(cmrs_gpu_marks *m, int i, int j, double *ms)
{
    CMRS_ENSURE(i >= 0 && j >= 0 && i < m->count && j < m->count,
                CMRS_E_INTERNAL, "timing marks %d, %d of %d", i, j, m->count);
    float f = 0;
    CMRS_CUDA(cudaEventSynchronize(m->ev[j]));
    CMRS_CUDA(cudaEventElapsedTime(&f, m->ev[i], m->ev[j]));
    *ms = f;
    return CMRS_OK;
}
