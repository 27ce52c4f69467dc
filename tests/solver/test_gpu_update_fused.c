/* The fused device-values update (solver/backend/gpu/update_gpu.cu:
 * cmrs_gpu_tile_rows, cmrs_gpu_copy_dinv) against the host, for three
 * value stores (CSR order; strips of 16 rows padded to one width, stored
 * slot by slot as cmrs's one-width layout; a random permutation with
 * padding): the gather bitwise, D^-1 bitwise the host's 1 / a_ii in
 * double then rounded (and the two-kernel path's cmrs_gpu_dinv_values),
 * the first non-finite value and the first bad row flagged as the host
 * finds them, the next update's error words reset; outputs poisoned with
 * NaN first. Cases: n = 1, fewer entries than a tile, a multiple of the
 * tile, rows spanning tiles, one row longer than three tiles; empty rows,
 * a row without its diagonal and no entries at all (the tiles refused:
 * every row the plain way); a NaN, an infinity, a negative diagonal;
 * double and single. Exits 77 without a GPU. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "trng.h"
#include "solver/backend/gpu/gpu_kernels.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return trng_next(&g_rng); }

/* A pattern as the update sees it: row lengths and the diagonal's place
 * in each row (-1: none), values in CSR order. */
typedef struct ucase {
    const char *label;
    int64_t n, nnz;
    int32_t *diag;  /* CSR position of a_ii, -1: none */
    int64_t *start; /* n + 1 row offsets */
    double *values;
} ucase;

/* A value store's layout: stored entry -> CSR entry (-1: padding), or
 * perm NULL (CSR order, stored = nnz). */
typedef struct ustore {
    const char *label;
    int32_t *perm;
    int64_t stored;
} ustore;

/* Row i gets len(i) entries, its diagonal at a random place among them
 * unless no_diag(i); values in [-1, 1) off the diagonal, 1 + |row sum|
 * on it (1/d rarely exact; its float differs from the float of d). */
static void make_case(ucase *c, const char *label, int64_t n,
                      int64_t (*len)(int64_t), int (*no_diag)(int64_t))
{
    c->label = label;
    c->n = n;
    c->nnz = 0;
    for (int64_t i = 0; i < n; ++i) c->nnz += len(i);
    c->diag = malloc((size_t)(n ? n : 1) * sizeof *c->diag);
    c->start = malloc((size_t)(n + 1) * sizeof *c->start);
    c->values = malloc((size_t)(c->nnz ? c->nnz : 1) * sizeof *c->values);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t l = len(i);
        c->start[i] = k;
        double sum = 0;
        for (int64_t j = 0; j < l; ++j) {
            c->values[k + j] = (double)(rnd() >> 11) / 4503599627370496.0 - 1;
            sum += fabs(c->values[k + j]);
        }
        c->diag[i] = -1;
        if (l > 0 && !no_diag(i)) {
            c->diag[i] = (int32_t)(k + (int64_t)(rnd() % (uint64_t)l));
            c->values[c->diag[i]] = 1 + sum;
        }
        k += l;
    }
    c->start[n] = k;
}

/* Strips of 16 rows, each padded to the longest row, stored slot by slot
 * (the 16 rows' j-th entries together), rows padded to a multiple of 16. */
static void strip_store(const ucase *c, ustore *u)
{
    int64_t w = 1, strips = (c->n + 15) / 16;
    for (int64_t i = 0; i < c->n; ++i)
        if (c->start[i + 1] - c->start[i] > w) w = c->start[i + 1] - c->start[i];
    u->label = "strips";
    u->stored = strips * 16 * w;
    u->perm = malloc((size_t)u->stored * sizeof *u->perm);
    for (int64_t s = 0; s < strips; ++s)
        for (int64_t j = 0; j < w; ++j)
            for (int64_t r = 0; r < 16; ++r) {
                int64_t i = s * 16 + r, at = (s * w + j) * 16 + r;
                int ok = i < c->n && j < c->start[i + 1] - c->start[i];
                u->perm[at] = ok ? (int32_t)(c->start[i] + j) : -1;
            }
}

