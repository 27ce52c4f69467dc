/* Internal to the readers (io/system.c, io/h5_read.c, io/h5_rows.c,
 * io/mm_read.c), their tests and the fuzz targets: not part of the public
 * contract. */
#ifndef CMRS_READERS_H
#define CMRS_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/memory.h"
#include "linsys.h"

/* Reads the system from an HDF5 file that is already open (hid_t file).
 * `name` stands for the file in messages. Fills A, b (or leaves b NULL when
 * the file has none and opts->rhs is NULL), x0 and layout; on failure *sys
 * holds nothing. */
cmrs_code cmrs_h5_read_system(int64_t file, const char *name,
                              const cmrs_read_opts *opts, cmrs_system *sys);

/* Refuses a path that cannot be opened for reading or is a directory
 * (CMRS_E_INPUT, "FILE: cannot open: REASON"). */
cmrs_code cmrs_check_readable(const char *path);
/* Opens an HDF5 file read-only into *file (a hid_t; close with H5Fclose);
 * fails with CMRS_E_INPUT and HDF5's innermost reason. */
cmrs_code cmrs_h5_open_file(const char *path, int64_t *file);

/* Turns HDF5's automatic error-stack printing off (we report our own one-line
 * messages). Idempotent; every HDF5 entry point of ours calls it. */
void cmrs_h5_quiet(void);
/* The innermost message on HDF5's error stack (its reason, e.g. "unable to
 * lock file" or "truncated file"), or "" when the stack is empty. */
void cmrs_h5_error_text(char *buf, size_t n);

/* cmrs_mm_read_matrix with the command's needs (require_square, the
 * vectors of opts->rhs / opts->x0, work_vectors) checked by
 * cmrs_check_declared before anything is allocated. */
cmrs_code cmrs_mm_read_matrix_with(const char *path, const cmrs_read_opts *o,
                                   cmrs_csr *A);
/* A vector file that must hold `rows` entries (checked before anything is
 * allocated); `what` names it in messages ("right-hand side"). */
cmrs_code cmrs_mm_read_vector_of(const char *path, int64_t rows,
                                 const char *what, double **v);

/* 1 when the file starts with a "%%MatrixMarket" banner (read through zlib
 * when built with it, so a .mtx.gz counts), else 0. */
int cmrs_mm_has_banner(const char *path);
/* 1 when the file starts with the gzip magic bytes. */
int cmrs_is_gzip(const char *path);

/* What a matrix file declares (header, dataset dimensions, attributes),
 * checked by cmrs_check_declared before anything sized by it is read or
 * allocated. */
typedef struct cmrs_declared {
    const char *name;      /* the file, for messages */
    const char *what;      /* where the sizes come from ("/A", "line 2") */
    int64_t rows, cols;
    int64_t entries;       /* entries stored in the file */
    int64_t max_nonzeros;  /* the most nonzeros they give (symmetric
                              storage: twice the entries) */
    double read_bytes;     /* the reader's arrays beside the final CSR at its
                              peak (Matrix Market: the entries as read) */
    int has_x0;            /* an initial guess will be read */
    int generate_b;        /* no right-hand side: b = A*1 will be made */
} cmrs_declared;

/* Refuses a declaration that is inconsistent on its face (CMRS_E_INPUT:
 * more entries than rows * cols; with opts->require_square a non-square
 * shape, or fewer nonzeros than rows, which leaves a row empty and A
 * singular), then one whose estimated host memory (the CSR, the vectors,
 * opts->work_vectors) exceeds cmrs_mem_available() (CMRS_E_NOMEM). */
cmrs_code cmrs_check_declared(const cmrs_declared *d,
                              const cmrs_read_opts *opts);
/* Its checks of the declaration on its face alone (no memory estimate):
 * for a reader that holds only part of what the file declares (h5_rows.c),
 * which checks the memory of that part with cmrs_check_declared. */
cmrs_code cmrs_check_declared_shape(const cmrs_declared *d,
                                    const cmrs_read_opts *opts);

/* The message of a non-square matrix given to a solver. */
cmrs_code cmrs_fail_not_square(const char *name, int64_t rows, int64_t cols);

/* Bytes a CSR matrix of rows x nnz takes on the host, plus `vectors` double
 * vectors of length rows (as a double: cannot overflow). */
double cmrs_csr_bytes(int64_t rows, int64_t nnz, int vectors);

/* Fails with CMRS_E_INPUT naming name/what and the first non-finite
 * entry (v[i] is entry first + i of what). */
cmrs_code cmrs_check_finite(const char *name, const char *what,
                            const double *v, int64_t n, int64_t first);

/* 1 when every row is strictly increasing in column (sorted, no
 * duplicates), so cmrs_csr_sort_sum_duplicates can be skipped. */
int cmrs_csr_is_sorted(const cmrs_csr *A);

#endif
