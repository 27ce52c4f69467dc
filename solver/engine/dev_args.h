/* What the device-loop kernels (fused_*.cu, graph_scalars.cu) are given:
 * sizes, the stream, the device state and the solve's vectors. Built by
 * devloop.c from the solver; plain C so both sides share it. */
#ifndef CMRS_SOLVER_DEV_ARGS_H
#define CMRS_SOLVER_DEV_ARGS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/status.h"
#include "spmv/spmv.h"
#include "dev_state.h"

/* Threads per block of the grid kernels: 256, up to 8 blocks per SM when
 * registers allow (devloop.c's grid_for: fewer on small n). Measured on
 * the H200 (docs/BENCHMARKS.md "Engines"): 512-thread blocks held to 32
 * registers changed nothing measurable. */
#define CMRS_DEV_THREADS 256

/* Per-block doubles of the partials buffer: a grid sum carries at most 2
 * sums (slots 0-1); fused CG keeps p'q in slot 2 (fused_cg.cu), which
 * holds pq_parts partials (more than grid where the SpMV writes them). */
#define CMRS_DEV_MAX_SUMS 3

typedef struct cmrs_dev_args {
    cmrs_prec prec;
    int64_t n;
    int grid;              /* blocks of every reduction kernel: fixed per
                              device and n, so sums are deterministic */
    cudaStream_t stream;
    cmrs_dstate *st_d;
    double *partials_d;    /* per-block sums: slots 0-1 of grid each, then
                              slot 2 of pq_parts */
    int pq_parts;          /* fused CG: p'q partials in slot 2 (grid, or
                              the SpMV's dot_parts when pq_in_spmv) */
    int pq_in_spmv;        /* fused CG: the SpMV writes the p'q partials
                              (cmrs_spmv_apply_dot), no pq kernel */
    double *glob_d;        /* fused CG over several parts (dist_fused.c):
                              3 doubles, p'q, r'z, r'r summed over every
                              part (the sums of this part's partials,
                              then an all-reduce in place), which the
                              kernels read instead of their partials;
                              NULL on one GPU */
    void *history_d;       /* residual norms in the precision's type */
    const void *dinv_d;    /* Jacobi's inverse diagonal; NULL: no
                              preconditioner (z is then r) or pc_z */
    int pc_z;              /* fused CG over several parts: z = M^-1 r is
                              formed by a preconditioner applied between
                              the kernels (dist_fused.c): init and xp
                              read z, r leaves it, rz sums r'z and r'r */
    int64_t p_tail;        /* fused CG over several parts: p's ghost
                              entries after its n owned ones, which xp
                              updates as their owners do (p = z + beta p,
                              z's ghosts received beside the r'z sum:
                              dist_fused.c), so p needs no halo of its
                              own; 0 elsewhere */
    /* The method's vectors (device arrays of the precision). CG: x r p q z;
     * BiCGStab: x r rhat p q(= v) t z (z holds phat, then shat). */
    void *x, *r, *p, *q, *z, *rhat, *t;
} cmrs_dev_args;

