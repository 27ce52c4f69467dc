/* The cmrs format's locality reordering (token "reorder"; docs/CMRS.md):
 * where neighbouring rows share no columns (a matrix numbered at random),
 * every x gather of a thread-per-row kernel misses L1 and most miss L2.
 * The format then stores B = P A P^T, P a breadth-first order of A's graph
 * built on the GPU (below), and each product runs
 *
 *   xp = P x (gather), yp = B xp (the chosen kernel), y = alpha P^T yp +
 *   beta y (gather),
 *
 * so the user's x and y keep their order and y = alpha A x + beta y is
 * exact up to the order of the sums in a row. Both gathers read one
 * vector at random and write one in order: n random loads per product
 * instead of nnz. Value updates go through the entry map (B entry -> A
 * entry) as the value store's permutation; the CSR round trip stays exact.
 *
 * The rule (cmrs_reorder_wanted) looks at how many off-diagonal columns of
 * a row lie within CMRS_REORDER_NEAR of a column of the row before it (the
 * L1 line reuse the rows kernel lives on), over CMRS_REORDER_SAMPLES
 * evenly spaced row pairs: the same count on the host and, for a matrix
 * set up from device arrays, on the GPU. */
#ifndef CMRS_CMRS_REORDER_H
#define CMRS_CMRS_REORDER_H

#include <stdint.h>

#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Columns at most this far apart count as sharing L1 lines (32 doubles:
 * two or three 128-byte lines). */
#define CMRS_REORDER_NEAR 32
/* Row pairs the rule samples (all of them on smaller matrices). */
#define CMRS_REORDER_SAMPLES 4096
/* Entries of a row compared against at most this many of the row before
 * (long rows: a prefix; enough to see a numbering's locality). */
#define CMRS_REORDER_SCAN 64
/* Below this share of near columns the rule reorders... */
#define CMRS_REORDER_MAX_NEAR 0.5
/* ...matrices of at least this many rows (square, at most INT32_MAX
 * entries: the entry map is int32). Measured on an H200 (2026-11-24,
 * docs/BENCHMARKS.md), random-order 7-point Poisson in double, reordered
 * against not: 1M rows 52.2 / 53.5 us against 58.0 / 57.8 (two runs),
 * 512K rows 35.2 against 32.8, 125K rows 12.5 against 11.1 (the two
 * gathers weigh more on small matrices). */
#define CMRS_REORDER_MIN_ROWS 750000

/* How many of row b's columns other than b_row (the diagonal) lie within
 * CMRS_REORDER_NEAR of one of row a's first CMRS_REORDER_SCAN columns
 * (*counted: how many of b's were looked at). Host and device alike. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int64_t cmrs_reorder_near(const int32_t *a, int64_t na,
                                        const int32_t *b, int64_t nb,
                                        int64_t b_row, int64_t *counted)
{
    int64_t near = 0, seen = 0;
    if (na > CMRS_REORDER_SCAN) na = CMRS_REORDER_SCAN;
    if (nb > CMRS_REORDER_SCAN) nb = CMRS_REORDER_SCAN;
    for (int64_t j = 0; j < nb; ++j) {
        if (b[j] == b_row) continue;
        ++seen;
        for (int64_t i = 0; i < na; ++i) {
            const int64_t d = (int64_t)b[j] - a[i];
            if (d <= CMRS_REORDER_NEAR && d >= -CMRS_REORDER_NEAR) {
                ++near;
                break;
            }
        }
    }
    *counted = seen;
    return near;
}

/* The first row of sampled pair s (pairs (r, r + 1)) of `pairs`. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int64_t cmrs_reorder_sample_row(int64_t s, int64_t pairs,
                                              int64_t rows)
{
    return pairs >= rows - 1 ? s : s * (rows - 1) / pairs;
}

/* Sampled pairs for a matrix of `rows` rows. */
static inline int64_t cmrs_reorder_pairs(int64_t rows)
{
    return rows - 1 < CMRS_REORDER_SAMPLES ? (rows > 1 ? rows - 1 : 0)
                                           : CMRS_REORDER_SAMPLES;
}

/* The share of near columns of A (1 where nothing was counted). */
double cmrs_reorder_near_share(const cmrs_csr *A);
/* The same count over a matrix on the device. */
cmrs_code cmrs_reorder_near_share_dev(const cmrs_csr_view_d *M,
                                      double *share);
/* Whether to reorder: token 1 (named "reorder") on any square matrix of
 * at most INT32_MAX entries, 0 ("noreorder") never, -1 by the rule above
 * (near_share: what the two functions above found). */
int cmrs_reorder_wanted(int token, int64_t rows, int64_t cols, int64_t nnz,
                        double near_share);

/* The order: a breadth-first numbering of A's graph (row i's neighbours:
 * its columns other than i), level by level, each level's nodes ordered
 * by the first node of the level before that lists them, then by that
 * node's row order (a Cuthill-McKee order without its degree sort, which
 * the GPU builds level-synchronously with the same result). Searches start
 * from the lowest unnumbered nodes in index order: one the first time,
 * then twice as many each time the graph has more (so many small
 * components cost few searches). Rows with no off-diagonal entry come
 * last, in index order. */
