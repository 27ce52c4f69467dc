/* dist/nccl_comms.h. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#ifdef CMRS_HAVE_NCCL
#include <stdlib.h>
#include <string.h>

#include "base/gpu/cuda_check.h"
#include "base/thread.h"
#include "nccl_comms.h"

/* The communicators (on failure their handles are not to be trusted:
 * zeroed). */
static cmrs_code make_comms(cmrs_nccl_comms *c)
{
    if (c->rank < 0) {
        ncclResult_t r = ncclCommInitAll(c->comm, c->nparts, c->devices);
        if (r == ncclSuccess) return CMRS_OK;
        memset(c->comm, 0, (size_t)c->nparts * sizeof *c->comm);
        return cmrs_nccl_error(r, "ncclCommInitAll", __FILE__, __LINE__);
    }
    CMRS_CUDA(cudaSetDevice(c->device));
    CMRS_NCCL(ncclCommInitRank(&c->comm[c->rank], c->nparts, c->id,
                               c->rank));
    return CMRS_OK;
}

static void *make(void *arg)
{
    cmrs_nccl_comms *c = arg;
    cmrs_thread_job_end(&c->t, make_comms(c));
    return NULL;
}

/* The array, then the thread (or the work here if none can start). */
static cmrs_code start(cmrs_nccl_comms *c, int nparts)
{
    c->nparts = nparts;
    c->comm = calloc((size_t)nparts, sizeof *c->comm);
    CMRS_ENSURE(c->comm, CMRS_E_NOMEM, "cannot allocate %d NCCL "
                "communicators", nparts);
    c->t.started = cmrs_thread_start(&c->t.thread, make, c);
    if (!c->t.started) make(c);
    return CMRS_OK;
}

cmrs_code cmrs_nccl_comms_start_all(cmrs_nccl_comms *c, int nparts,
                                    const int *devices)
{
    memset(c, 0, sizeof *c);
    c->rank = -1;
    c->devices = malloc((size_t)nparts * sizeof *c->devices);
    CMRS_ENSURE(c->devices, CMRS_E_NOMEM, "cannot allocate %d devices",
                nparts);
    memcpy(c->devices, devices, (size_t)nparts * sizeof *devices);
    return start(c, nparts);
}

#ifdef CMRS_HAVE_MPI
cmrs_code cmrs_nccl_comms_start_rank(cmrs_nccl_comms *c, MPI_Comm comm,
                                     int rank, int size, int device)
{
    struct { ncclUniqueId id; int ok; } msg;
    memset(c, 0, sizeof *c);
    memset(&msg, 0, sizeof msg);
    /* Between processes NCCL's default P2P transport maps its buffers with
     * cuMem; the CUDA IPC one is faster for our small, frequent messages:
     * vessel 5M, 2 H100 ranks, 0.282 -> 0.201 ms per iteration (one
     * process over both: 0.212; docs/DISTRIBUTED.md). Before NCCL's first
     * call, which reads it; a user's own setting is kept. */
    setenv("NCCL_CUMEM_ENABLE", "0", 0);
    c->rank = rank;
    c->device = device;
    if (rank == 0) msg.ok = ncclGetUniqueId(&msg.id) == ncclSuccess;
    CMRS_ENSURE(MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, comm) ==
                    MPI_SUCCESS, CMRS_E_IO, "cannot broadcast NCCL's id "
                "over MPI");
    CMRS_ENSURE(msg.ok, CMRS_E_GPU, "rank 0 could not make NCCL's unique "
                "id");
    c->id = msg.id;
    return start(c, size);
}
#endif

static void join(cmrs_nccl_comms *c)
{
    if (c->t.started) pthread_join(c->t.thread, NULL);
    c->t.started = 0;
}

cmrs_code cmrs_nccl_comms_take(cmrs_nccl_comms *c, ncclComm_t **comm)
{
    *comm = NULL;
    join(c);
    CMRS_CHECK(cmrs_thread_job_raise(&c->t));
    *comm = c->comm;
    c->comm = NULL;
    return CMRS_OK;
}

void cmrs_nccl_comms_destroy(ncclComm_t *comm, int n)
{
    for (int p = 0; comm && p < n; ++p)
        if (comm[p]) (void)ncclCommDestroy(comm[p]);
    free(comm);
}

void cmrs_nccl_comms_free(cmrs_nccl_comms *c)
{
    if (!c) return;
    join(c);
    cmrs_nccl_comms_destroy(c->comm, c->nparts);
    free(c->devices);
    c->comm = NULL;
    c->devices = NULL;
}
#else
typedef int cmrs_no_nccl; /* ISO C: a translation unit declares something */
#endif
