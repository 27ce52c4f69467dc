/* The CMRS setup's rules (cmrs_setup.h): the variant tokens, the options
 * resolved, the kernel, lanes, batches, tiles and the one-width slicing
 * chosen. Host code, apart from the GPU setup (cmrs_setup.c and the
 * kernels' .cu files) so that a build without CUDA has it too: the host
 * tests check these rules in every build. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmrs_rules.h"
#include "spmv/model.h"

/* The kernels a token can pick (with a lane count or entries per lane);
 * the other tokens set one knob each. */
static int kernel_token(const char *tok, size_t len, cmrs_variant *v)
{
    static const struct {
        const char *name;
        cmrs_kernel_kind kind;
        int n; /* rows: lanes per row; tile: entries per lane; seg: pairs;
                  reg: smem */
    } k[] = {{"rows", CMRS_KERNEL_ROWS, 0},   {"rows1", CMRS_KERNEL_ROWS, 1},
             {"rows2", CMRS_KERNEL_ROWS, 2},  {"rows4", CMRS_KERNEL_ROWS, 4},
             {"rows8", CMRS_KERNEL_ROWS, 8},  {"tile", CMRS_KERNEL_TILE, 0},
             {"tile4", CMRS_KERNEL_TILE, 4},  {"tile8", CMRS_KERNEL_TILE, 8},
             {"tile16", CMRS_KERNEL_TILE, 16}, {"seg", CMRS_KERNEL_SEG, 1},
             {"seg1", CMRS_KERNEL_SEG, 0},    {"reg", CMRS_KERNEL_REG, 0},
             {"smem", CMRS_KERNEL_REG, 1}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) {
        if (strlen(k[i].name) != len || strncmp(k[i].name, tok, len)) continue;
        v->kernel = k[i].kind;
        if (k[i].kind == CMRS_KERNEL_ROWS) v->row_lanes = k[i].n;
        if (k[i].kind == CMRS_KERNEL_TILE) v->tile_entries = k[i].n;
        if (k[i].kind == CMRS_KERNEL_SEG) v->pairs = k[i].n;
        if (k[i].kind == CMRS_KERNEL_REG) v->smem = k[i].n;
        return 1;
    }
    return 0;
}

/* g=N (strips per tile) or grid=N (blocks at most): "name=N", N in 1..max. */
static cmrs_code number_token(const char *tok, size_t len, size_t name_len,
                              long max, int *out)
{
    char buf[16];
    char *end = NULL;
    size_t digits = len - name_len;
    snprintf(buf, sizeof buf, "%.*s", (int)(digits < 15 ? digits : 15),
             tok + name_len);
    long n = strtol(buf, &end, 10);
    CMRS_ENSURE(digits < 15 && end != buf && *end == '\0' && n >= 1 &&
                    n <= max, CMRS_E_USAGE,
                "CMRS_CMRS_VARIANT: '%.*s': %s must be 1..%ld", (int)len, tok,
                name_len == 2 ? "strips per tile" : "grid", max);
    *out = (int)n;
    return CMRS_OK;
}

