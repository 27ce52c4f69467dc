/* Setup shared by the cmrs and cmrs-mod formats (see cmrs_setup.h; its
 * rules, host code: cmrs_rules.c). */
#include "base/device.h"
#include "cmrs_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv/csr_view.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "spmv/device.h"
#include "spmv/model.h"

void cmrs_mat_dev_free(cmrs_mat_dev *d)
{
    if (!d) return;
    CMRS_GPU_FREE_ALL(d->strip_ptr_d, d->colrow_d, d->values_d, d->row_off_d);
    memset(d, 0, sizeof *d);
}

/* A layout that stores a permutation (reordered, sliced, one width):
 * strip pointers, packed words, values and the permutation. */
static size_t permuted_bytes(int64_t strips, int64_t stored, cmrs_prec prec)
{
    return ((size_t)strips + 1 + 2 * (size_t)stored) * sizeof(uint32_t) +
           (size_t)stored * cmrs_prec_value_bytes(prec);
}

/* A reordered layout (sorted, cmrs-mod, sl) converted on the host from A's
 * index pattern: the strip pointers and packed words are uploaded, and
 * what conversion put in place of the values is the permutation that
 * setup and value updates store the values through. */
static cmrs_code upload_reordered(cmrs_spmv *self, const cmrs_mat *m,
                                  const cmrs_csr *A, cmrs_impl *im)
{
    cmrs_mat_dev *d = &im->mat;
    void *ptr_d = NULL, *colrow_d = NULL;
    char what[64];
    snprintf(what, sizeof what, "%s: matrix values", self->ops->name);
    CMRS_CHECK(cmrs_dev_upload(m->strip_ptr, ((size_t)m->strips + 1) *
                               sizeof(uint32_t), &ptr_d));
    d->strip_ptr_d = ptr_d;
    CMRS_CHECK(cmrs_dev_upload(m->colrow, (size_t)m->stored * sizeof(uint32_t),
                               &colrow_d));
    d->colrow_d = colrow_d;
    CMRS_CHECK(cmrs_dev_perm_upload(m->values, m->stored, &im->perm_d));
    CMRS_CHECK(cmrs_dev_alloc_values(m->stored, self->prec, &d->values_d));
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, im->perm_d, m->stored,
                                     self->prec, d->values_d, what));
    d->rows = m->rows;
    d->strips = m->strips;
    d->height = m->height;
    return CMRS_OK;
}

/* sl (variant row_sliced 1): sliced strips of their own widths. */
static cmrs_code convert_reordered(cmrs_spmv *self, const cmrs_csr *A,
                                   int is_mod, cmrs_impl *im)
{
    cmrs_code rc = CMRS_OK;
    cmrs_mat m;
    cmrs_csr idx;
    const cmrs_spmv_opts *o = &self->opts;
    memset(&m, 0, sizeof m);
    CMRS_TRY(cmrs_csr_index_pattern(A, &idx));
    if (is_mod)
        CMRS_TRY(cmrs_mat_from_csr_mod(&idx, o->height, o->modulo,
                                       o->sorted > 0, &m));
    else if (im->variant.row_sliced == 1)
        CMRS_TRY(cmrs_mat_from_csr_sliced(&idx, o->height, 0, &m));
    else
        CMRS_TRY(cmrs_mat_from_csr(&idx, o->height, 1, &m));
    if (is_mod) CMRS_TRY(cmrs_mat_validate(&m)); /* a bad layout races */
    CMRS_TRY(upload_reordered(self, &m, A, im));
    self->strips = m.strips;
    self->stored_entries = m.stored;
    self->device_bytes = permuted_bytes(m.strips, m.stored, self->prec);
done:
    free(idx.values);
    cmrs_mat_free(&m); /* every conversion starts by zeroing m */
    return rc;
}

/* The sizes of the layout cmrs_mat_dev_build made of nnz entries: strips
 * of one width (and their permutation), or CSR order (offsets: with the
 * rows kernel's 16-bit row offsets). */
