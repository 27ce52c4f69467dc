/* Host tests of the setup shared by the cmrs and cmrs-mod formats
 * (spmv/cmrs/cmrs_setup.h): option defaults and checks, and the parsing of the
 * CMRS_CMRS_VARIANT kernel-variant string. No GPU needed. */
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_setup.h"
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

/* A: rows of 7 entries, L: of 40. */
static void test_defaults(const cmrs_csr *A, const cmrs_csr *L)
{
    cmrs_spmv_opts zero = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    cmrs_spmv s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, A, 0, NULL));
    CHECK(s.opts.height == 16 && s.opts.block_size == 128 &&
              s.opts.sorted == -1 && s.opts.modulo == 0,
          "cmrs defaults: h=%d block=%d sorted=%d modulo=%d", s.opts.height,
          s.opts.block_size, s.opts.sorted, s.opts.modulo);
    cmrs_variant seg;
    CHECK_OK(cmrs_variant_parse("seg", A, &seg));
    CHECK(seg.kernel == CMRS_KERNEL_SEG, "seg parsed");
    s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, A, 0, &seg));
    int h = cmrs_seg_height((double)A->nnz / (double)A->rows);
    CHECK(s.opts.height == h, "cmrs with seg: the chunk-fill height %d, got %d",
          h, s.opts.height);
    s = handle("cmrs-mod", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, A, 1, NULL));
    CHECK(s.opts.height == 16 && s.opts.modulo == 32 && s.opts.sorted == 1,
          "cmrs-mod defaults: h=%d modulo=%d", s.opts.height, s.opts.modulo);
    s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, L, 0, NULL));
    CHECK(s.opts.block_size == CMRS_ROWS_LONG_BLOCK, "cmrs on rows of 40: "
          "block %d", s.opts.block_size);
    s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, L, 0, &seg));
    CHECK(s.opts.block_size == 128, "seg on rows of 40: block %d",
          s.opts.block_size);
    s = handle("cmrs-mod", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, L, 1, NULL));
    CHECK(s.opts.block_size == 128, "cmrs-mod: block %d", s.opts.block_size);
    cmrs_csr vessel = {0}; /* counts only: rows of 4.9 entries */
    vessel.rows = vessel.cols = 1000;
    vessel.nnz = 4900;
    static const struct {
        const char *variant;
        cmrs_prec prec;
        int block;
    } blocks[] = {{NULL, CMRS_PREC_DOUBLE, CMRS_ROWS_PIPE2_BLOCK},
                  {"rows1", CMRS_PREC_DOUBLE, CMRS_ROWS_PIPE2_BLOCK},
                  {"b8", CMRS_PREC_DOUBLE, CMRS_ROWS_PIPE_MAX_BLOCK},
                  {"b6", CMRS_PREC_DOUBLE, CMRS_ROWS_PIPE2_BLOCK},
                  {NULL, CMRS_PREC_SINGLE, 128},
                  {"p0", CMRS_PREC_DOUBLE, 128},
                  {"rows2", CMRS_PREC_DOUBLE, 128},
                  {"b1", CMRS_PREC_DOUBLE, 128},
                  {"tile", CMRS_PREC_DOUBLE, 128}};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; ++i) {
        cmrs_variant v;
        CHECK_OK(cmrs_variant_parse(blocks[i].variant, &vessel, &v));
        s = handle("cmrs", &zero);
        s.prec = blocks[i].prec;
        CHECK_OK(cmrs_resolve_opts(&s, &vessel, 0, blocks[i].variant ? &v : NULL));
        CHECK(s.opts.block_size == blocks[i].block, "rows of 4.9, %s, %s: "
              "block %d, want %d", blocks[i].variant ? blocks[i].variant : "default",
              cmrs_prec_name(blocks[i].prec), s.opts.block_size, blocks[i].block);
    }
    cmrs_csr big = vessel; /* counts only: the block rule reads no arrays */
    big.rows = big.cols = 50000000;
    big.nnz = 245000000;
    s = handle("cmrs", &zero);
    CHECK_OK(cmrs_resolve_opts(&s, &big, 0, NULL));
    CHECK(s.opts.block_size == CMRS_ROWS_PIPE_MAX_BLOCK, "vessel 50M: block "
          "%d, want %d", s.opts.block_size, CMRS_ROWS_PIPE_MAX_BLOCK);
    cmrs_spmv_opts given = {5, 256, 8, -1, 0, 0, 0, 1, 0, 0};
    s = handle("cmrs-mod", &given);
    CHECK_OK(cmrs_resolve_opts(&s, A, 1, NULL));
    CHECK(s.opts.height == 5 && s.opts.block_size == 256 &&
              s.opts.modulo == 8 && s.opts.sorted == -1 && s.opts.reorder == 0,
          "given options are kept, reorder dropped for cmrs-mod (%d)",
          s.opts.reorder);
}

