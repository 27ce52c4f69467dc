/* A V-cycle split after a level, for a caller that runs the levels above
 * the split on another back end (the distributed AMG, dist/pc/pc_global.c:
 * level 0, and where it is large level 1, on the parts with halos, the
 * rest a whole hierarchy on each part's device). The caller builds an AMG
 * preconditioner over the whole A (cmrs_precond_create, kind amg,
 * o.fine_own_op 1), then for a split after level 0:
 *   - smooths level 0 itself with cmrs_amg_smooth and the scale
 *     cmrs_amg_smoother_factor(o, cmrs_amg_split_rho(pc, 0)) on its D^-1;
 *   - restricts its residual by its rows of P0 (cmrs_amg_split_p) into
 *     cmrs_amg_split_b(pc, 1), runs cmrs_amg_split_cycle(pc, 1) (x1 = the
 *     V-cycle from level 1) and prolongs cmrs_amg_split_x(pc, 1) back.
 * That is the one-device V-cycle (amg_cycle.c) step for step; a split
 * after level 1 runs level 1 the same way (A1 from cmrs_amg_split_a) and
 * cycles from level 2. */
#ifndef CMRS_SOLVER_AMG_SPLIT_H
#define CMRS_SOLVER_AMG_SPLIT_H

#include "solver/pc/precond.h"

/* A level's smoother inputs on any back end: its operator (NULL: the
 * back end's own A), rows, the scaled D^-1 and two work arrays of n. */
typedef struct cmrs_amg_fine {
    cmrs_backend *be;
    const cmrs_op *A;
    int64_t n;
    const void *dinv;
    void *r, *d;
} cmrs_amg_fine;

/* x = S(b, x): `steps` steps of o's smoother (x_zero: x starts at 0). */
cmrs_code cmrs_amg_smooth(const cmrs_pc_opts *o, const cmrs_amg_fine *f,
                          const void *b, void *x, int x_zero, int steps);
/* What D^-1 is scaled by for o's smoother on a level of rho(D^-1 A). */
double cmrs_amg_smoother_factor(const cmrs_pc_opts *o, double rho);

/* 1: pc is an AMG hierarchy (not wrapped in another precision) of two
 * levels or more, so the split applies. */
int cmrs_amg_split_ok(const cmrs_precond *pc);
/* Its levels (>= 2 where it splits). Below, k is a level: 1 .. levels - 1
 * for b, x, the cycle and A; 0 .. levels - 2 for P, rho and drop. */
int cmrs_amg_split_levels(const cmrs_precond *pc);
int64_t cmrs_amg_split_n(const cmrs_precond *pc, int k); /* its rows */
double cmrs_amg_split_rho(const cmrs_precond *pc, int k);
/* Level k's P (rows of level k x rows of level k + 1) and, k >= 1, its
 * A, as host CSRs (downloaded from the builder's device copy where
 * needed; pc's, not to be freed, and gone with cmrs_amg_split_drop). */
cmrs_code cmrs_amg_split_p(cmrs_precond *pc, int k, const cmrs_csr **P);
cmrs_code cmrs_amg_split_a(cmrs_precond *pc, int k, const cmrs_csr **A);
/* Rows r0 .. r1 of level k's P and their transpose as operators *P, *R on
 * pc's back end in `format`, cut and transposed where the builder keeps P
 * (the GPU's device copy: no download of P); *done = 0, nothing made,
 * where it cannot: the caller cuts them from cmrs_amg_split_p. The
 * operators equal those made from the host's rows of P and their
 * cmrs_csr_transpose. */
cmrs_code cmrs_amg_split_p_rows(cmrs_precond *pc, int k, int64_t r0,
                                int64_t r1, const char *format,
                                cmrs_op **P, cmrs_op **R, int *done);
/* Level k's right side and correction, arrays of pc's back end. */
void *cmrs_amg_split_b(const cmrs_precond *pc, int k);
void *cmrs_amg_split_x(const cmrs_precond *pc, int k);
/* x_k = the V-cycle from level k on b_k (queued like an apply). */
cmrs_code cmrs_amg_split_cycle(cmrs_precond *pc, int k);
/* Level k's operators, work arrays, aggregates and host copies freed,
 * its b and x kept (a split cycle from a deeper level never reads the
 * rest; pc is then only cycled from there and destroyed). */
void cmrs_amg_split_drop(cmrs_precond *pc, int k);
/* Level k's host copies of A and P freed where the builder keeps its own
 * (the device's): the copies cmrs_amg_split_a and _p downloaded, for a
 * caller that then keeps level k in the hierarchy. */
void cmrs_amg_split_free_host(cmrs_precond *pc, int k);

#endif
