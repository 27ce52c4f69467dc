/* Internal to dist/: the distributed back end's state, shared by its ops
 * (backend_dist.c) and its setup (backend_dist_setup.c). */
#ifndef CMRS_DIST_IMPL_H
#define CMRS_DIST_IMPL_H

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
} dist_impl;

#define DIST(be) ((dist_impl *)(be)->impl)

/* Part p's local length (owned + ghosts). */
static inline int64_t dist_local_len(const dist_impl *d, int p)
{
    return d->halo.part[p].n_own + d->halo.part[p].n_ghost;
}

extern const cmrs_backend_ops cmrs_dist_ops;
/* The ops table's destroy (backend_dist_setup.c). */
void cmrs_dist_destroy(cmrs_backend *be);

#endif
