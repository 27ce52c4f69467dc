/* What dist_fused.c (the setup, the one-thread loop) and
 * dist_fused_threads.c (a thread per part) share. Internal to dist/. */
#ifndef CMRS_DIST_DIST_FUSED_IMPL_H
#define CMRS_DIST_DIST_FUSED_IMPL_H

#include "solver/engine/dev_args.h"
#include "dist_fused.h"
#include "dist/dist_impl.h"

#define GLOB_SUMS 3            /* p'q, r'z, r'r: glob_d's entries */
#define GLOB_PQ 0              /* where p'q is */
#define GLOB_RZ 1              /* where r'z and r'r start */

struct cmrs_dist_fused {
    int nparts;
    int first;           /* the first part in this process: its status
                            and history are read (every part's are the
                            same) */
    cmrs_dev_args *arg;  /* per part: st_d, partials_d, glob_d owned here
                            (history_d: the part's back end's) */
    int *device;         /* per part: its CUDA device (-1: none yet) */
    double **glob;       /* per part: its glob_d, for allreduce_d */
    void **z;            /* per part: z, whose halo goes with the r'z sum */
    int merged;          /* z's halo with the r'z sum, p's ghosts by xp
                            (the exchange's post_allreduce_d; not where
                            CMRS_DIST_MERGED_HALO=0) */
    cmrs_dstate *st_h;   /* pinned, nparts + 1: [nparts] the initial
                            state and the one-thread loop's status reads;
                            [p] part p's own thread's (threads.c) */
};

/* The parts in this process (a part per MPI rank: one; else all), as
 * make found them. */
#define FOR_HERE(f, p)                                                      \
    for (int p = 0; p < (f)->nparts; ++p)                                   \
        if ((f)->device[p] >= 0)

/* One iteration of part p (its device current); halo_p: p's ghosts by a
 * halo (else xp formed them). The one-thread loop's steps, for a thread
 * of p's own (the exchange's part_group_d). */
cmrs_code dist_fused_iterate_part(cmrs_dist_fused *f, const dist_impl *d,
                                  int p, int halo_p);
/* Part p's k, done, reason and rnorm into *st (its stream waited for). */
cmrs_code dist_fused_read_status(cmrs_dist_fused *f, int p, cmrs_dstate *st);
/* Blocks of iterations until the status says done (every part and rank
 * says so at the same block: the same sums; the device stops at maxiter
 * itself, the host bound only catches a state that never stops): p < 0,
 * this thread queues every part's steps and reads the first part's
 * status; p >= 0, part p alone from its own thread (its device current),
 * which before each block stops where *failed (NULL: never) says another
 * part's loop failed, *follows then 1. */
cmrs_code dist_fused_blocks(cmrs_dist_fused *f, const dist_impl *d,
                            const cmrs_cg_loop_io *io, int p,
                            _Atomic int *failed, int *follows);
/* The solve's iterations with a thread per part of this process, where
 * that is how they run (dist_fused_threads.c: Jacobi or none, two parts
 * or more here, an exchange with part_group_d, every thread started;
 * not where CMRS_DIST_THREADS=0): *ran 1, the first part's status in
 * st_h[nparts]; else *ran 0 and nothing done. */
cmrs_code dist_fused_run_threads(cmrs_dist_fused *f, const dist_impl *d,
                                 const cmrs_cg_loop_io *io, int *ran);

#endif
