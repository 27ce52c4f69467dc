/* The SpMV back-end interface: one table of functions per storage format.
 *
 * Every format (cmrs, cmrs-mod, cusparse, csr-scalar, csr-vector, ...) is a
 * cmrs_spmv_ops in its own file, listed once in spmv/registry.c. The solver,
 * `cmrs bench` and the tests use only this header, so adding a format touches
 * neither. All device allocation happens in setup; apply never allocates, so
 * it can be timed alone and captured in a CUDA graph.
 */
#ifndef CMRS_SPMV_H
#define CMRS_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "base/csr.h"
#include "base/device.h" /* cmrs_stream: no CUDA header above the GPU code */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cmrs_prec {
    CMRS_PREC_DOUBLE = 0, /* values and vectors float64 */
    CMRS_PREC_SINGLE = 1  /* values and vectors float32 */
    /* room for a mixed mode (float values, double vectors) */
} cmrs_prec;

/* Bytes of one stored value (sv in the eta formulas). */
size_t cmrs_prec_value_bytes(cmrs_prec p);
/* values[i] of an array of p's values (host memory), widened to double. */
double cmrs_prec_value_at(cmrs_prec p, const void *values, int64_t i);
/* u, the unit roundoff of p's arithmetic (the error bounds' unit). */
double cmrs_prec_unit_roundoff(cmrs_prec p);
const char *cmrs_prec_name(cmrs_prec p);

/* Tuning knobs; 0 means "the format's default". Formats ignore knobs that
 * do not apply to them. */
typedef struct cmrs_spmv_opts {
    int height;       /* CMRS strip height, 1..16 */
    int block_size;   /* threads per block (multiple of 32, <= 1024) */
    int modulo;       /* cmrs-mod buffer size: 2, 4, 8, 16 or 32 */
    int sorted;       /* 1: sort entries in a strip by column; -1: off */
    int cusparse_alg; /* 1: CUSPARSE_SPMV_CSR_ALG1 (default), 2: CSR_ALG2 */
    int threads_per_row; /* ellr (ELLR-T): T in 1, 2, 4, 8, 16, 32 */
    /* Vectors besides x and y that the caller streams between two products
     * (a Krylov solver's r, z, p, ...; the GPU back end sets
     * CMRS_SOLVER_VECTORS); 0: a lone product loop. cmrs chooses its L2
     * policy from it (cmrs_rows_defaults). Not a tuning knob: no CLI. */
    int context_vectors;
    /* cmrs: store P A P^T, the locality reordering (docs/CMRS.md): 1 on,
     * -1 off, 0 by the format's rule; setup writes back what it took (1
     * or -1). Other formats: ignored (left 0). */
    int reorder;
    /* cmrs: strips of one width (CMRS-U, docs/CMRS.md): 1 on, -1 off, 0
     * by the format's rule; setup writes back what it took (1 or -1), as
     * for reorder; a CMRS_CMRS_VARIANT token (su, nosl) comes first.
     * Other formats: ignored (left 0). */
    int slice;
    /* 1: store the matrix values in float while vectors, products and
     * sums stay in the precision's type (double only; formats whose ops
     * have values32 set, else CMRS_E_USAGE), with each row's rounding
     * error kept as one float correction on its diagonal, so that A's
     * row sums are kept (docs/SOLVER.md "Mixed precision"); 0: off.
     * Not a tuning knob: --mixed values sets it on the inner solver. */
    int values32;
} cmrs_spmv_opts;

/* context_vectors the solver back end declares: CG's r, z, p, q, the
 * Jacobi diagonal and b. */
#define CMRS_SOLVER_VECTORS 6

typedef struct cmrs_spmv cmrs_spmv;

/* A CSR matrix whose arrays are on the device, in cuSPARSE's 32-bit form
 * (indptr_d: rows + 1 entries; columns increasing within each row; any
 * shape), double values: what the AMG setup forms with cuSPARSE SpGEMM
 * and hands to cmrs_spmv_create_dev without a host copy. */
typedef struct cmrs_csr_view_d {
    int64_t rows, cols, nnz;
    const int32_t *indptr_d;
    const int32_t *indices_d;
    const double *values_d;
} cmrs_csr_view_d;

/* Where a format keeps its values (cmrs_spmv_ops.value_store): what the
 * device-values update writes and the read-back reads, with no per-format
 * code beyond naming the buffer. */
