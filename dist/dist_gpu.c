/* cmrs_backend_dist_gpu_create (dist_gpu.h): the distributed back end's
 * three hooks for parts on GPUs. */
#include <stdio.h>
#include <stdlib.h>

#include "base/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/cuda_dl.h"
#include "dist_fused.h"
#include "dist_gpu.h"
#include "gpu_kernels.h"

typedef struct gpu_place {
    cmrs_dist_gpu_params prm;
    int devices[CMRS_MAX_PARTS];
    cudaStream_t streams[CMRS_MAX_PARTS]; /* the inner back ends' */
    double *scratch_d[CMRS_MAX_PARTS];    /* each part's dot scratch */
    double *dot_h;                        /* pinned: one result per part */
    cmrs_dist_fused *fused;               /* cg_loop's state, or NULL */
} gpu_place;

static void place_free(void *user)
{
    gpu_place *g = user;
    if (g) cmrs_dist_fused_free(g->fused);
    for (int p = 0; g && p < g->prm.ngpus; ++p)
        if (g->scratch_d[p] && cudaSetDevice(g->devices[p]) == cudaSuccess)
            cudaFree(g->scratch_d[p]);
    if (g) {
        (void)cudaSetDevice(g->prm.device0);
        cudaFreeHost(g->dot_h);
    }
    free(g);
}

/* Every part's dot queued on its stream, then waited for: the GPUs reduce
 * at the same time (an inner arr_dot would return before the next part's
 * starts). */
static cmrs_code dots(void *user, const cmrs_halo *h, const cmrs_dist_arr *x,
                      const cmrs_dist_arr *y, double *partial)
{
    gpu_place *g = user;
    for (int p = 0; p < h->nparts; ++p) {
        CMRS_CUDA(cudaSetDevice(g->devices[p]));
        CMRS_CHECK(cmrs_dist_dot_start(x->part[p], y->part[p],
                                       h->part[p].n_own, g->prm.prec,
                                       g->scratch_d[p], &g->dot_h[p],
                                       g->streams[p]));
    }
    for (int p = 0; p < h->nparts; ++p) {
        CMRS_CUDA(cudaSetDevice(g->devices[p]));
        CMRS_CUDA(cudaStreamSynchronize(g->streams[p]));
        partial[p] = g->dot_h[p];
    }
    CMRS_CUDA(cudaSetDevice(g->prm.device0));
    return CMRS_OK;
}

static void enter(void *user, int p)
{
    const gpu_place *g = user;
    /* A failure shows at the next checked CUDA call on that part. */
    (void)cudaSetDevice(p < 0 ? g->prm.device0 : g->devices[p]);
}

static cmrs_code inner_create(void *user, const cmrs_csr *A_local, int p,
                              cmrs_backend **out)
{
    gpu_place *g = user;
    CMRS_ENSURE(A_local->rows > 0, CMRS_E_USAGE, "--gpus %d: the %s "
                "partition left part %d without rows; use fewer GPUs or "
                "another --partition", g->prm.ngpus,
                cmrs_part_method_name(g->prm.method), p);
    CMRS_CHECK(cmrs_backend_gpu_create(A_local, g->prm.format, g->prm.prec,
                                       g->prm.opts, out));
    g->streams[p] = cmrs_backend_gpu_stream(*out);
    CMRS_CUDA(cudaMalloc((void **)&g->scratch_d[p],
                         (CMRS_DIST_DOT_BLOCKS + 1) * sizeof(double)));
    return CMRS_OK;
}

#ifdef CMRS_HAVE_NCCL
/* CG with Jacobi or none: the fused engine's kernels on every GPU, the
 * reductions all-reduced by NCCL on the devices (dist_fused.c). */
static cmrs_code cg_loop(void *user, cmrs_backend *be, cmrs_cg_loop_io *io)
{
    gpu_place *g = user;
    return cmrs_dist_fused_cg(&g->fused, be, io);
}

static cmrs_code exchange_create(void *user, const cmrs_halo *h,
                                 cmrs_backend *const *inner,
                                 cmrs_exchange **out)
{
    const gpu_place *g = user;
    return cmrs_exchange_nccl_create(h, g->devices, inner, out);
}
#endif

/* NCCL built and loadable, and the GPUs there. */
static cmrs_code check_machine(const cmrs_dist_gpu_params *prm)
{
#ifndef CMRS_HAVE_NCCL
    CMRS_FAIL(CMRS_E_NODEVICE, "--gpus %d: this build has no NCCL (nccl.h "
              "was not found when it was configured); rebuild where NCCL "
              "is installed, or simulate the parts on the CPU: --parts %d",
              prm->ngpus, prm->ngpus);
#else
    CMRS_ENSURE(cmrs_dl_load(CMRS_DL_NCCL), CMRS_E_NODEVICE, "--gpus %d: %s",
                prm->ngpus, cmrs_dl_error(CMRS_DL_NCCL));
#endif
    int count = cmrs_gpu_count(); /* 0 without a driver */
    CMRS_ENSURE(count > 0, CMRS_E_NODEVICE, "--gpus %d: no CUDA GPU found",
                prm->ngpus);
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
    /* Portable: every device's stream copies its dot here. */
    if (cudaSetDevice(prm->device0) != cudaSuccess ||
        cudaHostAlloc((void **)&g->dot_h, (size_t)prm->ngpus * sizeof(double),
                      cudaHostAllocPortable) != cudaSuccess) {
        place_free(g);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %d pinned dot results",
                  prm->ngpus);
    }
    cmrs_dist_params dp = {.nparts = prm->ngpus, .method = prm->method,
                           .sort_rows = 1, .inner_create = inner_create,
#ifdef CMRS_HAVE_NCCL
                           .exchange_create = exchange_create,
                           .cg_loop = cg_loop,
#endif
                           .enter = enter, .dots = dots, .user = g,
                           .user_free = place_free};
    return cmrs_backend_dist_create(A, &dp, out);
}
