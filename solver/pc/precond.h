/* Preconditioners as objects, like the SpMV formats: a small interface
 * (setup, apply, new values, destroy) behind a registry of names, written
 * once over the back end's kit (backend.h: arrays, operators, dxpby,
 * galerkin) so each runs on the CPU and the GPU back ends and inside every
 * engine (the GPU apply is queued on the back end's stream, never
 * allocates, never synchronises: capturable in the engines' CUDA graphs).
 *
 *   jacobi     z = D^-1 r (engines may fuse it: see `dinv`)
 *   none       z = r (the loops alias z to r; apply copies)
 *   chebyshev  z = p_k(D^-1 A) D^-1 r, degree k, interval from power steps
 *   amg        one aggregation-AMG V-cycle (amg.h)
 */
#ifndef CMRS_SOLVER_PRECOND_H
#define CMRS_SOLVER_PRECOND_H

#include "solver/amg/amg_host.h"
#include "solver/backend/backend.h"

typedef enum cmrs_pc {
    CMRS_PC_JACOBI = 0, /* z = r / diag(A); needs a positive diagonal */
    CMRS_PC_NONE = 1,   /* z = r (the loops then alias z to r) */
    CMRS_PC_CHEBYSHEV = 2,
    CMRS_PC_AMG = 3
} cmrs_pc;
#define CMRS_PC_COUNT 4

typedef enum cmrs_smoother {
    CMRS_SMOOTH_JACOBI = 0,   /* weighted Jacobi, w = 4 / (3 rho(D^-1 A)) */
    CMRS_SMOOTH_CHEBYSHEV = 1 /* Chebyshev on [0.3 rho, 1.1 rho] */
} cmrs_smoother;

/* What an AMG values-only update redoes (option amg-update). */
typedef enum cmrs_amg_update {
    CMRS_AMG_UPDATE_FULL = 0,  /* P, R, the Galerkin operators, every
                                  level's D^-1 and rho, the coarse inverse */
    CMRS_AMG_UPDATE_FROZEN = 1 /* the fine level's D^-1 and rho only; the
                                  coarse levels, P, R, the coarse inverse
                                  kept (on the GPU from device values with
                                  no host round trip) */
} cmrs_amg_update;

/* AMG on a distributed back end (option amg-parts). */
typedef enum cmrs_amg_parts {
    CMRS_AMG_PARTS_GLOBAL = 0, /* one hierarchy over all rows: level 0 on
                                  the parts, the coarse levels on every
                                  part's device (dist/pc/pc_global.c) */
    CMRS_AMG_PARTS_BLOCK = 1   /* a hierarchy per part from its diagonal
                                  block, no communication (block Jacobi) */
} cmrs_amg_parts;

/* amg-parts-levels auto: level 1 on the parts too from this many rows
 * (2x H100, 2026-11-27: a gain with level 1 of 6.7M rows, vessel 50M;
 * none with 0.67M, vessel 5M). */
#define CMRS_AMG_PARTS_LEVEL1_ROWS ((int64_t)2 << 20)

/* Every preconditioner's parameters; defaults from cmrs_pc_opts_default. */
typedef struct cmrs_pc_opts {
    int cheb_degree;       /* chebyshev: polynomial degree, 1..64 (3) */
    double cheb_ratio;     /* chebyshev: lambda_max / lambda_min of the
                              interval (30) */
    int power_steps;       /* power steps for lambda_max(D^-1 A) (10) */
    cmrs_amg_params amg;   /* amg: the hierarchy (amg_host.h) */
    cmrs_smoother smoother;/* amg: the level smoother (jacobi) */
    int sweeps;            /* amg: pre- and post-smoothing steps (the
                              Chebyshev smoother's degree); 0: by the
                              smoother, cmrs_pc_amg_sweeps */
    char level_format[32]; /* amg, GPU: format of the coarse levels' A, P
                              and R ("auto": cmrs; the fine A is the back
                              end's own) */
    cmrs_amg_update amg_update; /* amg: values-only updates (full) */
    int mixed;             /* amg, chebyshev: 1 to keep it in single
                              precision inside a double loop (pc_mixed.c;
                              --precision mixed; a back end with
                              twin_create: the GPU) */
    cmrs_amg_parts amg_parts; /* amg on parts (global) */
    int amg_parts_levels;  /* amg over all rows on parts: the levels run
                              on the parts, 1 (level 0) or 2 (levels 0
                              and 1); 0: auto, 2 on GPU parts (NCCL)
                              where level 1 has
                              CMRS_AMG_PARTS_LEVEL1_ROWS rows or more */
    int fine_own_op;       /* amg, set by code, not an option: 1 when A is
                              not the back end's matrix but a block of it
                              (a distributed part's owned columns): level
                              0 applies an operator made from A; 0: the
                              back end's own A */
} cmrs_pc_opts;

