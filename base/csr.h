/* The host CSR matrix: the one in-memory form every reader produces and every
 * format (CMRS, cuSPARSE, CPU reference) is built from.
 *
 * Invariants of a valid matrix (cmrs_csr_validate checks them all):
 *   rows, cols >= 0; cols <= INT32_MAX; indptr[0] == 0; indptr non-decreasing;
 *   indptr[rows] == nnz; 0 <= indices[k] < cols; values finite;
 *   column indices strictly increasing within each row (sorted, no duplicates).
 */
#ifndef CMRS_CSR_H
#define CMRS_CSR_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmrs_csr {
    int64_t rows, cols, nnz;
    int64_t *indptr;  /* rows + 1 entries */
    int32_t *indices; /* nnz column indices, 0-based, sorted in each row */
    double *values;   /* nnz values */
} cmrs_csr;

/* Row-length statistics and structural properties (cmrs info). */
typedef struct cmrs_csr_stats {
    int64_t rows, cols, nnz;
    double mu, sigma;             /* mean and std deviation of row length */
    int64_t min_row, max_row;     /* shortest and longest row */
    int64_t empty_rows;
    int structurally_symmetric;   /* pattern of A equals pattern of A^T */
    int symmetric;                /* values too (exactly equal) */
    int64_t missing_diagonal;     /* rows with no stored diagonal entry */
    int64_t nonpositive_diagonal; /* rows whose diagonal is <= 0 or missing */
    int64_t first_bad_diagonal;   /* first such row, -1 if none */
    int64_t dominant_rows;        /* rows with |a_ii| >= sum_{j!=i} |a_ij| */
    int64_t strictly_dominant_rows;
} cmrs_csr_stats;

/* Allocates arrays for a rows x cols matrix with nnz entries; contents are
 * uninitialised except indptr[0] = 0. Fails with CMRS_E_LIMIT when a byte
 * count overflows, CMRS_E_NOMEM when malloc fails. Free with cmrs_csr_free. */
cmrs_code cmrs_csr_alloc(cmrs_csr *A, int64_t rows, int64_t cols, int64_t nnz);
/* The same in page-locked host memory where the GPU gives it (each array
 * falls back to malloc on its own): what the GPU back end then uploads
 * moves at the DMA's speed. The matrix arrays of a solve on the GPU
 * (io/linsys.h's pinned_matrix). */
cmrs_code cmrs_csr_alloc_pinned(cmrs_csr *A, int64_t rows, int64_t cols,
                                int64_t nnz);
/* Frees the arrays whichever way they were allocated; zeroes *A. */
void cmrs_csr_free(cmrs_csr *A);
/* free() for an array of a cmrs_csr: page-locked or malloc'd. Whoever
 * replaces one of a matrix's arrays frees the old one with this. */
void cmrs_host_free(void *p);
/* Deep copy into *dst (which is overwritten, not freed). */
cmrs_code cmrs_csr_copy(cmrs_csr *dst, const cmrs_csr *src);

/* Checks every invariant above. `what` names the source ("file.h5: /A") for
 * the message; the first violation found is reported as CMRS_E_INPUT. */
cmrs_code cmrs_csr_validate(const cmrs_csr *A, const char *what);

/* The first row i of A (valid indptr) where bad(A, i, ctx) holds, else
 * A->rows: the rows split evenly between threads (as many as the entries
 * call for), each chunk
 * stopping at its first such row, the smallest over the chunks. For the
 * checks that pass over every entry, whose message then comes from the
 * sequential check of that row alone. */
int64_t cmrs_csr_first_row(const cmrs_csr *A,
                           int (*bad)(const cmrs_csr *A, int64_t i,
                                      const void *ctx),
                           const void *ctx);

/* Sorts every row by column and sums duplicate entries (in place; nnz may
 * shrink). Used by readers whose input may be unsorted (Matrix Market, CSC). */
cmrs_code cmrs_csr_sort_sum_duplicates(cmrs_csr *A);

/* Transpose (also CSC <-> CSR conversion): *T is allocated. */
cmrs_code cmrs_csr_transpose(const cmrs_csr *A, cmrs_csr *T);

void cmrs_csr_stats_compute(const cmrs_csr *A, cmrs_csr_stats *s);
/* 1 when A equals its transpose, values included (rows sorted, no
 * duplicates): the stats' `symmetric` alone, at half the lookups and
 * stopping at the first mismatch (the CLI's CG warning, app/solve/symmetry.c). */
int cmrs_csr_is_symmetric(const cmrs_csr *A);

/* y = alpha A x + beta y (beta 0: y not read), in double, row by row in
 * index order: the one CSR product of the host (the CPU reference back
 * end's, spmv/ref.h, and b = A*1 or A*x_true of the readers and
 * generators). */
void cmrs_csr_spmv(const cmrs_csr *A, double alpha, const double *x,
                   double beta, double *y);

/* a_ij by binary search in the sorted row i; *found is set to 1 when the
 * entry is stored, else 0 (and 0.0 is returned). */
double cmrs_csr_lookup(const cmrs_csr *A, int64_t i, int32_t j, int *found);

/* Checked size arithmetic: returns 0 and stores a*b (or a+b) in *out, or
 * returns -1 on overflow of size_t. Every count read from a file is untrusted. */
int cmrs_mul_size(size_t a, size_t b, size_t *out);
int cmrs_add_size(size_t a, size_t b, size_t *out);

/* malloc of n elements of size sz with overflow check; NULL on failure. Never
 * returns NULL for n == 0 (allocates 1 byte) so NULL always means failure.
 * Arrays of 32 MiB and more are aligned to 2 MiB and advised to use
 * transparent huge pages (first touch ~2.7x faster; CMRS_HUGEPAGES=0: not).
 * Released with free(). */
void *cmrs_malloc_array(size_t n, size_t sz);

/* The one message for a value that does not fit in single precision
 * (CMRS_E_INPUT): "WHAT: value V at index I is " CMRS_FLOAT_RANGE_TEXT
 * " (...)"; the renumbered system (api/renumber.c) finds it by that text
 * to name the caller's entry. */
#define CMRS_FLOAT_RANGE_TEXT "outside the single precision range"
cmrs_code cmrs_float_range_error(const char *what, double v, int64_t i);
/* That error for the first of v[0 .. n) outside the float range (NaN and
 * Inf included), or CMRS_OK (the error state untouched). */
cmrs_code cmrs_check_float_range(const double *v, int64_t n,
                                 const char *what);

/* The rows taken in `order` (NULL: 0 .. rows-1) split into nparts blocks
 * (1 <= nparts <= rows) of consecutive rows balanced by entries, each at
 * least one row: block p is order[start[p] .. start[p+1]) (start has
 * nparts + 1 entries). Needs only indptr: the block partition's rule
 * (dist/partition.h), which a rank reading only its rows of a file
 * applies to the file's indptr (io/h5_rows.h). */
void cmrs_csr_row_blocks(const int64_t *indptr, int64_t rows,
                         const int64_t *order, int nparts, int64_t *start);

#ifdef __cplusplus
}
#endif

#endif
