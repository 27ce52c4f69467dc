/* The voxelised vessel mesh (internal to cases/): voxels of side h on a grid
 * padded so that every inside voxel has all six neighbours in the grid.
 * Each kept voxel holds 6 Kuhn tetrahedra, numbered 6*rank .. 6*rank+5. */
#ifndef CMRS_CASES_VESSEL_H
#define CMRS_CASES_VESSEL_H

#include <stdint.h>

#include "io/system.h"
#include "vessel_geom.h"

/* Values of vox[] below 0; kept voxels hold their rank (>= 0). */
#define VSL_VOX_OUT (-1)   /* outside the vessel (or dropped) */
#define VSL_VOX_IN (-2)    /* inside, not yet known to reach an outlet */
#define VSL_VOX_KEPT (-3)  /* inside and connected to an outlet */

typedef struct vsl_grid {
    double h, origin[3];  /* voxel (i,j,k) spans origin + [i, i+1] h, ... */
    int64_t n[3];         /* voxels per axis, x fastest in vox[] */
} vsl_grid;

typedef struct vsl_mesh {
    vsl_geom geom;
    vsl_grid grid;
    int32_t *vox;         /* n[0]*n[1]*n[2] entries */
    int64_t kept;         /* number of kept voxels */
} vsl_mesh;

/* Builds the matrix and b of a mesh whose kept voxels are ranked. */
cmrs_code vsl_assemble(const vsl_mesh *m, cmrs_system *sys);

#endif
