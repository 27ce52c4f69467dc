/* GPU tests specific to the CMRS formats (the generic per-format sweep is
 * test_gpu_formats.c): every kernel variant of CMRS_CMRS_VARIANT (tiles of
 * strips with 4 or 8 entries per lane and 1..31 strips per tile, segmented
 * scans, register / shared-memory partial sums, aligned / unaligned reads,
 * streaming / cached matrix loads) on long rows and long strips, the grid-stride loop (more
 * strips than resident warps), 1024-thread blocks (shared-memory opt-in for
 * cmrs-mod), the byte counts reported for the eta metrics, empty matrices
 * and a bad variant name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_setup.h"
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "spmv/spmv.h"
#include "test_cmrs_matrices.h"

static const test_spec k_gpu_specs[] = {
    TEST_SPEC_LONG_ROW,
    TEST_NORMAL("mu=40 sigma=20", 2000, 2000, 40, 20),
    TEST_NORMAL("mu=5 sigma=0.2, 20000 rows", 20000, 20000, 5, 0.2),
    TEST_SPEC_ROWS17,
    TEST_SPEC_N1,
    TEST_EMPTY_ROWS("30% empty rows mu=4", 999, 999, 4, 1, 0.3),
    TEST_KIND("fixed 5 per row, 3001 rows", 3001, 3001, FIXED, 5),
    /* a distributed part's local matrix: owned columns, then ghosts (the
     * x'y epilogue over x's first rows entries); and its transpose shape,
     * which has no epilogue */
    TEST_SCATTERED("2000 x 2600 mu=6 sigma=2 scattered", 2000, 2600, 6, 2),
    TEST_NORMAL("2600 x 2000 mu=6 sigma=2", 2600, 2000, 6, 2),
};
#define N_GPU_SPECS (int)(sizeof k_gpu_specs / sizeof k_gpu_specs[0])

/* Device bytes: strip pointers, stored words and values; the CSR-order
 * layout (built on the GPU) carries CMRS_TILE_PAD zero entries, reordered
 * layouts (cmrs-mod, sorted, sliced) a 4-byte permutation entry per stored one,
 * P A P^T its maps and vectors. */
static size_t expected_bytes(const char *format, const cmrs_spmv *s)
{
    size_t sv = cmrs_prec_value_bytes(s->prec);
    size_t stored = (size_t)s->stored_entries;
    int reordered = strcmp(format, "cmrs") || s->opts.sorted > 0;
    size_t bytes = (size_t)(s->strips + 1) * 4;
    if (reordered) return bytes + stored * (4 + sv) + stored * 4;
    const cmrs_impl *im = s->impl;
    if (im->variant.row_sliced) /* + the permutation */
        return bytes + stored * (8 + sv);
    size_t offsets = im->mat.row_off_d ? (size_t)s->rows * 2 : 0;
    /* P A P^T: the entry map, two row maps, P x and B P x */
    size_t maps = im->reorder.xp_d ? stored * 4 + (size_t)s->rows * (8 + 2 * sv)
                                   : 0;
    return bytes + (stored + CMRS_TILE_PAD) * (4 + sv) + offsets + maps;
}

/* The x'y epilogue (apply_dot, fused CG's p'q): offered exactly by the rows
 * and tile kernels where rows <= cols; y and the partials' sum checked
 * against the reference (poisoned first). */
static void check_dot(cmrs_spmv *s, const cmrs_csr *A, const char *name,
                      const char *variant, const double *x)
{
    const cmrs_impl *im = s->impl;
    int want = A->rows <= A->cols && (im->variant.kernel == CMRS_KERNEL_ROWS ||
                                      im->variant.kernel == CMRS_KERNEL_TILE);
    CHECK((s->dot_parts > 0) == want, "cmrs %s variant '%s': dot_parts %d",
          name, variant ? variant : "", s->dot_parts);
    if (!want || s->dot_parts <= 0) return;
    cmrs_spmv_check k = {0};
    cmrs_code rc = cmrs_spmv_verify_dot(s, A, x, &k);
    CHECK(rc == CMRS_OK && k.ok, "cmrs %s %s h=%d variant '%s' x'y: %s y rel "
          "err %g (bound %g), x'y rel err %g (bound %g), %d partials", name,
          cmrs_prec_name(s->prec), s->opts.height, variant ? variant : "",
          rc == CMRS_OK ? "" : cmrs_error_message(), k.rel_err, k.tol,
          k.dot_rel_err, k.dot_tol, s->dot_parts);
}