typedef struct cmrs_value_store {
    void *values_d;        /* `stored` values of the precision */
    const int32_t *perm_d; /* stored entry -> CSR entry (-1: padding);
                              NULL: values_d is in CSR order */
    int64_t stored;
    /* Optional (NULL: none): what the format must redo once its values
     * changed (cusparse: the SpMV preprocessing). May allocate and
     * synchronise: the update is then not capture-safe. */
    cmrs_code (*after)(cmrs_spmv *self);
} cmrs_value_store;

/* Each row's diagonal, found on the device from A's CSR arrays during a
 * setup asked for it (cmrs_spmv_create_diag) by formats that see them
 * there in double: cmrs in CSR order (both precisions) or reordered,
 * cmrs-mod (A uploaded for its GPU build) and cusparse in double
 * (cmrs_spmv_diag_tap). Formats that cannot (layouts
 * converted on the host; nnz beyond int32) leave pos_d NULL, and the
 * caller scans its host CSR. Owned by the cmrs_spmv (freed with it) until
 * a caller takes the arrays (and zeroes the struct). */
typedef struct cmrs_diag_d {
    int32_t *pos_d;            /* rows: the CSR index of a_ii, found as
                                  cmrs_csr_lookup finds it (-1: none) */
    double *value_d;           /* rows: a_ii (0 where there is none) */
    unsigned long long *bad_d; /* one word: the smallest row whose a_ii is
                                  missing or not > 0 (NaN included), as
                                  the host's Jacobi setup tests it; ~0:
                                  none */
} cmrs_diag_d;

typedef struct cmrs_spmv_ops {
    const char *name;    /* registry name, e.g. "cmrs" */
    const char *summary; /* one line for --help */
    /* Converts A, uploads it, allocates every buffer apply will need. Sets
     * self->impl, self->strips, self->stored_entries, self->device_bytes
     * and self->opts (the defaults resolved). A is not kept. */
    cmrs_code (*setup)(cmrs_spmv *self, const cmrs_csr *A);
    /* y = alpha*A*x + beta*y on self->stream; x_d, y_d are device arrays of
     * the precision's type. Never allocates, never synchronises. beta == 0
     * means y is not read (it may hold NaN). */
    cmrs_code (*apply)(cmrs_spmv *self, double alpha, const void *x_d,
                       double beta, void *y_d);
    void (*destroy)(cmrs_spmv *self); /* frees self->impl; NULL-safe */
    /* Optional (NULL: no value updates, no read-back): where the values
     * live (cmrs_value_store): what new values, same pattern (CFD codes
     * change them every time step, rarely the pattern), are written
     * into, from the host (cmrs_spmv_update_values) or the device
     * (cmrs_spmv_update_values_d), without redoing the conversion.
     * Describes only; never fails. */
    void (*value_store)(cmrs_spmv *self, cmrs_value_store *st);
    /* Optional (NULL: none): y = A x and, in the same kernel, one partial
     * sum of x[i] y[i] (i < rows: A square, or rows < cols where x's first
     * rows entries go with y's, as a distributed part's owned columns do)
     * per block, partials_d[0 .. dot_parts), which the caller adds in
     * index order: CG's p'q without another pass over p and q. Same rules
     * as apply. Usable only where setup set self->dot_parts > 0 (it may
     * depend on the kernel chosen). */
    cmrs_code (*apply_dot)(cmrs_spmv *self, const void *x_d, void *y_d,
                           double *partials_d);
    /* Optional (NULL: cmrs_spmv_create_dev downloads M and calls setup):
     * the same from the device arrays of M, with no host copy of them;
     * the result must equal setup's on the same matrix. */
    cmrs_code (*setup_dev)(cmrs_spmv *self, const cmrs_csr_view_d *M);
    /* Optional (NULL: not available): the matrix back as device CSR
     * arrays (indptr_d rows + 1, indices_d and values_d nnz; values in
     * double, CSR order: float ones widened), made on the device from the
     * format's own, on self->stream; CMRS_E_USAGE where this instance
     * cannot (cmrs's sorted strips). */
    cmrs_code (*csr_get_d)(cmrs_spmv *self, int32_t *indptr_d,
                           int32_t *indices_d, double *values_d);
    /* 1: setup honours opts.values32 (square matrices in double). */
    int values32;
} cmrs_spmv_ops;