static void test_bad_options(const cmrs_csr *A)
{
    static const cmrs_spmv_opts bad[] = {
        {17, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 100, 0, 0, 0, 0, 0, 0, 0, 0},
        {4, 2048, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 0, 0, 2, 0, 0, 0, 0, 0, 0}, {4, 0, 0, 0, 0, 0, 0, 2, 0, 0},
        {16, 0, 12, 0, 0, 0, 0, 0, 0, 0}, {16, 0, 64, 0, 0, 0, 0, 0, 0, 0}, {16, 0, 1, 0, 0, 0, 0, 0, 0, 0}};
    static const char *const want[] = {
        "height 17", "height -1", "block size 100", "block size 2048",
        "sorted", "reorder must be", "modulo 12", "modulo 64", "modulo 1"};
    for (int i = 0; i < 9; ++i) {
        cmrs_spmv s = handle(i < 6 ? "cmrs" : "cmrs-mod", &bad[i]);
        CHECK_FAILS(cmrs_resolve_opts(&s, A, i >= 6, NULL), CMRS_E_USAGE, want[i]);
    }
}

/* The L2 size an H200 reports (cudaDevAttrL2CacheSize, 60 MiB). */
static const size_t k_l2 = 60u << 20;

/* rows kernel defaults for matrices of the benchmark set's sizes: counts
 * only (cmrs_rows_defaults reads no arrays). */
static cmrs_variant rows_rule(int64_t rows, double mu, cmrs_prec prec,
                              int context_vectors, const char *named)
{
    cmrs_csr A = {0};
    cmrs_variant v;
    A.rows = A.cols = rows;
    A.nnz = (int64_t)(mu * (double)rows);
    CHECK_OK(cmrs_variant_parse(named, &A, &v));
    cmrs_rows_defaults(&A, prec, k_l2, context_vectors, 128, &v);
    return v;
}