/* Sets up `format` on A, checks the byte counts and both products. */
static void run(const char *format, const cmrs_csr *A, const char *name,
                cmrs_prec prec, cmrs_spmv_opts o, const char *variant)
{
    cmrs_spmv *s = NULL;
    cmrs_spmv_check k1 = {0}, k2 = {0};
    cmrs_code rc = cmrs_spmv_create(format, A, prec, &o, 0, &s);
    CHECK(rc == CMRS_OK, "%s %s h=%d: setup: %s", format, name, o.height,
          cmrs_error_message());
    if (rc != CMRS_OK) return;
    int64_t h = s->opts.height;
    CHECK(s->strips == (A->rows + h - 1) / h &&
              s->device_bytes == expected_bytes(format, s) &&
              (strcmp(format, "cmrs") || s->stored_entries == A->nnz ||
               (((const cmrs_impl *)s->impl)->variant.row_sliced > 0 &&
                s->stored_entries >= A->nnz)),
          "%s %s: strips %lld, stored %lld, device bytes %zu", format, name,
          (long long)s->strips, (long long)s->stored_entries, s->device_bytes);
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y0 = cmrs_malloc_array((size_t)A->rows, sizeof *y0);
    cmrs_random_vector(x, A->cols, 21);
    cmrs_random_vector(y0, A->rows, 22);
    rc = cmrs_spmv_verify(s, A, 1.0, x, 0.0, NULL, &k1);
    if (rc == CMRS_OK) rc = cmrs_spmv_verify(s, A, -1.5, x, 0.75, y0, &k2);
    CHECK(rc == CMRS_OK && k1.ok && k2.ok, "%s %s %s h=%lld block=%d "
          "modulo=%d variant='%s': %s rel err %g / %g (bounds %g / %g)",
          format, name, cmrs_prec_name(prec), (long long)h,
          s->opts.block_size, s->opts.modulo, variant ? variant : "",
          rc == CMRS_OK ? "" : cmrs_error_message(), k1.rel_err, k2.rel_err,
          k1.tol, k2.tol);
    if (!strcmp(format, "cmrs")) check_dot(s, A, name, variant, x);
    const cmrs_impl *im = s->impl;
    const int reorder = !strcmp(format, "cmrs") && variant &&
                        strstr(variant, "reorder") && s->opts.sorted <= 0 &&
                        A->rows == A->cols && A->rows >= 2;
    CHECK(strcmp(format, "cmrs") || (im->reorder.xp_d != NULL) == reorder,
          "%s %s variant '%s': reordered %d, want %d", format, name,
          variant ? variant : "", im->reorder.xp_d != NULL, reorder);
    free(x);
    free(y0);
    cmrs_spmv_destroy(s);
}

static cmrs_spmv_opts opts(int h, int block, int modulo)
{
    cmrs_spmv_opts o = {h, block, modulo, 0, 0, 0, 0, 0, 0, 0};
    return o;
}

/* run() of cmrs with CMRS_CMRS_VARIANT set to variant (NULL: unset). */
static void run_variant(const char *variant, const cmrs_csr *A,
                        const char *name, cmrs_prec prec, cmrs_spmv_opts o)
{
    if (variant) setenv("CMRS_CMRS_VARIANT", variant, 1);
    run("cmrs", A, name, prec, o, variant ? variant : "default");
    unsetenv("CMRS_CMRS_VARIANT");
}

static void test_variants(const cmrs_csr *A, const char *name)
{
    static const char *const variants[] = {
        "rows", "rows1", "rows2", "rows4", "rows8", "rows1,grid=1",
        "rows4,grid=2", "rows,l2normal", "rows2,l2normal", "rows1,b1",
        "rows1,b4", "rows1,b8", "rows2,b8,l2normal", "rows4,b8",
        "rows8,b4,grid=1", "rows,b8,grid=3", "rows,p1", "rows,p2",
        "rows1,b8,p2", "rows1,b4,p1,l2normal", "rows2,b4,p2,grid=1",
        "rows8,b4,p2,grid=3", "rows4,b8,p1,grid=2", "rows8,b8,p2,l2first",
        "rows1,b6", "rows1,b6,p2", "rows1,b6,p2,grid=2,l2first",
        "rows2,b6,p1,grid=1", "rows8,b6,l2normal", "reorder",
        "rows1,b6,p2,reorder", "rows8,b4,p2,grid=3,reorder",
        "rows2,reorder,l2first", "tile,reorder", "seg,reorder",
        "reg,reorder", "sl", "sl,b8", "sl,b4,l2first", "sl,grid=2",
        "rows1,sl,b6,l2normal", "sl,b5", "sl,b7", "su", "su,b5", "su,b4",
        "su,b8,l2first", "su,grid=2",
        "tile", "tile4",
        "tile16", "tile,cache", "tile4,cache", "g=1", "tile4,g=1", "g=2",
        "g=7", "g=31", "tile4,g=31", "tile,grid=1", "tile16,grid=2", "seg",
        "seg1", "seg,cache", "seg1,cache", "reg", "smem", "reg,align",
        "smem,align", "noalign", "cache", "smem,cache,align", NULL};
    for (int v = 0; variants[v]; ++v)
        for (int p = 0; p < 2; ++p)
            for (int h = 1; h <= 16; ++h)
                run_variant(variants[v], A, name,
                            p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE,
                            opts(h, 0, 0));
}

