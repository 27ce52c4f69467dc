/* Generators of test systems (`cmrs gen`). Each fills a cmrs_system with a
 * valid, validated matrix and a right-hand side that is not trivially A*1
 * (docs/CASES.md says how b is made). Deterministic for a given seed. Bad
 * options fail with CMRS_E_USAGE; sizes whose arrays cannot be addressed
 * with CMRS_E_LIMIT. */
#ifndef CMRS_CASES_H
#define CMRS_CASES_H

#include <stdint.h>

#include "io/system.h"

typedef enum cmrs_order {
    CMRS_ORDER_NATURAL = 0, /* the mesh's natural (lexicographic) order */
    CMRS_ORDER_RANDOM,      /* random symmetric permutation (paper's p7) */
    CMRS_ORDER_RCM,         /* reverse Cuthill-McKee */
    CMRS_ORDER_BFS,         /* breadth-first, the order RCM refines */
    CMRS_ORDER_METIS,       /* METIS nested dissection (when built) */
    CMRS_ORDER_COUNT
} cmrs_order;

/* The orders' names as options take them ("natural", "random", "rcm",
 * "bfs", "metis"), indexed by cmrs_order, NULL-terminated. */
extern const char *const cmrs_order_names[CMRS_ORDER_COUNT + 1];

/* Pressure equation on a tetrahedral mesh of an abdominal-aorta-like vessel
 * (curved tube bifurcating into two branches): SPD, mu ~ 4.9. */
typedef struct cmrs_vessel_opts {
    int64_t cells;   /* target number of tetrahedral cells (unknowns) */
    uint64_t seed;   /* unused: the geometry is fixed */
} cmrs_vessel_opts;
cmrs_code cmrs_gen_vessel(const cmrs_vessel_opts *o, cmrs_system *sys);

/* Dirichlet Poisson on an n^3 grid, 7- or 27-point; with contrast > 0 a
 * heterogeneous coefficient spanning `contrast` orders of magnitude. */
typedef struct cmrs_poisson_opts {
    int64_t n;
    int stencil;     /* 7 or 27 */
    double contrast; /* 0: homogeneous */
    uint64_t seed;
} cmrs_poisson_opts;
cmrs_code cmrs_gen_poisson3d(const cmrs_poisson_opts *o, cmrs_system *sys);

/* Nonsymmetric upwind convection-diffusion on an n^3 grid (BiCGStab). */
typedef struct cmrs_convdiff_opts {
    int64_t n;
    double peclet;
    uint64_t seed;   /* unused: the velocity field is fixed */
} cmrs_convdiff_opts;
cmrs_code cmrs_gen_convdiff(const cmrs_convdiff_opts *o, cmrs_system *sys);

/* Renumbers the unknowns of a square system symmetrically (A <- P A P^T,
 * b and x0 permuted alike) with the permutation of cmrs_order_perm. On
 * failure, see cmrs_permute_system. */
cmrs_code cmrs_reorder(cmrs_system *sys, cmrs_order order, uint64_t seed);

/* The permutation cmrs_reorder applies: (*new_of_old)[i] is the new index of
 * unknown i (malloc'd, A->rows entries, caller frees). random: seeded
 * Fisher-Yates; rcm: reverse Cuthill-McKee over the pattern of A (row i's
 * neighbours are the columns of row i), one pseudo-peripheral start per
 * connected component; bfs: the same search in row order, not reversed
 * (base/csr_rcm.h); metis: METIS_NodeND of A + A^T without the diagonal
 * (base/csr_metis.h), CMRS_E_USAGE in a build without METIS. natural: the
 * identity. The seed drives random only. */
cmrs_code cmrs_order_perm(const cmrs_csr *A, cmrs_order order, uint64_t seed,
                          int32_t **new_of_old);

/* CMRS_E_USAGE where this build cannot make the order (metis without
 * METIS), so that a command refuses it before any work. */
cmrs_code cmrs_order_check(cmrs_order order);

/* A <- P A P^T with row i moving to new_of_old[i]; b and x0 alike. Needs
 * about 1.8x the matrix in memory at peak. A non-square matrix or a
 * new_of_old that is no permutation fails with CMRS_E_INPUT and leaves the
 * system as it was; a failure once rows move (out of memory) frees it. */
cmrs_code cmrs_permute_system(cmrs_system *sys, const int32_t *new_of_old);

/* b = A*1 (a right-hand side whose exact solution is all ones) where sys
 * has no b, as solvers take a file without one; b_generated set. `what`
 * names the system in the out-of-memory message. */
cmrs_code cmrs_system_rhs_ones(cmrs_system *sys, const char *what);

/* Limits of the generators' options, checked by the generators themselves
 * (CMRS_E_USAGE) and by `cmrs gen`. */
#define CMRS_VESSEL_MIN_CELLS 1000LL
#define CMRS_VESSEL_MAX_CELLS 1500000000LL /* cell ids stay below 2^31 */
#define CMRS_GRID_MAX_N 1290               /* n^3 unknowns below 2^31 */
#define CMRS_MAX_CONTRAST 12               /* decades; more defeats double */
#define CMRS_MAX_PECLET 1e9

#endif
