/* Level-structure orderings of a CSR pattern: reverse Cuthill-McKee (the
 * generators' and `convert`'s reorderings, cases/reorder.c, and the
 * partitioner, dist/partition.c) and the plain breadth-first order that
 * RCM refines (the renumbering study of scripts/bench-order.sh). */
#ifndef CMRS_IO_CSR_RCM_H
#define CMRS_IO_CSR_RCM_H

#include "csr.h"

/* Fills new_of_old (A->rows entries) with the RCM numbering of A's pattern
 * (row i's neighbours are the columns of row i): per connected component,
 * a breadth-first search from a pseudo-peripheral node (George-Liu)
 * visiting neighbours by increasing degree (ties: lower index); the whole
 * order is then reversed. A must be square. */
cmrs_code cmrs_rcm_perm(const cmrs_csr *A, int32_t *new_of_old);

/* The same search without RCM's refinements: per connected component, a
 * breadth-first search from the pseudo-peripheral node RCM starts from,
 * neighbours queued in the order their row lists them (increasing column),
 * the nodes numbered in the order they are visited (not reversed). */
cmrs_code cmrs_bfs_perm(const cmrs_csr *A, int32_t *new_of_old);

#endif