static cmrs_code variant_token(const char *tok, size_t len, cmrs_variant *v,
                               int *align)
{
    static const char *const knobs[] = {"noalign", "align", "autoalign",
                                        "cache", "stream", "l2normal",
                                        "l2first", "noreorder", "reorder"};
    if (kernel_token(tok, len, v)) return CMRS_OK;
    if (len > 2 && !strncmp(tok, "g=", 2))
        return number_token(tok, len, 2, CMRS_TILE_MAX_STRIPS, &v->tile_strips);
    if (len > 5 && !strncmp(tok, "grid=", 5))
        return number_token(tok, len, 5, 1L << 30, &v->grid_cap);
    if (len == 2 && tok[0] == 'b' && strchr("0145678", tok[1])) {
        v->row_batch = tok[1] == '0' ? CMRS_ROW_BATCH_LOOP : tok[1] - '0';
        return CMRS_OK;
    }
    if (len == 2 && (!strncmp(tok, "sl", 2) || !strncmp(tok, "su", 2))) {
        v->kernel = CMRS_KERNEL_ROWS; /* sliced strips, su: of one width */
        v->row_sliced = tok[1] == 'l' ? 1 : 2;
        return CMRS_OK;
    }
    if (len == 4 && !strncmp(tok, "nosl", 4)) { /* CSR order, never sliced */
        v->row_sliced = 0;
        return CMRS_OK;
    }
    if (len == 2 && tok[0] == 'p' && strchr("012", tok[1])) {
        v->row_pipe = tok[1] - '0';
        return CMRS_OK;
    }
    int i = 0;
    while (i < 9 && !(strlen(knobs[i]) == len && !strncmp(knobs[i], tok, len)))
        ++i;
    CMRS_ENSURE(i < 9, CMRS_E_USAGE, "CMRS_CMRS_VARIANT: unknown token "
                "'%.*s' (known: rows, rows1, rows2, rows4, rows8, sl, su, nosl, b0, b1, b4, b5, b6, b7, b8, p0, p1, p2, tile, tile4, "
                "tile8, tile16, g=N, grid=N, seg, seg1, reg, smem, align, "
                "noalign, autoalign, stream, cache, l2first, l2normal, "
                "reorder, noreorder)",
                (int)len, tok);
    if (i <= 2) *align = i == 2 ? -1 : i;
    else if (i <= 4) v->stream = i == 4;
    else if (i <= 6) v->l2first = i == 6;
    else v->reorder = i == 8;
    return CMRS_OK;
}

cmrs_code cmrs_variant_parse(const char *text, const cmrs_csr *A,
                             cmrs_variant *v)
{
    int align = -1;
    memset(v, 0, sizeof *v);
    v->kernel = CMRS_KERNEL_AUTO;
    v->l2first = -1;
    v->row_pipe = -1;
    v->reorder = -1;
    v->row_sliced = -1;
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
                                int is_mod, const cmrs_variant *v)
{
    cmrs_spmv_opts *o = &self->opts;
    double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
    if (o->height == 0)
        o->height = is_mod           ? CMRS_MOD_DEFAULT_HEIGHT
                    : v && v->kernel == CMRS_KERNEL_SEG ? cmrs_seg_height(mu)
                                     : cmrs_default_height(mu);
    CMRS_ENSURE(o->height >= 1 && o->height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "%s: strip height %d is out of range 1..%d", self->ops->name,
                o->height, CMRS_MAX_HEIGHT);
    return CMRS_OK;
}

static void rows_shape(const cmrs_csr *A, cmrs_prec prec, int block,
                       cmrs_variant *v);

/* The default block: where the rows kernel will pipeline with a lane per
 * row (double, rows shorter than CMRS_ROWS_PIPE1_MU, knobs left to
 * cmrs_rows_defaults) CMRS_ROWS_PIPE2_BLOCK for p2 (the rule's, batches of
 * 6) below CMRS_ROWS_PIPE2_SMALL rows, else CMRS_ROWS_PIPE_MAX_BLOCK,
 * CMRS_ROWS_LONG_BLOCK for the rows kernel on rows of CMRS_ROWS_LANES8_MU
 * entries and more, else CMRS_DEFAULT_BLOCK. */
static int default_block(const cmrs_csr *A, cmrs_prec prec, int is_mod,
                         const cmrs_variant *v)
{
    const double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
    if (is_mod || (v && v->kernel != CMRS_KERNEL_AUTO &&
                   v->kernel != CMRS_KERNEL_ROWS))
        return CMRS_DEFAULT_BLOCK;
    if (mu >= CMRS_ROWS_LANES8_MU) return CMRS_ROWS_LONG_BLOCK;
    cmrs_variant k = {0};
    k.row_pipe = -1;
    if (v) k = *v;
    const int by_rule = k.row_pipe < 0;
    rows_shape(A, prec, 0, &k);
    if (!by_rule || k.row_lanes != 1 || k.row_pipe == 0)
        return CMRS_DEFAULT_BLOCK;
    return k.row_pipe == 2 && A->rows < CMRS_ROWS_PIPE2_SMALL
               ? CMRS_ROWS_PIPE2_BLOCK
               : CMRS_ROWS_PIPE_MAX_BLOCK;
}

