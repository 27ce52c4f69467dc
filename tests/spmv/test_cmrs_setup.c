/* Host tests of the setup shared by the cmrs and cmrs-mod formats
 * (spmv/cmrs_setup.h): option defaults and checks, and the parsing of the
 * CMRS_CMRS_VARIANT kernel-variant string. No GPU needed. */
#include <string.h>

#include "check.h"
#include "spmv/cmrs_setup.h"
#include "spmv/model.h"
#include "test_cmrs_matrices.h"

static cmrs_spmv handle(const char *format, const cmrs_spmv_opts *o)
{
    cmrs_spmv s;
    memset(&s, 0, sizeof s);
    s.ops = cmrs_spmv_format_find(format);
    s.prec = CMRS_PREC_DOUBLE;
    s.opts = *o;
    return s;
}

static void test_defaults(const cmrs_csr *A)
{
    cmrs_spmv_opts zero = {0, 0, 0, 0, 0, 0};
    cmrs_spmv s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, A, 0));
    int h = cmrs_default_height((double)A->nnz / (double)A->rows);
    CHECK(s.opts.height == h && s.opts.block_size == 128 &&
              s.opts.sorted == -1 && s.opts.modulo == 0,
          "cmrs defaults: h=%d block=%d sorted=%d modulo=%d", s.opts.height,
          s.opts.block_size, s.opts.sorted, s.opts.modulo);
    s = handle("cmrs-mod", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, A, 1));
    CHECK(s.opts.height == 16 && s.opts.modulo == 32 && s.opts.sorted == 1,
          "cmrs-mod defaults: h=%d modulo=%d", s.opts.height, s.opts.modulo);
    cmrs_spmv_opts given = {5, 256, 8, -1, 0, 0};
    s = handle("cmrs-mod", &given);
    CHECK_OK(cmrs_resolve_opts(&s, A, 1));
    CHECK(s.opts.height == 5 && s.opts.block_size == 256 &&
              s.opts.modulo == 8 && s.opts.sorted == -1,
          "given options are kept");
}

static void test_bad_options(const cmrs_csr *A)
{
    static const cmrs_spmv_opts bad[] = {
        {17, 0, 0, 0, 0, 0}, {-1, 0, 0, 0, 0, 0}, {4, 100, 0, 0, 0, 0},
        {4, 2048, 0, 0, 0, 0}, {4, 0, 0, 2, 0, 0}, {16, 0, 12, 0, 0, 0},
        {16, 0, 64, 0, 0, 0}, {16, 0, 1, 0, 0, 0}};
    static const char *const want[] = {
        "height 17", "height -1", "block size 100", "block size 2048",
        "sorted", "modulo 12", "modulo 64", "modulo 1"};
    for (int i = 0; i < 8; ++i) {
        cmrs_spmv s = handle(i < 5 ? "cmrs" : "cmrs-mod", &bad[i]);
        CHECK_FAILS(cmrs_resolve_opts(&s, A, i >= 5), CMRS_E_USAGE, want[i]);
    }
}

static void test_variants(const cmrs_csr *short_rows, const cmrs_csr *long_rows)
{
    cmrs_variant v;
    CHECK_OK(cmrs_variant_parse(NULL, short_rows, &v));
    CHECK(v.seg && !v.smem && !v.aligned && v.stream,
          "default: seg, noalign, stream");
    CHECK_OK(cmrs_variant_parse("", long_rows, &v));
    CHECK(v.aligned, "autoalign aligns when nnz/rows >= 32");
    CHECK_OK(cmrs_variant_parse("smem,align,cache", short_rows, &v));
    CHECK(!v.seg && v.smem && v.aligned && !v.stream, "smem,align,cache");
    CHECK_OK(cmrs_variant_parse("noalign,,reg,stream,", long_rows, &v));
    CHECK(!v.seg && !v.smem && !v.aligned && v.stream, "noalign,,reg,stream,");
    CHECK_OK(cmrs_variant_parse("reg,seg", short_rows, &v));
    CHECK(v.seg && !v.smem, "reg,seg: the last kernel token wins");
    CHECK_OK(cmrs_variant_parse("align,autoalign", short_rows, &v));
    CHECK(!v.aligned, "autoalign restores the default");
    CHECK_FAILS(cmrs_variant_parse("reg,fast", short_rows, &v), CMRS_E_USAGE,
                "unknown token 'fast'");
    CHECK_FAILS(cmrs_variant_parse("Reg", short_rows, &v), CMRS_E_USAGE,
                "'Reg'");
}

/* The measured default: strips of h*mu entries fill whole 64-entry chunks. */
static void test_default_height(void)
{
    CHECK(cmrs_default_height(4.955) == 12, "vessel mu 4.955 -> 12, got %d",
          cmrs_default_height(4.955));
    CHECK(cmrs_default_height(6.97) == 9, "poisson mu 6.97 -> 9, got %d",
          cmrs_default_height(6.97));
    CHECK(cmrs_default_height(26.6) == 14, "27-point mu 26.6 -> 14, got %d",
          cmrs_default_height(26.6));
    CHECK(cmrs_default_height(63.5) == 16, "mu 63.5: 16 rows fill 16 chunks "
          "(one row would fill half of two), got %d", cmrs_default_height(63.5));
    CHECK(cmrs_default_height(12.5) == 15, "mu 12.5 -> 15 (187.5 of 192), got %d",
          cmrs_default_height(12.5));
    CHECK(cmrs_default_height(0.5) == 16 && cmrs_default_height(0) == 16,
          "short rows and empty matrices -> 16");
}

int main(void)
{
    cmrs_csr A, L;
    test_default_height();
    CHECK_OK(test_random_csr(&k_test_specs[1], 1, &A)); /* mu = 7 */
    CHECK_OK(test_random_csr(&k_test_specs[4], 1, &L)); /* mu = 40 */
    test_defaults(&A);
    test_bad_options(&A);
    test_variants(&A, &L);
    cmrs_csr_free(&A);
    cmrs_csr_free(&L);
    return check_summary();
}
