/* The graph and fused engines as solver/solver.c sees them: run a solve on
 * the device loop (devloop.h, devloop.c), free its state. No CUDA header
 * here: a build without CUDA compiles solver.c with these two from
 * solver/nocuda/ (no engine but cublas can be chosen there: they need the
 * GPU back end). */
#ifndef CMRS_SOLVER_ENGINES_H
#define CMRS_SOLVER_ENGINES_H

#include "solver/krylov/krylov.h"

/* Runs s to a reason with s->o.engine; fills reason, iterations and
 * res_norm as the host loops do. */
cmrs_code cmrs_devloop_solve(cmrs_ksp *s, cmrs_ksp_result *res);
void cmrs_devloop_free(struct devloop *d); /* NULL-safe */

#endif