struct cmrs_spmv {
    const cmrs_spmv_ops *ops;
    void *impl;            /* the format's private state */
    cmrs_prec prec;
    cmrs_spmv_opts opts;   /* as resolved by setup */
    cmrs_stream stream;    /* where apply runs (0: default stream) */
    int64_t rows, cols, nnz;
    int64_t strips;        /* row groups with a pointer each: CSR rows, CMRS
                              ceil(rows/h); enters beta+- as 4*(strips+1) */
    int64_t stored_entries;/* entries stored incl. zero padding (>= nnz) */
    size_t device_bytes;   /* device memory held by the format */
    /* Set by formats whose setup converts on the GPU (0 otherwise): the
     * conversion kernels' time (CUDA events) and the bytes they read and
     * wrote, for the conversion throughput `cmrs bench` reports. */
    double convert_s;
    double convert_bytes;
    int dot_parts;         /* partial sums apply_dot writes (0: none) */
    int want_diag;         /* 1: setup finds diag (cmrs_spmv_create_diag) */
    cmrs_diag_d diag;      /* what it found (cmrs_diag_d says where) */
};

/* Registry. */
size_t cmrs_spmv_format_count(void);
const cmrs_spmv_ops *cmrs_spmv_format_at(size_t i);
const cmrs_spmv_ops *cmrs_spmv_format_find(const char *name); /* or NULL */
/* Comma-separated list of all names, for help texts. */
const char *cmrs_spmv_format_names(void);

/* Creates a format instance for A (setup included). Unknown name: E_USAGE. */
cmrs_code cmrs_spmv_create(const char *name, const cmrs_csr *A, cmrs_prec prec,
                           const cmrs_spmv_opts *opts, cmrs_stream stream,
                           cmrs_spmv **out);
/* The same, and A's diagonal found on the device on the way where the
 * format can (s->diag, cmrs_diag_d): what the GPU solver asks for, so
 * that its Jacobi setup and device-values updates need no host scan. */
cmrs_code cmrs_spmv_create_diag(const char *name, const cmrs_csr *A,
                                cmrs_prec prec, const cmrs_spmv_opts *opts,
                                cmrs_stream stream, cmrs_spmv **out);
/* The same from a matrix already on the device (M is not kept): the
 * format's setup_dev where it has one, else a host copy (downloaded here)
 * and its setup. M's counts are checked first, before any CUDA call
 * (negative, beyond int32, a NULL indptr_d, or NULL indices_d / values_d
 * with nnz > 0: CMRS_E_USAGE); then the device is synchronised (M may
 * come from any stream) and indptr_d[0] == 0, indptr_d[rows] == nnz
 * checked (else CMRS_E_INPUT). The rest of M's validity is the caller's
 * promise, as for cmrs_spmv_create. */
cmrs_code cmrs_spmv_create_dev(const char *name,
                               const cmrs_csr_view_d *M,
                               cmrs_prec prec, const cmrs_spmv_opts *opts,
                               cmrs_stream stream, cmrs_spmv **out);
cmrs_code cmrs_spmv_apply(cmrs_spmv *s, double alpha, const void *x_d,
                          double beta, void *y_d);
void cmrs_spmv_destroy(cmrs_spmv *s); /* NULL-safe */
/* y = A x plus s->dot_parts partial sums of x'y (cmrs_spmv_ops.apply_dot);
 * CMRS_E_USAGE where the format or its kernel has none. */
cmrs_code cmrs_spmv_apply_dot(cmrs_spmv *s, const void *x_d, void *y_d,
                              double *partials_d);
/* New values for the same pattern, through the format's value store (a
 * copy for formats that keep CSR order, a gather through the setup's
 * permutation for those that reorder or pad; then its `after`): A
 * must have the rows, columns and nnz of the matrix s was set up with
 * (else CMRS_E_USAGE) and the same indptr/indices, which is the caller's
 * promise (not checked: it would cost as much as a new setup). A format
 * without the operation: CMRS_E_USAGE naming it. Synchronises. */
cmrs_code cmrs_spmv_update_values(cmrs_spmv *s, const cmrs_csr *A);
/* The same as cmrs_spmv_update_values from nnz doubles in CSR order
 * already on the device (an AMG level's device CSR, whatever s->prec):
 * converted and gathered into the value store (cmrs_dev_store_values_d),
 * then its `after`; *in_place as cmrs_spmv_values_in_place. Synchronises
 * (s->stream first, as the host path). No value store: CMRS_E_USAGE. */
cmrs_code cmrs_spmv_update_values_dd(cmrs_spmv *s, const double *values_d,
                                     int *in_place);
/* 1 when a values update of s (either path) only rewrites its value
 * buffer: a value store with no `after` step, so CUDA graphs that
 * captured apply stay valid; 0 otherwise. */