void cmrs_pc_opts_default(cmrs_pc_opts *o);
/* CMRS_E_USAGE with one line naming the bad option. */
cmrs_code cmrs_pc_opts_check(const cmrs_pc_opts *o);
/* AMG's smoothing steps before and after the coarse correction: o->sweeps,
 * or where it is 0 (the default) one Jacobi sweep or Chebyshev of degree 2.
 * One Jacobi sweep a side needs 20-35% more iterations than two but gave
 * every case a shorter solve phase (4-18%; docs/BENCHMARKS.md, "One
 * smoothing sweep a side"). */
int cmrs_pc_amg_sweeps(const cmrs_pc_opts *o);
/* Smoothing steps on a coarsest level without a dense inverse: 8 per
 * sweep, at least 16 (the count of the two-sweep default before; one
 * sweep's 8 let a 2-level vessel 200k need 108 iterations against 76). */
int cmrs_pc_amg_coarse_steps(const cmrs_pc_opts *o);
/* "jacobi" or "chebyshev": --amg-smoother's words, in the enum's order. */
extern const char *const cmrs_pc_smoother_names[];
const char *cmrs_pc_name(cmrs_pc pc); /* "jacobi", "none", ... */
/* Parses a name; CMRS_E_USAGE naming the known ones. */
cmrs_code cmrs_pc_parse(const char *text, cmrs_pc *pc);

/* What a hierarchy looks like (amg) and what setup cost, for reports. */
#define CMRS_AMG_MAX_LEVELS 32
typedef struct cmrs_pc_level_info {
    int64_t rows, nnz;
    char format[32];      /* format of A on this level; the coarsest:
                             "dense-inverse" or "smoothed" (too large to
                             invert: many smoothing steps) */
    double rho;           /* rho(D^-1 A) estimate */
    double t_apply;       /* seconds per V-cycle spent on this level
                             (cmrs_precond_profile; 0 before) */
    double bytes;         /* the bytes this level's share of a V-cycle
                             must move (its SpMVs and vector passes:
                             values, column indices, vectors; the floor
                             t_apply is set against; with the profile) */
    double t_coarsen;     /* AMG setup, host wall seconds: forming the next
                             level from this one (aggregates, P, R, A_c;
                             the GPU's steps wait for their results); on
                             the coarsest, an aggregation that stopped
                             coarsening, else 0 */
    double t_level;       /* this level's operators, vectors, D^-1, rho
                             and, the coarsest, its inverse */
} cmrs_pc_level_info;

typedef struct cmrs_pc_info {
    int levels;           /* 0 for single-level preconditioners */
    cmrs_pc_level_info level[CMRS_AMG_MAX_LEVELS];
    double op_complexity;   /* sum nnz(A_l) / nnz(A_0) */
    double grid_complexity; /* sum rows(A_l) / rows(A_0) */
    double lmax;            /* chebyshev: the interval's top */
    double t_setup;         /* seconds, whole setup */
    double t_aggregate, t_galerkin, t_upload; /* amg setup phases */
    double t_transfer;      /* amg: P and R (host), apart from aggregation */
    double t_rho, t_coarse; /* amg: parts of t_upload: the power steps of
                               every level, the coarsest level's inverse */
    char stop[96];          /* amg: why coarsening stopped above the
                               coarsest size ("" when it reached it) */
    int parts_levels;       /* amg over all rows on a distributed back end
                               (dist/pc/pc_global.c): the levels run on
                               the parts (0: not there) */
    double copy_bw;         /* amg profile: the device's copy bandwidth,
                               bytes read + written per second (0: not
                               measured), the floor's speed */
} cmrs_pc_info;

typedef struct cmrs_precond cmrs_precond;

typedef struct cmrs_precond_ops {
    const char *name;
    cmrs_code (*setup)(cmrs_precond *pc, const cmrs_csr *A, const char *what);
    /* z = M^-1 r on back-end arrays of be->n entries; r is not changed. */
    cmrs_code (*apply)(cmrs_precond *pc, const void *r, void *z);
    /* Same pattern, new values: what setup derived from them is redone,
     * the structure (aggregates, formats) kept. */
    cmrs_code (*update_values)(cmrs_precond *pc, const cmrs_csr *A,
                               const char *what);
    void (*destroy)(cmrs_precond *pc); /* frees pc->impl */
    /* Optional (NULL: nothing to time): V-cycle time per level into
     * info.level[].t_apply, `reps` applications each. */
    cmrs_code (*profile)(cmrs_precond *pc, int reps);
    /* Optional (NULL: update through the host, update_values): new values
     * from device values (be->ops->update_values_d's), refreshed on the
     * device with no allocation; errors in D^-1 show in update_check. */
    cmrs_code (*update_values_d)(cmrs_precond *pc, const void *values_d,
                                 const char *what);
    /* Optional (NULL: none): the array update_values_d first fills with
     * be->ops->dinv_d, handed to the back end's update_values_d so that
     * it may write D^-1 in its own pass over the values. */
    void *(*update_dinv)(const cmrs_precond *pc);
} cmrs_precond_ops;

