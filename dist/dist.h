/* The distributed back end (docs/DISTRIBUTED.md): a cmrs_backend
 * (solver/backend/backend.h) over P parts of A, each part a local matrix (halo.h)
 * on its own inner back end, so that cg.c and bicgstab.c run unchanged:
 *
 *   spmv        halo exchange (exchange.h: post every part, wait every
 *               part), then each part's local SpMV on its inner back end
 *   dot, nrm2   each part's partial dot over its owned rows, summed by the
 *               exchange's all-reduce in part order
 *   vector ops  each part on its owned rows (kit: dxpby)
 *
 * A vector (cmrs_vec.data) or kit array of be->n entries is a
 * cmrs_dist_arr: one inner array per part of n_own + n_ghost values.
 * vec_set/vec_get scatter and gather in the global (file) numbering, so
 * callers never see the partition. The kit supports arrays of be->n
 * entries and the back end's own operator: Jacobi, Chebyshev and none run;
 * the AMG builder's kit (coarse levels, Galerkin products) is not here:
 * AMG is the back end's own preconditioner (pc/: the hierarchy over all
 * rows built on every part's inner back end, or one per part).
 *
 * Inner back ends: the CPU reference with the host exchange (simulated
 * parts in one process, --parts N), or one GPU back end per device with
 * the NCCL exchange (dist_gpu.h, --gpus N). */
#ifndef CMRS_DIST_DIST_H
#define CMRS_DIST_DIST_H

#include "solver/backend/backend.h"
#include "exchange.h"

typedef struct cmrs_dist_arr {
    void *part[1]; /* nparts inner arrays (allocated longer) */
} cmrs_dist_arr;

/* Where the parts run: NULL members mean the CPU reference (double) and
 * the host exchange. dist_gpu.c fills them for --gpus N: a GPU back end
 * per part on its own device and the NCCL exchange. */
typedef struct cmrs_dist_params {
    int nparts;              /* 1 .. min(rows, CMRS_MAX_PARTS) */
    cmrs_part_method method;
    int rank, nranks;        /* nranks > 1: this process of nranks (MPI),
                                each holding the part p with p % nranks ==
                                rank; 0: every part in this process */
    int sort_rows;           /* 1: local rows sorted by column
                                (cmrs_halo_sort_rows) for inner formats */
    /* Part p's inner back end for its local matrix (borrowed: the dist
     * back end keeps it alive). */
    cmrs_code (*inner_create)(void *user, const cmrs_csr *A_local, int p,
                              cmrs_backend **out);
    /* The exchange over the lists, between the parts' inner back ends. */
    cmrs_code (*exchange_create)(void *user, const cmrs_halo *h,
                                 cmrs_backend *const *inner,
                                 cmrs_exchange **out);
    /* Called before any op on part p's inner back end (a GPU part: its
     * device made current), and with p = -1 after the parts' calls (the
     * caller's device back). */
    void (*enter)(void *user, int p);
    /* partial[p] = part p's x'y over its n_own owned entries, for every
     * part (NULL: each inner back end's arr_dot in turn); the GPUs' runs
     * every part's dot at once. */
    cmrs_code (*dots)(void *user, const cmrs_halo *h,
                      const cmrs_dist_arr *x, const cmrs_dist_arr *y,
                      double *partial);
    /* Optional (NULL: CG runs the solver's host loop over the ops): the
     * back end's cg_loop op (backend.h), CG (any preconditioner) on the
     * parts' devices (dist_fused.c for GPU parts with NCCL). */
    cmrs_code (*cg_loop)(void *user, cmrs_backend *be, cmrs_cg_loop_io *io);
    /* Rows mode (NULL: A is the whole matrix): A holds only this rank's
     * rows, from global row row0 (halo_rows.h); the hook builds the
     * partition (a block per rank) and the halo in place of
     * cmrs_partition_build and cmrs_halo_build_for, and vectors are this
     * rank's rows (be->n = A->rows): vec_set reads them, vec_get writes
     * them, nothing is gathered. */
    cmrs_code (*rows_halo)(void *user, const cmrs_csr *A_rows, int64_t row0,
                           cmrs_partition *pt, cmrs_halo *h);
    int64_t row0;
    void *user;               /* given to the hooks; owned by the back end
                                 once created: user_free (NULL: not freed) */
    void (*user_free)(void *user);
} cmrs_dist_params;

/* Partitions A, builds the halo, the inner back ends and the exchange.
 * A is borrowed for update_values' size check only. */
cmrs_code cmrs_backend_dist_create(const cmrs_csr *A,
                                   const cmrs_dist_params *prm,
                                   cmrs_backend **out);
/* Under MPI (initialised by the caller): part p on rank p of the
 * communicator whose Fortran handle is *comm_f (NULL: MPI_COMM_WORLD),
 * each on its CPU reference back end, the MPI exchange. nparts: 0 or the
 * number of ranks. row0 NULL: every rank passes the whole A (each builds
 * the same partition); else A is this rank's rows from global row *row0
 * (rows mode, cmrs_dist_params.rows_halo: blocks of the ranks' rows,
 * method ignored). CMRS_E_USAGE where this build has no MPI, MPI is not
 * initialised, the communicator is null or nparts is not its size. */
cmrs_code cmrs_backend_dist_mpi_create(const cmrs_csr *A, int nparts,
                                       cmrs_part_method method,
                                       const int64_t *comm_f,
                                       const int64_t *row0,
                                       cmrs_backend **out);

/* The partition of a distributed back end (edge cut, halo, imbalance), or
 * NULL for any other back end. */
const cmrs_partition *cmrs_backend_dist_partition(const cmrs_backend *be);

/* Where the distributed back end's creation spent its time (seconds),
 * and, on GPU parts (NCCL), the halo exchange measured at its end: one
 * exchange's time (halo_s: K back to back, the mean), the most bytes one
 * part receives, and the link's speed in the same run (link_bps: the bus
 * bandwidth of a large all-reduce), whose quotient is the exchange's
 * floor; 0 where not measured. */
typedef struct cmrs_dist_setup_times {
    double partition, halo, parts, exchange;
    double warm; /* GPU placements: the exchange warmed and probed */
    double halo_s, halo_bytes, link_bps;
} cmrs_dist_setup_times;
/* Its setup times, or NULL for any other back end. */
const cmrs_dist_setup_times *cmrs_backend_dist_times(const cmrs_backend *be);

#endif
