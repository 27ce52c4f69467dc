/* Structured n^3 grids with the Dirichlet boundary eliminated: the shared
 * assembly of poisson3d and convdiff (internal to cases/). Node (i, j, k)
 * is unknown i + n*(j + n*k), at (x, y, z) = ((i+1), (j+1), (k+1)) / (n+1)
 * in the unit cube; nodes outside 0..n-1 are boundary nodes (value 0). */
#ifndef CMRS_CASES_GRID3D_H
#define CMRS_CASES_GRID3D_H

#include <stdint.h>

#include "cases.h"

typedef struct grid_stencil {
    int count;        /* 7 or 27 */
    int centre;       /* index of (0, 0, 0) */
    int off[27][3];   /* (dx, dy, dz), in increasing column order */
} grid_stencil;

/* Fails with CMRS_E_USAGE unless points is 7 or 27. */
cmrs_code grid_stencil_make(int points, grid_stencil *s);

/* The values of one row: vals[s] belongs to offset s of the stencil (the
 * centre too). Entries whose neighbour is a boundary node are dropped by the
 * assembler, so a row function adds their coupling to the diagonal itself. */
typedef void (*grid_row_fn)(const void *ctx, const grid_stencil *s,
                            int64_t i, int64_t j, int64_t k, double *vals);

/* Fails with CMRS_E_USAGE unless 1 <= n <= CMRS_GRID_MAX_N. */
cmrs_code grid_check_n(const char *kind, int64_t n);

/* cases_check_memory for the n^3 system of stencil s (A, b and x_true)
 * plus `extra` bytes the generator holds meanwhile; `option` names the
 * options for the message. */
cmrs_code grid_check_memory(const char *kind, const char *option, int64_t n,
                            const grid_stencil *s, double extra);

/* Assembles the n^3 x n^3 matrix row by row into sys->A, then b = A x_true
 * (grid_x_true at every node); x0 stays NULL. */
cmrs_code grid_build_system(int64_t n, const grid_stencil *s, grid_row_fn fn,
                            const void *ctx, cmrs_system *sys);

/* The smooth, non-constant exact solution of the generated grid systems. */
double grid_x_true(int64_t n, int64_t i, int64_t j, int64_t k);

#endif