/* Every entry once and one padding slot in eight, shuffled. */
static void shuffled_store(const ucase *c, ustore *u)
{
    u->label = "shuffled";
    u->stored = c->nnz + c->nnz / 8;
    u->perm = malloc((size_t)(u->stored ? u->stored : 1) * sizeof *u->perm);
    for (int64_t k = 0; k < u->stored; ++k)
        u->perm[k] = k < c->nnz ? (int32_t)k : -1;
    for (int64_t k = u->stored - 1; k > 0; --k) {
        int64_t m = (int64_t)(rnd() % (uint64_t)(k + 1));
        int32_t t = u->perm[k];
        u->perm[k] = u->perm[m];
        u->perm[m] = t;
    }
}

static int64_t len_short(int64_t i) { return 3 + i % 5; }
static int64_t len_one(int64_t i) { (void)i; return 1; }
static int64_t len_long(int64_t i) { return i == 17 ? 7000 : 2 + i % 9; }
static int64_t len_empty(int64_t i) { return i % 97 == 5 ? 0 : 4; }
static int64_t len_8(int64_t i) { (void)i; return 8; }
static int64_t len_zero(int64_t i) { (void)i; return 0; }
static int diag_all(int64_t i) { (void)i; return 0; }
static int diag_missing(int64_t i) { return i == 333; }

static void *to_device(const void *h, size_t bytes)
{
    void *d = NULL;
    CHECK(cudaMalloc(&d, bytes ? bytes : 1) == cudaSuccess, "cudaMalloc");
    if (h && bytes)
        CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess,
              "upload");
    return d;
}

static void download(void *h, const void *d, size_t bytes)
{
    if (bytes)
        CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess,
              "download");
}

/* The host's answers for precision prec: A's values in the precision
 * (src), the store's (vals), D^-1 of each row (1 / 0 where the diagonal
 * is missing, as the kernels compute it), the first non-finite value's
 * CSR index among those stored and the first bad row (-1: none). */
static void reference(const ucase *c, const ustore *u, cmrs_prec prec,
                      void *src, void *vals, void *dinv, int64_t *bad_value,
                      int64_t *bad_row)
{
    int single = prec == CMRS_PREC_SINGLE;
    *bad_value = *bad_row = -1;
    for (int64_t k = 0; k < c->nnz; ++k) {
        if (single) ((float *)src)[k] = (float)c->values[k];
        else ((double *)src)[k] = c->values[k];
    }
    for (int64_t k = 0; k < u->stored; ++k) {
        int64_t j = u->perm ? u->perm[k] : k;
        double v = j >= 0 ? c->values[j] : 0.0;
        if (single) ((float *)vals)[k] = (float)v;
        else ((double *)vals)[k] = v;
        if (!isfinite(v) && (*bad_value < 0 || j < *bad_value)) *bad_value = j;
    }
    for (int64_t i = 0; i < c->n; ++i) {
        int32_t k = c->diag[i];
        double d = k < 0 ? 0.0 : single ? (double)((float *)src)[k]
                                        : ((double *)src)[k];
        if (*bad_row < 0 && (!(d > 0) || !isfinite(d))) *bad_row = i;
        if (single) ((float *)dinv)[i] = (float)(1.0 / d);
        else ((double *)dinv)[i] = 1.0 / d;
    }
}

static int64_t word(unsigned long long w)
{
    return w == ~0ull ? -1 : (int64_t)w;
}

/* Stored entries a tile: the most that make one. */
static int64_t tile_entries(void)
{
    int64_t tile = 1;
    while (cmrs_gpu_update_tiles(tile + 1) == 1) ++tile;
    return tile;
}

/* The tiles' rows (tiles taken): from 0 to n, never back, and each row in
 * the tile whose share of A's entries, [t T nnz / stored, (t + 1) T nnz /
 * stored) (T: a tile's entries), holds its diagonal. */
