/* NCCL's communicators made in a helper thread while the distributed
 * back end's setup (partition, halo lists, the parts' back ends) runs on
 * the caller's: made after them, ncclCommInitAll took 0.5-0.7 s of every
 * 2-GPU setup (docs/DISTRIBUTED.md). Internal to dist/, GPU builds with
 * NCCL only. */
#ifndef CMRS_DIST_NCCL_COMMS_H
#define CMRS_DIST_NCCL_COMMS_H

#include <nccl.h>

#include "base/status.h"
#include "base/thread.h"

/* A failed NCCL call as a status: CMRS_E_GPU, what failed, NCCL's
 * words. */
static inline cmrs_code cmrs_nccl_error(ncclResult_t r, const char *what,
                                        const char *file, int line)
{
    return cmrs_error_set(CMRS_E_GPU, file, line, "%s: NCCL error %d (%s)",
                          what, (int)r, ncclGetErrorString(r));
}

#define CMRS_NCCL(expr)                                                     \
    do {                                                                    \
        ncclResult_t r_ = (expr);                                           \
        if (r_ != ncclSuccess)                                              \
            return cmrs_nccl_error(r_, #expr, __FILE__, __LINE__);          \
    } while (0)

typedef struct cmrs_nccl_comms {
    ncclComm_t *comm;     /* nparts, the parts' (NULL where not here) */
    int nparts;
    int *devices;         /* InitAll: nparts devices (a copy) */
    int rank, device;     /* InitRank: this rank's part and GPU; rank -1:
                             every part here (InitAll) */
    ncclUniqueId id;      /* InitRank: rank 0's */
    cmrs_thread_job t;    /* the helper (t.started: join it) */
} cmrs_nccl_comms;

/* Starts ncclCommInitAll(nparts, devices): part p on devices[p]. */
cmrs_code cmrs_nccl_comms_start_all(cmrs_nccl_comms *c, int nparts,
                                    const int *devices);
#ifdef CMRS_HAVE_MPI
#include <mpi.h>
/* Every rank of comm calls it: rank 0's unique id (and whether it could
 * make it) broadcast here, on the caller's thread (MPI may allow no
 * other), then ncclCommInitRank(size, id, rank) on `device` in the
 * helper thread. */
cmrs_code cmrs_nccl_comms_start_rank(cmrs_nccl_comms *c, MPI_Comm comm,
                                     int rank, int size, int device);
#endif
/* Waits for the thread; *comm = the communicators (the caller owns the
 * array and them from here), or the thread's failure re-raised here. */
cmrs_code cmrs_nccl_comms_take(cmrs_nccl_comms *c, ncclComm_t **comm);
/* Destroys the communicators comm[0..n) that exist, and the array. */
void cmrs_nccl_comms_destroy(ncclComm_t *comm, int n);
/* Joins a running thread, destroys what was not taken. NULL-safe. */
void cmrs_nccl_comms_free(cmrs_nccl_comms *c);

#endif
