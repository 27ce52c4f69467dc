/* CG on GPU parts, the fused engine's kernels per part (Jacobi inline,
 * or any preconditioner applied between them) and the reductions summed
 * on the devices: the cg_loop hook
 * (dist.h) that dist_gpu.c gives the distributed back end for --gpus N.
 * Internal to dist/. */
#ifndef CMRS_DIST_DIST_FUSED_H
#define CMRS_DIST_DIST_FUSED_H

#include "solver/backend/backend.h"

typedef struct cmrs_dist_fused cmrs_dist_fused;

/* One solve of io (backend.h) on be, a distributed back end whose parts
 * are GPU back ends and whose exchange has allreduce_d. *f holds the
 * device state between solves: made here on the first call (NULL
 * before), grown when maxiter grows; the history goes to be's
 * (history_get). CMRS_E_USAGE where the exchange has no device
 * all-reduce. */
cmrs_code cmrs_dist_fused_cg(cmrs_dist_fused **f, cmrs_backend *be,
                             cmrs_cg_loop_io *io);
void cmrs_dist_fused_free(cmrs_dist_fused *f); /* NULL-safe */
/* Solves whose iterations ran with a thread per part, and those whose
 * halo of z went with the r'z sum, in this process (for tests: that the
 * ways compared ran). */
long cmrs_dist_fused_threaded_solves(void);
long cmrs_dist_fused_merged_solves(void);

#endif
