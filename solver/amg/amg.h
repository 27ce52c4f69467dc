/* Internal to the AMG preconditioner (amg.c setup, amg_cycle.c the
 * V-cycle, amg_dense.c the coarsest level's inverse). */
#ifndef CMRS_SOLVER_AMG_H
#define CMRS_SOLVER_AMG_H

#include "solver/amg/amg_builder.h"
#include "solver/pc/precond.h"

typedef struct amg_level {
    int64_t n;
    cmrs_lmat Am;        /* levels >= 1: the Galerkin operator, where the
                            builder formed it (amg_builder.h) */
    int32_t *agg;        /* aggregates of this level (to the next), kept
                            so new values need no new aggregation */
    void *agg_dev;       /* the builder's device copy of them (NULL: none);
                            with one, agg is written only when a host step
                            reads it (agg_on_host) */
    int agg_on_host;
    int64_t naggs;
    cmrs_lmat Pm, Rm;    /* to the next level; R = P^T */
    cmrs_op *A;          /* NULL on level 0: the back end's own A */
    cmrs_op *P, *R;      /* NULL on the coarsest level */
    cmrs_op *Cinv;       /* coarsest: dense inverse (NULL: smoothing) */
    void *dinv;          /* the smoother's scaled D^-1 of A (w D^-1 or
                            D^-1 / rho: cmrs_amg_smoother_scale); plain
                            D^-1 only between its rewrite and rho */
    void *b, *x;         /* levels >= 1: right side and correction */
    void *r, *d;         /* residual, Chebyshev direction */
    double rho;          /* rho(D^-1 A) estimate */
    void *sa;            /* amg full re-setup: the back end's kept plan
                            for P, R, A_c (amg_builder.h sa_again), or
                            NULL */
    int sa_off;          /* the back end made no plan: not tried again
                            until the level is formed from scratch */
} amg_level;

typedef struct amg_impl {
    const cmrs_amg_builder_ops *b;      /* the back end's, taken at setup */
    const cmrs_amg_agg_method *agg;     /* pc->o.amg.agg's, looked up once */
    int nlev;
    cmrs_lmat A0;        /* level 0: the caller's A, borrowed (not freed) */
    double nnz_sum;      /* setup: nonzeros of the levels so far (the
                            operator-complexity guard) */
    amg_level lev[CMRS_AMG_MAX_LEVELS];
    void *pw;            /* a third work array of level 0's n for its
                            power steps (made at setup, so an update
                            allocates nothing for them) */
    int fine_kept;       /* A0.dev kept between updates: level 0's
                            re-setup plan reads it (amg.c fine_release) */
    double *fresh_h;     /* A0.nnz values read back from the back end
                            for host steps after a device-values update
                            (fine_fresh); NULL: none */
    int fine_stale;      /* A0.h holds older values than the back end's
                            (a device-values update): read back before a
                            host step uses it (amg.c fine_fresh) */
} amg_impl;

/* z = V(r): one V-cycle from level 0 (amg_cycle.c). */
cmrs_code cmrs_amg_vcycle(cmrs_precond *pc, int level, const void *b,
                          void *x);

/* L->dinv (D^-1, rho just estimated from it) scaled in place for the
 * smoother (amg_cycle.c). */
cmrs_code cmrs_amg_smoother_scale(cmrs_precond *pc, amg_level *L);
/* The builder's device copy of L's aggregates freed (none left). */
void cmrs_amg_level_agg_dev_free(cmrs_backend *be,
                                 const cmrs_amg_builder_ops *b, amg_level *L);

/* The bytes one V-cycle from `level` down must move (amg_bytes.c). */
double cmrs_amg_cycle_bytes(const cmrs_precond *pc, int level);

/* inv = A^-1 (dense, row-major n x n) of the SPD n x n CSR A by
 * Cholesky; returns 0, or -1 when A is not (numerically) SPD. */
int cmrs_amg_dense_inverse(const cmrs_csr *A, double *inv);

/* The dense inverse as a CSR matrix with every entry stored. */
cmrs_code cmrs_amg_dense_csr(int64_t n, const double *inv, cmrs_csr *M);

#endif