/* Big blocks: registers of h = 16 in double, 128 KB of cmrs-mod buffer. */
static void test_big_blocks(const cmrs_csr *A, const char *name)
{
    for (int p = 0; p < 2; ++p) {
        cmrs_prec prec = p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        static const char *const variants[] = {NULL, "tile4", "tile16",
                                               "rows8", "seg1", "smem"};
        for (int v = 0; v < 6; ++v) /* tile16 takes blocks of at most 512 */
            run_variant(variants[v], A, name, prec,
                        opts(16, v == 2 ? 512 : 1024, 0));
        for (int m = 2; m <= 32; m *= 2)
            run("cmrs-mod", A, name, prec, opts(16, 1024, m), NULL);
        /* the pipelined kernel's largest block (the default of p2 over
         * batches of 6 on 2M rows and more) */
        run_variant("rows1,b6,p2", A, name, prec, opts(16, 512, 0));
        run_variant("rows1,b6,p2,grid=3", A, name, prec, opts(5, 512, 0));
        run_variant("sl", A, name, prec, opts(16, 1024, 0));
        run_variant("su,b5", A, name, prec, opts(16, 1024, 0));
    }
}

/* One warp per block: more strips than the grid has warps. */
static void test_grid_stride(const cmrs_csr *A, const char *name)
{
    run_variant(NULL, A, name, CMRS_PREC_DOUBLE, opts(1, 32, 0));
    run_variant(NULL, A, name, CMRS_PREC_DOUBLE, opts(16, 32, 0));
    run_variant("tile,g=1,grid=3", A, name, CMRS_PREC_SINGLE, opts(16, 32, 0));
    run_variant("tile4,grid=1", A, name, CMRS_PREC_DOUBLE, opts(7, 128, 0));
    run_variant("rows2,grid=1", A, name, CMRS_PREC_DOUBLE, opts(5, 32, 0));
    run_variant("sl,grid=1", A, name, CMRS_PREC_DOUBLE, opts(5, 32, 0));
    run_variant("su,b4,grid=1", A, name, CMRS_PREC_SINGLE, opts(7, 32, 0));
    run("cmrs-mod", A, name, CMRS_PREC_DOUBLE, opts(1, 32, 2), NULL);
}

static void test_empty_and_bad(void)
{
    cmrs_csr A;
    cmrs_spmv *s = NULL;
    CHECK_OK(cmrs_csr_alloc(&A, 0, 0, 0));
    for (int f = 0; f < 2; ++f) {
        const char *format = f ? "cmrs-mod" : "cmrs";
        CHECK_OK(cmrs_spmv_create(format, &A, CMRS_PREC_DOUBLE, NULL, 0, &s));
        if (s) CHECK_OK(cmrs_spmv_apply(s, 1.0, NULL, 0.0, NULL));
        CHECK(!s || s->strips == 0, "%s: empty matrix has strips", format);
        cmrs_spmv_destroy(s);
        s = NULL;
    }
    cmrs_csr_free(&A);
    CHECK_OK(test_random_csr(&k_gpu_specs[3], 1, &A));
    setenv("CMRS_CMRS_VARIANT", "reg,fast", 1);
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, NULL, 0, &s),
                CMRS_E_USAGE, "'fast'");
    setenv("CMRS_CMRS_VARIANT", "rows1,b1,p1", 1);
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, NULL, 0, &s),
                CMRS_E_USAGE, "b4, b6, b8");
    static const char *const bad_sl[][2] = {
        {"sl,p2", "sliced strips"}, {"sl,rows2", "sliced strips"},
        {"sl,b1", "sliced strips"}, {"sl,reorder", "do not go with"},
        {"su,p1", "sliced strips"}, {"rows1,b5", "go with sl"}};
    for (int i = 0; i < 6; ++i) {
        setenv("CMRS_CMRS_VARIANT", bad_sl[i][0], 1);
        CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, NULL, 0, &s),
                    CMRS_E_USAGE, bad_sl[i][1]);
    }
    unsetenv("CMRS_CMRS_VARIANT");
    cmrs_spmv_opts bad = opts(4, 100, 0);
    CHECK_FAILS(cmrs_spmv_create("cmrs", &A, CMRS_PREC_DOUBLE, &bad, 0, &s),
                CMRS_E_USAGE, "block size 100");
    cmrs_csr_free(&A);
}

