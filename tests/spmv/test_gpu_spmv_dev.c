/* cmrs_spmv_create_dev (a CSR matrix already on the device, int32 row
 * offsets, as the AMG forms P, R and A_c) against cmrs_spmv_create from
 * the host copy of the same matrix, for every format of the registry
 * (cmrs and cmrs-mod through their setup_dev, the others through the
 * download fallback)
 * and both precisions, on random square matrices, tall (rows > cols, like
 * P) and wide (like R) ones, empty rows, a row of 11000 entries, a strip
 * too long for the rows kernel's 16-bit row offsets (the tile kernel),
 * rows not a multiple of the strip height, n = 1, nnz = 0 and n = 0:
 *  - both creations succeed or fail alike (padded formats refuse the long
 *    rows in both);
 *  - every format built from the device is within the precision's bound
 *    of the CPU reference (cmrs_spmv_verify), with y poisoned with NaN and
 *    beta = 0, and with alpha = -1.5, beta = 0.75;
 *  - the two instances' products are equal bit for bit where the format
 *    is reproducible (test_gpu_product.h), cmrs always;
 *  - cmrs and cmrs-mod: the same state (strips, stored entries, device
 *    bytes, options, kernel and launch configuration) and the same device
 *    arrays bit for bit (cmrs-mod's host build, CMRS_MOD_HOST_BUILD=1,
 *    against its build from device arrays and its default from the host
 *    matrix, which uploads A and builds on the GPU); cmrs in several heights and kernels
 *    (CMRS_CMRS_VARIANT), and sorted strips (its setup_dev's fallback).
 * cmrs also gives A back on the device (cmrs_spmv_csr_get_d) bit for bit
 * from its CSR-order layouts (in single: the stored floats, widened), and
 * refuses sorted strips.
 * Also the refusals that read the device arrays (CMRS_E_INPUT; those of
 * bad counts, CMRS_E_USAGE, need no GPU: test_spmv_create_dev.c), the
 * kernel chosen for long strips, and the single precision range error,
 * the same as the host path's. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_setup.h"
#include "base/gpu/cuda_check.h"
#include "spmv/device.h"
#include "spmv/spmv.h"
#include "spmv/verify.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "test_gpu_product.h"

#define ALPHA (-1.5)
#define BETA 0.75
#define LONG_ROW_SPEC 6 /* k_specs index of the tile-kernel case */

static const test_spec k_specs[] = {
    TEST_NORMAL("random 3000 mu=7", 3000, 3000, 7, 2),
    TEST_SCATTERED("random 1500 mu=27 scattered", 1500, 1500, 27, 5),
    TEST_SCATTERED("tall 1900x300 mu=4 (like P)", 1900, 300, 4, 2),
    TEST_NORMAL("wide 300x1900 mu=20 (like R)", 300, 1900, 20, 6),
    TEST_EMPTY_ROWS("30% empty rows mu=4", 2000, 2000, 4, 1, 0.3),
    TEST_LONG_ROW("one row of 11000 among mu=3", 12000, 12000, 3, 1, 6001,
                  11000, 0),
    /* Row 1000 is the 9th of its strip at h = 16: the rows after it in
     * the strip start 70000 entries in, past the 16-bit offsets. */
    TEST_LONG_ROW("one row of 70000 among mu=3", 4000, 72000, 3, 1, 1000,
                  70000, 0),
    TEST_NORMAL("rows=1001 mu=6", 1001, 1001, 6, 2),
    TEST_SPEC_ROWS17,
    TEST_SPEC_N1,
    TEST_EMPTY_ROWS("nnz=0 60x40", 60, 40, 0, 0, 1.0),
    TEST_SPEC_N0,
    /* every row 5 entries: the rule stores strips of one width (su) */
    TEST_KIND("fixed 5 per row, 2501 rows", 2501, 2501, FIXED, 5),
};
#define N_SPECS (int)(sizeof k_specs / sizeof k_specs[0])

