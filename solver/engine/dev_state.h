/* The device-resident state of a solve run by the graph and fused engines
 * (devloop.h): every scalar of the Krylov recurrence lives here, in device
 * memory, so that no iteration needs the host. Shared by C and CUDA.
 *
 * The host writes the whole struct once before a solve (stopping constants
 * set, the rest zero) and reads the status part after every block of
 * iterations. Only the device writes it during a solve. */
#ifndef CMRS_SOLVER_DEV_STATE_H
#define CMRS_SOLVER_DEV_STATE_H

#include <stdint.h>

/* Slots for the results of cuBLAS reductions (graph engine): the scalar
 * kernels read them in the precision's type. */
#define CMRS_DEV_SLOTS 8

typedef struct cmrs_dstate {
    /* Status, read by the host after each block. */
    int64_t k;       /* completed iterations: history entries 0..k exist */
    int32_t done;    /* 1: stopped; later iterations of a block are no-ops */
    int32_t reason;  /* cmrs_ksp_reason once done */
    double rnorm;    /* the last recorded ||r||2 */

    /* Stopping test, as cmrs_krylov_test: set by the host. */
    double rtol_b;   /* rtol * ||b|| */
    double atol;
    double eps;      /* the precision's epsilon (BiCGStab breakdowns) */
    int64_t maxiter;

    /* Recurrence scalars (CG: rz, alpha, beta; BiCGStab: all). */
    double rz, alpha, beta;
    double rho, omega, snorm, rhat_norm;
    int32_t live;    /* 1: this iteration's alpha is valid (x to update) */
    int32_t brk;     /* fused CG: the reason p'q stopped the iteration */
    uint32_t ticket; /* last-block counter of the fused reductions */

    /* Graph engine: cuBLAS results (device pointer mode) and the
     * coefficients the axpys read, in both precisions. */
    double red_d[CMRS_DEV_SLOTS];
    float red_f[CMRS_DEV_SLOTS];
    double coef_d[CMRS_DEV_SLOTS];
    float coef_f[CMRS_DEV_SLOTS];
} cmrs_dstate;

#endif
