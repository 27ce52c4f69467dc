/* Row partitioning for the distributed solver (docs/DISTRIBUTED.md): the
 * rows of a square A split into P parts, each part's rows in a local order.
 *
 *   block  contiguous blocks of the mesh (file) order, balanced by nnz
 *   rcm    the same blocks of the reverse Cuthill-McKee order
 *          (base/csr_rcm.h)
 *   metis  METIS_PartGraphKway on the symmetrised pattern, vertices weighted
 *          by row length (base/csr_metis.h); only when METIS was found at
 *          configure time
 *
 * The quality measures: edge_cut counts the edges {i, j} (i != j, a_ij or
 * a_ji stored) of the symmetrised graph whose ends lie in different parts
 * (METIS's own objective); halo is the sum over parts of the distinct
 * foreign columns a part reads (values moved by one SpMV); imbalance is
 * max part nnz / mean part nnz (1 = perfect). */
#ifndef CMRS_DIST_PARTITION_H
#define CMRS_DIST_PARTITION_H

#include <stdint.h>

#include "base/csr.h"

typedef enum cmrs_part_method {
    CMRS_PART_BLOCK = 0,
    CMRS_PART_RCM = 1,
    CMRS_PART_METIS = 2
} cmrs_part_method;

/* The distributed setup's host passes (partition, halo, rows' sort): a
 * helper thread's least share of entries or rows (cmrs_parallel_threads'
 * grain). */
#define CMRS_DIST_GRAIN ((int64_t)1 << 20)

/* Upper bound on parts: each part keeps per-neighbour lists. */
#define CMRS_MAX_PARTS 4096

/* Whether part p lives in the process of rank `rank` of nranks (a part
 * per MPI rank: p % nranks == rank; nranks <= 1: every part is here). */
static inline int cmrs_part_is_local(int p, int rank, int nranks)
{
    return nranks <= 1 || p % nranks == rank;
}

typedef struct cmrs_partition {
    int nparts;
    cmrs_part_method method;
    int64_t n;
    int64_t nnz;      /* entries of the whole matrix */
    int32_t *owner;   /* n: the part owning each row */
    int64_t *lidx;    /* n: each row's index within its part */
    int64_t *order;   /* n: rows by part, then local index: part p's local
                         row j is order[start[p] + j] */
    int64_t *start;   /* nparts + 1 */
    int64_t edge_cut; /* see above */
    int64_t halo;     /* see above (filled by cmrs_halo_build) */
    int64_t max_halo; /* the most ghosts of one part (cmrs_halo_build):
                         the exchange waits for the slowest part */
    int max_nbrs;     /* the most parts one part receives from */
    double imbalance; /* max part nnz / mean part nnz */
    int by_rows;      /* 1: each rank held only its rows (halo_rows.h):
                         owner, lidx and order are NULL */
} cmrs_partition;

/* The part owning row j: owner[j], or where no rank holds that array
 * (by_rows) the block of start[] holding j. */
int cmrs_part_owner(const cmrs_partition *pt, int64_t j);

const char *cmrs_part_method_name(cmrs_part_method m); /* "block", ... */
/* CMRS_E_USAGE naming the known methods. */
cmrs_code cmrs_part_method_parse(const char *text, cmrs_part_method *m);

/* Partitions square A into nparts (1..min(rows, CMRS_MAX_PARTS)) parts;
 * *pt is allocated (cmrs_partition_free). CMRS_E_USAGE for a bad count
 * and for metis in a build without METIS (exit 2: a usage of this build). */
cmrs_code cmrs_partition_build(const cmrs_csr *A, int nparts,
                               cmrs_part_method m, cmrs_partition *pt);
void cmrs_partition_free(cmrs_partition *pt); /* NULL-safe, zeroes */

/* Internal steps, exposed for the tests. */
/* owner from a row order: blocks of consecutive order[] rows, balanced by
 * nnz, each part at least one row. */
void cmrs_part_blocks(const cmrs_csr *A, const int64_t *order, int nparts,
                      int32_t *owner);
/* The edge cut of owner over A's symmetrised pattern. */
int64_t cmrs_part_edge_cut(const cmrs_csr *A, const int32_t *owner);

#endif
