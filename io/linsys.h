/* A linear system A x = b as the readers fill it, the options of a read,
 * and its release: what the readers (system.c, h5_read.c, mm_read.c) share,
 * below the reader that picks among them (system.h). */
#ifndef CMRS_IO_LINSYS_H
#define CMRS_IO_LINSYS_H

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmrs_system {
    cmrs_csr A;
    double *b;        /* A.rows entries, or NULL when the file has none: the
                         reader takes b or nothing; cmrs_system_rhs_ones
                         (cases/cases.h) makes b = A*1 above io/ */
    double *x0;       /* A.rows entries, or NULL when the file has none */
    int b_generated;  /* 1: b = A*1 from cmrs_system_rhs_ones */
    char layout[32];  /* "native", "anndata", "h5sparse", "matlab", "mtx" */
} cmrs_system;

typedef struct cmrs_read_opts {
    const char *matrix;  /* HDF5 group of A; NULL means "A" */
    const char *rhs;     /* HDF5 dataset of b (NULL: "b"); for a Matrix
                            Market matrix, the path of a .mtx vector file */
    const char *x0;      /* HDF5 dataset of x0 (NULL: "x0" if present); for
                            Matrix Market, a .mtx vector file or NULL */
    int require_square;  /* refuse a non-square matrix, or one with fewer
                            nonzeros than rows (solvers need it) */
    int work_vectors;    /* double vectors of `rows` entries the command
                            allocates after the read: counted in the memory
                            estimate made before anything is allocated */
    int pinned_matrix;   /* HDF5 CSR: A's arrays in page-locked memory
                            where the GPU gives it (cmrs_csr_alloc_pinned),
                            so its upload runs at the DMA's speed; for a
                            reader whose runtime is started (pinning waits
                            for it otherwise) */
} cmrs_read_opts;

void cmrs_system_free(cmrs_system *sys); /* NULL-safe; zeroes *sys */

#ifdef __cplusplus
}
#endif

#endif