/* The rule's choice of strips of one width (su): taken on rows of one
 * length (no padding), in both precisions, with the width as the batch
 * and CMRS_SLICE_BLOCK unless a block is given; not taken where the
 * padding to the longest row passes CMRS_SLICE_MAX_PAD, nor with nosl. */
static void test_slice_rule(void)
{
    static const test_spec fixed = {"fixed 5", 999, 999, 5, 0, 0, -1, 0, 0,
                                    TEST_LEN_FIXED};
    static const test_spec varied = {"mu=5 sigma=1", 999, 999, 5, 1, 0, -1, 0,
                                     0, TEST_LEN_NORMAL};
    cmrs_csr F, V;
    CHECK_OK(test_random_csr(&fixed, 41, &F));
    CHECK_OK(test_random_csr(&varied, 42, &V));
    for (int p = 0; p < 2; ++p) {
        const cmrs_prec prec = p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        for (int block = 0; block <= 128; block += 128) {
            cmrs_spmv *s = NULL;
            cmrs_spmv_opts o = opts(0, block, 0);
            CHECK_OK(cmrs_spmv_create("cmrs", &F, prec, &o, 0, &s));
            const cmrs_impl *im = s ? s->impl : NULL;
            CHECK(im && im->variant.row_sliced == 2 && im->mat.slice_width == 5 &&
                      im->variant.row_batch == 5 && im->perm_d &&
                      s->opts.slice == 1 &&
                      s->stored_entries == F.nnz &&
                      im->block == (block ? block : CMRS_SLICE_BLOCK),
                  "rule on rows of 5 (%s, block %d): sliced %d, width %d, "
                  "batch %d, block %d", cmrs_prec_name(prec), block,
                  im ? im->variant.row_sliced : -9, im ? im->mat.slice_width : -9,
                  im ? im->variant.row_batch : -9, im ? im->block : -9);
            cmrs_spmv_destroy(s);
        }
        cmrs_spmv *s = NULL;
        CHECK_OK(cmrs_spmv_create("cmrs", &V, prec, NULL, 0, &s));
        CHECK(s && ((const cmrs_impl *)s->impl)->variant.row_sliced == 0 &&
                  s->stored_entries == V.nnz && s->opts.slice == -1,
              "rule on rows of 5 +- 1: sliced where the padding is too much");
        cmrs_spmv_destroy(s);
        /* opts.slice: 1 takes the padding, -1 refuses the layout */
        cmrs_spmv_opts on = opts(0, 0, 0), off = opts(0, 0, 0);
        on.slice = 1;
        off.slice = -1;
        CHECK_OK(cmrs_spmv_create("cmrs", &V, prec, &on, 0, &s));
        CHECK(s && ((const cmrs_impl *)s->impl)->variant.row_sliced == 2 &&
                  s->stored_entries > V.nnz && s->opts.slice == 1,
              "slice on: not sliced");
        cmrs_spmv_destroy(s);
        CHECK_OK(cmrs_spmv_create("cmrs", &F, prec, &off, 0, &s));
        CHECK(s && ((const cmrs_impl *)s->impl)->variant.row_sliced == 0 &&
                  s->opts.slice == -1, "slice off: sliced");
        cmrs_spmv_destroy(s);
        on.reorder = 1;
        CHECK_FAILS(cmrs_spmv_create("cmrs", &F, prec, &on, 0, &s),
                    CMRS_E_USAGE, "do not go with reorder");
        setenv("CMRS_CMRS_VARIANT", "nosl", 1);
        CHECK_OK(cmrs_spmv_create("cmrs", &F, prec, NULL, 0, &s));
        unsetenv("CMRS_CMRS_VARIANT");
        CHECK(s && ((const cmrs_impl *)s->impl)->variant.row_sliced == 0,
              "nosl: sliced all the same");
        cmrs_spmv_destroy(s);
    }
    cmrs_csr_free(&F);
    cmrs_csr_free(&V);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    unsetenv("CMRS_CMRS_VARIANT");
    for (int i = 0; i < N_GPU_SPECS; ++i) {
        cmrs_csr A;
        CHECK_OK(test_random_csr(&k_gpu_specs[i], 300 + (uint64_t)i, &A));
        test_variants(&A, k_gpu_specs[i].name);
        if (i < 2) test_big_blocks(&A, k_gpu_specs[i].name);
        if (i == 2) test_grid_stride(&A, k_gpu_specs[i].name);
        cmrs_csr_free(&A);
    }
    test_empty_and_bad();
    test_slice_rule();
    return check_summary();
}
