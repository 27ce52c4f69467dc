/* The two collective operations of the distributed solver, as tables of
 * functions (docs/DISTRIBUTED.md "Where NCCL and MPI plug in"):
 *
 *   halo exchange   post(p, x_p): part p packs x_p[send_idx] for every
 *                   send neighbour and starts the sends;
 *                   wait(p, x_p): part p's ghost tail x_p[n_own ..] holds
 *                   the owners' values when it returns.
 *                   The back end calls post for every part, then wait for
 *                   every part (so an implementation may pair sends and
 *                   receives in one group: ncclGroupStart/End, MPI_Waitall).
 *   all-reduce      sum(partial, out): out[c] = partial[0][c] + ... +
 *                   partial[P-1][c], in part order (deterministic).
 *
 * x_p is an inner back end's array (backend.h kit): host memory for the
 * CPU back end, device memory for the GPU one. Only the host version is
 * built (exchange_host.c: memcpy between simulated parts in one process);
 * NCCL (ncclSend/ncclRecv in a group, ncclAllReduce) and MPI
 * (MPI_Isend/Irecv, MPI_Allreduce) implement the same table. */
#ifndef CMRS_DIST_EXCHANGE_H
#define CMRS_DIST_EXCHANGE_H

#include "halo.h"

/* Most scalars one all-reduce carries (BiCGStab fuses none today: 1). */
#define CMRS_ALLREDUCE_MAX 4

typedef struct cmrs_exchange cmrs_exchange;

typedef struct cmrs_exchange_ops {
    const char *name; /* "host"; later "nccl", "mpi" */
    cmrs_code (*post)(cmrs_exchange *ex, int p, const void *x_p);
    cmrs_code (*wait)(cmrs_exchange *ex, int p, void *x_p);
    /* partial[p * count + c] for p < nparts, c < count. */
    cmrs_code (*sum)(cmrs_exchange *ex, const double *partial, int count,
                     double *out);
    void (*destroy)(cmrs_exchange *ex); /* NULL-safe */
} cmrs_exchange_ops;

struct cmrs_exchange {
    const cmrs_exchange_ops *ops;
    const cmrs_halo *halo; /* borrowed: the lists */
    void *impl;
};

/* Simulated parts in one process, arrays in host memory: post packs into
 * per-part send buffers (allocated here), wait copies them into the ghost
 * tails; sum adds on the host. */
cmrs_code cmrs_exchange_host_create(const cmrs_halo *h, cmrs_exchange **out);
void cmrs_exchange_destroy(cmrs_exchange *ex); /* NULL-safe */

#endif
