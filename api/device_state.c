/* What the solves, the updates and the setup share about the solver's
 * arrays: device pointers checked, the caller's legacy-stream work waited
 * for, the host copy of A read back after device updates, the update's
 * kept device arrays freed. Calls nothing else in api/, so solve.c,
 * update.c and solver.c no longer call each other in a cycle. */
#include "dist/dist.h"
#include "base/device.h"
#include "api_internal.h"

/* Device arrays: a GPU context, the solver's precision, and memory the
 * context's GPU can address (not host memory passed as device). */
cmrs_code cmrs_api_check_device(const cmrs_solver *s, const void *p,
                                cmrs_value_type type, const char *fn)
{
    cmrs_value_type want = s->be->prec == CMRS_PREC_SINGLE
                               ? CMRS_VALUE_FLOAT32 : CMRS_VALUE_FLOAT64;
    int where = -1;
    CMRS_ENSURE(s->ctx->device >= 0, CMRS_E_USAGE, "%s: device pointers on "
                "a CPU context (use CMRS_MEMORY_HOST)", fn);
    /* A distributed solve's arrays are per part, each on its own GPU: one
     * device array of all rows has nowhere to go. */
    CMRS_ENSURE(!cmrs_backend_dist_partition(s->be), CMRS_E_USAGE, "%s: "
                "device arrays with a distributed solve (option gpus > 1): "
                "pass host arrays (CMRS_MEMORY_HOST)", fn);
    CMRS_ENSURE(type == want, CMRS_E_USAGE, "%s: device arrays must be of "
                "the solver's precision (%s)", fn,
                cmrs_prec_name(s->be->prec));
    CMRS_CHECK(cmrs_gpu_pointer_device(p, &where));
    CMRS_ENSURE(where == s->ctx->device, CMRS_E_USAGE, "%s: %p is not "
                "device memory of GPU %d", fn, p, s->ctx->device);
    return CMRS_OK;
}

/* The library's stream does not wait for the legacy default stream, and
 * a plain cudaMemcpy from pageable memory returns before its DMA has
 * landed: without this wait a caller's fresh copy could be read half
 * written (seen on an H200 as "value 3840 is not finite"). */
cmrs_code cmrs_api_wait_caller(void)
{
    CMRS_CHECK(cmrs_gpu_wait_legacy());
    return CMRS_OK;
}

cmrs_code cmrs_api_refresh_host(cmrs_solver *s)
{
    if (!s->host_stale || !s->be) return CMRS_OK;
    /* where renumbered: B's values (the solver's host matrix), then A's */
    CMRS_CHECK(s->be->ops->values_get(s->be,
                                      cmrs_api_sys_matrix(s)->values));
    if (s->ren)
        CMRS_CHECK(cmrs_api_ren_values_out(s->ren, s->A->sys.A.values));
    s->host_stale = 0;
    return CMRS_OK;
}

void cmrs_api_free_update_buffers(cmrs_solver *s)
{
    /* Guarded: a CPU context never calls into CUDA (not even a free). */
    if (s->vals_d) cmrs_gpu_free(s->vals_d);
    if (s->bad_d) cmrs_gpu_free(s->bad_d);
    s->vals_d = NULL;
    s->bad_d = NULL;
}
