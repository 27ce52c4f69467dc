/* The CMRS setup's rules (cmrs_rules.c): option defaults and checks, the
 * kernel variant of CMRS_CMRS_VARIANT, the kernel, lanes, batches, tiles
 * and the one-width slicing chosen for a matrix. Host code, below the GPU
 * setup (cmrs_setup.h), so that a build without CUDA has it too. */
#ifndef CMRS_CMRS_RULES_H
#define CMRS_CMRS_RULES_H

#include <stdint.h>

#include "cmrs_format.h"
#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_DEFAULT_BLOCK 128   /* paper §6.3 */
/* The rows kernel's block on rows of CMRS_ROWS_LANES8_MU entries and more
 * (measured on an H200, 27-point 128^3: double with p2 183.7 us against
 * 189.1 with 128 threads, single 122.6 against 126.4; 2026-11-24, two
 * runs: double 181.2 / 181.0 against 183.8 / 183.3 with 256 threads,
 * single 120.7 against 122.4). */
#define CMRS_ROWS_LONG_BLOCK 512
#define CMRS_MOD_DEFAULT_HEIGHT 16
#define CMRS_MOD_DEFAULT_MODULO 32 /* least padding; smem does not bind */
#define CMRS_ALIGN_MIN_MU 32.0   /* paper: aligned reads pay when mu >= 32 */

/* The kernels of the basic layout (docs/CMRS.md). */
typedef enum cmrs_kernel_kind {
    CMRS_KERNEL_AUTO = 0, /* the default: ROWS (measured,
                             cmrs_pick_kernel), TILE where strips are too
                             long for the 16-bit row offsets */
    CMRS_KERNEL_ROWS,     /* L lanes per row over strip pointers + 16-bit
                             row offsets (cmrs_rows.cu) */
    CMRS_KERNEL_TILE,     /* tiles of strips, per-lane row runs + one warp
                             scan per 32E entries (cmrs_tile.cu) */
    CMRS_KERNEL_SEG,      /* one strip per warp, segmented warp scan
                             (cmrs_seg.cu) */
    CMRS_KERNEL_REG       /* the paper's per-row partial sums, in registers
                             or shared memory (cmrs_basic.cu); the one that
                             takes column-sorted strips */
} cmrs_kernel_kind;

/* How the basic kernel runs (measurable alternatives, see docs/CMRS.md). */
typedef struct cmrs_variant {
    cmrs_kernel_kind kernel;
    int row_lanes;    /* rows: lanes per row, 1, 2, 4 or 8; 0: from the
                         mean row length (cmrs_row_lanes) */
    int tile_entries; /* tile: entries per lane, 4, 8 or 16 (single
                         precision only); 0: cmrs_tile_entries */
    int tile_strips;  /* tile: strips per tile, 1..31; 0: from the mean
                         row length (cmrs_tile_strips) */
    int row_batch;    /* rows: entries per lane per loop step with all
                         their loads issued before the first multiply:
                         4, 6 or 8 (tokens b4, b6, b8), 1 (one per step, not
                         unrolled: b1), CMRS_ROW_BATCH_LOOP (one per step,
                         the compiler's unrolling: b0); 0: from the lanes
                         (cmrs_rows_defaults) */
    int row_pipe;     /* rows: 0: one row group per warp (grid of every
                         group); 1, 2 (tokens p1, p2): warps of one wave
                         walk the groups, loading the next group's range
                         (p1) and also its first batch (p2) before this
                         group's x gathers (cmrs_rows_pipe_kernel); needs
                         b4 or b8; -1: from the row length
                         (cmrs_rows_defaults) */
    int row_sliced;   /* rows: 1 ("sl"): the sliced layout
                         (cmrs_mat_from_csr_sliced: strips padded to their
                         longest row, column-major) and its kernel, a lane
                         per row, not pipelined; set up from host matrices
                         only (cmrs_impl_setup_dev keeps the CSR order);
                         2 ("su"): strips of one width, the matrix's
                         longest row, built on the GPU (cmrs_slice_req);
                         0 ("nosl"): CSR order; -1: su where
                         cmrs_slice_takes says, after the build 0 or 2 */
    int l2first;      /* rows: 1: matrix loads with an L2 evict-first
                         policy ("l2first"), 0: plain loads ("l2normal"),
                         -1: by x's size (cmrs_rows_defaults). Measured on
                         the 0.5M vessel: Jacobi-PCG 0.0326 against 0.0366
                         ms per iteration (the vectors stay in L2), the
                         lone SpMV 13.8 against 12.1 us (back-to-back
                         products no longer find the matrix in L2) */
    int grid_cap;     /* rows, tile: at most this many blocks (0: no cap),
                         so tests reach the grid-stride loop on small
                         matrices and runs can compare grid sizes */
    int pairs;   /* seg: 2 entries per lane, 64-entry chunks; 0: one entry
                    per lane ("seg1") */
    int smem;    /* reg: 1: per-lane partial sums in shared memory (paper's
                    buffer); 0: in registers */
    int aligned; /* reg: chunks start at multiples of 32 entries (paper's
                    aligned reads); 0: at the strip start */
    int stream;  /* tile, seg, reg: 1: matrix loads evict-first (__ldcs,
                    default); 0: plain read-only loads (__ldg) */
    int reorder; /* CSR-order layout of a square matrix: 1 ("reorder"):
                    store P A P^T, P a breadth-first order, and permute x and y
                    around each product (cmrs_reorder.h); 0
                    ("noreorder"): never; -1: by cmrs_reorder_wanted */
} cmrs_variant;

