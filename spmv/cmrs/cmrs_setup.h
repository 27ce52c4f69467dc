/* Setup shared by the two CMRS formats ("cmrs" in cmrs_basic.cu, "cmrs-mod"
 * in cmrs_mod.cu): option defaults and checks, the kernel variant chosen by
 * the CMRS_CMRS_VARIANT environment variable, conversion + upload, and the
 * grid size. Host code; allocates and synchronises (setup time only). */
#ifndef CMRS_CMRS_SETUP_H
#define CMRS_CMRS_SETUP_H

#include <stdint.h>

#include "cmrs_format.h"
#include "cmrs_rules.h"
#include "cmrs_reorder.h"
#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cmrs_row_offsets_fit's rule (cmrs_rules.h) for a matrix on the device,
 * by a reduction there (the largest such difference over the strips). */
cmrs_code cmrs_row_offsets_fit_dev(const cmrs_csr_view_d *M, int height,
                                   int *fits);
/* The same over int64 row offsets on the device. */
cmrs_code cmrs_row_offsets_fit_dev64(const int64_t *indptr_d, int64_t rows,
                                     int height, int *fits);

/* The matrix on the device in self->prec. */
typedef struct cmrs_mat_dev {
    uint32_t *strip_ptr_d; /* strips + 1 */
    uint32_t *colrow_d;    /* stored packed column/row */
    void *values_d;        /* stored float or double */
    uint16_t *row_off_d;   /* rows kernel only (else NULL): row r's start
                              minus its strip's start (CMRS-O) */
    int64_t rows, strips;
    int height;
    int slice_width;       /* sliced strips of one width (variant su): the
                              width, strip s at s * height * width; else 0 */
} cmrs_mat_dev;

void cmrs_mat_dev_free(cmrs_mat_dev *d); /* NULL-safe, idempotent */

/* The CSR arrays of the CSR-order layout d of nnz entries with values of
 * prec (cmrs_csr_get.cu): indptr_d (rows + 1), indices_d and values_d
 * (nnz, in double: float values widened, exactly), queued on stream. */
/* The same from the one-width sliced layout (d->slice_width > 0) and its
 * permutation perm_d, synchronised on stream before it returns. */
cmrs_code cmrs_mat_dev_csr_get_sliced(const cmrs_mat_dev *d,
                                      const int32_t *perm_d, cmrs_prec prec,
                                      cmrs_stream stream, int32_t *indptr_d,
                                      int32_t *indices_d, double *values_d);
cmrs_code cmrs_mat_dev_csr_get(const cmrs_mat_dev *d, int64_t nnz,
                               cmrs_prec prec, cmrs_stream stream,
                               int32_t *indptr_d, int32_t *indices_d,
                               double *values_d);
/* The same for A from the CSR-order layout d of B = P A P^T and its maps (r; entry_of_d: B entry -> A entry): B's rows are
 * read as above and each entry put back in its place in A, its column
 * renumbered. Allocates scratch; synchronises stream. */
cmrs_code cmrs_mat_dev_csr_get_reordered(const cmrs_mat_dev *d,
                                         const cmrs_reorder_dev *r,
                                         const int32_t *entry_of_d,
                                         int64_t nnz, cmrs_prec prec,
                                         cmrs_stream stream,
                                         int32_t *indptr_d,
                                         int32_t *indices_d,
                                         double *values_d);

/* The state both formats keep in self->impl. */
/* opts.values32 (spmv.h): mat.values_d keeps A's double values (what
 * value updates write and the read-back reads) and the rows kernel reads
 * these instead: each stored value rounded to float and, per stored row,
 * the float correction c_r = sum_j (a_rj - fl(a_rj)) that the kernel adds
 * as c_r x_r. Why: the products move 8 instead of 12 bytes per entry, and
 * A' = fl(A) + diag(c) keeps A's row sums, so A' - A is a graph-Laplacian
 * with weights below float's epsilon times A's: for a symmetric M-matrix
 * (the pressure equation) |x'(A' - A)x| <= eps x'Ax, whatever A's
 * condition, where rounding the entries alone shifts A's smallest
 * eigenvalues by more than their size (generated vessels, FEM). */
typedef struct cmrs_values32 {
    float *values_d;  /* stored entries (mat.values_d's length) */
    float *corr_d;    /* rows: c_r */
    double *ones_d;   /* rows: 1, and the row sums' scratch (cmrs_rows_narrow) */
    double *sums_d;   /* rows */
    unsigned long long *bad_d; /* the narrowing's first stored entry
                                  beyond float (~0: none) */
} cmrs_values32;