cmrs_code cmrs_resolve_opts(cmrs_spmv *self, const cmrs_csr *A, int is_mod,
                            const cmrs_variant *v)
{
    cmrs_spmv_opts *o = &self->opts;
    const char *name = self->ops->name;
    CMRS_CHECK(resolve_height(self, A, is_mod, v));
    if (o->block_size == 0)
        o->block_size = default_block(A, self->prec, is_mod, v);
    CMRS_ENSURE(o->reorder >= -1 && o->reorder <= 1, CMRS_E_USAGE,
                "%s: reorder must be 1 (on), -1 (off) or 0 (the rule), not %d",
                name, o->reorder);
    CMRS_ENSURE(o->block_size >= 32 && o->block_size <= 1024 &&
                    o->block_size % 32 == 0, CMRS_E_USAGE,
                "%s: block size %d is not a multiple of 32 in 32..1024", name,
                o->block_size);
    /* cmrs: row order (CSR order) in each strip by default, which the
     * rows, tile and segmented-scan kernels need; cmrs-mod: its layout's
     * own. */
    if (o->sorted == 0) o->sorted = is_mod ? 1 : -1;
    CMRS_ENSURE(o->sorted == 1 || o->sorted == -1, CMRS_E_USAGE,
                "%s: sorted must be 1 (on) or -1 (off), not %d", name,
                o->sorted);
    if (!is_mod) return CMRS_OK;
    o->reorder = 0; /* cmrs-mod keeps its own layout */
    if (o->modulo == 0) o->modulo = CMRS_MOD_DEFAULT_MODULO;
    CMRS_ENSURE(o->modulo >= 2 && o->modulo <= 32 &&
                    (o->modulo & (o->modulo - 1)) == 0, CMRS_E_USAGE,
                "%s: modulo %d is not one of 2, 4, 8, 16, 32", name, o->modulo);
    return CMRS_OK;
}

int cmrs_slice_takes(int mode, int64_t rows, int64_t nnz, int64_t longest)
{
    const double stored = (double)rows * (double)(longest > 0 ? longest : 1);
    if (mode == 0 || rows <= 0 || stored > (double)CMRS_MAX_ENTRIES) return 0;
    return mode == 2 ||
           (nnz > 0 && stored <= (1.0 + CMRS_SLICE_MAX_PAD) * (double)nnz);
}

cmrs_kernel_kind cmrs_pick_kernel(const cmrs_csr *A)
{
    (void)A; /* settle_kernel still moves strips too long for the offsets */
    return CMRS_KERNEL_ROWS;
}

/* Whether the rows kernel's matrix loads take L2 evict-first (see
 * CMRS_L2FIRST_X_SHARE and CMRS_L2FIRST_X_SHARE_SOLVER): where x fits in
 * L2 and something else needs L2 more than the matrix does: a solver's
 * vectors, or, in a lone product loop, x alone when the product's bytes
 * exceed L2 (when they fit, the next product finds the matrix there:
 * vessel 0.5M, 39 MB, 11.1 against 12.5 us on an H200). */
static int rows_l2first(const cmrs_csr *A, cmrs_prec prec, size_t l2_bytes,
                        int context_vectors)
{
    const double vb = (double)cmrs_prec_value_bytes(prec);
    const double x_bytes = (double)A->cols * vb;
    if (context_vectors > 0)
        return x_bytes <= CMRS_L2FIRST_X_SHARE_SOLVER * (double)l2_bytes;
    const double product_bytes = (double)A->nnz * (4.0 + vb) +
                                 (double)A->rows * (2.0 + vb) + x_bytes;
    return x_bytes <= CMRS_L2FIRST_X_SHARE * (double)l2_bytes &&
           product_bytes > (double)l2_bytes;
}

/* The rule's pipelining for v's lanes and batch (short_rows: a lane per
 * row below CMRS_ROWS_PIPE1_MU in double): none in single, on batches
 * the pipelined kernel does not take or above its largest block; p2 with
 * a lane per row only on batches of at most 6 (with 8 it holds two
 * batches in 86 registers, 16 warps per SM), else p1; p2 with 8 lanes. */
static int rule_pipe(const cmrs_variant *v, int single, int short_rows,
                     int block)
{
    if (single || v->row_batch < CMRS_ROWS_PIPE_MIN_BATCH ||
        block > CMRS_ROWS_PIPE_MAX_BLOCK)
        return 0;
    if (short_rows) return v->row_batch <= 6 ? 2 : 1;
    return v->row_lanes == 8 ? 2 : 0;
}