/* B = P A P^T with its maps: B's row r is A's row old_of_new[r], its
 * entries in A's order, columns renumbered. */
typedef struct cmrs_reordered {
    cmrs_csr B;
    int32_t *new_of_old; /* A's row i is B's row new_of_old[i] */
    int32_t *old_of_new; /* B's row r is A's row old_of_new[r] */
    int32_t *entry_of;   /* B's entry j is A's entry entry_of[j] */
} cmrs_reordered;

/* The host reference (the tests' check of the GPU's build). A square,
 * nnz <= INT32_MAX. */
cmrs_code cmrs_reordered_build(const cmrs_csr *A, cmrs_reordered *out);
void cmrs_reordered_free(cmrs_reordered *r); /* NULL-safe, idempotent */

/* The same on the GPU from device arrays (what setup uses): B's arrays
 * (B.indptr_d rows + 1, B.indices_d, B.values_d nnz) and the maps, all
 * owned. Equal bit for bit to cmrs_reordered_build's. */
typedef struct cmrs_reordered_d {
    cmrs_csr_view_d B;
    int32_t *new_of_old_d, *old_of_new_d, *entry_of_d;
} cmrs_reordered_d;
cmrs_code cmrs_reordered_build_dev(const cmrs_csr_view_d *M,
                                   cmrs_reordered_d *out);
void cmrs_reordered_dev_free(cmrs_reordered_d *r); /* NULL-safe */
/* B's rows sorted by column in place, the entry map along (r from
 * cmrs_reordered_build, which leaves them in A's order): the host twin of
 * cmrs_reordered_sort_rows_dev, by threads. */
void cmrs_reordered_sort_rows(cmrs_reordered *r);
/* B's rows sorted by column in place (r built from M by
 * cmrs_reordered_build_dev, which leaves them in A's order), its entry
 * map along and its values gathered from M's again: the CSR a caller
 * hands on as a cmrs_csr (whose rows are sorted: api/renumber.c). On
 * `stream`, synchronised; scratch of 20 bytes an entry. */
cmrs_code cmrs_reordered_sort_rows_dev(cmrs_reordered_d *r,
                                       const cmrs_csr_view_d *M,
                                       cmrs_stream stream);
/* cmrs_reordered_build's result with B's rows sorted by column, made on
 * the GPU (A uploaded, ordered, permuted and sorted there; B and the row
 * map downloaded): equal to the host's build sorted alike, but for
 * new_of_old and entry_of, left NULL. *maps: the three maps' device
 * copies (its B empty), the caller's to free (cmrs_reordered_dev_free).
 * Without CUDA: CMRS_E_NODEVICE. */
cmrs_code cmrs_reordered_build_sorted_gpu(const cmrs_csr *A,
                                          cmrs_reordered *out,
                                          cmrs_reordered_d *maps);

/* dst_indptr_d (n + 1 int32) = the row offsets of the matrix whose row r
 * is row map_d[r] of the one with row offsets src_indptr_d: the lengths
 * permuted, then scanned on `stream`, which is synchronised. What B's
 * offsets are made of (map old_of_new) and A's again from B's
 * (new_of_old, cmrs_mat_dev_csr_get_reordered). */
cmrs_code cmrs_reorder_indptr(int64_t n, const int32_t *src_indptr_d,
                              const int32_t *map_d, int32_t *dst_indptr_d,
                              cmrs_stream stream);

/* What a reordered instance keeps on the device. */
typedef struct cmrs_reorder_dev {
    int32_t *old_of_new_d; /* rows */
    int32_t *new_of_old_d; /* rows */
    void *xp_d, *yp_d;     /* rows values of the precision: P x, B P x */
} cmrs_reorder_dev;

/* Takes r's row maps (r keeps the rest) and allocates xp, yp (rows of
 * prec); *bytes: what d holds. */
cmrs_code cmrs_reorder_dev_make(cmrs_reordered_d *r, cmrs_prec prec,
                                cmrs_reorder_dev *d, size_t *bytes);
void cmrs_reorder_dev_free(cmrs_reorder_dev *d); /* NULL-safe, idempotent */

/* dst_d[i] = src_d[map_d[i]] for i < n, values of prec, queued on stream
 * (the value stores' gather, unchecked): the reordering's gathers, and a
 * renumbered system's vectors and values (api/renumber.c). */
cmrs_code cmrs_reorder_gather(const int32_t *map_d, int64_t n, cmrs_prec prec,
                              const void *src_d, void *dst_d,
                              cmrs_stream stream);
/* d->xp = P x on stream (rows values). */
cmrs_code cmrs_reorder_gather_x(const cmrs_reorder_dev *d, cmrs_prec prec,
                                int64_t rows, const void *x_d,
                                cmrs_stream stream);
/* y = alpha P^T d->yp + beta y on stream (beta 0: y not read). */
cmrs_code cmrs_reorder_put_y(const cmrs_reorder_dev *d, cmrs_prec prec,
                             int64_t rows, double alpha, double beta,
                             void *y_d, cmrs_stream stream);

#ifdef __cplusplus
}
#endif

#endif