static void record_built(cmrs_spmv *self, const cmrs_impl *im, int64_t nnz,
                         int offsets)
{
    self->strips = im->mat.strips;
    if (im->mat.slice_width > 0) {
        self->stored_entries = im->mat.rows * im->mat.slice_width;
        self->device_bytes = permuted_bytes(im->mat.strips,
                                            self->stored_entries, self->prec);
        return;
    }
    self->stored_entries = nnz;
    self->device_bytes = ((size_t)im->mat.strips + 1) * sizeof(uint32_t) +
                         ((size_t)nnz + CMRS_TILE_PAD) *
                             (sizeof(uint32_t) +
                              cmrs_prec_value_bytes(self->prec)) +
                         (offsets ? (size_t)im->mat.rows * sizeof(uint16_t)
                                  : 0);
}

/* Whether the build may store the one-width sliced layout (the
 * cmrs_slice_req mode): su asks for it (2), nosl or opts.slice = -1
 * forbid it (0); opts.slice = 1 (2) and the rule (-1) offer it to the
 * rows kernel with a lane per row where no token asks for a CSR-order
 * kernel (pipelining, b0, b1) or layout (nosl, sorted); else 0. */
static int slice_mode(const cmrs_spmv *self, const cmrs_impl *im,
                      const cmrs_csr *counts)
{
    const cmrs_variant *v = &im->variant;
    const double mu = counts->rows > 0 ? (double)counts->nnz / (double)counts->rows : 0;
    if (v->row_sliced >= 0) return v->row_sliced == 2 ? 2 : 0;
    if (im->slice_asked < 0 || v->kernel != CMRS_KERNEL_ROWS ||
        self->opts.sorted > 0 || v->row_pipe > 0 || v->row_batch == 1 ||
        v->row_batch == CMRS_ROW_BATCH_LOOP)
        return 0;
    const int lanes = v->row_lanes > 0 ? v->row_lanes : cmrs_row_lanes(mu);
    if (lanes != 1) return 0;
    return im->slice_asked > 0 ? 2 : -1;
}

/* After the build: the one-width layout taken (its kernel, batch and
 * block) or not (the rule's -1 settled to 0). */
static void settle_slice(cmrs_spmv *self, cmrs_impl *im)
{
    cmrs_variant *v = &im->variant;
    const int w = im->mat.slice_width;
    self->opts.slice = w > 0 ? 1 : -1;
    if (w == 0) {
        if (v->row_sliced < 0) v->row_sliced = 0;
        return;
    }
    v->row_sliced = 2;
    /* The width, in the kernel's 4..8; 7 takes 8 (measured on an H200,
     * 7-point Poisson 200^3: 194.7 against 200.3 us; the vessel's 5: 5). */
    if (v->row_batch == 0)
        v->row_batch = w <= CMRS_ROWS_PIPE_MIN_BATCH ? CMRS_ROWS_PIPE_MIN_BATCH
                       : w <= 6                      ? w
                                                     : 8;
    if (im->block_by_rule) self->opts.block_size = im->block = CMRS_SLICE_BLOCK;
}

static int wants_row_offsets(const cmrs_spmv *self, const cmrs_impl *im)
{
    return self->opts.sorted <= 0 && im->variant.kernel == CMRS_KERNEL_ROWS &&
           im->variant.row_sliced != 2; /* su has no offsets */
}

/* Sorted strips take the paper's kernel with per-row partial sums; the
 * rows kernel, where a strip is too long for its 16-bit offsets, the
 * tile kernel (offsets_fit: cmrs_row_offsets_fit's rule). */
static void settle_kernel(const cmrs_spmv *self, int offsets_fit,
                          cmrs_impl *im)
{
    cmrs_variant *v = &im->variant;
    if (self->opts.sorted > 0) v->kernel = CMRS_KERNEL_REG;
    if (v->kernel == CMRS_KERNEL_ROWS && !offsets_fit)
        v->kernel = CMRS_KERNEL_TILE;
}

/* Converts A (layout per the resolved self->opts and kernel) onto the
 * device: in CSR order or strips of one width on the GPU, reordered
 * layouts on the host. */