int cmrs_spmv_values_in_place(const cmrs_spmv *s);
/* New values from the device: values_d holds the nnz values, in CSR order
 * and of s->prec, on the device; they are copied (CSR-order formats) or
 * gathered through the setup's permutation into the format's buffer, on
 * s->stream: no allocation, no synchronisation, the same buffer (CUDA
 * graphs that captured apply stay valid), unless the format has an
 * `after` step (then *in_place = 0: it synchronised and may have
 * allocated). bad_d (a device word set to ~0 by the caller, or NULL) gets
 * the smallest CSR index of a non-finite value. A format without
 * value_store: CMRS_E_USAGE naming it (the caller falls back to the host
 * path). */
cmrs_code cmrs_spmv_update_values_d(cmrs_spmv *s, const void *values_d,
                                    unsigned long long *bad_d,
                                    int *in_place);
/* 1 when s's device-values update is its value store's copy or gather
 * alone (no `after` step), *st describing it: the caller may then do the
 * gather itself, fused with its own pass over the values; else 0. */
int cmrs_spmv_gather_store(const cmrs_spmv *s, cmrs_value_store *st);
/* The matrix s holds, back as device CSR arrays (cmrs_spmv_ops.csr_get_d;
 * the caller allocates rows + 1 and nnz entries), queued on s->stream;
 * CMRS_E_USAGE naming the format where it cannot (the caller uploads its
 * host copy instead). The values in double: a single-precision instance's
 * floats widened (exact, but not A's doubles: a double consumer takes
 * them from a double instance only). What the AMG setup reads for its
 * fine level. */
cmrs_code cmrs_spmv_csr_get_d(cmrs_spmv *s, int32_t *indptr_d,
                              int32_t *indices_d, double *values_d);
/* values_h (nnz doubles) = the stored values in CSR order: one download
 * (and of the permutation, for formats that reorder). Allocates host
 * scratch, synchronises. CMRS_E_USAGE without value_store. */
cmrs_code cmrs_spmv_values_get(cmrs_spmv *s, double *values_h);

/* Padded formats (ELL-like: hyb's ELL part, ellr, sell) refuse a matrix
 * whose stored entries would exceed this many times nnz (plus one slice or
 * warp of slack): one very long row would otherwise pad every row to its
 * length and exhaust memory. Returns CMRS_E_LIMIT with a message naming the
 * format and suggesting cmrs or csr formats. */
#define CMRS_MAX_PADDING_RATIO 4.0
cmrs_code cmrs_check_padding(const char *format, int64_t stored, int64_t nnz,
                             int64_t rows);

/* For formats that reorder or pad entries: *idx = A's pattern (indptr and
 * indices shared with A, not copied) with values k + 1 for entry k (exact
 * in double). The format's own host conversion of idx then leaves, where a
 * stored value would be, that entry's CSR index + 1, or 0 for padding: the
 * permutation cmrs_dev_perm_upload keeps. Free only idx->values.
 * nnz > INT32_MAX: CMRS_E_LIMIT (the permutation is int32). */
cmrs_code cmrs_csr_index_pattern(const cmrs_csr *A, cmrs_csr *idx);

/* self->diag from A's CSR arrays on the device (indptr_d: rows + 1
 * offsets, int64 when offsets64, else int32; indices_d; values_d in
 * double), where self->want_diag asks and nnz fits int32; else
 * nothing. Queued on the legacy default stream, like setup's uploads and
 * kernels (cmrs_spmv_create synchronises at its end); the arrays may be
 * freed or rewritten by later work on that stream. */
cmrs_code cmrs_spmv_diag_tap(cmrs_spmv *self, const void *indptr_d,
                             int offsets64, const int32_t *indices_d,
                             const double *values_d);
/* The same in two halves, for a setup that has A's arrays on the device
 * a chunk of rows at a time (cmrs_mat_dev_build's pipeline):
 * _prepare allocates self->diag where cmrs_spmv_diag_tap would find it
 * (*wanted; else nothing), _rows fills rows [r0, r1) on `stream` from
 * int64 row offsets and the chunk's columns and values, whose first
 * entry is A's entry e0. */
cmrs_code cmrs_spmv_diag_prepare(cmrs_spmv *self, int *wanted);
cmrs_code cmrs_spmv_diag_tap_rows(cmrs_spmv *self, const int64_t *indptr_d,
                                  const int32_t *cols_d,
                                  const double *values_d, int64_t r0,
                                  int64_t r1, int64_t e0, cmrs_stream stream);
void cmrs_diag_d_free(cmrs_diag_d *d); /* NULL-safe; zeroes *d */

/* Bandwidth metrics of paper 000 eq. (6.1): bytes moved by one product. */
double cmrs_spmv_beta_plus(const cmrs_spmv *s);
double cmrs_spmv_beta_minus(const cmrs_spmv *s);

#ifdef __cplusplus
}
#endif

#endif
