/* cmrs_backend_dist_gpu_create and cmrs_backend_dist_mpi_gpu_create
 * (dist_gpu.h): the distributed back end's hooks for parts on GPUs, NCCL's
 * communicators made in a helper thread from the start (nccl_comms.h). */
#include <stdio.h>
#include <stdlib.h>

#include "base/device.h"
#include "base/timer.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/cuda_dl.h"
#include "dist/gpu/dist_fused.h"
#include "dist_gpu.h"
#include "dist_impl.h"
#include "gpu_kernels.h"
#include "halo_rows.h"
#ifdef CMRS_HAVE_NCCL
#include "nccl_comms.h"
#endif

typedef struct gpu_place {
    cmrs_dist_gpu_params prm;
    int devices[CMRS_MAX_PARTS];
    cudaStream_t streams[CMRS_MAX_PARTS]; /* the inner back ends' */
    double *scratch_d[CMRS_MAX_PARTS];    /* each part's dot scratch */
    double *dot_h;                        /* pinned: one result per part */
    cmrs_dist_fused *fused;               /* cg_loop's state, or NULL */
    int rank, nranks;                     /* nranks > 1: a part per MPI
                                             rank, part `rank` here */
#ifdef CMRS_HAVE_MPI
    MPI_Comm comm;                        /* then: the ranks' (borrowed) */
#endif
#ifdef CMRS_HAVE_NCCL
    cmrs_nccl_comms comms;                /* made beside the setup, taken
                                             by exchange_create (zeroed:
                                             none) */
#endif
} gpu_place;

/* This process's device (the callers' messages and frees go back there). */
static int home(const gpu_place *g)
{
    return g->devices[g->nranks > 1 ? g->rank : 0];
}

/* Whether part p is in this process (all of them without MPI). */
static int mine(const gpu_place *g, int p)
{
    return cmrs_part_is_local(p, g->rank, g->nranks);
}

static void place_free(void *user)
{
    gpu_place *g = user;
    if (g) cmrs_dist_fused_free(g->fused);
#ifdef CMRS_HAVE_NCCL
    if (g) cmrs_nccl_comms_free(&g->comms);
#endif
    for (int p = 0; g && p < g->prm.ngpus; ++p)
        if (g->scratch_d[p] && cudaSetDevice(g->devices[p]) == cudaSuccess)
            cudaFree(g->scratch_d[p]);
    if (g) {
        (void)cudaSetDevice(home(g));
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
        if (!mine(g, p)) continue;
        CMRS_CUDA(cudaSetDevice(g->devices[p]));
        CMRS_CHECK(cmrs_dist_dot_start(x->part[p], y->part[p],
                                       h->part[p].n_own, g->prm.prec,
                                       g->scratch_d[p], &g->dot_h[p],
                                       g->streams[p]));
    }
    for (int p = 0; p < h->nparts; ++p) {
        if (!mine(g, p)) continue;
        CMRS_CUDA(cudaSetDevice(g->devices[p]));
        CMRS_CUDA(cudaStreamSynchronize(g->streams[p]));
        partial[p] = g->dot_h[p];
    }
    CMRS_CUDA(cudaSetDevice(home(g)));
    return CMRS_OK;
}