static cmrs_code convert_upload(cmrs_spmv *self, const cmrs_csr *A,
                                int is_mod, cmrs_impl *im)
{
    if (is_mod || self->opts.sorted > 0)
        return convert_reordered(self, A, is_mod, im);
    /* the rows kernel's offsets checked by the build on the device: the
     * host's strided walk over the strips took 3.5 ms at 5M rows */
    cmrs_slice_req slice = {slice_mode(self, im, A), NULL,
                            wants_row_offsets(self, im), 1};
    const int offsets = im->variant.kernel == CMRS_KERNEL_ROWS;
    const cmrs_code rc = cmrs_mat_dev_build_tap(A, self->opts.height,
                                                self->prec, offsets, &slice,
                                                self, &im->mat,
                                                &self->convert_s,
                                                &self->convert_bytes);
    im->perm_d = slice.perm_d; /* im owns it, even on failure */
    CMRS_CHECK(rc);
    if (!slice.offsets_fit) settle_kernel(self, 0, im); /* rows -> tile */
    record_built(self, im, A->nnz, offsets && slice.offsets_fit);
    settle_slice(self, im);
    return CMRS_OK;
}

/* The basic layout's kernel: the variant's, else cmrs_pick_kernel's
 * (before the options: the height depends on it); settle_kernel then
 * settles it once the height is known (the offsets: asked only where
 * wants_row_offsets says they matter, by the GPU build where A is
 * converted there). */
static void pick_kernel(cmrs_impl *im, const cmrs_csr *A)
{
    if (im->variant.kernel == CMRS_KERNEL_AUTO)
        im->variant.kernel = cmrs_pick_kernel(A);
}

/* What both setups share before the conversion: the state allocated
 * (self->impl), the variant read and the kernel picked (basic only), the
 * options resolved. Reads only A's counts. */
static cmrs_code impl_begin(cmrs_spmv *self, const cmrs_csr *A, int is_mod,
                            cmrs_impl **out)
{
    cmrs_impl *im = calloc(1, sizeof *im);
    CMRS_ENSURE(im, CMRS_E_NOMEM, "%s: cannot allocate the format state",
                self->ops->name);
    self->impl = im;
    im->block_by_rule = self->opts.block_size == 0;
    if (!is_mod) {
        /* what opts.slice asked; written back by settle_slice */
        im->slice_asked = self->opts.slice;
        self->opts.slice = -1;
        CMRS_CHECK(cmrs_variant_parse(getenv("CMRS_CMRS_VARIANT"), A,
                                      &im->variant));
        pick_kernel(im, A);
    }
    CMRS_CHECK(cmrs_resolve_opts(self, A, is_mod, is_mod ? NULL : &im->variant));
    *out = im;
    return CMRS_OK;
}

/* The reordering asked for: the option (1 on, -1 off), else the
 * variant's token, else -1 (the rule), as cmrs_reorder_wanted takes it. */
static int reorder_token(const cmrs_spmv *self, const cmrs_impl *im)
{
    if (self->opts.reorder != 0) return self->opts.reorder > 0;
    return im->variant.reorder;
}

/* Whether the basic format stores A reordered: the CSR-order layout only
 * (sorted strips keep their own order), by reorder_token or the rule
 * (cmrs_reorder.h), whose count `share` is. Written back to opts. */
static int takes_reorder(cmrs_spmv *self, const cmrs_impl *im,
                         const cmrs_csr *counts, double share)
{
    const int take = self->opts.sorted <= 0 &&
                     cmrs_reorder_wanted(reorder_token(self, im), counts->rows,
                                         counts->cols, counts->nnz, share);
    self->opts.reorder = take ? 1 : -1;
    return take;
}

/* Whether takes_reorder needs the rule's count at all. */
static int needs_share(const cmrs_spmv *self, const cmrs_impl *im,
                       const cmrs_csr *counts)
{
    return reorder_token(self, im) < 0 && counts->rows == counts->cols &&
           counts->rows >= CMRS_REORDER_MIN_ROWS;
}

/* The CSR-order layout of a matrix on the device, or (sliceable, where
 * slice_mode allows) strips of one width: the kernel settled (rows or
 * tile) and the arrays built there. */
static cmrs_code build_view(cmrs_spmv *self, const cmrs_csr_view_d *M,
                            int sliceable, cmrs_impl *im)
{
    int fits = 1;
    if (wants_row_offsets(self, im))
        CMRS_CHECK(cmrs_row_offsets_fit_dev(M, self->opts.height, &fits));
    settle_kernel(self, fits, im);
    const int offsets = im->variant.kernel == CMRS_KERNEL_ROWS;
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    cmrs_slice_req slice = {sliceable ? slice_mode(self, im, &counts) : 0,
                            NULL, 0, 1};
    const cmrs_code rc = cmrs_mat_dev_build_view(M, self->opts.height,
                                                 self->prec, offsets, &slice,
                                                 &im->mat, &self->convert_s,
                                                 &self->convert_bytes);
    if (slice.perm_d) im->perm_d = slice.perm_d; /* im owns it */
    CMRS_CHECK(rc);
    record_built(self, im, M->nnz, offsets);
    settle_slice(self, im);
    return CMRS_OK;
}

