/* Setup shared by the two CMRS formats ("cmrs" in cmrs_basic.cu, "cmrs-mod"
 * in cmrs_mod.cu): option defaults and checks, the kernel variant chosen by
 * the CMRS_CMRS_VARIANT environment variable, conversion + upload, and the
 * grid size. Host code; allocates and synchronises (setup time only). */
#ifndef CMRS_CMRS_SETUP_H
#define CMRS_CMRS_SETUP_H

#include <stdint.h>

#include "cmrs_format.h"
#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_DEFAULT_BLOCK 128   /* paper §6.3 */
#define CMRS_MOD_DEFAULT_HEIGHT 16
#define CMRS_MOD_DEFAULT_MODULO 32 /* least padding; smem does not bind */
#define CMRS_ALIGN_MIN_MU 32.0   /* paper: aligned reads pay when mu >= 32 */

/* How the basic kernel runs (measurable alternatives, see docs/CMRS.md). */
typedef struct cmrs_variant {
    int pairs;   /* seg: 2 entries per lane, 64-entry chunks (default);
                    0: one entry per lane ("seg1") */
    int seg;     /* 1: segmented warp scan over row-ordered strips (default
                    when sorted is off, see cmrs_seg.cu); 0: per-row partial
                    sums (reg or smem) */
    int smem;    /* 1: per-lane partial sums in shared memory (paper's
                    buffer); 0: in registers (default) */
    int aligned; /* 1: chunks start at multiples of 32 entries (paper's
                    aligned reads); 0: at the strip start */
    int stream;  /* 1: matrix loads evict-first (__ldcs, default); 0: plain
                    read-only loads (__ldg) that may keep it in L2 */
} cmrs_variant;

/* Parses CMRS_CMRS_VARIANT (NULL or "" = defaults): comma-separated tokens
 * seg|seg1|reg|smem, align|noalign|autoalign and stream|cache (seg: default;
 * reg/smem imply per-row partial sums; sorted = on forces them). autoalign (default)
 * aligns when nnz/rows >= CMRS_ALIGN_MIN_MU. Unknown token: CMRS_E_USAGE. */
cmrs_code cmrs_variant_parse(const char *text, const cmrs_csr *A,
                             cmrs_variant *v);

/* Resolves self->opts for A (0 = default) and checks the values:
 * height 1..16 (cmrs default: cmrs_model_suggest_height for A's mean row
 * length; cmrs-mod: 16), block_size a multiple of 32 in 32..1024 (128),
 * sorted 1 or -1 (default 1), modulo 2..32 power of two (cmrs-mod only,
 * default 32). Bad values: CMRS_E_USAGE. */
cmrs_code cmrs_resolve_opts(cmrs_spmv *self, const cmrs_csr *A, int is_mod);

/* The matrix on the device in self->prec. */
typedef struct cmrs_mat_dev {
    uint32_t *strip_ptr_d; /* strips + 1 */
    uint32_t *colrow_d;    /* stored packed column/row */
    void *values_d;        /* stored float or double */
    int64_t rows, strips;
    int height;
} cmrs_mat_dev;

void cmrs_mat_dev_free(cmrs_mat_dev *d); /* NULL-safe, idempotent */

/* The state both formats keep in self->impl. */
typedef struct cmrs_impl {
    cmrs_mat_dev mat;
    cmrs_variant variant; /* basic kernel only */
    int grid, block;      /* launch configuration */
    size_t smem;          /* dynamic shared memory per block */
} cmrs_impl;

/* The host half of setup: allocates self->impl, resolves the options, reads
 * the variant (basic only), converts and uploads A, and sets self->strips,
 * stored_entries and device_bytes. The kernel half (grid, smem) is left to
 * the format. On failure self->impl stays for cmrs_impl_destroy. */
cmrs_code cmrs_impl_setup(cmrs_spmv *self, const cmrs_csr *A, int is_mod);
void cmrs_impl_destroy(cmrs_spmv *self); /* the formats' destroy */

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
