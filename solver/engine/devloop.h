/* The device loop behind the graph and fused engines: the whole Krylov
 * recurrence stays on the GPU (scalars in a cmrs_dstate), a block of
 * iterations is captured once into a CUDA graph and replayed, and the host
 * reads the status (iterations, done, reason, ||r||) once per block.
 * Iterations after the stop inside a block change nothing: every kernel
 * and coefficient checks the state first.
 *
 * A method (engine x solver) is three functions over cmrs_dev_args:
 * bind (its vectors), start (state and history entry 0, from r = b - A x0
 * already computed) and iterate (one iteration, captured), and optionally
 * end_block (captured once after a block's iterations). */
#ifndef CMRS_SOLVER_DEVLOOP_H
#define CMRS_SOLVER_DEVLOOP_H

#include "solver/backend/gpu/backend_gpu.h"
#include "dev_args.h"
#include "engines.h"

typedef struct devloop_method {
    void (*bind)(const cmrs_ksp *s, cmrs_dev_args *a);
    cmrs_code (*start)(cmrs_ksp *s, const cmrs_dev_args *a);
    cmrs_code (*iterate)(cmrs_ksp *s, const cmrs_dev_args *a);
    /* Optional (NULL: none): after the last iteration of a block, so that
     * the status the host reads is complete. */
    cmrs_code (*end_block)(cmrs_ksp *s, const cmrs_dev_args *a);
} devloop_method;

/* The methods of each engine (CMRS_ENGINE_GRAPH / _FUSED). */
const devloop_method *cmrs_devloop_method(cmrs_engine e, cmrs_method m);

/* cmrs_devloop_solve, cmrs_devloop_free: engines.h. */

/* y = A x with the back end's format, on its stream (alpha, beta fixed). */
cmrs_code cmrs_dev_spmv(const cmrs_ksp *s, const void *x, void *y);

/* cuBLAS in device pointer mode: results go to state slot `slot`
 * (red_d/red_f), coefficients come from coef_d/coef_f[coef]. */
cmrs_code cmrs_dev_dot(const cmrs_ksp *s, const cmrs_dev_args *a,
                       const void *x, const void *y, int slot);
cmrs_code cmrs_dev_nrm2(const cmrs_ksp *s, const cmrs_dev_args *a,
                        const void *x, int slot);
cmrs_code cmrs_dev_axpy(const cmrs_ksp *s, const cmrs_dev_args *a,
                        int coef, const void *x, void *y);
cmrs_code cmrs_dev_copy(const cmrs_ksp *s, const void *x, void *y);
/* z = M^-1 r through the preconditioner object (queued, capturable);
 * nothing without a preconditioner (z is r, or NULL). */
cmrs_code cmrs_dev_precond(const cmrs_ksp *s, const void *r, void *z);

#endif