struct cmrs_precond {
    const cmrs_precond_ops *ops;
    cmrs_backend *be;       /* borrowed */
    cmrs_pc kind;
    cmrs_pc_opts o;
    void *impl;
    const void *dinv;       /* jacobi: D^-1 (a back-end array) that the
                               fused kernels apply inline; else NULL */
    int moved;              /* after an update: 1 when it replaced an
                               array or operator apply reads, or changed
                               an argument apply passes (captured CUDA
                               graphs must go); 0 when it only rewrote
                               the same arrays (the update ops clear it;
                               the wrappers below set it first) */
    cmrs_pc_info info;
};

/* Creates and sets up preconditioner `kind` with parameters o for A. */
cmrs_code cmrs_precond_create(cmrs_backend *be, const cmrs_csr *A,
                              cmrs_pc kind, const cmrs_pc_opts *o,
                              const char *what, cmrs_precond **out);
/* For a preconditioner object made outside the registry (a back end's
 * pc_create), its ops, be, kind and o set: setup, sync, t_setup; *out =
 * pc on success, else pc destroyed. */
cmrs_code cmrs_precond_setup_timed(cmrs_precond *pc, const cmrs_csr *A,
                                   const char *what, cmrs_precond **out);
cmrs_code cmrs_precond_apply(cmrs_precond *pc, const void *r, void *z);
cmrs_code cmrs_precond_update_values(cmrs_precond *pc, const cmrs_csr *A,
                                     const char *what);
/* The device-values update (update_values_d; the caller checks
 * cmrs_precond_can_update_d); pc->moved says what it kept. */
cmrs_code cmrs_precond_update_values_d(cmrs_precond *pc, const void *values_d,
                                       const char *what);
/* pc's update_dinv array, or NULL. */
void *cmrs_precond_update_dinv(const cmrs_precond *pc);
/* 1: pc refreshes itself from device values (update_values_d) with its
 * options (amg full: where the back end updates operators in place, the
 * GPU); 0: the host path. */
int cmrs_precond_can_update_d(const cmrs_precond *pc);
/* The preconditioner's profile op (synchronising between levels), if it
 * has one. */
cmrs_code cmrs_precond_profile(cmrs_precond *pc, int reps);
void cmrs_precond_destroy(cmrs_precond *pc); /* NULL-safe */

/* The registry's entries (precond.c); each file defines one. */
extern const cmrs_precond_ops cmrs_pc_jacobi_ops, cmrs_pc_none_ops,
    cmrs_pc_chebyshev_ops, cmrs_pc_amg_ops;
/* Any of them kept in single precision on a twin (pc_mixed.c). */
extern const cmrs_precond_ops cmrs_pc_mixed_ops;
/* Whether option `mixed` keeps preconditioner `kind` in single precision
 * (amg, chebyshev: those that apply A; jacobi and none cost a pass). */
int cmrs_pc_mixes(cmrs_pc kind);

/* Shared pieces (pc_chebyshev.c), also used by the AMG smoother. */
/* rho(D^-1 A) of `op` (NULL: the back end's A) by `steps` power steps
 * from a fixed start vector (setup only: allocates its work arrays). */
cmrs_code cmrs_pc_power_rho(cmrs_backend *be, const cmrs_op *op, int64_t n,
                            const void *dinv, int steps, double *rho);
/* The same estimate into the caller's arrays v, w, u of n entries (no
 * allocation where the back end makes the start vector in place: the
 * GPU), bitwise what cmrs_pc_power_rho gives. */
cmrs_code cmrs_pc_power_rho_in(cmrs_backend *be, const cmrs_op *op,
                               int64_t n, const void *dinv, int steps,
                               void *v, void *w, void *u, double *rho);
/* a = s a over n entries, in place (queued like the apply ops): the
 * smoothers' scaled diagonals. */
cmrs_code cmrs_pc_scale_array(cmrs_backend *be, int64_t n, double s, void *a);
/* r = b - op x over n entries (queued like the apply ops). */
cmrs_code cmrs_pc_residual(cmrs_backend *be, const cmrs_op *op, int64_t n,
                           const void *b, const void *x, void *r);
/* x = p(D^-1 A) D^-1 b (x_zero: x starts at 0; else x += p(...)(b - Ax)),
 * the Chebyshev polynomial of `degree` on [lo, hi]; work: r, d of n.
 * Callers pass a scaled S = D^-1 / rho with [lo, hi] on S A (constants),
 * so no argument depends on the values. */
cmrs_code cmrs_pc_chebyshev_run(cmrs_backend *be, const cmrs_op *op,
                                int64_t n, const void *dinv, int degree,
                                double lo, double hi, const void *b, void *x,
                                int x_zero, void *r, void *d);
/* D^-1 of A as a back-end array (allocated): positive diagonal required,
 * as Jacobi (CMRS_E_INPUT naming the row). */
cmrs_code cmrs_pc_inverse_diagonal(cmrs_backend *be, const cmrs_csr *A,
                                   const char *what, void **dinv);

#endif
