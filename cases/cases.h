/* Generators of test systems (`cmrs gen`). Each fills a cmrs_system with a
 * valid, validated matrix and a right-hand side that is not trivially A*1
 * (see README "Generated cases" for how b is made). Deterministic for a
 * given seed. */
#ifndef CMRS_CASES_H
#define CMRS_CASES_H

#include <stdint.h>

#include "../io/system.h"

typedef enum cmrs_order {
    CMRS_ORDER_NATURAL = 0, /* the mesh's natural (lexicographic) order */
    CMRS_ORDER_RANDOM,      /* random symmetric permutation (paper's p7) */
    CMRS_ORDER_RCM          /* reverse Cuthill-McKee */
} cmrs_order;

/* Pressure equation on a tetrahedral mesh of an abdominal-aorta-like vessel
 * (curved tube bifurcating into two branches): SPD, mu ~ 4.9. */
typedef struct cmrs_vessel_opts {
    int64_t cells;   /* target number of tetrahedral cells (unknowns) */
    uint64_t seed;
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
    uint64_t seed;
} cmrs_convdiff_opts;
cmrs_code cmrs_gen_convdiff(const cmrs_convdiff_opts *o, cmrs_system *sys);

/* Renumbers the unknowns of a square system symmetrically (A <- P A P^T,
 * b and x0 permuted alike). */
cmrs_code cmrs_reorder(cmrs_system *sys, cmrs_order order, uint64_t seed);

#endif