typedef struct cmrs_impl {
    cmrs_mat_dev mat;
    cmrs_variant variant; /* basic kernel only */
    int grid, block;      /* launch configuration */
    size_t smem;          /* dynamic shared memory per block */
    int64_t tile_strips;  /* tile kernel: strips per tile */
    int64_t tiles;        /* tile kernel: ceil(strips / tile_strips) */
    int dot_grid;         /* rows, tile kernels with x'y: blocks (one wave) */
    int32_t *perm_d;      /* stored entry -> CSR entry (-1: padding), for
                             value updates of reordered layouts; NULL when
                             the layout keeps CSR order */
    cmrs_reorder_dev reorder; /* row maps and P x, B P x where the matrix
                                 is stored as B = P A P^T (variant.reorder
                                 taken); all NULL otherwise */
    int block_by_rule;    /* the block size was left to the rules */
    int slice_asked;      /* opts.slice as the caller set it */
    cmrs_values32 v32;    /* opts.values32 taken (rows kernel): what the
                             products read; all NULL otherwise */
} cmrs_impl;

/* The host half of setup: allocates self->impl, resolves the options, reads
 * the variant (basic only), converts and uploads A, and sets self->strips,
 * stored_entries and device_bytes. The kernel half (grid, smem) is left to
 * the format. On failure self->impl stays for cmrs_impl_destroy. */
cmrs_code cmrs_impl_setup(cmrs_spmv *self, const cmrs_csr *A, int is_mod);
/* The same for the basic format ("cmrs") from a matrix on the device
 * (setup_dev), with no host copy: the same options, kernel and arrays as
 * cmrs_impl_setup on the same matrix, the kernel choice from M's counts
 * and cmrs_row_offsets_fit_dev, the arrays from cmrs_mat_dev_build_view.
 * Only the CSR-order layout: sorted strips (opts.sorted > 0) are
 * reordered on the host, so there the caller downloads M instead
 * (cmrs_spmv_setup_host_copy); asked for them here: CMRS_E_INTERNAL. */
cmrs_code cmrs_impl_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M);
/* The same for cmrs-mod (its setup_dev): the layout built on the GPU
 * (cmrs_mat_dev_build_mod), the values stored through its permutation. */
cmrs_code cmrs_impl_setup_mod_dev(cmrs_spmv *self, const cmrs_csr_view_d *M);
void cmrs_impl_destroy(cmrs_spmv *self); /* the formats' destroy */
/* The formats' value_store (spmv.h): the values through perm_d (reordered
 * layouts) or in CSR order. */
void cmrs_impl_value_store(cmrs_spmv *self, cmrs_value_store *st);

/* The rows kernel (cmrs_rows.cu): launch configuration (grid and
 * dot_grid in self->impl, self->dot_parts) and y = alpha*A*x + beta*y;
 * partials_d non-NULL (apply_dot: alpha 1, beta 0) adds one partial sum of
 * x'y per block of dot_grid blocks. */
cmrs_code cmrs_rows_configure(cmrs_spmv *self);
cmrs_code cmrs_rows_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d, double *partials_d);
/* opts.values32 > 0: cmrs_values32 allocated and filled from mat.values_d
 * (the rows kernel on a square matrix in double, else CMRS_E_USAGE);
 * else nothing. */
cmrs_code cmrs_rows_values32_take(cmrs_spmv *self);
/* cmrs_values32 refilled from mat.values_d (after new values), on
 * self->stream: what the value store's `after` runs. */
cmrs_code cmrs_rows_narrow(cmrs_spmv *self);
void cmrs_values32_free(cmrs_values32 *v); /* NULL-safe, idempotent */

/* The tile kernel (cmrs_tile.cu): the same two as the rows kernel's
 * (grid, smem and dot_grid in self->impl). */
cmrs_code cmrs_tile_configure(cmrs_spmv *self);
cmrs_code cmrs_tile_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d, double *partials_d);

/* What cmrs_mat_dev_build makes in place of the CSR-order layout: with
 * mode 2 ("su") or, mode -1, where cmrs_slice_takes says so, the
 * one-width sliced layout (cmrs_mat_from_csr_sliced(A, h, 1, ...), built
 * by cmrs_mat_dev_slice; d->slice_width > 0 then) and its permutation
 * perm_d (stored entry -> CSR entry, -1: padding; the caller owns it);
 * mode 0 or a NULL request: CSR order. check_offsets (with row offsets
 * asked): the build checks cmrs_row_offsets_fit's rule itself, on the
 * device once the row offsets are there, instead of the caller on the
 * host; where they do not fit it makes no row offsets and no slices, and
 * says so in offsets_fit (else 1). */
typedef struct cmrs_slice_req {
    int mode;
    int32_t *perm_d;
    int check_offsets, offsets_fit;
} cmrs_slice_req;


/* The longest row of int64 row offsets on the device (0 without rows). */
cmrs_code cmrs_dev_longest_row(const int64_t *indptr_d, int64_t rows,
                               int64_t *longest);
/* The one-width layout of width `width` (>= every row's length) from CSR
 * arrays on the device (int64 offsets, uint32 columns, values in prec),
 * into fresh arrays *d and *perm_d (freed on failure). */
cmrs_code cmrs_mat_dev_slice(const int64_t *indptr_d, const uint32_t *cols_d,
                             const void *vals_d, int64_t rows, int height,
                             int64_t width, cmrs_prec prec, cmrs_mat_dev *d,
                             int32_t **perm_d);
