/* cmrs_backend_dist_gpu_create (dist_gpu.h): the distributed back end's
 * three hooks for parts on GPUs. */
#include <stdio.h>
#include <stdlib.h>

#include "../spmv/cuda_check.h"
#include "../spmv/cuda_dl.h"
#include "dist_gpu.h"

typedef struct gpu_place {
    cmrs_dist_gpu_params prm;
    int devices[CMRS_MAX_PARTS];
} gpu_place;

static void enter(void *user, int p)
{
    const gpu_place *g = user;
    /* A failure shows at the next checked CUDA call on that part. */
    (void)cudaSetDevice(p < 0 ? g->prm.device0 : g->devices[p]);
}

static cmrs_code inner_create(void *user, const cmrs_csr *A_local, int p,
                              cmrs_backend **out)
{
    const gpu_place *g = user;
    CMRS_ENSURE(A_local->rows > 0, CMRS_E_USAGE, "--gpus %d: the %s "
                "partition left part %d without rows; use fewer GPUs or "
                "another --partition", g->prm.ngpus,
                cmrs_part_method_name(g->prm.method), p);
    CMRS_CHECK(cmrs_backend_gpu_create(A_local, g->prm.format, g->prm.prec,
                                       g->prm.opts, out));
    return CMRS_OK;
}

#ifdef CMRS_HAVE_NCCL
static cmrs_code exchange_create(void *user, const cmrs_halo *h,
                                 cmrs_backend *const *inner,
                                 cmrs_exchange **out)
{
    const gpu_place *g = user;
    return cmrs_exchange_nccl_create(h, g->devices, inner,
                                     cmrs_prec_value_bytes(g->prm.prec), out);
}
#endif

/* NCCL built and loadable, and the GPUs there. */
static cmrs_code check_machine(const cmrs_dist_gpu_params *prm)
{
    int count = 0;
#ifndef CMRS_HAVE_NCCL
    CMRS_FAIL(CMRS_E_NODEVICE, "--gpus %d: this build has no NCCL (nccl.h "
              "was not found when it was configured); rebuild where NCCL "
              "is installed, or simulate the parts on the CPU: --parts %d",
              prm->ngpus, prm->ngpus);
#else
    CMRS_ENSURE(cmrs_dl_load(CMRS_DL_NCCL), CMRS_E_NODEVICE, "--gpus %d: %s",
                prm->ngpus, cmrs_dl_error(CMRS_DL_NCCL));
#endif
    CMRS_ENSURE(cudaGetDeviceCount(&count) == cudaSuccess, CMRS_E_NODEVICE,
                "--gpus %d: no CUDA GPU found", prm->ngpus);
    (void)cudaGetLastError();
    CMRS_ENSURE(prm->device0 >= 0 && prm->device0 + prm->ngpus <= count,
                CMRS_E_NODEVICE, "--gpus %d from GPU %d: this machine has "
                "%d GPU%s", prm->ngpus, prm->device0, count,
                count == 1 ? "" : "s");
    return CMRS_OK;
}

cmrs_code cmrs_backend_dist_gpu_create(const cmrs_csr *A,
                                       const cmrs_dist_gpu_params *prm,
                                       cmrs_backend **out)
{
    *out = NULL;
    CMRS_ENSURE(prm->ngpus >= 2 && prm->ngpus <= CMRS_MAX_PARTS,
                CMRS_E_USAGE, "--gpus %d: 2 to %d for a distributed solve",
                prm->ngpus, CMRS_MAX_PARTS);
    CMRS_CHECK(check_machine(prm));
    gpu_place *g = calloc(1, sizeof *g);
    CMRS_ENSURE(g, CMRS_E_NOMEM, "cannot allocate the GPUs' placement");
    g->prm = *prm;
    for (int p = 0; p < prm->ngpus; ++p) g->devices[p] = prm->device0 + p;
    cmrs_dist_params dp = {.nparts = prm->ngpus, .method = prm->method,
                           .sort_rows = 1, .inner_create = inner_create,
#ifdef CMRS_HAVE_NCCL
                           .exchange_create = exchange_create,
#endif
                           .enter = enter, .user = g, .user_free = free};
    return cmrs_backend_dist_create(A, &dp, out);
}
