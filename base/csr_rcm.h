/* Reverse Cuthill-McKee ordering of a CSR pattern: the generators'
 * reorderings (cases/reorder.c) and the partitioner (dist/partition.c). */
#ifndef CMRS_IO_CSR_RCM_H
#define CMRS_IO_CSR_RCM_H

#include "csr.h"

/* Fills new_of_old (A->rows entries) with the RCM numbering of A's pattern:
 * per connected component, a breadth-first search from a pseudo-peripheral
 * node (George-Liu) visiting neighbours by increasing degree; the whole
 * order is then reversed. A must be square. */
cmrs_code cmrs_rcm_perm(const cmrs_csr *A, int32_t *new_of_old);

#endif