static void test_rows_rules(void)
{
    const cmrs_prec d = CMRS_PREC_DOUBLE, f = CMRS_PREC_SINGLE;
    cmrs_variant v = rows_rule(498642, 4.90, d, 0, NULL);
    CHECK(v.row_lanes == 1 && v.row_batch == 6 && v.row_pipe == 2 &&
              v.l2first == 0,
          "vessel 0.5M, lone product (39 MB fit in L2): b6, p2, plain loads "
          "(%d %d %d %d)", v.row_lanes, v.row_batch, v.row_pipe, v.l2first);
    v = rows_rule(498642, 4.90, d, CMRS_SOLVER_VECTORS, NULL);
    CHECK(v.row_pipe == 2 && v.l2first == 1,
          "vessel 0.5M in a solver: evict-first (%d)", v.l2first);
    v = rows_rule(498642, 4.90, d, 0, "b8");
    CHECK(v.row_batch == 8 && v.row_pipe == 1,
          "vessel 0.5M, b8 named: p1 (%d)", v.row_pipe);
    v = rows_rule(4976160, 4.95, d, CMRS_SOLVER_VECTORS, NULL);
    CHECK(v.row_batch == 6 && v.row_pipe == 2 && v.l2first == 0,
          "vessel 5M: x of 40 MB, plain loads in a solver too (%d)", v.l2first);
    v = rows_rule(2000000, 4.95, d, CMRS_SOLVER_VECTORS, NULL);
    CHECK(v.l2first == 1, "vessel 2M in a solver: x of 16 MB (0.25 of L2), "
          "evict-first (%d)", v.l2first);
    v = rows_rule(3210939, 14.85, d, CMRS_SOLVER_VECTORS, NULL);
    CHECK(v.row_lanes == 2 && v.l2first == 0,
          "FEM 3.2M in a solver: x of 25.7 MB (0.41 of L2), plain loads "
          "(%d %d)", v.row_lanes, v.l2first);
    v = rows_rule(4000000, 7.0, f, 0, NULL);
    CHECK(v.l2first == 1, "a lone product, single, x of 16 MB and 128 MB of "
          "product: evict-first (%d)", v.l2first);
    v = rows_rule(8000000, 6.97, d, 0, NULL);
    CHECK(v.row_lanes == 1 && v.row_batch == 8 && v.row_pipe == 0 &&
              v.l2first == 0,
          "Poisson 200^3: b8, no pipelining (%d %d)", v.row_batch, v.row_pipe);
    v = rows_rule(2097152, 26.6, d, 0, NULL);
    CHECK(v.row_lanes == 8 && v.row_pipe == 2 && v.l2first == 1,
          "27-point: 8 lanes, p2, evict-first (670 MB of product, x 17 MB) "
          "(%d %d %d)", v.row_lanes, v.row_pipe, v.l2first);
    v = rows_rule(2097152, 26.6, f, 0, NULL);
    CHECK(v.row_lanes == 4 && v.row_pipe == 0, "27-point single: 4 lanes, "
          "no pipelining (%d %d)", v.row_lanes, v.row_pipe);
    v = rows_rule(498642, 4.90, f, 0, NULL);
    CHECK(v.row_batch == 8 && v.row_pipe == 0 && v.l2first == 0,
          "single: b8, no pipelining");
    v = rows_rule(498642, 4.90, f, CMRS_SOLVER_VECTORS, NULL);
    CHECK(v.l2first == 1, "single 0.5M in a solver: evict-first");
    v = rows_rule(8000000, 6.97, d, 0, "p0");
    CHECK(v.row_pipe == 0, "p0 named stays");
    v = rows_rule(498642, 4.90, d, 0, "p2,l2first");
    CHECK(v.row_pipe == 2 && v.l2first == 1, "p2,l2first named stay");
    v = rows_rule(498642, 4.90, d, 0, "b1");
    CHECK(v.row_pipe == 0, "b1: no pipelining (%d)", v.row_pipe);
}