static void enter(void *user, int p)
{
    const gpu_place *g = user;
    /* A failure shows at the next checked CUDA call on that part. */
    (void)cudaSetDevice(p < 0 ? home(g) : g->devices[p]);
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
/* CG: the fused engine's kernels on every GPU, the preconditioner's
 * apply between them, the reductions all-reduced by NCCL on the devices
 * (dist_fused.c). */
static cmrs_code cg_loop(void *user, cmrs_backend *be, cmrs_cg_loop_io *io)
{
    gpu_place *g = user;
    return cmrs_dist_fused_cg(&g->fused, be, io);
}

static cmrs_code exchange_create(void *user, const cmrs_halo *h,
                                 cmrs_backend *const *inner,
                                 cmrs_exchange **out)
{
    gpu_place *g = user;
    ncclComm_t *comm = NULL;
    CMRS_CHECK(cmrs_nccl_comms_take(&g->comms, &comm));
#ifdef CMRS_HAVE_MPI
    if (g->nranks > 1)
        return cmrs_exchange_nccl_mpi_create(h, g->devices[g->rank], inner,
                                             g->comm, g->rank, comm, out);
#endif
    return cmrs_exchange_nccl_create(h, g->devices, inner, comm, out);
}
#endif

#if defined(CMRS_HAVE_MPI) && defined(CMRS_HAVE_NCCL)
/* Rows mode's partition and halo over the ranks' communicator. */
static cmrs_code rows_halo(void *user, const cmrs_csr *A_rows, int64_t row0,
                           cmrs_partition *pt, cmrs_halo *h)
{
    return cmrs_halo_build_rows(A_rows, row0, ((gpu_place *)user)->comm, pt,
                                h);
}
#endif

/* NCCL built and loadable, and count GPUs (0 without a driver): what
 * says who asks ("--gpus 2", "mpirun"). */
static cmrs_code check_machine(const char *what, int *count)
{
#ifndef CMRS_HAVE_NCCL
    CMRS_FAIL(CMRS_E_NODEVICE, "%s: this build has no NCCL (nccl.h was not "
              "found when it was configured); rebuild where NCCL is "
              "installed, or put the parts on the CPU (--parts N, or "
              "--device cpu under mpirun)", what);
#else
    CMRS_ENSURE(cmrs_dl_load(CMRS_DL_NCCL), CMRS_E_NODEVICE, "%s: %s", what,
                cmrs_dl_error(CMRS_DL_NCCL));
#endif
    *count = cmrs_gpu_count();
    CMRS_ENSURE(*count > 0, CMRS_E_NODEVICE, "%s: no CUDA GPU found", what);
    return CMRS_OK;
}

#ifdef CMRS_HAVE_NCCL
/* One halo exchange of x (a kit array of d's back end), queued: every
 * part's post, then every part's wait. */
static cmrs_code exchange_once(const dist_impl *d, void *x)
{
    cmrs_exchange *ex = d->ex;
    cmrs_dist_arr *xa = x;
    FOR_MY_PARTS(d, p) CMRS_CHECK(ex->ops->post(ex, p, xa->part[p]));
    FOR_MY_PARTS(d, p) CMRS_CHECK(ex->ops->wait(ex, p, xa->part[p]));
    return CMRS_OK;
}

/* One halo exchange (of zeros) and one device all-reduce (of the dot
 * scratch, whatever it holds: the sum is not used), waited for: NCCL
 * connects each peer and collective at its first use, which the first
 * solve would otherwise pay in its time (dist_warm_up_wanted). */
static cmrs_code warm_exchange(gpu_place *g, cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    cmrs_exchange *ex = d->ex;
    void *x = NULL;
    cmrs_code rc = be->ops->arr_create(be, be->n, &x);
    if (rc == CMRS_OK) rc = exchange_once(d, x);
    if (rc == CMRS_OK) rc = ex->ops->allreduce_d(ex, g->scratch_d, 0, 1);
    if (rc == CMRS_OK) rc = be->ops->sync(be);
    be->ops->arr_destroy(be, x);
    return rc == CMRS_OK ? rc : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* Halo exchanges queued back to back (every part's post, then every
 * part's wait), PROBE_HALOS of them, then waited for: one's mean time. */
#define PROBE_HALOS 32
/* The link probe's all-reduce: bytes per part (large enough for NCCL's
 * bandwidth, not its latency), and the calls timed after one untimed. */
#define PROBE_LINK_BYTES ((size_t)256 << 20)
#define PROBE_LINK_CALLS 3

/* One halo exchange's mean time over x (a kit array of be). */
static cmrs_code probe_halo(cmrs_backend *be, void *x, double *s)
{
    CMRS_CHECK(be->ops->sync(be));
    double t0 = cmrs_wtime();
    for (int k = 0; k < PROBE_HALOS; ++k)
        CMRS_CHECK(exchange_once(DIST(be), x));
    CMRS_CHECK(be->ops->sync(be));
    *s = (cmrs_wtime() - t0) / PROBE_HALOS;
    return CMRS_OK;
}

/* The bus bandwidth (bytes/s) of an all-reduce of PROBE_LINK_BYTES on
 * every part: algorithm bandwidth x 2 (P - 1) / P, NCCL's measure of the
 * link (for 2 parts, what one direction of it carried). buf[p]: each
 * part's buffer on its device. */
static cmrs_code probe_link(cmrs_backend *be, double *const *buf, double *bps)
{
    dist_impl *d = DIST(be);
    const int count = (int)(PROBE_LINK_BYTES / sizeof(double));
    const int P = d->pt.nparts;
    CMRS_CHECK(d->ex->ops->allreduce_d(d->ex, buf, 0, count)); /* warm */
    CMRS_CHECK(be->ops->sync(be));
    double t0 = cmrs_wtime();
    for (int k = 0; k < PROBE_LINK_CALLS; ++k)
        CMRS_CHECK(d->ex->ops->allreduce_d(d->ex, buf, 0, count));
    CMRS_CHECK(be->ops->sync(be));
    double t = (cmrs_wtime() - t0) / PROBE_LINK_CALLS;
    *bps = t > 0 ? (double)PROBE_LINK_BYTES / t * 2.0 * (P - 1) / P : 0;
    return CMRS_OK;
}

/* Whether every part of every rank is ready (cmrs_dist_all_agree), so
 * that all ranks probe or none; a failed agreement: none. */
static int all_ready(const dist_impl *d, int ready)
{
    int all = 0;
    return cmrs_dist_all_agree(d, ready, &all) == CMRS_OK && all;
}

/* The exchange measured (cmrs_dist_setup_times): where the memory is
 * missing or a probe fails the figures stay 0 and the setup goes on (a
 * report, not a step the solve needs). */
static void probe_exchange(cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    double *buf[CMRS_MAX_PARTS] = {0};
    double halo_s = 0, bps = 0;
    void *x = NULL;
    int ready = be->ops->arr_create(be, be->n, &x) == CMRS_OK;
    FOR_MY_PARTS(d, p) {
        (void)dist_inner(d, p);
        ready = ready && cudaMalloc((void **)&buf[p], PROBE_LINK_BYTES) ==
                             cudaSuccess;
    }
    dist_home(d);
    /* every rank agrees before each collective step: a rank that gave
     * up alone would leave the others waiting in the next one */
    int ok = all_ready(d, ready);
    if (ok) ok = all_ready(d, probe_halo(be, x, &halo_s) == CMRS_OK);
    if (ok) ok = probe_link(be, buf, &bps) == CMRS_OK;
    be->ops->arr_destroy(be, x);
    FOR_MY_PARTS(d, p) {
        (void)dist_inner(d, p);
        cudaFree(buf[p]);
    }
    dist_home(d);
    if (!ok) {
        cmrs_gpu_clear_error();
        cmrs_error_clear();
        return;
    }
    d->times.halo_s = halo_s;
    d->times.halo_bytes = (double)d->pt.max_halo *
                          (double)cmrs_prec_value_bytes(be->prec);
    d->times.link_bps = bps;
}

#endif

/* The back end over g (owned from here: freed with it, or on failure),
 * whose devices are set: its pinned dot results, the hooks; the exchange
 * warmed and measured (NCCL). */
static cmrs_code create_over(const cmrs_csr *A, gpu_place *g,
                             const int64_t *row0, cmrs_backend **out)
{
    /* Portable: every device's stream copies its dot here. */
    if (cudaSetDevice(home(g)) != cudaSuccess ||
        cudaHostAlloc((void **)&g->dot_h, (size_t)g->prm.ngpus * sizeof(double),
                      cudaHostAllocPortable) != cudaSuccess) {
        int n = g->prm.ngpus;
        place_free(g);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %d pinned dot results", n);
    }
    cmrs_dist_params dp = {.nparts = g->prm.ngpus, .method = g->prm.method,
                           .rank = g->rank, .nranks = g->nranks,
                           .sort_rows = 1, .inner_create = inner_create,
#ifdef CMRS_HAVE_NCCL
                           .exchange_create = exchange_create,
                           .cg_loop = cg_loop,
#endif
                           .enter = enter, .dots = dots, .user = g,
                           .user_free = place_free};
#if defined(CMRS_HAVE_MPI) && defined(CMRS_HAVE_NCCL)
    if (row0) {
        dp.rows_halo = rows_halo;
        dp.row0 = *row0;
    }
#else
    (void)row0;
#endif
    CMRS_CHECK(cmrs_backend_dist_create(A, &dp, out));
#ifdef CMRS_HAVE_NCCL
    /* CMRS_DIST_NO_WARMUP leaves the probe out too: its exchanges would
     * warm NCCL as well, and that variable measures a cold first solve */
    if (!dist_warm_up_wanted()) return CMRS_OK;
    double t0 = cmrs_wtime();
    cmrs_code rc = warm_exchange(g, *out);
    if (rc != CMRS_OK) {
        cmrs_backend_destroy(*out);
        *out = NULL;
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    probe_exchange(*out);
    DIST(*out)->times.warm = cmrs_wtime() - t0;
#endif
    return CMRS_OK;
}

cmrs_code cmrs_backend_dist_gpu_create(const cmrs_csr *A,
                                       const cmrs_dist_gpu_params *prm,
                                       cmrs_backend **out)
{
    *out = NULL;
    char what[32];
    int count = 0;
    snprintf(what, sizeof what, "--gpus %d", prm->ngpus);
    CMRS_ENSURE(prm->ngpus >= 2 && prm->ngpus <= CMRS_MAX_PARTS,
                CMRS_E_USAGE, "--gpus %d: 2 to %d for a distributed solve",
                prm->ngpus, CMRS_MAX_PARTS);
    CMRS_CHECK(check_machine(what, &count));
    CMRS_ENSURE(prm->device0 >= 0 && prm->device0 + prm->ngpus <= count,
                CMRS_E_NODEVICE, "--gpus %d from GPU %d: this machine has "
                "%d GPU%s", prm->ngpus, prm->device0, count,
                count == 1 ? "" : "s");
    gpu_place *g = calloc(1, sizeof *g);
    CMRS_ENSURE(g, CMRS_E_NOMEM, "cannot allocate the GPUs' placement");
    g->prm = *prm;
    for (int p = 0; p < prm->ngpus; ++p) g->devices[p] = prm->device0 + p;
#ifdef CMRS_HAVE_NCCL
    cmrs_code rc = cmrs_nccl_comms_start_all(&g->comms, prm->ngpus,
                                             g->devices);
    if (rc != CMRS_OK) {
        place_free(g);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
#endif
    return create_over(A, g, NULL, out);
}

#if defined(CMRS_HAVE_MPI) && defined(CMRS_HAVE_NCCL)
/* This rank's GPU: its rank among the ranks of its node, from device0,
 * modulo the node's GPUs (ranks beyond them share). */
static cmrs_code rank_device(MPI_Comm comm, int device0, int count,
                             int *device)
{
    MPI_Comm node;
    int local = 0;
    CMRS_ENSURE(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                    MPI_INFO_NULL, &node) == MPI_SUCCESS,
                CMRS_E_IO, "mpirun: cannot find this rank's node");
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    *device = (device0 + local) % count;
    return CMRS_OK;
}

cmrs_code cmrs_backend_dist_mpi_gpu_create(const cmrs_csr *A,
                                           const cmrs_dist_gpu_params *prm,
                                           const int64_t *comm_f,
                                           const int64_t *row0,
                                           cmrs_backend **out)
{
    MPI_Comm comm;
    int rank = 0, size = 1, count = 0, device = 0;
    *out = NULL;
    CMRS_CHECK(cmrs_dist_mpi_comm(comm_f, &comm));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CMRS_ENSURE(size <= CMRS_MAX_PARTS, CMRS_E_USAGE, "mpirun -np %d: at "
                "most %d parts", size, CMRS_MAX_PARTS);
    CMRS_CHECK(check_machine("mpirun", &count));
    CMRS_ENSURE(prm->device0 >= 0 && prm->device0 < count, CMRS_E_NODEVICE,
                "mpirun from GPU %d: this machine has %d GPU%s",
                prm->device0, count, count == 1 ? "" : "s");
    CMRS_CHECK(rank_device(comm, prm->device0, count, &device));
    gpu_place *g = calloc(1, sizeof *g);
    CMRS_ENSURE(g, CMRS_E_NOMEM, "cannot allocate the GPU's placement");
    g->prm = *prm;
    g->prm.ngpus = size;
    g->rank = rank;
    g->nranks = size;
    g->comm = comm;
    g->devices[rank] = device;
    cmrs_code rc = cmrs_nccl_comms_start_rank(&g->comms, comm, rank, size,
                                              device);
    if (rc != CMRS_OK) {
        place_free(g);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return create_over(A, g, row0, out);
}
#else
cmrs_code cmrs_backend_dist_mpi_gpu_create(const cmrs_csr *A,
                                           const cmrs_dist_gpu_params *prm,
                                           const int64_t *comm_f,
                                           const int64_t *row0,
                                           cmrs_backend **out)
{
    (void)A, (void)prm, (void)comm_f, (void)row0;
    *out = NULL;
    CMRS_FAIL(CMRS_E_USAGE, "mpirun with GPUs: this build has no %s (a GPU "
              "per rank needs MPI and NCCL); run the ranks on the CPU "
              "(--device cpu) or one process over the GPUs (--gpus N)",
#ifdef CMRS_HAVE_MPI
              "NCCL"
#else
              "MPI"
#endif
    );
}
#endif