/* Parses CMRS_CMRS_VARIANT (NULL or "" = defaults): comma-separated tokens
 * rows|rows1|rows2|rows4|rows8|tile|tile4|tile8|tile16|seg|seg1|reg|smem
 * (the kernel; without one, cmrs_pick_kernel chooses), reorder|noreorder
 * (the locality reordering, cmrs_reorder.h), b0|b1|b4|b6|b8 (rows:
 * entries per lane per step), p0|p1|p2 (rows: pipelining depth), sl
 * (rows: sliced strips), g=N (strips per tile), grid=N (blocks
 * at most), align|noalign|autoalign and stream|cache; sorted = on forces
 * reg unless smem is named. autoalign (default) aligns when
 * nnz/rows >= CMRS_ALIGN_MIN_MU. Unknown token: CMRS_E_USAGE. */
cmrs_code cmrs_variant_parse(const char *text, const cmrs_csr *A,
                             cmrs_variant *v);

/* Tile kernel limits: rows of a tile (its row sums live in shared memory)
 * and strips (their pointers too); the device arrays carry CMRS_TILE_PAD
 * zero entries past nnz so a lane's 16-byte loads never leave them. */
#define CMRS_TILE_MAX_ROWS 128
#define CMRS_TILE_MAX_STRIPS 31
#define CMRS_TILE_PAD 32

/* Entries per lane of the tile kernel: the variant's, else 8 (measured
 * best in both precisions; 16 is single precision only and needs blocks of
 * at most 512 threads, larger blocks take 8). */
int cmrs_tile_entries(const cmrs_variant *v, cmrs_prec prec, int block);

/* Strips per tile for mean row length mu, height h and E entries per lane:
 * the G whose tile fills its 32E-entry chunks best once a fixed overhead of
 * CMRS_TILE_OVERHEAD slots per tile is counted (cmrs_tile.cu). */
#define CMRS_TILE_OVERHEAD 128.0
#define CMRS_TILE_LONG_ROWS_MU 16.0
int cmrs_tile_strips(double mu, int height, int entries_per_lane);

/* Resolves self->opts for A (0 = default) and checks the values:
 * height 1..16 (cmrs: cmrs_default_height, or cmrs_seg_height when v
 * picks a seg kernel; cmrs-mod: 16; v NULL: the default kernel),
 * block_size a multiple of 32 in 32..1024 (128), sorted 1 or -1 (cmrs
 * default -1, cmrs-mod 1), modulo 2..32 power of two (cmrs-mod only,
 * default 32). Bad values: CMRS_E_USAGE. */
cmrs_code cmrs_resolve_opts(cmrs_spmv *self, const cmrs_csr *A, int is_mod,
                            const cmrs_variant *v);

