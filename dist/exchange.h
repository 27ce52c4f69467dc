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
 * CPU back end, device memory for the GPU one. Built: the host exchange
 * (exchange_host.c: memcpy between simulated parts in one process) and
 * NCCL between GPUs of one process (exchange_nccl.c: ncclSend/ncclRecv in
 * a group). MPI (MPI_Isend/Irecv, MPI_Allreduce) would implement the
 * same table. */
#ifndef CMRS_DIST_EXCHANGE_H
#define CMRS_DIST_EXCHANGE_H

#include "solver/backend/backend.h"
#include "halo.h"

/* Most scalars one all-reduce carries (BiCGStab fuses none today: 1). */
#define CMRS_ALLREDUCE_MAX 4

typedef struct cmrs_exchange cmrs_exchange;

typedef struct cmrs_exchange_ops {
    const char *name; /* "host", "nccl" */
    cmrs_code (*post)(cmrs_exchange *ex, int p, const void *x_p);
    cmrs_code (*wait)(cmrs_exchange *ex, int p, void *x_p);
    /* partial[p * count + c] for p < nparts, c < count. */
    cmrs_code (*sum)(cmrs_exchange *ex, const double *partial, int count,
                     double *out);
    void (*destroy)(cmrs_exchange *ex); /* NULL-safe */
    /* Optional (NULL: every part is in this process): h[i] of the rows
     * other processes own, into h of n values where this process has
     * filled its own rows and left the others 0 (MPI). */
    cmrs_code (*gather)(cmrs_exchange *ex, double *h, int64_t n);
    /* Optional: h of n values, this process's parts' sum, replaced by
     * the sum over all processes (the MPI exchange; the AMG's coarse
     * right side where there is no allreduce_d, pc/pc_global.c). NULL:
     * every part is in this process, or allreduce_d serves (NCCL). */
    cmrs_code (*sum_vec)(cmrs_exchange *ex, double *h, int64_t n);
    /* Optional (NULL: the sums go through the host): buf_d[p][first ..
     * first + count) of every part of this process, device doubles,
     * replaced in place by their sum over all parts, queued on each
     * part's stream (nothing waits on the host); every part gets the same
     * bits. The fused distributed CG's reductions (dist_fused.c). */
    cmrs_code (*allreduce_d)(cmrs_exchange *ex, double *const *buf_d,
                             int first, int count);
    /* Optional (NULL: the fused CG sends p's halo before every SpMV
     * instead, z's none): the halo of x[p]
     * (post's, every part of this process at once; x[p] NULL for another
     * process's part) and allreduce_d's sum in one group, so the parts
     * meet once for both. The fused CG's halo of z beside its r'z sum
     * (dist_fused.c). */
    cmrs_code (*post_allreduce_d)(cmrs_exchange *ex, void *const *x,
                                  double *const *buf_d, int first, int count);
    /* Optional (NULL: one thread drives every part): part p alone, from
     * a thread of its own with p's device current, as an MPI rank would:
     * the halo of x_p (NULL: none) and, where buf_d (p's own), the sum
     * of buf_d[first .. first + count) over the parts, in one group on
     * p's stream. Every part's thread makes the same calls in the same
     * order. The fused CG with a thread per GPU (dist_fused_threads.c). */
    cmrs_code (*part_group_d)(cmrs_exchange *ex, int p, const void *x_p,
                              double *buf_d, int first, int count);
    /* Optional (NULL: through allreduce_d or the host): device doubles as
     * above, a vector of start[P] entries whose part q owns the slice
     * [start[q], start[q + 1]), queued on each part's stream.
     * reduce_slices_d: part q's slice of buf_d[q] becomes the sum over
     * the parts of their buf_d[p]'s slice q (the rest of buf_d undefined
     * after); allgather_slices_d: every part's buf_d[p] gets slice q from
     * part q's buf_d[q], for every q. Half the bytes of an all-reduce
     * each (the distributed AMG's level 1: pc/pc_global.c). */
    cmrs_code (*reduce_slices_d)(cmrs_exchange *ex, double *const *buf_d,
                                 const int64_t *start);
    cmrs_code (*allgather_slices_d)(cmrs_exchange *ex,
                                    double *const *buf_d,
                                    const int64_t *start);
    /* An exchange of the same kind over other lists h of the same parts:
     * the same processes, devices, streams and communicators, shared,
     * not owned (it is destroyed before ex). A second matrix on the
     * parts: the distributed AMG's level 1 (cmrs_dist_sibling_create). */
    cmrs_code (*relist)(const cmrs_exchange *ex, const cmrs_halo *h,
                        cmrs_exchange **out);
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
/* The host all-reduce (the sum op of the host and single-process NCCL
 * exchanges): out[c] = sum over parts in part order. */
cmrs_code cmrs_exchange_sum_host(cmrs_exchange *ex, const double *partial,
                                 int count, double *out);

#ifdef CMRS_HAVE_MPI
#include <mpi.h>
/* One part per rank of comm (part p on rank p), host arrays:
 * post packs the sends and starts MPI_Isend/MPI_Irecv (the receives land
 * in the ghost tail), wait is MPI_Waitall; sum is an MPI_Allreduce of the
 * partials (each rank's own, zeros elsewhere: exact) added in part order
 * on every rank, so the sums are the host exchange's bit for bit; gather
 * fills the other ranks' rows the same way. */
cmrs_code cmrs_exchange_mpi_create(const cmrs_halo *h, MPI_Comm comm,
                                   int rank, cmrs_exchange **out);
#endif

#ifdef CMRS_HAVE_NCCL
#include <nccl.h>
/* Parts on GPUs of this process, part p on devices[p] (distinct) with
 * the stream of its inner GPU back end and NCCL rank p of comm (nparts
 * communicators made by the caller, ncclCommInitAll; the array and the
 * communicators are the exchange's from here, also when this fails):
 * post packs part p's sends on its stream; the last part's post issues
 * every part's ncclSend/ncclRecv in one group on the parts' streams (the
 * SpMV queued after it on the same stream reads the ghosts when they are
 * there: wait has nothing to do); sum adds on the host. Values of the
 * parts' precision (inner[0]'s). */
cmrs_code cmrs_exchange_nccl_create(const cmrs_halo *h, const int *devices,
                                    cmrs_backend *const *inner,
                                    ncclComm_t *comm, cmrs_exchange **out);
#ifdef CMRS_HAVE_MPI
/* A part per rank of comm (part `rank` here, on `device`, inner[rank] its
 * GPU back end; every rank calls it), nccl[rank] its communicator (made
 * by the caller with ncclCommInitRank, NCCL rank = MPI rank; the array,
 * nparts long, taken as above); the host sums and the gather of other
 * ranks' rows go through an MPI exchange over comm (as
 * cmrs_exchange_mpi_create's). */
cmrs_code cmrs_exchange_nccl_mpi_create(const cmrs_halo *h, int device,
                                        cmrs_backend *const *inner,
                                        MPI_Comm comm, int rank,
                                        ncclComm_t *nccl, cmrs_exchange **out);
#endif
#endif

#endif
