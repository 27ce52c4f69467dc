/* The partition and halo of a rank that holds only its rows (rows mode:
 * a matrix made from each rank's rows, or read so, docs/DISTRIBUTED.md
 * "Each rank its rows"). Under MPI only. */
#ifndef CMRS_DIST_HALO_ROWS_H
#define CMRS_DIST_HALO_ROWS_H

#ifdef CMRS_HAVE_MPI
#include <mpi.h>

#include "halo.h"

/* A_rows: this rank's rows row0 .. row0 + A_rows->rows of the square
 * matrix of A_rows->cols rows, global column indices. The ranks' blocks
 * (gathered) must tile the rows in rank order, each with a row
 * (CMRS_E_USAGE on every rank otherwise). Fills pt as a block partition
 * of one part per rank (start and the measures: edge cut, halo, the
 * largest halo and neighbour count, imbalance, each over all ranks;
 * owner, lidx and order stay NULL: no array of every row is made) and
 * h: this rank's part complete (ghosts ascending, which is halo.h's order
 * for blocks; local matrix and its value map, the identity on the rank's
 * entries; receive lists; send lists from the other
 * ranks' requests, exchanged with MPI_Alltoallv), the other parts' n_own
 * only. Collective over comm. */
cmrs_code cmrs_halo_build_rows(const cmrs_csr *A_rows, int64_t row0,
                               MPI_Comm comm, cmrs_partition *pt,
                               cmrs_halo *h);
#endif

#endif
