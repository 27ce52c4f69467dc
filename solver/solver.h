/* Krylov solvers for A x = b: preconditioned CG (SPD A) and preconditioned
 * BiCGStab (nonsymmetric A), each loop written once over solver/backend/backend.h.
 *
 *   cmrs_ksp_create   setup: work vectors, preconditioner, history
 *                        (all allocation happens here)
 *   cmrs_ksp_set_rhs  b and x0 of the next solves (host arrays, or
 *                        back-end vectors: device arrays on the GPU)
 *   cmrs_ksp_solve    x = x0, iterate, then x copied back and the TRUE
 *                        residual b - A x recomputed on the host in double
 *   cmrs_ksp_update_values  same pattern, new values: back end and
 *                        preconditioner refreshed, nothing re-converted
 *
 * A solve that does not converge is not an error: the result carries a
 * converged reason (as PETSc's KSPConvergedReason). Errors (CMRS_E_*) are
 * bad input (Jacobi on a bad diagonal) and GPU or allocation failures.
 */
#ifndef CMRS_SOLVER_H
#define CMRS_SOLVER_H

#include <stdint.h>

#include "solver/ksp.h"


/* Setup on back end be for A (host CSR, kept by pointer for the true
 * residual: it must outlive the solver). `what` names the system in
 * messages (usually the input file). b and x0 come with cmrs_ksp_set_rhs. */
cmrs_code cmrs_ksp_create(cmrs_backend *be, const cmrs_csr *A,
                          const cmrs_ksp_opts *o, const char *what,
                          cmrs_ksp **out);
/* b and x0 (host arrays of n doubles, copied; x0 NULL: zero) for the
 * solves that follow, until the next set_rhs. */
cmrs_code cmrs_ksp_set_rhs(cmrs_ksp *s, const double *b, const double *x0);
/* The next solve's x goes to x (n doubles, the caller's; may be the x0
 * given to set_rhs, which is already copied) instead of the solver's own
 * buffer: result.x then points to it. Cleared by set_rhs and set_rhs_vec. */
void cmrs_ksp_set_x_out(cmrs_ksp *s, double *x);
/* The same from back-end vectors (on the GPU: device arrays of the back
 * end's precision, copied on the device; x0 NULL: zero). */
cmrs_code cmrs_ksp_set_rhs_vec(cmrs_ksp *s, const cmrs_vec *b,
                               const cmrs_vec *x0);
/* Solves whose time alone is wanted (the kernel choice's): from now on no
 * true residual (result.true_norm NaN), x left on the device (result.x
 * NULL), ||b|| taken on the device in every precision. In single the
 * host's true residual and x's download cost more than 20 iterations. */
void cmrs_ksp_set_timing_only(cmrs_ksp *s);
/* The next solves' iteration limit, 1 up to the one the solver was made
 * with (its history is sized for that); other values are ignored. */
void cmrs_ksp_set_maxiter(cmrs_ksp *s, int64_t maxiter);
/* Solves from x0 for the b of the last set_rhs (CMRS_E_USAGE without
 * one); may be called again (compare repeats solves). */
cmrs_code cmrs_ksp_solve(cmrs_ksp *s, cmrs_ksp_result *res);
/* The solution of the last solve as a back-end vector (device-side x). */
const cmrs_vec *cmrs_ksp_x(const cmrs_ksp *s);
/* A's values changed (same pattern; A may be another CSR with the same
 * pattern, then kept instead): the back end's copy and the preconditioner
 * are refreshed; the graph/fused engines' CUDA graphs are kept where both
 * only rewrote the arrays they read (else captured again). */
cmrs_code cmrs_ksp_update_values(cmrs_ksp *s, const cmrs_csr *A);
/* Whether new values can come from the device (a GPU back end whose
 * format has a value store, a preconditioner refreshed there: jacobi,
 * none, chebyshev, amg); else the caller takes the host path. */
int cmrs_ksp_can_update_d(const cmrs_ksp *s);
/* New values from the device (nnz values of the precision, CSR order, the
 * set-up pattern): format and preconditioner refreshed on the device; a
 * non-finite value or a diagonal that is not > 0 is CMRS_E_INPUT (the
 * format then holds the new values). The borrowed host CSR is NOT
 * updated: its values are stale until the caller refreshes them
 * (be->ops->values_get) before the next solve's true residual. Captured
 * graphs are kept where the update only rewrote the arrays they read. */
cmrs_code cmrs_ksp_update_values_d(cmrs_ksp *s, const void *values_d);
/* The caller's numbering of a renumbered system (api/renumber.c): s's
 * row r is the caller's row rows[r], its entry j the caller's
 * entry(ctx, j); the messages that name a row or an entry
 * (update_values_d's checks) name the caller's. Borrowed; NULL, NULL:
 * s's own numbering. */
void cmrs_ksp_set_numbering(cmrs_ksp *s, const int32_t *rows,
                            int64_t (*entry)(void *ctx, int64_t j),
                            void *ctx);
/* Why the engine that runs is not the one requested (for example fused
 * with a preconditioner it cannot fuse), or NULL. */
const char *cmrs_ksp_notice(const cmrs_ksp *s);
/* CUDA graphs the graph/fused engines captured on s so far (tests: an
 * update that kept them adds none at the next solve). */
int64_t cmrs_ksp_graph_captures(const cmrs_ksp *s);
/* The preconditioner (its info: hierarchy, setup times). */
cmrs_precond *cmrs_ksp_precond(const cmrs_ksp *s);
/* The mixed-precision mode s runs (auto resolved; off: none). */
cmrs_mixed cmrs_ksp_mixed(const cmrs_ksp *s);
void cmrs_ksp_destroy(cmrs_ksp *s); /* NULL-safe; not the back end */

/* CMRS_E_INPUT naming the first row of A (global row row0 + i) that has
 * no entries (the matrix is singular whatever the preconditioner): the
 * Krylov solver's setup check, and a renumbered system's message for A's
 * own numbering (api/renumber.c). */
cmrs_code cmrs_check_no_empty_row(const cmrs_csr *A, int64_t row0,
                                  const char *what);
/* ||b - A x||2 in double on the host (allocates one n-vector). */
cmrs_code cmrs_true_residual(const cmrs_csr *A, const double *b,
                             const double *x, double *norm);

#endif
