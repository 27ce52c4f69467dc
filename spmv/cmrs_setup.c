/* Setup shared by the cmrs and cmrs-mod formats (see cmrs_setup.h). */
#include "cmrs_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "device.h"
#include "model.h"

/* Tokens in pairs of alternatives: i / 2 picks the setting, i % 2 its
 * value; autoalign (last) restores the default. */
static const char *const k_variant_tokens[] = {"reg", "smem", "noalign",
                                               "align", "cache", "stream",
                                               "autoalign", "seg", "seg1"};
#define N_VARIANT_TOKENS 9

static cmrs_code variant_token(const char *tok, size_t len, cmrs_variant *v,
                               int *align)
{
    int i = 0;
    while (i < N_VARIANT_TOKENS && !(strlen(k_variant_tokens[i]) == len &&
                                     !strncmp(k_variant_tokens[i], tok, len)))
        ++i;
    CMRS_ENSURE(i < N_VARIANT_TOKENS, CMRS_E_USAGE, "CMRS_CMRS_VARIANT: "
                "unknown token '%.*s' (known: reg, smem, align, noalign, "
                "autoalign, stream, cache, seg, seg1)", (int)len, tok);
    if (i >= 7) { /* seg or seg1 */
        v->seg = 1;
        v->pairs = i == 7;
        return CMRS_OK;
    }
    if (i / 2 == 0) {
        v->smem = i % 2;
        v->seg = 0;
    }
    else if (i / 2 == 1) *align = i % 2;
    else if (i / 2 == 2) v->stream = i % 2;
    else *align = -1;
    return CMRS_OK;
}

cmrs_code cmrs_variant_parse(const char *text, const cmrs_csr *A,
                             cmrs_variant *v)
{
    int align = -1;
    v->smem = 0;
    v->seg = 1;
    v->pairs = 1;
    v->stream = 1;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len > 0) CMRS_CHECK(variant_token(p, len, v, &align));
        p += len + (p[len] == ',');
    }
    double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
    v->aligned = align >= 0 ? align : mu >= CMRS_ALIGN_MIN_MU;
    return CMRS_OK;
}

static cmrs_code resolve_height(cmrs_spmv *self, const cmrs_csr *A,
                                int is_mod)
{
    cmrs_spmv_opts *o = &self->opts;
    if (o->height == 0 && is_mod) o->height = CMRS_MOD_DEFAULT_HEIGHT;
    if (o->height == 0) {
        double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
        o->height = cmrs_default_height(mu);
    }
    CMRS_ENSURE(o->height >= 1 && o->height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "%s: strip height %d is out of range 1..%d", self->ops->name,
                o->height, CMRS_MAX_HEIGHT);
    return CMRS_OK;
}

cmrs_code cmrs_resolve_opts(cmrs_spmv *self, const cmrs_csr *A, int is_mod)
{
    cmrs_spmv_opts *o = &self->opts;
    const char *name = self->ops->name;
    CMRS_CHECK(resolve_height(self, A, is_mod));
    if (o->block_size == 0) o->block_size = CMRS_DEFAULT_BLOCK;
    CMRS_ENSURE(o->block_size >= 32 && o->block_size <= 1024 &&
                    o->block_size % 32 == 0, CMRS_E_USAGE,
                "%s: block size %d is not a multiple of 32 in 32..1024", name,
                o->block_size);
    /* cmrs: row order (CSR order) in each strip by default, which the
     * segmented-scan kernel needs; cmrs-mod: its layout's own order. */
    if (o->sorted == 0) o->sorted = is_mod ? 1 : -1;
    CMRS_ENSURE(o->sorted == 1 || o->sorted == -1, CMRS_E_USAGE,
                "%s: sorted must be 1 (on) or -1 (off), not %d", name,
                o->sorted);
    if (!is_mod) return CMRS_OK;
    if (o->modulo == 0) o->modulo = CMRS_MOD_DEFAULT_MODULO;
    CMRS_ENSURE(o->modulo >= 2 && o->modulo <= 32 &&
                    (o->modulo & (o->modulo - 1)) == 0, CMRS_E_USAGE,
                "%s: modulo %d is not one of 2, 4, 8, 16, 32", name, o->modulo);
    return CMRS_OK;
}

void cmrs_mat_dev_free(cmrs_mat_dev *d)
{
    if (!d) return;
    cudaFree(d->strip_ptr_d);
    cudaFree(d->colrow_d);
    cudaFree(d->values_d);
    memset(d, 0, sizeof *d);
}

static cmrs_code upload(const cmrs_mat *m, cmrs_prec prec, const char *name,
                        cmrs_mat_dev *d)
{
    void *ptr_d = NULL, *colrow_d = NULL;
    char what[64];
    snprintf(what, sizeof what, "%s: matrix values (in strip order)", name);
    CMRS_CHECK(cmrs_dev_upload(m->strip_ptr, ((size_t)m->strips + 1) *
                               sizeof(uint32_t), &ptr_d));
    d->strip_ptr_d = ptr_d;
    CMRS_CHECK(cmrs_dev_upload(m->colrow, (size_t)m->stored * sizeof(uint32_t),
                               &colrow_d));
    d->colrow_d = colrow_d;
    CMRS_CHECK(cmrs_dev_upload_values(m->values, m->stored, prec, what,
                                      &d->values_d));
    d->rows = m->rows;
    d->strips = m->strips;
    d->height = m->height;
    return CMRS_OK;
}

/* Converts A (layout per the resolved self->opts) and uploads it. */
static cmrs_code convert_upload(cmrs_spmv *self, const cmrs_csr *A,
                                int is_mod, cmrs_mat_dev *d)
{
    cmrs_code rc = CMRS_OK;
    cmrs_mat m;
    const cmrs_spmv_opts *o = &self->opts;
    if (is_mod)
        CMRS_TRY(cmrs_mat_from_csr_mod(A, o->height, o->modulo, o->sorted > 0,
                                       &m));
    else
        CMRS_TRY(cmrs_mat_from_csr(A, o->height, o->sorted > 0, &m));
    if (is_mod) CMRS_TRY(cmrs_mat_validate(&m)); /* a bad layout races */
    CMRS_TRY(upload(&m, self->prec, self->ops->name, d));
    self->strips = m.strips;
    self->stored_entries = m.stored;
    self->device_bytes = ((size_t)m.strips + 1 + (size_t)m.stored) *
                             sizeof(uint32_t) +
                         (size_t)m.stored * cmrs_prec_value_bytes(self->prec);
done:
    cmrs_mat_free(&m); /* every conversion starts by zeroing m */
    return rc;
}

cmrs_code cmrs_impl_setup(cmrs_spmv *self, const cmrs_csr *A, int is_mod)
{
    cmrs_impl *im = calloc(1, sizeof *im);
    CMRS_ENSURE(im, CMRS_E_NOMEM, "%s: cannot allocate the format state",
                self->ops->name);
    self->impl = im;
    CMRS_CHECK(cmrs_resolve_opts(self, A, is_mod));
    if (!is_mod)
        CMRS_CHECK(cmrs_variant_parse(getenv("CMRS_CMRS_VARIANT"), A,
                                      &im->variant));
    /* The segmented scan needs each strip in row order. */
    if (self->opts.sorted > 0) im->variant.seg = 0;
    CMRS_CHECK(convert_upload(self, A, is_mod, &im->mat));
    im->block = self->opts.block_size;
    return CMRS_OK;
}

void cmrs_impl_destroy(cmrs_spmv *self)
{
    cmrs_impl *im = self->impl;
    if (!im) return;
    cmrs_mat_dev_free(&im->mat);
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