/* The default kernel for A: the rows kernel with batched loads at every
 * size (measured on an H200, docs/BENCHMARKS.md: eta+ 0.96 against the
 * tile kernel's 0.83 on the 7-point Poisson 200^3, 0.85 against 0.81 on
 * the 5M-cell vessel, 0.89 against 0.84 on the 27-point case). */
cmrs_kernel_kind cmrs_pick_kernel(const cmrs_csr *A);

/* Largest block of the pipelined rows kernel (row_pipe > 0), and its
 * default with a lane per row (measured on an H200, two runs each: vessel
 * 5M 99.7 / 99.4 us against 100.3 / 100.6 with 128 threads, vessel 0.5M
 * 10.75 / 11.04 against 11.33 / 11.10). */
#define CMRS_ROWS_PIPE_MAX_BLOCK 512
/* Smallest batch the pipelined kernel takes (b4, b6, b8; not b0, b1). */
#define CMRS_ROWS_PIPE_MIN_BATCH 4
/* The default block of p2 over batches of 6 with a lane per row (short
 * rows in double) on matrices of fewer than CMRS_ROWS_PIPE2_SMALL rows;
 * CMRS_ROWS_PIPE_MAX_BLOCK on larger ones. Measured on an H200,
 * 2026-11-24 (256 against 512 threads): vessel 0.5M 10.62-10.82 us
 * against 10.75-11.23 (four runs), vessel 5M 95.2-96.3 against 95.3-95.7
 * (four runs), vessel 50M 966.8 / 970.7 against 934.5 / 933.2 (two). */
#define CMRS_ROWS_PIPE2_BLOCK 256
#define CMRS_ROWS_PIPE2_SMALL 2000000
/* row_batch of the plain loop (token b0). */
#define CMRS_ROW_BATCH_LOOP (-1)
/* In a lone product loop, the rows kernel's matrix loads default to L2
 * evict-first when x takes at most this share of L2 (and the product's
 * bytes exceed L2): the matrix, read once per product, then leaves L2 to
 * x's gathers (in a solver: CMRS_L2FIRST_X_SHARE_SOLVER below). How the
 * share was first set, on an H200 (its L2 reported as 60 MiB;
 * docs/BENCHMARKS.md), in a solver and alone: Jacobi-PCG on
 * the 0.5M-cell vessel (x 4 MB) 0.0291 against 0.0340 ms per iteration;
 * the lone product on the 27-point case in single (x 8 MB) 0.873 against
 * 0.849 eta+, the random-order Poisson in single (x 32 MB) 0.276 against
 * 0.251. Not above it: the 5M-cell vessel in double (x 40 MB) 0.824
 * against 0.844 (PCG 0.222 against 0.216 ms), the Poisson 200^3 in
 * double (x 64 MB) 0.884 against 0.958 (PCG 0.444 against 0.393 ms). */
#define CMRS_L2FIRST_X_SHARE 0.55
/* In a solver (context_vectors > 0) the share is lower: the loop's other
 * vectors want L2 too, and x's gathers gain less from it. Jacobi-PCG on
 * an H200 (60 MiB, docs/BENCHMARKS.md "The L2 policy in a solver"),
 * evict-first against plain, ms per iteration: x of 3.3-8 MB (vessel 0.5M
 * and 1M, Poisson 100^3, FEM 0.4M) 8-11% faster; 16-18 MB (vessel 2M,
 * Poisson 130^3: 0.25-0.28 of L2) 2% faster; 24 MB (vessel 3M, 0.38) even;
 * the FEM 3.2M case's 25.7 MB (0.41) 8% slower (0.3049 against 0.2804). */