/* B = P A P^T built on the GPU from M and converted like A would be, then
 * what the products around it need: the entry map as the value store's
 * permutation (value updates of A's entries land on B's) and the row maps
 * and vectors of cmrs_reorder_dev. */
static cmrs_code setup_reordered(cmrs_spmv *self, const cmrs_csr_view_d *M,
                                 cmrs_impl *im)
{
    cmrs_code rc = CMRS_OK;
    cmrs_reordered_d r;
    size_t bytes = 0;
    CMRS_TRY(cmrs_reordered_build_dev(M, &r));
    CMRS_TRY(build_view(self, &r.B, 0, im));
    im->perm_d = r.entry_of_d;
    r.entry_of_d = NULL;
    CMRS_TRY(cmrs_reorder_dev_make(&r, self->prec, &im->reorder, &bytes));
    self->device_bytes += bytes + (size_t)M->nnz * sizeof(int32_t);
done:
    cmrs_reordered_dev_free(&r);
    return rc;
}

/* The host matrix uploaded (double, int32 row offsets: the rule keeps
 * nnz <= INT32_MAX), then setup_reordered. */
static cmrs_code setup_reordered_host(cmrs_spmv *self, const cmrs_csr *A,
                                      cmrs_impl *im)
{
    cmrs_csr_dev d;
    cmrs_code rc = cmrs_csr_dev_upload(A, CMRS_PREC_DOUBLE, &d);
    if (rc == CMRS_OK) /* A's diagonal, before B replaces it */
        rc = cmrs_spmv_diag_tap(self, d.indptr_d, d.offsets64, d.indices_d,
                                (const double *)d.values_d);
    if (rc == CMRS_OK) {
        const cmrs_csr_view_d M = {A->rows, A->cols, A->nnz,
                                   (const int32_t *)d.indptr_d, d.indices_d,
                                   (const double *)d.values_d};
        rc = setup_reordered(self, &M, im);
    }
    cmrs_csr_dev_free(&d);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

/* Strips of one width asked for: the variant su, or opts.slice = 1 with
 * no variant token deciding. */
static int wants_su(const cmrs_impl *im)
{
    return im->variant.row_sliced == 2 ||
           (im->variant.row_sliced < 0 && im->slice_asked > 0);
}

/* Sliced strips (sl, su, opts.slice = 1) keep the rows in their order:
 * refuses reorder and sorted strips, and records that the matrix is not
 * reordered. */
static cmrs_code sliced_unreordered(cmrs_spmv *self, const cmrs_impl *im)
{
    CMRS_ENSURE(reorder_token(self, im) <= 0 && self->opts.sorted <= 0,
                CMRS_E_USAGE, "%s: sliced strips (sl, su, slice on) keep "
                "the rows in their order; they do not go with reorder or "
                "sorted strips", self->ops->name);
    self->opts.reorder = -1;
    return CMRS_OK;
}

cmrs_code cmrs_impl_setup(cmrs_spmv *self, const cmrs_csr *A, int is_mod)
{
    cmrs_impl *im = NULL;
    CMRS_CHECK(impl_begin(self, A, is_mod, &im));
    im->block = self->opts.block_size;
    if (is_mod) {
        CMRS_CHECK(convert_upload(self, A, 1, im));
        return CMRS_OK;
    }
    const int su = wants_su(im);
    if (im->variant.row_sliced == 1 || su) {
        CMRS_CHECK(sliced_unreordered(self, im));
        if (im->variant.row_sliced == 1) {
            CMRS_CHECK(convert_reordered(self, A, 0, im));
            return CMRS_OK;
        }
    }
    const double share =
        !su && needs_share(self, im, A) ? cmrs_reorder_near_share(A) : 1;
    if (!su && takes_reorder(self, im, A, share)) {
        CMRS_CHECK(setup_reordered_host(self, A, im));
        return CMRS_OK;
    }
    settle_kernel(self, 1, im); /* the offsets: convert_upload's build */
    CMRS_CHECK(convert_upload(self, A, 0, im));
    return CMRS_OK;
}

cmrs_code cmrs_impl_setup_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    cmrs_impl *im = NULL;
    double share = 1.0;
    CMRS_CHECK(impl_begin(self, &counts, 0, &im));
    if (im->variant.row_sliced == 1) /* sl is converted on the host only */
        im->variant.row_sliced = 0;
    im->block = self->opts.block_size;
    CMRS_ENSURE(self->opts.sorted <= 0, CMRS_E_INTERNAL, "%s: sorted strips "
                "are converted on the host, not from device arrays",
                self->ops->name);
    const int su = wants_su(im);
    if (su) CMRS_CHECK(sliced_unreordered(self, im));
    else if (needs_share(self, im, &counts))
        CMRS_CHECK(cmrs_reorder_near_share_dev(M, &share));
    if (!su && takes_reorder(self, im, &counts, share))
        CMRS_CHECK(setup_reordered(self, M, im));
    else
        CMRS_CHECK(build_view(self, M, 1, im));
    return CMRS_OK;
}

