/* Internal to dist/: the distributed back end's state, shared by its ops
 * (backend_dist.c) and its setup (backend_dist_setup.c). */
#ifndef CMRS_DIST_IMPL_H
#define CMRS_DIST_IMPL_H

#include <stdlib.h>
#include <string.h>

#include "dist.h"

typedef struct dist_impl {
    cmrs_partition pt;
    cmrs_halo halo;
    cmrs_exchange *ex;
    cmrs_backend **inner;  /* nparts */
    double *partial;       /* nparts * CMRS_ALLREDUCE_MAX partial sums */
    double *stage;         /* max local length: scatter/gather staging */
    double *history;       /* residual norms (resnorm) */
    int64_t history_cap;
    void (*enter)(void *user, int p); /* cmrs_dist_params' */
    cmrs_code (*dots)(void *user, const cmrs_halo *h,
                      const cmrs_dist_arr *x, const cmrs_dist_arr *y,
                      double *partial);
    cmrs_code (*cg_loop)(void *user, cmrs_backend *be,
                         cmrs_cg_loop_io *io); /* NULL: none */
    void *user;
    void (*user_free)(void *user);
    cmrs_dist_setup_times times;
    int rank, nranks;      /* part p lives here iff p % nranks == rank */
    int sort_rows;         /* cmrs_dist_params' (a sibling sorts alike) */
    /* A sibling (cmrs_dist_sibling_create): its inner back ends, enter,
     * dots and user are another back end's (borrowed, not freed), and
     * part p's matrix is local_op[p] on inner[p]; NULL otherwise (each
     * inner back end's own A). */
    cmrs_op **local_op;
    int borrowed;
} dist_impl;

#define DIST(be) ((dist_impl *)(be)->impl)

/* Whether part p lives in this process (one part per rank under MPI;
 * every part otherwise). */
static inline int dist_mine(const dist_impl *d, int p)
{
    return cmrs_part_is_local(p, d->rank, d->nranks);
}
#define FOR_MY_PARTS(d, p)                                                  \
    for (int p = 0; p < (d)->pt.nparts; ++p)                                \
        if (dist_mine(d, p))

static inline int dist_first_mine(const dist_impl *d)
{
    int p = 0;
    while (p + 1 < d->pt.nparts && !dist_mine(d, p)) ++p;
    return p;
}

/* Part p's inner back end, its device made current first (enter). */
static inline cmrs_backend *dist_inner(const dist_impl *d, int p)
{
    if (d->enter) d->enter(d->user, p);
    return d->inner[p];
}

/* Whether the setup warms the exchange and the AMG's first cycle (NCCL
 * connects at first use): unless CMRS_DIST_NO_WARMUP is set and not "0"
 * (to measure what the warm-up moves out of the first solve). */
static inline int dist_warm_up_wanted(void)
{
    const char *env = getenv("CMRS_DIST_NO_WARMUP");
    return !env || strcmp(env, "0") == 0;
}

/* After the parts' calls: the caller's device current again. */
static inline void dist_home(const dist_impl *d)
{
    if (d->enter) d->enter(d->user, -1);
}

/* Part p's local length (owned + ghosts). */
static inline int64_t dist_local_len(const dist_impl *d, int p)
{
    return d->halo.part[p].n_own + d->halo.part[p].n_ghost;
}

/* *all = whether `yes` holds in every process of the parts: a host sum
 * of each local part's miss (another process's parts add 0 here; in
 * d->partial). A collective: every process calls it, for decisions every
 * part must take alike (one rank alone probing, or sending another halo,
 * would leave the others waiting or pair the wrong messages). */
cmrs_code cmrs_dist_all_agree(const dist_impl *d, int yes, int *all);

/* fn(ctx, p) for every part of this process, each in a thread of its
 * own with its device current (d->enter), so that GPU parts work at the
 * same time (a thread that cannot start: its part in this one); errors
 * are thread-local, so the first failure is raised here, in part order
 * (backend_dist_setup.c). */
cmrs_code cmrs_dist_each_part(const dist_impl *d,
                              cmrs_code (*fn)(void *ctx, int p), void *ctx);

/* The ops; _loop_ops adds cg_loop (a placement with a cg_loop hook). */
extern const cmrs_backend_ops cmrs_dist_ops;
extern const cmrs_backend_ops cmrs_dist_loop_ops;
static inline int dist_is(const cmrs_backend *be)
{
    return be && (be->ops == &cmrs_dist_ops || be->ops == &cmrs_dist_loop_ops);
}
/* The ops table's pc_create (pc/pc_block.c): amg over all rows
 * (pc/pc_global.c) or as a hierarchy per part. */
cmrs_code cmrs_dist_pc_create(cmrs_backend *be, const cmrs_csr *A, int kind,
                              const struct cmrs_pc_opts *o, const char *what,
                              struct cmrs_precond **out, int *done);
/* amg-parts global (pc_global.c): whether it applies to A on be with o
 * (the whole A here, double precision, not mixed), and the
 * preconditioner (*out NULL: A's hierarchy has one level). */
int cmrs_dist_pc_global_fits(const cmrs_backend *be, const cmrs_csr *A,
                             const struct cmrs_pc_opts *o);
cmrs_code cmrs_dist_pc_global_create(cmrs_backend *be, const cmrs_csr *A,
                                     const struct cmrs_pc_opts *o,
                                     const char *what,
                                     struct cmrs_precond **out);
/* The ops table's destroy (backend_dist_setup.c). */
void cmrs_dist_destroy(cmrs_backend *be);

/* A distributed back end of another square matrix M over be's parts
 * (be a distributed back end; M the same in every process): M's block
 * partition (its rows split by nonzeros) and halo, part p's local matrix
 * an operator of `format` on be's inner back end p (the same device and
 * stream: its work orders with be's), the exchange relisted over M's
 * lists (the same communicators). Destroyed before be; no new values, no
 * cg_loop; the local matrices' host copies are freed once their
 * operators are made. The distributed AMG's level 1 (pc/pc_global.c).
 * M must have at least as many rows as be has parts (every block then
 * has rows). CMRS_E_USAGE where be's exchange cannot relist, or a part's
 * operator its format refuses (this process's parts only: a caller under
 * MPI agrees with the others). */
cmrs_code cmrs_dist_sibling_create(const cmrs_backend *be, const cmrs_csr *M,
                                   const char *format, cmrs_backend **out);

#ifdef CMRS_HAVE_MPI
#include <mpi.h>
/* The communicator of a Fortran handle (NULL: MPI_COMM_WORLD);
 * CMRS_E_USAGE where MPI is not initialised or the handle is
 * MPI_COMM_NULL. */
cmrs_code cmrs_dist_mpi_comm(const int64_t *comm_f, MPI_Comm *comm);
#endif

#endif