#define CMRS_L2FIRST_X_SHARE_SOLVER 0.35
/* The rows kernel pipelines in double precision: with a lane per row
 * below this mean row length, p2 over batches of 6 entries (64
 * registers; a named b8 takes p1: p2 holds two batches of 8 in 86
 * registers); p2 with 8 lanes per row (long rows); none otherwise.
 * Measured on an H200 (docs/BENCHMARKS.md, 2026-11-24; vessel rows have
 * at most 5 entries): vessel 5M b8,p1 100.1-100.5 us, b6,p2 95.5-95.7
 * (b6,p1 113.1, b6,p0 104.5); vessel 0.5M 11.2-11.6 against 10.8-11.2;
 * Jacobi-PCG 0.2008 against 0.1989 ms per iteration (5M), 0.0271
 * against 0.0269 (0.5M). Earlier (without / p1 / p2, batches of 8):
 * vessel 5M 103.2 / 100.1 / 103.7 us; Poisson 200^3 (mu 6.97) 197.1 /
 * 208.5 / 193.9, its random order 845.5 / 906.7 / 865.9 (p2 wins 1.6% on
 * one and loses 2.4% on the other: not taken; b6,p2 on the Poisson:
 * 225.9 against 207.7 us, its 7-entry rows take two batches); 27-point
 * with blocks of 256 (CMRS_ROWS_LONG_BLOCK) 189.6 / 216.5 / 183.7; single
 * precision slower (vessel 0.5M 8.70 / 8.99 / 9.38; 27-point 128.5 with
 * p2 against 127.7; vessel 5M b6,p2 68.7 against 68.1 without). */
#define CMRS_ROWS_PIPE1_MU 6.0
/* Fills the rows kernel's knobs v leaves at 0 / -1: lanes from A's mean
 * row length (cmrs_row_lanes; in single precision 4 where that says 8:
 * 0.848 against 0.725 eta+ on the 27-point case, the same 32 bytes per
 * lane and step as 4 doubles), entries per lane per step (8; 4 with 8
 * lanes; 6 with one lane on short rows in double, CMRS_ROWS_PIPE1_MU),
 * the pipelining (CMRS_ROWS_PIPE1_MU), the L2 policy from
 * x's size against l2_bytes (the device's L2, CMRS_L2FIRST_X_SHARE) and
 * the caller's context_vectors (cmrs_spmv_opts): a lone product whose
 * bytes fit in L2 keeps plain loads. block: the block the kernel runs
 * with; above CMRS_ROWS_PIPE_MAX_BLOCK the rule does not pipeline (a
 * named p1/p2 then fails in cmrs_rows_configure). */
void cmrs_rows_defaults(const cmrs_csr *A, cmrs_prec prec, size_t l2_bytes,
                        int context_vectors, int block, cmrs_variant *v);

/* Lanes per row of the rows kernel for mean row length mu (measured,
 * docs/BENCHMARKS.md: rows of 27 entries run best on 8 lanes of 4
 * entries, 0.892 against 0.848 on 4 lanes of 8). */
#define CMRS_ROWS_LANES2_MU 12.0
#define CMRS_ROWS_LANES8_MU 24.0
int cmrs_row_lanes(double mu);

/* The largest offset of a row in its strip that the rows kernel's 16-bit
 * row offsets hold. */
#define CMRS_ROW_OFFSET_MAX UINT16_MAX

/* 1 if every row of A starts within CMRS_ROW_OFFSET_MAX entries of its
 * strip's start (height rows per strip), so its offset fits the rows
 * kernel's 16 bits: indptr[last row of the strip] - indptr[first] for
 * every strip (the last row's offset is the strip's largest). */
int cmrs_row_offsets_fit(const cmrs_csr *A, int height);
/* The last row of the strip that starts at row r0 (height rows, cut at
 * rows): what the offset tests read (cmrs_row_offsets_fit above and
 * cmrs_row_offsets_fit_dev, cmrs_setup.h). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int64_t cmrs_strip_last_row(int64_t r0, int height,
                                          int64_t rows)
{
    return r0 + height - 1 < rows - 1 ? r0 + height - 1 : rows - 1;
}


/* The rule (mode -1): strips of one width where the padding to the
 * longest row adds at most CMRS_SLICE_MAX_PAD of nnz (measured on an H200,
 * docs/BENCHMARKS.md: the vessel's 2% and the 7-point Poisson's 0.4%
 * take it); mode 2: always. Never beyond CMRS_MAX_ENTRIES stored. */
#define CMRS_SLICE_MAX_PAD 0.05
int cmrs_slice_takes(int mode, int64_t rows, int64_t nnz, int64_t longest);
/* Blocks of the sliced kernel when the block size is left to the rule. */
#define CMRS_SLICE_BLOCK 256

#ifdef __cplusplus
}
#endif

#endif
