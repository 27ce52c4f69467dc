/* The GPU back end's values-only update from device values: the format's
 * buffer rewritten on the device, D^-1 recomputed there, one wait at the
 * end for the error words. Every buffer is made at creation, so an
 * update allocates nothing (formats with an `after` step aside). */
#include <stdlib.h>
#include <string.h>

#include "../io/profile.h"
#include "../spmv/device.h"
#include "backend_gpu.h"
#include "gpu_kernels.h"

#define NO_BAD (~0ULL) /* an error word's "nothing found" */

/* Diagonal positions (host scan, one int32 per row) and error words. */
cmrs_code cmrs_gpu_update_prepare(cmrs_backend *be, const cmrs_csr *A)
{
    gpu_impl *g = GPU(be);
    CMRS_CUDA(cudaMalloc((void **)&g->flags_d, 2 * sizeof *g->flags_d));
    CMRS_CUDA(cudaMallocHost((void **)&g->flags_h, 2 * sizeof *g->flags_h));
    if (A->nnz > INT32_MAX) return CMRS_OK; /* dinv_d then says so */
    cmrs_code rc = CMRS_OK;
    int32_t *pos = cmrs_malloc_array((size_t)A->rows, sizeof *pos);
    CMRS_ENSURE(pos, CMRS_E_NOMEM, "cannot allocate %lld diagonal positions",
                (long long)A->rows);
    cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
    for (int64_t i = 0; i < A->rows; ++i) {
        pos[i] = -1;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] == i) pos[i] = (int32_t)k;
    }
    cmrs_phase_pop();
    CMRS_CUDA_TRY(cudaMalloc((void **)&g->diag_d,
                             (size_t)A->rows * sizeof *pos));
    CMRS_TRY(cmrs_dev_copy_to(g->diag_d, pos, (size_t)A->rows * sizeof *pos));
done:
    free(pos);
    return rc;
}

void cmrs_gpu_update_free(gpu_impl *g)
{
    cudaFree(g->diag_d);
    cudaFree(g->flags_d);
    cudaFreeHost(g->flags_h);
}

cmrs_code cmrs_gpu_op_update_values_d(cmrs_backend *be, const void *values_d,
                                      int *in_place)
{
    gpu_impl *g = GPU(be);
    CMRS_CUDA(cudaMemsetAsync(g->flags_d, 0xff, 2 * sizeof *g->flags_d,
                              g->stream));
    CMRS_CHECK(cmrs_spmv_update_values_d(g->spmv, values_d, &g->flags_d[0],
                                         in_place));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_dinv_d(cmrs_backend *be, const void *values_d,
                             void *dinv)
{
    gpu_impl *g = GPU(be);
    CMRS_ENSURE(g->diag_d, CMRS_E_LIMIT, "%lld entries: the device update's "
                "diagonal positions are 32-bit (update from host values)",
                (long long)be->nnz);
    CMRS_CHECK(cmrs_gpu_dinv_values(be->prec, be->n, g->diag_d, values_d,
                                    dinv, &g->flags_d[1], g->stream));
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_update_check(cmrs_backend *be, int64_t *bad_value,
                                   int64_t *bad_row)
{
    gpu_impl *g = GPU(be);
    CMRS_CUDA(cudaMemcpyAsync(g->flags_h, g->flags_d, 2 * sizeof *g->flags_h,
                              cudaMemcpyDeviceToHost, g->stream));
    CMRS_CUDA(cudaStreamSynchronize(g->stream));
    *bad_value = g->flags_h[0] == NO_BAD ? -1 : (int64_t)g->flags_h[0];
    *bad_row = g->flags_h[1] == NO_BAD ? -1 : (int64_t)g->flags_h[1];
    return CMRS_OK;
}

cmrs_code cmrs_gpu_op_values_get(cmrs_backend *be, double *values_h)
{
    CMRS_CHECK(cmrs_spmv_values_get(GPU(be)->spmv, values_h));
    return CMRS_OK;
}
