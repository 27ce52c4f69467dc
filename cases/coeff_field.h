/* Random heterogeneous coefficient fields for poisson3d --contrast
 * (internal to cases/). */
#ifndef CMRS_CASES_COEFF_FIELD_H
#define CMRS_CASES_COEFF_FIELD_H

#include <stdint.h>

#include "base/status.h"

/* k at the m^3 nodes (x fastest) of a grid: log10 k is a random field,
 * trilinear between uniform random values on a coarse lattice (every 6 nodes
 * in x and y, every 2 in z: layers, as in sedimentary rock), rescaled to span
 * exactly [0, contrast]. *k is malloc'd (caller frees). */
cmrs_code cmrs_coeff_field(int64_t m, double contrast, uint64_t seed,
                           double **k);

#endif