/* The same in two halves (cmrs_mat_dev_build's pipeline): _alloc makes
 * *d's arrays and *perm_d for rows x width entries (freed on failure),
 * _rows fills rows [r0, r1) on `stream` from int64 row offsets and the
 * columns and values of a chunk whose first entry is A's entry e0. */
cmrs_code cmrs_mat_dev_slice_alloc(int64_t rows, int height, int64_t width,
                                   cmrs_prec prec, cmrs_mat_dev *d,
                                   int32_t **perm_d);
cmrs_code cmrs_mat_dev_slice_rows(const int64_t *indptr_d,
                                  const uint32_t *cols_d, const void *vals_d,
                                  int64_t r0, int64_t r1, int64_t e0,
                                  cmrs_prec prec, cmrs_mat_dev *d,
                                  int32_t *perm_d, cmrs_stream stream);

/* The basic layout in CSR order (sorted off) built on the GPU from A's
 * arrays: uploads indptr (scratch), indices (packed in place into colrow)
 * and values, then one kernel writes the strip pointers and packs the row
 * in strip into each column word. Bit-identical to cmrs_mat_from_csr(A, h,
 * 0, ...) (tests/spmv/cmrs/test_gpu_cmrs_convert.c); colrow and values carry
 * CMRS_TILE_PAD zero entries past nnz; with row_offsets (the caller checked
 * cmrs_row_offsets_fit, or asks the build to: slice->check_offsets) also
 * the rows kernel's 16-bit row offsets.
 * *convert_s / *convert_bytes: the kernel's time (CUDA events) and the
 * bytes it reads and writes.
 * With CMRS_CONVERT_CHUNK_ENTRIES=N (unset or 0: never, the default) a
 * host matrix in double of more than N entries goes up N entries' rows
 * at a time, each chunk converted on a stream of its own while the next
 * one travels, sliced through two chunk-sized stages instead of a whole
 * staged copy (cmrs_convert.cu): the same arrays; *convert_s the chunks'
 * kernels. */
cmrs_code cmrs_mat_dev_build(const cmrs_csr *A, int height, cmrs_prec prec,
                             int row_offsets, cmrs_slice_req *slice,
                             cmrs_mat_dev *d, double *convert_s,
                             double *convert_bytes);
/* The same, and the diagonal of tap (a cmrs_spmv, or NULL: none) found on
 * the way from the staged CSR arrays (cmrs_spmv_diag_tap: where
 * tap->want_diag asks); in single precision the values are then
 * range-checked on the device, with the host check's message. */
cmrs_code cmrs_mat_dev_build_tap(const cmrs_csr *A, int height,
                                 cmrs_prec prec, int row_offsets,
                                 cmrs_slice_req *slice, cmrs_spmv *tap,
                                 cmrs_mat_dev *d, double *convert_s,
                                 double *convert_bytes);
/* The same from a matrix on the device, with no host copy: its int32 row
 * offsets widened into the int64 scratch by a kernel, its indices and
 * values copied (converted in single precision, with the host path's
 * range check) on the device, then the same kernel: the same arrays and
 * figures as cmrs_mat_dev_build on the same matrix. */
cmrs_code cmrs_mat_dev_build_view(const cmrs_csr_view_d *M, int height,
                                  cmrs_prec prec, int row_offsets,
                                  cmrs_slice_req *slice, cmrs_mat_dev *d,
                                  double *convert_s, double *convert_bytes);

/* cmrs-mod's layout (cmrs_mat_from_csr_mod: strips padded to 32-entry
 * chunks, sorted by column when `sorted`) built on the GPU from M, whose
 * rows are sorted by column: d's strip pointers and packed words, *perm_d
 * (stored entry -> M's entry, -1: padding) and *stored, the same arrays
 * as the host build uploads (cmrs_mod_dev.cu). d->values_d is left to the
 * caller. Synchronises. */
cmrs_code cmrs_mat_dev_build_mod(const cmrs_csr_view_d *M, int height,
                                 int modulo, int sorted, cmrs_mat_dev *d,
                                 int32_t **perm_d, int64_t *stored);

/* The segmented-scan kernel (cmrs_seg.cu): launch configuration (sets
 * grid and smem in self->impl) and y = alpha*A*x + beta*y. */
cmrs_code cmrs_seg_configure(cmrs_spmv *self);
cmrs_code cmrs_seg_apply(cmrs_spmv *self, double alpha, const void *x_d,
                         double beta, void *y_d);

/* Lets the kernel func use `bytes` of dynamic shared memory per block
 * (opting in above the default 48 KB). More than the GPU allows one block:
 * CMRS_E_USAGE naming `what`. */
cmrs_code cmrs_allow_smem(const void *func, size_t bytes, const char *what);

/* Blocks for `strips` strips (one warp each) of blocks of `block` threads
 * with `per_sm` resident blocks per SM: enough for every strip, at most two
 * waves (warps then stride over strips). Fails if per_sm == 0. */
cmrs_code cmrs_grid_size(int64_t strips, int block, int per_sm,
                         const char *what, int *grid);

#ifdef __cplusplus
}
#endif

#endif
