/* The pieces of the HDF5 sparse-matrix reader (io/h5_read.c) that a reader
 * of part of a file shares with it (io/h5_rows.c): where a matrix's arrays
 * are and what they mean, opening them with their sizes checked against
 * each other, and the checks of what is read. Internal to io/; messages
 * read "FILE: /A/indptr: problem", as the whole-file reader's. */
#ifndef CMRS_IO_H5_SPARSE_H
#define CMRS_IO_H5_SPARSE_H

#include <stdint.h>

#include "base/csr.h"
#include "h5_util.h"
#include "linsys.h"

/* Where the compressed arrays of one sparse matrix are and what they mean. */
typedef struct cmrs_h5_sparse {
    const char *file;        /* for messages */
    char group[512];         /* full name of the matrix group */
    int csc;                 /* pointers index columns (CSC) */
    int matlab;              /* MATLAB: cols from len(jc)-1; ir/data optional */
    int64_t rows, cols;      /* shape of A (cols unknown for MATLAB: -1) */
    const char *ptr, *idx, *val; /* dataset names in the group */
    const char *layout;      /* "native", "anndata", "h5sparse", "matlab" */
} cmrs_h5_sparse;

/* The open pointer, index and value arrays (dset -1 when not open). */
typedef struct cmrs_h5_sparse_arrays {
    cmrs_h5_array ptr, idx, val;
} cmrs_h5_sparse_arrays;

/* The vectors beside A: b and x0 (dset -1 when absent). */
typedef struct cmrs_h5_vectors { cmrs_h5_array b, x0; } cmrs_h5_vectors;

/* Opens group `name` of the open file (d->file names it in messages) into
 * *g (close with H5Oclose) and sets d->group; refuses a missing group or an
 * object that is not a group. */
cmrs_code cmrs_h5_sparse_open_group(int64_t file, const char *name,
                                    cmrs_h5_sparse *d, int64_t *g);

/* The layout of group g from its attributes (MATLAB_sparse, h5sparse_format,
 * encoding-type, else the native "shape"): sets everything in *d but file
 * and group. */
cmrs_code cmrs_h5_sparse_describe(int64_t g, cmrs_h5_sparse *d);

/* Opens the three arrays (close with cmrs_h5_sparse_close, also on failure)
 * and checks their lengths against each other and the shape; sets *major
 * (pointer count - 1: rows, or columns for CSC) and *nnz. */
cmrs_code cmrs_h5_sparse_open(int64_t g, cmrs_h5_sparse *d,
                              cmrs_h5_sparse_arrays *s, int64_t *major,
                              int64_t *nnz);
void cmrs_h5_sparse_close(cmrs_h5_sparse_arrays *s); /* idempotent */

/* The first and last pointers alone (two elements read): 0 and nnz, so that
 * nothing is allocated for arrays that disagree. */
cmrs_code cmrs_h5_sparse_check_ends(const cmrs_h5_sparse *d,
                                    const cmrs_h5_sparse_arrays *s,
                                    int64_t major, int64_t nnz);

/* The pointer array p of n+1 entries must run from 0 up to nnz without
 * decreasing; `name` is its dataset's full name. */
cmrs_code cmrs_h5_check_pointers(const cmrs_h5_sparse *d, const char *name,
                                 const int64_t *p, int64_t n, int64_t nnz);

/* Every index of T (the CSR of A, or of A^T for CSC) in [0, T->cols). T may
 * be a block of the file's rows: row0 and k0 are the file's row and entry
 * of T's first, so that messages name the file's positions. */
cmrs_code cmrs_h5_check_indices(const cmrs_h5_sparse *d, const char *name,
                                const cmrs_csr *T, int64_t row0, int64_t k0);

/* Opens b and x0 (opts->rhs / opts->x0; absent defaults leave dset -1) and
 * checks their lengths against d->rows. Close with cmrs_h5_vectors_close,
 * also on failure. */
cmrs_code cmrs_h5_vectors_open(int64_t file, const cmrs_h5_sparse *d,
                               const cmrs_read_opts *o, cmrs_h5_vectors *v);
void cmrs_h5_vectors_close(cmrs_h5_vectors *v); /* idempotent */
/* Entries first .. first + count - 1 of the open vector a (absent: *v
 * stays NULL), finite (a message names the file's entry); its length was
 * checked when opened and its memory counted by the caller. */
cmrs_code cmrs_h5_vector_read(const cmrs_h5_array *a, const char *fname,
                              int64_t first, int64_t count, double **v);

/* Sorted rows and summed duplicates (scipy allows both in a CSR), then the
 * full invariant check; row0 >= 0: A is the block of rows from row0 (the
 * messages say so). */
cmrs_code cmrs_h5_sparse_finish(const cmrs_h5_sparse *d, cmrs_csr *A,
                                int64_t row0);

#endif