static void test_variants(const cmrs_csr *short_rows, const cmrs_csr *long_rows)
{
    cmrs_variant v;
    CHECK_OK(cmrs_variant_parse(NULL, short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_AUTO && v.row_lanes == 0 &&
              v.tile_entries == 0 && v.tile_strips == 0 && v.grid_cap == 0 &&
              !v.smem && !v.aligned && v.stream,
          "default: kernel, lanes and tiles chosen at setup, stream");
    CHECK(cmrs_pick_kernel(short_rows) == CMRS_KERNEL_ROWS,
          "small matrix: rows kernel");
    CHECK(cmrs_row_lanes(4.95) == 1 && cmrs_row_lanes(6.97) == 1 &&
              cmrs_row_lanes(12.0) == 2 && cmrs_row_lanes(26.6) == 8 &&
              cmrs_row_lanes(100.0) == 8,
          "lanes per row from mu: 1, 1, 2, 8, 8");
    CHECK_OK(cmrs_variant_parse("rows4", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_ROWS && v.row_lanes == 4 && v.l2first < 0 &&
              v.row_batch == 0, "rows4: L2 policy and batch left to setup");
    cmrs_rows_defaults(short_rows, CMRS_PREC_DOUBLE, k_l2, 6, 128, &v);
    CHECK(v.row_lanes == 4 && v.row_batch == 8 && v.l2first == 1,
          "rows4 on a small matrix: 8 per step, evict-first");
    CHECK_OK(cmrs_variant_parse("", long_rows, &v));
    cmrs_csr big = {0};
    big.rows = big.cols = 8000000; /* x: 64 MB in double, 32 MB single */
    big.nnz = 27 * big.rows;
    cmrs_rows_defaults(&big, CMRS_PREC_DOUBLE, k_l2, 0, 128, &v);
    CHECK(v.row_lanes == 8 && v.row_batch == 4 && v.l2first == 0,
          "8M rows of 27, double: 8 lanes of 4 per step, plain loads (%d %d %d)",
          v.row_lanes, v.row_batch, v.l2first);
    CHECK_OK(cmrs_variant_parse("", long_rows, &v));
    cmrs_rows_defaults(&big, CMRS_PREC_SINGLE, k_l2, 0, 128, &v);
    CHECK(v.row_lanes == 4 && v.row_batch == 8 && v.l2first == 1,
          "single, 8M rows of 27: 4 lanes of 8 per step, evict-first (x 32 "
          "MB of a 60 MiB L2) (%d %d %d)", v.row_lanes, v.row_batch, v.l2first);
    CHECK_OK(cmrs_variant_parse("rows,l2normal,b0", short_rows, &v));
    CHECK(v.l2first == 0 && v.row_batch == CMRS_ROW_BATCH_LOOP, "l2normal,b0");
    cmrs_rows_defaults(short_rows, CMRS_PREC_SINGLE, k_l2, 0, 128, &v);
    CHECK(v.l2first == 0 && v.row_batch == CMRS_ROW_BATCH_LOOP,
          "named knobs stay");
    CHECK_OK(cmrs_variant_parse("l2normal,l2first,b4", short_rows, &v));
    CHECK(v.l2first == 1 && v.row_batch == 4, "l2first undoes l2normal");
    CHECK_FAILS(cmrs_variant_parse("b3", short_rows, &v), CMRS_E_USAGE, "'b3'");
    CHECK_OK(cmrs_variant_parse("", short_rows, &v));
    CHECK(v.reorder == -1, "default: reorder by the rule (%d)", v.reorder);
    CHECK_OK(cmrs_variant_parse("reorder", short_rows, &v));
    CHECK(v.reorder == 1, "reorder");
    CHECK_OK(cmrs_variant_parse("reorder,noreorder", short_rows, &v));
    CHECK(v.reorder == 0, "later tokens win");
    CHECK_OK(cmrs_variant_parse("tile", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_TILE && v.tile_entries == 0, "tile");
    CHECK(cmrs_tile_entries(&v, CMRS_PREC_DOUBLE, 128) == 8 &&
              cmrs_tile_entries(&v, CMRS_PREC_SINGLE, 128) == 8,
          "entries per lane: 8");
    CHECK_OK(cmrs_variant_parse("tile16", short_rows, &v));
    CHECK(cmrs_tile_entries(&v, CMRS_PREC_DOUBLE, 128) == 8 &&
              cmrs_tile_entries(&v, CMRS_PREC_SINGLE, 512) == 16,
          "tile16: single only, blocks up to 512");
    CHECK_OK(cmrs_variant_parse("", long_rows, &v));
    CHECK(v.aligned, "autoalign aligns when nnz/rows >= 32");
    CHECK_OK(cmrs_variant_parse("smem,align,cache", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_REG && v.smem && v.aligned && !v.stream,
          "smem,align,cache");
    CHECK_OK(cmrs_variant_parse("noalign,,reg,stream,", long_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_REG && !v.smem && !v.aligned && v.stream,
          "noalign,,reg,stream,");
    CHECK_OK(cmrs_variant_parse("reg,seg", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_SEG && v.pairs && !v.smem,
          "reg,seg: the last kernel token wins");
    CHECK_OK(cmrs_variant_parse("seg1", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_SEG && !v.pairs, "seg1: one entry per lane");
    CHECK_OK(cmrs_variant_parse("seg,tile4,g=3", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_TILE && v.tile_entries == 4 &&
              v.tile_strips == 3, "seg,tile4,g=3");
    CHECK_OK(cmrs_variant_parse("g=31,tile8,grid=1", short_rows, &v));
    CHECK(v.kernel == CMRS_KERNEL_TILE && v.tile_entries == 8 &&
              v.tile_strips == 31 && v.grid_cap == 1, "g=31,tile8,grid=1");
    CHECK_FAILS(cmrs_variant_parse("grid=0", short_rows, &v), CMRS_E_USAGE,
                "grid must be 1..");
    CHECK_OK(cmrs_variant_parse("align,autoalign", short_rows, &v));
    CHECK(!v.aligned, "autoalign restores the default");
    CHECK_FAILS(cmrs_variant_parse("reg,fast", short_rows, &v), CMRS_E_USAGE,
                "unknown token 'fast'");
    CHECK_FAILS(cmrs_variant_parse("Reg", short_rows, &v), CMRS_E_USAGE,
                "'Reg'");
    CHECK_FAILS(cmrs_variant_parse("rows3", short_rows, &v), CMRS_E_USAGE,
                "'rows3'");
    static const char *const bad_g[] = {"g=0", "g=32", "g=", "g=x", "g=3x",
                                        "g=123456789012345678"};
    for (int i = 0; i < 6; ++i)
        CHECK_FAILS(cmrs_variant_parse(bad_g[i], short_rows, &v), CMRS_E_USAGE,
                    i == 2 ? "unknown token 'g='" : "strips per tile");
}

/* 16-bit row offsets: every row starts within 65535 entries of its strip. */
static void test_offsets_fit(void)
{
    cmrs_csr A;
    CHECK_OK(cmrs_csr_alloc(&A, 3, 70000, 0));
    A.indptr[1] = 65535; /* row 1 starts at 65535 in strip 0 (h >= 2) */
    A.indptr[2] = 65536; /* row 2 at 65536: too far for h >= 3 */
    A.indptr[3] = 65536;
    CHECK(cmrs_row_offsets_fit(&A, 1) && cmrs_row_offsets_fit(&A, 2) &&
              !cmrs_row_offsets_fit(&A, 3) && !cmrs_row_offsets_fit(&A, 16),
          "offsets fit for h = 1, 2, not for 3 or 16");
    cmrs_csr_free(&A);
}

/* Strips per tile from the cost model: the tile fills its chunks best. */
static void test_tile_strips(void)
{
    CHECK(cmrs_tile_strips(4.955, 16, 8) == 6, "vessel: 6 strips, 476 of 512 "
          "slots, got %d", cmrs_tile_strips(4.955, 16, 8));
    CHECK(cmrs_tile_strips(6.97, 16, 8) == 8, "Poisson: 8 strips, got %d",
          cmrs_tile_strips(6.97, 16, 8));
    CHECK(cmrs_tile_strips(26.6, 16, 8) == 8, "27-point (long rows): the most "
          "strips, 8, got %d", cmrs_tile_strips(26.6, 16, 8));
    CHECK(cmrs_tile_strips(4.955, 16, 4) == 8, "vessel, 4 per lane: 8, got %d",
          cmrs_tile_strips(4.955, 16, 4));
    CHECK(cmrs_tile_strips(1.0, 16, 8) == CMRS_TILE_MAX_ROWS / 16,
          "short rows: as many strips as the row sums allow");
    CHECK(cmrs_tile_strips(0.0, 1, 8) == CMRS_TILE_MAX_STRIPS &&
              cmrs_tile_strips(0.5, 2, 8) == CMRS_TILE_MAX_STRIPS,
          "empty and near-empty matrices: the pointer limit");
}

/* The default kernel's height is 16; the seg kernels' height (measured):
 * strips of h*mu entries fill whole 64-entry chunks. */
static void test_default_height(void)
{
    CHECK(cmrs_default_height(4.955) == 16 && cmrs_default_height(26.6) == 16,
          "tile kernel: 16");
    CHECK(cmrs_seg_height(4.955) == 12, "vessel mu 4.955 -> 12, got %d",
          cmrs_seg_height(4.955));
    CHECK(cmrs_seg_height(6.97) == 9, "poisson mu 6.97 -> 9, got %d",
          cmrs_seg_height(6.97));
    CHECK(cmrs_seg_height(26.6) == 14, "27-point mu 26.6 -> 14, got %d",
          cmrs_seg_height(26.6));
    CHECK(cmrs_seg_height(63.5) == 16, "mu 63.5: 16 rows fill 16 chunks "
          "(one row would fill half of two), got %d", cmrs_seg_height(63.5));
    CHECK(cmrs_seg_height(12.5) == 15, "mu 12.5 -> 15 (187.5 of 192), got %d",
          cmrs_seg_height(12.5));
    CHECK(cmrs_seg_height(0.5) == 16 && cmrs_seg_height(0) == 16,
          "short rows and empty matrices -> 16");
}

int main(void)
{
    cmrs_csr A, L;
    test_default_height();
    CHECK_OK(test_random_csr(&k_test_specs[1], 1, &A)); /* mu = 7 */
    CHECK_OK(test_random_csr(&k_test_specs[4], 1, &L)); /* mu = 40 */
    test_defaults(&A, &L);
    test_bad_options(&A);
    test_variants(&A, &L);
    test_rows_rules();
    test_tile_strips();
    test_offsets_fit();
    cmrs_csr_free(&A);
    cmrs_csr_free(&L);
    return check_summary();
}