#ifdef __cplusplus
extern "C" {
#endif
/* The blocks of the grid kernels for n rows on the current device
 * (devloop.c: fixed per device and n, so the sums are deterministic). */
cmrs_code cmrs_dev_grid(int64_t n, int *grid);

/* Fused CG (fused_cg.cu), Jacobi or none inline (several parts: any
 * preconditioner between the kernels, pc_z). Each call is one kernel. */
cmrs_code cmrs_fused_cg_init(const cmrs_dev_args *a); /* z, p, rz, ||r|| */
cmrs_code cmrs_fused_cg_pq(const cmrs_dev_args *a);   /* p'q partials */
/* r, z, rz, ||r|| (pc_z: r only) */
cmrs_code cmrs_fused_cg_r(const cmrs_dev_args *a);
cmrs_code cmrs_fused_cg_xp(const cmrs_dev_args *a);   /* x, p, commit */
/* pc_z: the r'z and r'r partials, once the preconditioner formed z. */
cmrs_code cmrs_fused_cg_rz(const cmrs_dev_args *a);
/* r (set to the true residual) -> z, rz, ||r||, a converged stop undone
 * where the true residual misses (both engines' CG; devloop.c). */
cmrs_code cmrs_fused_cg_restate(const cmrs_dev_args *a);
/* Several parts (glob_d set): init writes z, p and its partials only;
 * one block each sums this part's p'q partials into glob_d[0] or its
 * r'z, r'r partials into glob_d[1..2] (then all-reduced by the caller);
 * start records entry 0 and r'z from glob_d (one thread). */
cmrs_code cmrs_fused_cg_sum_pq(const cmrs_dev_args *a);
cmrs_code cmrs_fused_cg_sum_rz(const cmrs_dev_args *a);
cmrs_code cmrs_fused_cg_start(const cmrs_dev_args *a);
/* Shared by the one-GPU loop (engine_cg.c) and the parts' (dist_fused.c):
 * where p'q comes from -- the SpMV's dot epilogue where the format has
 * one (unless CMRS_SPMV_DOT=0), else the pq kernel over the grid (a->grid
 * set) -- and q = A p with those p'q partials. */
void cmrs_fused_cg_choose_pq(const cmrs_spmv *spmv, cmrs_dev_args *a);
cmrs_code cmrs_fused_cg_product(cmrs_spmv *spmv, const cmrs_dev_args *a);
/* partials_d's length: the r'z and r'r partials of the grid's blocks,
 * then p'q's (pq_parts of them, at cmrs_dev_pq_partials). */
static inline size_t cmrs_dev_partials_count(const cmrs_dev_args *a)
{
    int slot = a->pq_parts > a->grid ? a->pq_parts : a->grid;
    return (CMRS_DEV_MAX_SUMS - 1) * (size_t)a->grid + (size_t)slot;
}
static inline double *cmrs_dev_pq_partials(const cmrs_dev_args *a)
{
    return a->partials_d + (CMRS_DEV_MAX_SUMS - 1) * (size_t)a->grid;
}

/* Graph engine's scalar kernels (graph_scalars.cu): one thread each. */
cmrs_code cmrs_scal_cg_init(const cmrs_dev_args *a);
cmrs_code cmrs_scal_cg_alpha(const cmrs_dev_args *a);
cmrs_code cmrs_scal_cg_beta(const cmrs_dev_args *a);
/* p = z + beta p with beta from the state, skipped once done. */
cmrs_code cmrs_dev_cg_direction(const cmrs_dev_args *a);
#ifdef __cplusplus
}
#endif

/* BiCGStab (bicgstab.c's recurrence) on the device loop, Jacobi or none;
 * the vectors as above (q is v; z holds phat, then shat). */
#ifdef __cplusplus
extern "C" {
#endif
/* Fused BiCGStab (fused_bicgstab.cu). Each call is one kernel. */
cmrs_code cmrs_fused_bcg_init(const cmrs_dev_args *a); /* rhat, ||r||, rho */
cmrs_code cmrs_fused_bcg_rv(const cmrs_dev_args *a);   /* rhat'v -> alpha */
cmrs_code cmrs_fused_bcg_s(const cmrs_dev_args *a);    /* s, shat, ||s|| */
cmrs_code cmrs_fused_bcg_ts(const cmrs_dev_args *a);   /* t't, t's -> omega */
cmrs_code cmrs_fused_bcg_end(const cmrs_dev_args *a);  /* x, r, ||r||, rho */

/* Graph engine's BiCGStab scalar kernels (graph_scalars_bicgstab.cu): one
 * thread each. */
cmrs_code cmrs_scal_bcg_init(const cmrs_dev_args *a);
cmrs_code cmrs_scal_bcg_alpha(const cmrs_dev_args *a);
cmrs_code cmrs_scal_bcg_s(const cmrs_dev_args *a);
cmrs_code cmrs_scal_bcg_omega(const cmrs_dev_args *a);
cmrs_code cmrs_scal_bcg_end(const cmrs_dev_args *a);
/* p = r + beta (p - omega v) (p = r in the first iteration) and, with
 * Jacobi, z = phat = M^-1 p; skipped once done. Both engines. */
cmrs_code cmrs_dev_bcg_direction(const cmrs_dev_args *a);
#ifdef __cplusplus
}
#endif

#endif