static void check_tile_rows(const ucase *c, const ustore *u,
                            const int32_t *rows, int64_t ntiles)
{
    const int64_t tile = tile_entries();
    int bad = rows[0] != 0 || rows[ntiles] != c->n;
    for (int64_t t = 0; t < ntiles && !bad; ++t) {
        const int64_t lo = (int64_t)((double)(t * tile) * (double)c->nnz /
                                     (double)u->stored),
                      hi = t + 1 < ntiles
                               ? (int64_t)((double)((t + 1) * tile) *
                                           (double)c->nnz / (double)u->stored)
                               : c->nnz;
        bad = rows[t + 1] < rows[t];
        for (int64_t i = rows[t]; i < rows[t + 1] && !bad; ++i)
            bad = c->diag[i] < lo - 1 || c->diag[i] > hi;
    }
    CHECK(!bad, "%s %s: the tiles' rows are not each tile's share",
          c->label, u->label);
}

/* The fused kernel and, for D^-1, the two-kernel path on the same input. */
static void check_case(const ucase *c, const ustore *u, cmrs_prec prec,
                       int tiles_ok)
{
    const char *pn = prec == CMRS_PREC_SINGLE ? "single" : "double";
    size_t vb = prec == CMRS_PREC_SINGLE ? sizeof(float) : sizeof(double);
    size_t ab = (size_t)c->nnz * vb, sb = (size_t)u->stored * vb;
    size_t rb = (size_t)c->n * vb;
    int64_t ntiles = cmrs_gpu_update_tiles(u->stored), ref_bv, ref_br;
    char *src = malloc(ab + 1), *want_v = malloc(sb + 1);
    char *want_d = malloc(rb + 1), *got_v = malloc(sb + 1);
    char *got_d = malloc(rb + 1);
    reference(c, u, prec, src, want_v, want_d, &ref_bv, &ref_br);
    void *src_d = to_device(src, ab), *dst_d = to_device(NULL, sb);
    void *dinv_d = to_device(NULL, rb), *dinv2_d = to_device(NULL, rb);
    int32_t *diag_d = to_device(c->diag, (size_t)c->n * sizeof(int32_t));
    int32_t *perm_d = u->perm ? to_device(u->perm, (size_t)u->stored *
                                                       sizeof(int32_t))
                              : NULL;
    int32_t *rows_d = to_device(NULL, (size_t)(ntiles + 1) * sizeof(int32_t));
    /* error words: tiles, fused (value, row), two kernels' row, and the
     * two the fused kernel resets (zeroed here) */
    unsigned long long *w_d = to_device(NULL, 6 * sizeof *w_d), w[6];
    CHECK(cudaMemset(dst_d, 0xff, sb ? sb : 1) == cudaSuccess &&
              cudaMemset(dinv_d, 0xff, rb ? rb : 1) == cudaSuccess &&
              cudaMemset(dinv2_d, 0xff, rb ? rb : 1) == cudaSuccess &&
              cudaMemset(w_d, 0xff, 4 * sizeof *w_d) == cudaSuccess &&
              cudaMemset(w_d + 4, 0, 2 * sizeof *w_d) == cudaSuccess,
          "poison");
    const cmrs_gpu_fused_update fu = {
        .dst_d = dst_d, .perm_d = perm_d, .stored = u->stored, .n = c->n,
        .diag_d = diag_d, .tile_rows_d = rows_d, .tiles_bad_d = &w_d[0],
        .bad_value_d = &w_d[1], .bad_row_d = &w_d[2], .reset_d = &w_d[4]};
    CHECK_OK(cmrs_gpu_tile_rows(c->n, diag_d, c->nnz, u->stored, rows_d,
                                &w_d[0], 0));
    CHECK_OK(cmrs_gpu_copy_dinv(prec, &fu, src_d, dinv_d, 0));
    CHECK_OK(cmrs_gpu_dinv_values(prec, c->n, diag_d, src_d, dinv2_d,
                                  &w_d[3], 0));
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "%s %s %s: kernels",
          c->label, u->label, pn);
    download(w, w_d, sizeof w);
    download(got_v, dst_d, sb);
    download(got_d, dinv_d, rb);
    if (w[0] == ~0ull && ntiles > 0) {
        int32_t *rows = malloc((size_t)(ntiles + 1) * sizeof *rows);
        download(rows, rows_d, (size_t)(ntiles + 1) * sizeof *rows);
        check_tile_rows(c, u, rows, ntiles);
        free(rows);
    }
    CHECK((w[0] == ~0ull) == tiles_ok, "%s %s %s: tiles %s (word %lld)",
          c->label, u->label, pn, tiles_ok ? "refused" : "taken",
          (long long)word(w[0]));
    CHECK(w[4] == ~0ull && w[5] == ~0ull, "%s %s %s: "
          "the next update's words not reset", c->label, u->label, pn);
    CHECK(memcmp(got_v, want_v, sb) == 0, "%s %s %s: stored values differ",
          c->label, u->label, pn);
    CHECK(memcmp(got_d, want_d, rb) == 0, "%s %s %s: fused D^-1 differs",
          c->label, u->label, pn);
    download(got_d, dinv2_d, rb);
    CHECK(memcmp(got_d, want_d, rb) == 0, "%s %s %s: two-kernel D^-1 "
          "differs", c->label, u->label, pn);
    CHECK(word(w[1]) == ref_bv, "%s %s %s: bad value %lld, want %lld",
          c->label, u->label, pn, (long long)word(w[1]), (long long)ref_bv);
    CHECK(word(w[2]) == ref_br && word(w[3]) == ref_br, "%s %s %s: bad row "
          "%lld (two kernels %lld), want %lld", c->label, u->label, pn,
          (long long)word(w[2]), (long long)word(w[3]), (long long)ref_br);
    cudaFree(src_d), cudaFree(dst_d), cudaFree(dinv_d), cudaFree(dinv2_d);
    cudaFree(diag_d), cudaFree(perm_d), cudaFree(rows_d), cudaFree(w_d);
    free(src), free(want_v), free(want_d), free(got_v), free(got_d);
}