/* Lanes, entries per step and pipelining that v leaves open, for blocks
 * of `block` threads (0: not chosen yet): no pipelining above
 * CMRS_ROWS_PIPE_MAX_BLOCK, the pipelined kernel's largest block. */
static void rows_shape(const cmrs_csr *A, cmrs_prec prec, int block,
                       cmrs_variant *v)
{
    const double mu = A->rows > 0 ? (double)A->nnz / (double)A->rows : 0;
    const int single = prec == CMRS_PREC_SINGLE;
    if (v->row_sliced > 0) { /* a lane per row, not pipelined */
        if (v->row_lanes == 0) v->row_lanes = 1;
        if (v->row_pipe < 0) v->row_pipe = 0;
    }
    if (v->row_lanes == 0) {
        v->row_lanes = cmrs_row_lanes(mu);
        if (single && v->row_lanes == 8) v->row_lanes = 4;
    }
    const int short_rows = !single && v->row_lanes == 1 &&
                           mu < CMRS_ROWS_PIPE1_MU;
    if (v->row_batch == 0)
        v->row_batch = v->row_lanes >= 8 ? 4 : short_rows ? 6 : 8;
    if (v->row_pipe < 0) v->row_pipe = rule_pipe(v, single, short_rows, block);
}

void cmrs_rows_defaults(const cmrs_csr *A, cmrs_prec prec, size_t l2_bytes,
                        int context_vectors, int block, cmrs_variant *v)
{
    rows_shape(A, prec, block, v);
    if (v->l2first < 0)
        v->l2first = rows_l2first(A, prec, l2_bytes, context_vectors);
}

int cmrs_row_offsets_fit(const cmrs_csr *A, int height)
{
    for (int64_t r0 = 0; r0 < A->rows; r0 += height) {
        int64_t last = cmrs_strip_last_row(r0, height, A->rows);
        if (A->indptr[last] - A->indptr[r0] > CMRS_ROW_OFFSET_MAX) return 0;
    }
    return 1;
}

int cmrs_tile_entries(const cmrs_variant *v, cmrs_prec prec, int block)
{
    int e = v->tile_entries ? v->tile_entries : 8;
    if (e == 16 && (prec != CMRS_PREC_SINGLE || block > 512)) e = 8;
    return e;
}

/* Strips per tile, from a cost model fitted to the H200 measurements
 * (docs/BENCHMARKS.md): a tile of n = G h mu entries costs its chunks,
 * ceil((n + E/2) / 32E) of 32E slots each, plus a fixed overhead of
 * CMRS_TILE_OVERHEAD slots (strip pointers, row sums, the store); the G
 * with the most entries per slot wins, ties to the smaller G. Rows of
 * CMRS_TILE_LONG_ROWS_MU entries or more fill chunks anyway: the largest G
 * (measured: 0.85 against 0.78 eta+ for the model's G on the 27-point
 * case). At most CMRS_TILE_MAX_STRIPS strips and CMRS_TILE_MAX_ROWS rows. */
int cmrs_tile_strips(double mu, int height, int entries_per_lane)
{
    const int max_by_rows = CMRS_TILE_MAX_ROWS / height;
    const int max_g = max_by_rows < CMRS_TILE_MAX_STRIPS ? max_by_rows
                                                         : CMRS_TILE_MAX_STRIPS;
    const double chunk = 32.0 * entries_per_lane;
    if (!(mu > 0) || mu >= CMRS_TILE_LONG_ROWS_MU) return max_g;
    int best = 1;
    double best_eff = 0;
    for (int g = 1; g <= max_g; ++g) {
        const double n = g * height * mu;
        const double slots =
            chunk * ceil((n + entries_per_lane / 2.0) / chunk) + CMRS_TILE_OVERHEAD;
        if (n / slots > best_eff * 1.0001) {
            best_eff = n / slots;
            best = g;
        }
    }
    return best;
}

int cmrs_row_lanes(double mu)
{
    return mu < CMRS_ROWS_LANES2_MU ? 1 : mu < CMRS_ROWS_LANES8_MU ? 2 : 8;
}
