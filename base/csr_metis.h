/* METIS over a CSR pattern (optional: compiled in where CMake finds
 * libmetis and metis.h, base/CMakeLists.txt): the k-way partition of the
 * distributed solver (dist/partition.c) and the nested-dissection order of
 * the renumbering study (cases/reorder.c). The graph is A's pattern
 * symmetrised (A + A^T), without the diagonal. A must be square. */
#ifndef CMRS_BASE_CSR_METIS_H
#define CMRS_BASE_CSR_METIS_H

#include "csr.h"

/* Whether METIS was compiled in. Callers check it first and say which of
 * their options needs it; the functions below fail with CMRS_E_USAGE
 * otherwise. */
int cmrs_metis_built(void);

/* METIS_PartGraphKway into owner[A->rows] (parts 0..nparts-1), vertices
 * weighted by row length so that the parts balance the SpMV work; a fixed
 * seed, so the same matrix gives the same parts on every run. */
cmrs_code cmrs_metis_kway(const cmrs_csr *A, int nparts, int32_t *owner);

/* METIS_NodeND, the fill-reducing nested-dissection order, as
 * new_of_old[A->rows] (unknown i becomes new_of_old[i]); a fixed seed. */
cmrs_code cmrs_metis_nd_perm(const cmrs_csr *A, int32_t *new_of_old);

#endif