/* Every store of c, both precisions. */
static void check_stores(const ucase *c, int tiles_ok)
{
    ustore st[3] = {{"CSR order", NULL, c->nnz}};
    strip_store(c, &st[1]);
    shuffled_store(c, &st[2]);
    for (int k = 0; k < 3; ++k) {
        for (int p = 0; p < 2; ++p)
            check_case(c, &st[k], (cmrs_prec)p, tiles_ok);
        free(st[k].perm);
    }
}

static void free_case(ucase *c)
{
    free(c->diag);
    free(c->start);
    free(c->values);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    const int64_t tile = tile_entries();
    struct {
        const char *label;
        int64_t n;
        int64_t (*len)(int64_t);
        int (*no_diag)(int64_t);
        int tiles_ok;
    } cases[] = {
        {"n=1", 1, len_one, diag_all, 1},
        {"fewer entries than a tile", 101, len_short, diag_all, 1},
        {"a multiple of the tile", 4 * tile / 8, len_8, diag_all, 1},
        {"rows spanning tiles", 20011, len_short, diag_all, 1},
        {"a row over three tiles", 4001, len_long, diag_all, 1},
        {"empty rows", 5000, len_empty, diag_all, 0},
        {"a row without its diagonal", 3000, len_short, diag_missing, 0},
        {"no entries", 5, len_zero, diag_all, 0},
    };
    CHECK(cmrs_gpu_update_tiles(4 * tile) == 4 &&
              cmrs_gpu_update_tiles(4 * tile + 1) == 5 &&
              cmrs_gpu_update_tiles(0) == 0,
          "tile count");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        ucase c;
        make_case(&c, cases[i].label, cases[i].n, cases[i].len,
                  cases[i].no_diag);
        check_stores(&c, cases[i].tiles_ok);
        if (c.nnz > 10 && c.n > 10) { /* the flags: a NaN, a bad diagonal */
            c.values[c.nnz / 2] = NAN;
            c.values[c.nnz - 3] = INFINITY;
            for (int64_t r = c.n / 3; r < c.n; ++r)
                if (c.diag[r] >= 0) {
                    c.values[c.diag[r]] = -2.5;
                    break;
                }
            check_stores(&c, cases[i].tiles_ok);
        }
        free_case(&c);
    }
    return check_summary();
}