/* cmrs set-ups beyond the default: heights, block sizes, kernels
 * (CMRS_CMRS_VARIANT) and sorted strips (setup_dev downloads for them). */
typedef struct cmrs_run {
    cmrs_spmv_opts opts; /* height, block_size, modulo, sorted, ... */
    const char *variant; /* NULL: none */
} cmrs_run;

static const cmrs_run k_cmrs_runs[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, NULL},      {{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, NULL},
    {{7, 256, 0, 0, 0, 0, 0, 0, 0, 0}, NULL},    {{16, 64, 0, 0, 0, 0, 0, 0, 0, 0}, NULL},
    {{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, NULL},      {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "tile"},
    {{5, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "tile4,g=3"}, {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "seg"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "smem"},    {{3, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "rows2,b1"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "reorder"}, {{5, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "tile,reorder"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "su"},      {{7, 64, 0, 0, 0, 0, 0, 0, 0, 0}, "su,b4"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "nosl"},
};
#define N_CMRS_RUNS (int)(sizeof k_cmrs_runs / sizeof k_cmrs_runs[0])

/* One matrix: the host copy, its arrays on the device and the vectors. */
typedef struct dev_case {
    const char *name;
    cmrs_csr A;
    cmrs_csr_view_d M; /* nnz == 0: indices_d and values_d NULL */
    double *x, *y0;
} dev_case;

/* What one creation pair is: for the failure lines. */
typedef struct pair_ctx {
    const dev_case *c;
    const char *format;
    cmrs_prec prec;
    const cmrs_spmv_opts *opts;
    const char *variant;
} pair_ctx;

static void describe(const pair_ctx *p, char *buf, size_t n)
{
    const cmrs_spmv_opts *o = p->opts;
    snprintf(buf, n, "%s %s h=%d block=%d sorted=%d variant='%s' on '%s'",
             p->format, cmrs_prec_name(p->prec), o->height, o->block_size,
             o->sorted, p->variant ? p->variant : "", p->c->name);
}

/* The device arrays of M freed, M zeroed. */
static void free_view(cmrs_csr_view_d *M)
{
    cudaFree((void *)M->indptr_d);
    cudaFree((void *)M->indices_d);
    cudaFree((void *)M->values_d);
    memset(M, 0, sizeof *M);
}

/* M = A's arrays on the device, row offsets narrowed to int32 (M zeroed,
 * nothing left on the device, on a failure). */
static cmrs_code upload_view(const cmrs_csr *A, cmrs_csr_view_d *M)
{
    cmrs_code rc = CMRS_OK;
    void *indptr_d = NULL, *indices_d = NULL, *values_d = NULL;
    const size_t n = (size_t)A->rows + 1;
    int32_t *indptr32 = cmrs_malloc_array(n, sizeof *indptr32);
    memset(M, 0, sizeof *M);
    if (!indptr32) CMRS_TRY_FAIL(CMRS_E_NOMEM, "test: out of memory");
    for (size_t i = 0; i < n; ++i) indptr32[i] = (int32_t)A->indptr[i];
    CMRS_TRY(cmrs_dev_upload(indptr32, n * sizeof *indptr32, &indptr_d));
    if (A->nnz > 0) {
        CMRS_TRY(cmrs_dev_upload(A->indices, (size_t)A->nnz * sizeof(int32_t),
                                 &indices_d));
        CMRS_TRY(cmrs_dev_upload(A->values, (size_t)A->nnz * sizeof(double),
                                 &values_d));
    }
    M->rows = A->rows;
    M->cols = A->cols;
    M->nnz = A->nnz;
done:
    M->indptr_d = indptr_d;
    M->indices_d = indices_d;
    M->values_d = values_d;
    if (rc != CMRS_OK) free_view(M);
    free(indptr32);
    return rc;
}

/* 1 if the n bytes at a_d and b_d (device) are the same. */
static int same_device_bytes(const void *a_d, const void *b_d, size_t n)
{
    if (n == 0) return 1;
    unsigned char *a = malloc(n), *b = malloc(n);
    int same = a && b &&
               cudaMemcpy(a, a_d, n, cudaMemcpyDeviceToHost) == cudaSuccess &&
               cudaMemcpy(b, b_d, n, cudaMemcpyDeviceToHost) == cudaSuccess &&
               !memcmp(a, b, n);
    free(a);
    free(b);
    return same;
}

/* The device arrays of two CMRS instances, padding included (the
 * CSR-order layout carries CMRS_TILE_PAD entries past nnz; strips of one
 * width none). */
static void compare_arrays(const cmrs_spmv *h, const cmrs_spmv *d,
                           const char *desc)
{
    const cmrs_impl *ih = h->impl, *id = d->impl;
    const int reordered = strcmp(h->ops->name, "cmrs") || h->opts.sorted > 0 ||
                          ih->mat.slice_width > 0;
    const size_t n = (size_t)h->stored_entries + (reordered ? 0 : CMRS_TILE_PAD);
    const size_t sv = cmrs_prec_value_bytes(h->prec);
    CHECK(same_device_bytes(ih->mat.strip_ptr_d, id->mat.strip_ptr_d,
                            ((size_t)h->strips + 1) * sizeof(uint32_t)) &&
              same_device_bytes(ih->mat.colrow_d, id->mat.colrow_d,
                                n * sizeof(uint32_t)) &&
              same_device_bytes(ih->mat.values_d, id->mat.values_d, n * sv),
          "%s: strip pointers, packed words or values differ", desc);
    CHECK((ih->mat.row_off_d == NULL) == (id->mat.row_off_d == NULL) &&
              (!ih->mat.row_off_d ||
               same_device_bytes(ih->mat.row_off_d, id->mat.row_off_d,
                                 (size_t)h->rows * sizeof(uint16_t))),
          "%s: 16-bit row offsets differ", desc);
    CHECK((ih->perm_d == NULL) == (id->perm_d == NULL) &&
              (!ih->perm_d ||
               same_device_bytes(ih->perm_d, id->perm_d,
                                 (size_t)h->stored_entries * sizeof(int32_t))),
          "%s: value permutations differ", desc);
    const size_t maps = (size_t)h->rows * sizeof(int32_t);
    CHECK((ih->reorder.xp_d == NULL) == (id->reorder.xp_d == NULL) &&
              (!ih->reorder.xp_d ||
               (same_device_bytes(ih->reorder.old_of_new_d,
                                  id->reorder.old_of_new_d, maps) &&
                same_device_bytes(ih->reorder.new_of_old_d,
                                  id->reorder.new_of_old_d, maps))),
          "%s: reordering row maps differ", desc);
}

/* The same format state: counts, options, kernel and its launch. */
static void compare_state(const cmrs_spmv *h, const cmrs_spmv *d,
                          const char *desc)
{
    const cmrs_impl *ih = h->impl, *id = d->impl;
    CHECK(h->strips == d->strips && h->stored_entries == d->stored_entries &&
              h->device_bytes == d->device_bytes &&
              h->dot_parts == d->dot_parts &&
              h->convert_bytes == d->convert_bytes &&
              !memcmp(&h->opts, &d->opts, sizeof h->opts),
          "%s: strips %lld/%lld, stored %lld/%lld, bytes %zu/%zu, dot parts "
          "%d/%d, height %d/%d (host/device)", desc, (long long)h->strips,
          (long long)d->strips, (long long)h->stored_entries,
          (long long)d->stored_entries, h->device_bytes, d->device_bytes,
          h->dot_parts, d->dot_parts, h->opts.height, d->opts.height);
    CHECK(!memcmp(&ih->variant, &id->variant, sizeof ih->variant) &&
              ih->grid == id->grid && ih->block == id->block &&
              ih->smem == id->smem && ih->tile_strips == id->tile_strips &&
              ih->tiles == id->tiles && ih->dot_grid == id->dot_grid,
          "%s: kernel %d/%d, grid %d/%d, block %d/%d (host/device)", desc,
          (int)ih->variant.kernel, (int)id->variant.kernel, ih->grid,
          id->grid, ih->block, id->block);
    compare_arrays(h, d, desc);
}

/* The instance built from the device against the CPU reference. */
static void check_reference(cmrs_spmv *d, const dev_case *c, const char *desc)
{
    cmrs_spmv_check k[2];
    memset(k, 0, sizeof k);
    cmrs_code rc0 = cmrs_spmv_verify(d, &c->A, 1.0, c->x, 0.0, NULL, &k[0]);
    CHECK(rc0 == CMRS_OK && k[0].ok, "%s: y poisoned, beta=0: %s rel err %g "
          "(bound %g), %lld non-finite", desc,
          rc0 == CMRS_OK ? "" : cmrs_error_message(), k[0].rel_err, k[0].tol,
          (long long)k[0].nonfinite);
    cmrs_code rc1 = cmrs_spmv_verify(d, &c->A, ALPHA, c->x, BETA, c->y0, &k[1]);
    CHECK(rc1 == CMRS_OK && k[1].ok, "%s: alpha=%g beta=%g: %s rel err %g "
          "(bound %g), %lld non-finite", desc, ALPHA, BETA,
          rc1 == CMRS_OK ? "" : cmrs_error_message(), k[1].rel_err, k[1].tol,
          (long long)k[1].nonfinite);
}

/* The two instances' products, y poisoned (beta = 0) and with y0. */
static void compare_products(cmrs_spmv *h, cmrs_spmv *d, const dev_case *c,
                             const char *desc)
{
    const size_t n = (size_t)c->A.rows + 1;
    double *yh = cmrs_malloc_array(n, sizeof *yh);
    double *yd = cmrs_malloc_array(n, sizeof *yd);
    for (int with_y0 = 0; with_y0 < 2 && yh && yd; ++with_y0) {
        const double alpha = with_y0 ? ALPHA : 1.0, beta = with_y0 ? BETA : 0;
        const double *y0 = with_y0 ? c->y0 : NULL;
        CHECK_OK(test_spmv_product(h, alpha, c->x, beta, y0, yh));
        CHECK_OK(test_spmv_product(d, alpha, c->x, beta, y0, yd));
        CHECK(!memcmp(yh, yd, (size_t)c->A.rows * sizeof *yh),
              "%s: alpha=%g beta=%g: products of the two creations differ",
              desc, alpha, beta);
    }
    free(yh);
    free(yd);
}

static void set_variant(const char *variant)
{
    if (variant) setenv("CMRS_CMRS_VARIANT", variant, 1);
    else unsetenv("CMRS_CMRS_VARIANT");
}

/* cmrs_spmv_csr_get_d on the cmrs instance s: the CSR-order layout gives
 * A back bit for bit (outputs poisoned first; in single the stored floats
 * widened), and so does P A P^T (variant "reorder", through its maps);
 * sorted strips refuse with CMRS_E_USAGE; the one-width layout (su)
 * gives it back through its permutation; sorted strips of no entries
 * have nothing reordered (no permutation) and give A back too. The variant
 * "reorder" must have been taken exactly where it applies (square, two
 * rows or more). */
static void check_csr_back(cmrs_spmv *s, const pair_ctx *p, const char *desc)
{
    const cmrs_csr *A = &p->c->A;
    const cmrs_impl *im = s->impl;
    const int reordered = p->variant && strstr(p->variant, "reorder") &&
                          A->rows == A->cols && A->rows >= 2;
    CHECK((im->reorder.xp_d != NULL) == reordered, "%s: reordered %d, want %d",
          desc, im->reorder.xp_d != NULL, reordered);
    const int can = p->opts->sorted <= 0 || A->nnz == 0;
    size_t pb = ((size_t)A->rows + 1) * sizeof(int32_t);
    size_t nz = (size_t)(A->nnz > 0 ? A->nnz : 1);
    int32_t *ptr_d = NULL, *idx_d = NULL, *ptr_h = malloc(pb);
    int32_t *idx_h = malloc(nz * sizeof *idx_h);
    double *val_d = NULL, *val_h = malloc(nz * sizeof *val_h);
    CHECK(cudaMalloc((void **)&ptr_d, pb) == cudaSuccess &&
              cudaMalloc((void **)&idx_d, nz * sizeof *idx_d) == cudaSuccess &&
              cudaMalloc((void **)&val_d, nz * sizeof *val_d) == cudaSuccess &&
              cudaMemset(ptr_d, 0xff, pb) == cudaSuccess &&
              cudaMemset(idx_d, 0xff, nz * sizeof *idx_d) == cudaSuccess &&
              cudaMemset(val_d, 0xff, nz * sizeof *val_d) == cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess,
          "%s: csr_get_d buffers", desc);
    cmrs_code rc = cmrs_spmv_csr_get_d(s, ptr_d, idx_d, val_d);
    CHECK(rc == (can ? CMRS_OK : CMRS_E_USAGE), "%s: csr_get_d -> %s", desc,
          cmrs_code_name(rc));
    cmrs_error_clear();
    if (rc == CMRS_OK && cudaDeviceSynchronize() == cudaSuccess &&
        cudaMemcpy(ptr_h, ptr_d, pb, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(idx_h, idx_d, nz * sizeof *idx_h,
                   cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(val_h, val_d, nz * sizeof *val_h,
                   cudaMemcpyDeviceToHost) == cudaSuccess) {
        int64_t bad = 0;
        for (int64_t i = 0; i <= A->rows; ++i) bad += ptr_h[i] != A->indptr[i];
        for (int64_t k = 0; k < A->nnz; ++k) {
            /* single: the stored floats, widened */
            const double want = p->prec == CMRS_PREC_SINGLE
                                    ? (double)(float)A->values[k]
                                    : A->values[k];
            bad += idx_h[k] != A->indices[k] ||
                   memcmp(&val_h[k], &want, sizeof(double)) != 0;
        }
        CHECK(bad == 0, "%s: csr_get_d: %lld offsets, columns or values "
              "differ from A", desc, (long long)bad);
    }
    cudaFree(ptr_d);
    cudaFree(idx_d);
    cudaFree(val_d);
    free(ptr_h);
    free(idx_h);
    free(val_h);
}

/* cmrs-mod from the host matrix by its default path (A uploaded, the
 * layout built on the GPU) against its host build h (rc_h): the same
 * refusal, or the same state and arrays. */
static void check_mod_upload(const pair_ctx *p, const cmrs_spmv *h,
                             cmrs_code rc_h, cudaStream_t stream,
                             const char *desc)
{
    cmrs_spmv *u = NULL;
    char what[300];
    snprintf(what, sizeof what, "%s, uploaded", desc);
    cmrs_code rc = cmrs_spmv_create(p->format, &p->c->A, p->prec, p->opts,
                                    stream, &u);
    CHECK(rc == rc_h, "%s: %s, the host build %s", what, cmrs_code_name(rc),
          cmrs_code_name(rc_h));
    if (u && h) compare_state(h, u, what);
    cmrs_spmv_destroy(u);
    /* a GPU build that runs out of memory falls back to the host's */
    setenv("CMRS_TEST_FAIL_MOD_BUILD", "1", 1);
    rc = cmrs_spmv_create(p->format, &p->c->A, p->prec, p->opts, stream, &u);
    unsetenv("CMRS_TEST_FAIL_MOD_BUILD");
    CHECK(rc == rc_h, "%s, its build failing: %s, the host build %s", what,
          cmrs_code_name(rc), cmrs_code_name(rc_h));
    if (u && h) compare_state(h, u, what);
    cmrs_spmv_destroy(u);
    /* the switch took the host path: only the upload finds the diagonal
     * on the device */
    if (rc_h != CMRS_OK || p->c->A.rows == 0) return;
    cmrs_spmv *hd = NULL, *ud = NULL;
    setenv("CMRS_MOD_HOST_BUILD", "1", 1);
    CHECK_OK(cmrs_spmv_create_diag(p->format, &p->c->A, p->prec, p->opts,
                                   stream, &hd));
    unsetenv("CMRS_MOD_HOST_BUILD");
    CHECK_OK(cmrs_spmv_create_diag(p->format, &p->c->A, p->prec, p->opts,
                                   stream, &ud));
    CHECK(hd && ud && !hd->diag.pos_d && ud->diag.pos_d,
          "%s: diagonal found on the device by the host build %d, by the "
          "upload %d", what, hd && hd->diag.pos_d != NULL,
          ud && ud->diag.pos_d != NULL);
    cmrs_spmv_destroy(hd);
    cmrs_spmv_destroy(ud);
}

/* Creates p's format from the host matrix and from the device arrays and
 * compares them (and the latter with the reference). */
static void run_pair(const pair_ctx *p, cudaStream_t stream)
{
    char desc[256];
    cmrs_spmv *h = NULL, *d = NULL;
    describe(p, desc, sizeof desc);
    set_variant(p->variant);
    /* cmrs-mod's host build: the reference (its default from a host A
     * uploads A and builds on the GPU: check_mod_upload) */
    const int is_mod = !strcmp(p->format, "cmrs-mod");
    if (is_mod) setenv("CMRS_MOD_HOST_BUILD", "1", 1);
    cmrs_code rc_h = cmrs_spmv_create(p->format, &p->c->A, p->prec, p->opts,
                                      stream, &h);
    if (is_mod) unsetenv("CMRS_MOD_HOST_BUILD");
    char msg_h[256];
    snprintf(msg_h, sizeof msg_h, "%s", cmrs_error_message());
    cmrs_code rc_d = cmrs_spmv_create_dev(p->format, &p->c->M, p->prec,
                                          p->opts, stream, &d);
    set_variant(NULL);
    CHECK(rc_h == rc_d && (rc_d == CMRS_OK) == (d != NULL),
          "%s: create -> %s (%s), create_dev -> %s (%s)", desc,
          cmrs_code_name(rc_h), rc_h ? msg_h : "", cmrs_code_name(rc_d),
          rc_d ? cmrs_error_message() : "");
    CHECK(strncmp(p->format, "cmrs", 4) || rc_h == CMRS_OK,
          "%s: setup failed: %s", desc, msg_h);
    /* n = 0: only the CMRS formats are asked for products (nor does
     * test_gpu_formats ask the others); their creations still compare. */
    const int is_cmrs = !strncmp(p->format, "cmrs", 4);
    if (h && d && is_cmrs) compare_state(h, d, desc);
    if (h && !strcmp(p->format, "cmrs")) check_csr_back(h, p, desc);
    if (is_mod) check_mod_upload(p, h, rc_h, stream, desc);
    if (h && d && (is_cmrs || p->c->A.rows > 0)) {
        check_reference(d, p->c, desc);
        if (test_spmv_reproducible(d)) compare_products(h, d, p->c, desc);
    }
    cmrs_spmv_destroy(h);
    cmrs_spmv_destroy(d);
}

/* Every format with its defaults, cmrs with every k_cmrs_runs entry. */
static void test_case(const dev_case *c, cudaStream_t stream)
{
    static const cmrs_spmv_opts defaults = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const int failed_before = g_checks_failed;
    for (int prec = 0; prec < 2; ++prec)
        for (size_t f = 0; f < cmrs_spmv_format_count(); ++f) {
            pair_ctx p = {c, cmrs_spmv_format_at(f)->name,
                          prec ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE,
                          &defaults, NULL};
            const int runs = strcmp(p.format, "cmrs") ? 1 : N_CMRS_RUNS;
            for (int r = 0; r < runs; ++r) {
                if (runs > 1) {
                    p.opts = &k_cmrs_runs[r].opts;
                    p.variant = k_cmrs_runs[r].variant;
                }
                run_pair(&p, stream);
            }
        }
    printf("%-32s %lld x %lld, nnz %lld: %d failures\n", c->name,
           (long long)c->A.rows, (long long)c->A.cols, (long long)c->A.nnz,
           g_checks_failed - failed_before);
}

/* The kernel cmrs picks from the device arrays, and from the host copy
 * (whose build checks the offsets on the device too): the tile kernel
 * where a strip's rows start too far in for 16 bits (the 70000-entry row
 * at h = 16), the rows kernel otherwise (h = 1: one row a strip; a row of
 * 11000 entries: the rows after it start 11000 in, which fits). */
static void test_kernel_choice(const dev_case *c, int height,
                               cmrs_kernel_kind want)
{
    cmrs_spmv_opts o = {height, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int host = 0; host < 2; ++host) {
        cmrs_spmv *d = NULL;
        if (host)
            CHECK_OK(cmrs_spmv_create("cmrs", &c->A, CMRS_PREC_DOUBLE, &o, 0,
                                      &d));
        else
            CHECK_OK(cmrs_spmv_create_dev("cmrs", &c->M, CMRS_PREC_DOUBLE,
                                          &o, 0, &d));
        if (!d) continue;
        const cmrs_impl *im = d->impl;
        CHECK(im->variant.kernel == want && (want != CMRS_KERNEL_ROWS) ==
                                                (im->mat.row_off_d == NULL),
              "'%s' h=%d (%s copy): kernel %d, want %d", c->name, height,
              host ? "host" : "device", (int)im->variant.kernel, (int)want);
        cmrs_spmv_destroy(d);
    }
}

static cmrs_code make_case(const test_spec *g, uint64_t seed, dev_case *c)
{
    memset(c, 0, sizeof *c);
    c->name = g->name;
    CMRS_CHECK(test_random_csr(g, seed, &c->A));
    c->x = cmrs_malloc_array((size_t)c->A.cols, sizeof *c->x);
    c->y0 = cmrs_malloc_array((size_t)c->A.rows, sizeof *c->y0);
    CMRS_ENSURE(c->x && c->y0, CMRS_E_NOMEM, "test: out of memory");
    cmrs_random_vector(c->x, c->A.cols, seed + 1);
    cmrs_random_vector(c->y0, c->A.rows, seed + 2);
    CMRS_CHECK(upload_view(&c->A, &c->M));
    return CMRS_OK;
}

static void free_case(dev_case *c)
{
    cmrs_csr_free(&c->A);
    free_view(&c->M);
    free(c->x);
    free(c->y0);
}

/* A 2 x 3 matrix with 3 entries, on the device and on the host. */
static void tiny_matrix(cmrs_csr *A, cmrs_csr_view_d *M)
{
    static const int64_t indptr[] = {0, 2, 3};
    static const int32_t indices[] = {0, 2, 1};
    static const double values[] = {1.0, -2.0, 3.0};
    CHECK_OK(cmrs_csr_alloc(A, 2, 3, 3));
    memcpy(A->indptr, indptr, sizeof indptr);
    memcpy(A->indices, indices, sizeof indices);
    memcpy(A->values, values, sizeof values);
    CHECK_OK(upload_view(A, M));
}

/* Refused with the code named, nothing created. */
static void expect_refusal(const char *format, const cmrs_csr_view_d *M,
                           cmrs_code code, const char *want)
{
    static cmrs_spmv dummy;
    cmrs_spmv *s = &dummy; /* any non-NULL: must become NULL */
    CHECK_FAILS(cmrs_spmv_create_dev(format, M, CMRS_PREC_DOUBLE, NULL, 0, &s),
                code, want);
    CHECK(s == NULL, "a refused creation left a handle");
}

/* Counts that disagree with the row offsets on the device (the refusals
 * that need no GPU are in test_spmv_create_dev.c), and a bad name. */
static void test_refusals(void)
{
    cmrs_csr A;
    cmrs_csr_view_d good, bad;
    cmrs_spmv *s = NULL;
    tiny_matrix(&A, &good);
    bad = good;
    bad.nnz = 2; /* indptr ends at 3 */
    expect_refusal("cmrs", &bad, CMRS_E_INPUT, "from 0 to 3");
    bad = good;
    bad.rows = 1; /* indptr[1] = 2 */
    expect_refusal("cmrs-mod", &bad, CMRS_E_INPUT, "from 0 to 2");
    expect_refusal("no-such-format", &good, CMRS_E_USAGE, "unknown SpMV");
    CHECK_OK(cmrs_spmv_create_dev("cmrs", &good, CMRS_PREC_DOUBLE, NULL, 0, &s));
    cmrs_spmv_destroy(s);
    cmrs_csr_free(&A);
    free_view(&good);
}

/* In single precision a value outside the float range (here 1e300 at
 * entry 3, NaN at 6) is, from the device as from the host, the same
 * error (cmrs: CMRS_E_INPUT naming the first); in double both paths take
 * the values as they are. */
static void test_value_range(void)
{
    cmrs_csr A;
    cmrs_csr_view_d M;
    cmrs_spmv *h = NULL, *d = NULL;
    const test_spec g = {"range", 40, 40, 4, 0, 0, -1, 0, 0, TEST_LEN_FIXED};
    CHECK_OK(test_random_csr(&g, 77, &A));
    A.values[3] = 1e300;
    A.values[6] = NAN;
    CHECK_OK(upload_view(&A, &M));
    for (size_t f = 0; f < cmrs_spmv_format_count(); ++f) {
        const char *name = cmrs_spmv_format_at(f)->name;
        char msg_h[256];
        cmrs_code rc_h = cmrs_spmv_create(name, &A, CMRS_PREC_SINGLE, NULL, 0, &h);
        snprintf(msg_h, sizeof msg_h, "%s", cmrs_error_message());
        cmrs_code rc_d = cmrs_spmv_create_dev(name, &M, CMRS_PREC_SINGLE, NULL,
                                              0, &d);
        CHECK(rc_h == rc_d &&
                  (rc_h == CMRS_OK || !strcmp(msg_h, cmrs_error_message())) &&
                  (strcmp(name, "cmrs") ||
                   (rc_h == CMRS_E_INPUT && strstr(msg_h, "index 3 "))),
              "%s single: host %s '%s', device %s '%s'", name,
              cmrs_code_name(rc_h), msg_h, cmrs_code_name(rc_d),
              cmrs_error_message());
        cmrs_spmv_destroy(h);
        cmrs_spmv_destroy(d);
        h = d = NULL;
    }
    CHECK_OK(cmrs_spmv_create_dev("cmrs", &M, CMRS_PREC_DOUBLE, NULL, 0, &d));
    cmrs_spmv_destroy(d);
    cmrs_csr_free(&A);
    free_view(&M);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    unsetenv("CMRS_CMRS_VARIANT"); /* the defaults unless a run sets one */
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) ==
              cudaSuccess, "cannot create a stream");
    for (int i = 0; i < N_SPECS; ++i) {
        dev_case c;
        cmrs_code rc = make_case(&k_specs[i], 500 + (uint64_t)i, &c);
        CHECK(rc == CMRS_OK, "'%s': %s", k_specs[i].name, cmrs_error_message());
        if (rc == CMRS_OK) test_case(&c, stream);
        if (rc == CMRS_OK && i == LONG_ROW_SPEC) {
            test_kernel_choice(&c, 16, CMRS_KERNEL_TILE);
            test_kernel_choice(&c, 1, CMRS_KERNEL_ROWS);
        }
        if (rc == CMRS_OK && i == LONG_ROW_SPEC - 1) /* 11000 fit 16 bits */
            test_kernel_choice(&c, 16, CMRS_KERNEL_ROWS);
        free_case(&c);
    }
    test_refusals();
    test_value_range();
    cudaStreamDestroy(stream);
    return check_summary();
}