cmrs_code cmrs_impl_setup_mod_dev(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    const cmrs_spmv_opts *o = &self->opts;
    cmrs_impl *im = NULL;
    int64_t stored = 0;
    char what[64];
    CMRS_CHECK(impl_begin(self, &counts, 1, &im));
    im->block = o->block_size;
    CMRS_CHECK(cmrs_mat_check_limits(&counts, "cmrs-mod"));
    CMRS_CHECK(cmrs_mat_dev_build_mod(M, o->height, o->modulo, o->sorted > 0,
                                      &im->mat, &im->perm_d, &stored));
    snprintf(what, sizeof what, "%s: matrix values", self->ops->name);
    CMRS_CHECK(cmrs_dev_alloc_values(stored, self->prec, &im->mat.values_d));
    CMRS_CHECK(cmrs_dev_store_values_d(M->values_d, im->perm_d, stored,
                                       self->prec, im->mat.values_d, what));
    self->strips = im->mat.strips;
    self->stored_entries = stored;
    self->device_bytes = permuted_bytes(im->mat.strips, stored, self->prec);
    return CMRS_OK;
}

void cmrs_impl_value_store(cmrs_spmv *self, cmrs_value_store *st)
{
    cmrs_impl *im = self->impl;
    st->values_d = im->mat.values_d;
    st->perm_d = im->perm_d;
    st->stored = self->stored_entries;
    /* float values (values32): A's double values take the new ones, the
     * products' float copy and corrections are made again from them */
    if (im->v32.values_d) st->after = cmrs_rows_narrow;
}

void cmrs_impl_destroy(cmrs_spmv *self)
{
    cmrs_impl *im = self->impl;
    if (!im) return;
    cmrs_mat_dev_free(&im->mat);
    cmrs_reorder_dev_free(&im->reorder);
    cmrs_values32_free(&im->v32);
    cmrs_dev_free(im->perm_d);
    free(im);
    self->impl = NULL;
}

cmrs_code cmrs_grid_size(int64_t strips, int block, int per_sm,
                         const char *what, int *grid)
{
    int dev = 0, sms = 0;
    CMRS_ENSURE(per_sm > 0, CMRS_E_USAGE, "%s: a block of %d threads does not "
                "fit on this GPU (registers or shared memory); use a smaller "
                "block size", what, block);
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                     dev));
    int64_t warps = block / 32;
    int64_t needed = (strips + warps - 1) / warps;
    int64_t waves = 2 * (int64_t)sms * per_sm; /* warps stride beyond that */
    *grid = (int)(needed < waves ? needed : waves);
    return CMRS_OK;
}

cmrs_code cmrs_allow_smem(const void *func, size_t bytes, const char *what)
{
    int dev = 0, optin = 0;
    if (bytes <= 48 * 1024) return CMRS_OK; /* available without opting in */
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(&optin,
                                     cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                     dev));
    CMRS_ENSURE(bytes <= (size_t)optin, CMRS_E_USAGE, "%s: the kernel needs "
                "%zu bytes of shared memory per block, this GPU allows %d; use "
                "a smaller block size (or modulo)", what, bytes, optin);
    CMRS_CUDA(cudaFuncSetAttribute(func,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)bytes));
    return CMRS_OK;
}
