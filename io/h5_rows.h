/* One block of rows of an HDF5 matrix file, for a reader that needs only
 * its own rows (one MPI rank of `mpirun -np N cmrs solve FILE`): the file's
 * row pointers are read in full (8 bytes a row), everything else only for
 * the block's rows, through HDF5 hyperslabs. */
#ifndef CMRS_IO_H5_ROWS_H
#define CMRS_IO_H5_ROWS_H

#include <stdint.h>

#include "linsys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when path is an HDF5 file whose matrix (opts->matrix, default "A") is
 * stored in a CSR layout that cmrs_h5_read_rows reads: native
 * (indptr/indices/data + shape), anndata csr_matrix or h5sparse csr.
 * 0 for anything else: a CSC layout (anndata csc_matrix, h5sparse csc,
 * MATLAB v7.3 / PETSc), a file that is not HDF5, has no such group or whose
 * layout attributes are unreadable; the caller then reads the whole file
 * (cmrs_system_read), which reports any problem itself. Only the layout is
 * looked at (the arrays are not read); leaves no error recorded. */
int cmrs_h5_rows_readable(const char *path, const cmrs_read_opts *opts);

/* Rows [row0, row0 + sys->A.rows) of the square n x n matrix of an HDF5
 * file in a CSR layout (those cmrs_h5_rows_readable accepts): block `part`
 * of `nparts` by cmrs_csr_row_blocks (base/csr.h) applied to the file's
 * whole indptr, so that the blocks equal those of the block partition of
 * the whole matrix (dist/partition.h) -- exactly so when no row stores a
 * column twice (duplicates are summed after the split, shortening rows
 * the partition of a whole read would count once).
 *
 * sys->A: A.rows = the block's rows, A.cols = n, column indices global,
 * indptr rebased to start at 0, rows sorted and duplicates summed as
 * cmrs_h5_read_system does; sys->b and sys->x0: the block's rows of the
 * file's b / x0 (opts->rhs / opts->x0, as cmrs_h5_read_system finds them)
 * when present; b is NULL when the file has none (the caller makes A*1 for
 * its rows); sys->layout as cmrs_h5_read_system sets it. *row0 = the
 * block's first row, *n = the matrix's rows (= columns), *nnz_global =
 * the entries the file stores (its indptr[n]). opts may be NULL; its
 * pinned_matrix is ignored (plain malloc: a block is uploaded once).
 *
 * Checks, as cmrs_h5_read_system makes them for the whole matrix, on what
 * is read: the shape and the array lengths against each other; the whole
 * indptr (from 0, never decreasing, up to nnz); the block's column indices
 * in [0, n) and its values and vector entries finite; all sizes (the
 * pointers, then the block's arrays and vectors with opts->work_vectors)
 * against the memory available before they are allocated. Failures:
 * CMRS_E_USAGE for nparts < 1, part outside [0, nparts) or nparts > n;
 * CMRS_E_INPUT (one line naming file, dataset and problem) for a bad file,
 * a non-square matrix or a CSC / MATLAB layout ("per-rank reading needs a
 * CSR layout": ask cmrs_h5_rows_readable first); CMRS_E_LIMIT, CMRS_E_NOMEM
 * as the whole-file reader. On failure *sys holds nothing (zeroed) and
 * *row0, *n, *nnz_global are 0. */
cmrs_code cmrs_h5_read_rows(const char *path, const cmrs_read_opts *opts,
                            int part, int nparts, cmrs_system *sys,
                            int64_t *row0, int64_t *n, int64_t *nnz_global);

#ifdef __cplusplus
}
#endif

#endif
