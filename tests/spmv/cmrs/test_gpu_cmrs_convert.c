/* The CSR -> CMRS conversion on the GPU (cmrs_mat_dev_build) against the
 * host conversion (cmrs_mat_from_csr, CSR order; cmrs_mat_from_csr_sliced
 * with one width for the "su" layout, and its permutation), bit for bit: strip
 * pointers, packed column/row words and values (double as given, single
 * as the host would round them), the zero padding past nnz, and the byte
 * and time figures it reports; every test matrix (empty rows, one long
 * row, rows not a multiple of h, n = 1, n = 0, rectangular) at every
 * height 1..16, with and without the rows kernel's 16-bit row offsets,
 * converted in one pass and a chunk of rows at a time. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/cmrs/cmrs_setup.h"
#include "base/gpu/cuda_check.h"
#include "spmv/device.h"
#include "test_cmrs_matrices.h"

/* The n values at v_d (of prec) as doubles. */
static double *download_values(const void *v_d, int64_t n, cmrs_prec prec)
{
    double *v = cmrs_malloc_array((size_t)n, sizeof *v);
    if (v) CHECK_OK(cmrs_dev_download_values(v_d, n, prec, v));
    return v;
}

static uint32_t *download_words(const uint32_t *w_d, int64_t n)
{
    uint32_t *w = cmrs_malloc_array((size_t)n, sizeof *w);
    if (w && n > 0)
        CHECK(cudaMemcpy(w, w_d, (size_t)n * sizeof *w,
                         cudaMemcpyDeviceToHost) == cudaSuccess,
              "download");
    return w;
}

/* The 16-bit row offsets of the rows kernel: row r's start minus its
 * strip's, from A's row pointers. */
static void compare_offsets(const cmrs_mat_dev *d, const cmrs_csr *A, int h,
                            const char *name)
{
    int64_t bad = -1;
    uint16_t *off = cmrs_malloc_array((size_t)A->rows + 1, sizeof *off);
    if (A->rows > 0)
        CHECK(cudaMemcpy(off, d->row_off_d, (size_t)A->rows * sizeof *off,
                         cudaMemcpyDeviceToHost) == cudaSuccess,
              "download offsets");
    for (int64_t r = 0; r < A->rows && bad < 0; ++r)
        if (off[r] != A->indptr[r] - A->indptr[r - r % h]) bad = r;
    CHECK(bad < 0, "%s h=%d: row offset of row %lld is %d, want %lld", name, h,
          (long long)bad, bad < 0 ? 0 : off[bad],
          bad < 0 ? 0LL : (long long)(A->indptr[bad] - A->indptr[bad - bad % h]));
    free(off);
}

/* Device arrays of d equal m's (values rounded to prec like the host's
 * upload), and `pad` zero entries past them. */
static void compare(const cmrs_mat_dev *d, const cmrs_mat *m, cmrs_prec prec,
                    const char *name, int h, int64_t pad)
{
    int64_t n = m->stored, padded = n + pad;
    uint32_t *ptr = download_words(d->strip_ptr_d, m->strips + 1);
    uint32_t *words = download_words(d->colrow_d, padded);
    double *vals = download_values(d->values_d, padded, prec);
    int64_t bad_ptr = -1, bad_word = -1, bad_val = -1;
    for (int64_t j = 0; j <= m->strips && bad_ptr < 0; ++j)
        if (ptr[j] != m->strip_ptr[j]) bad_ptr = j;
    for (int64_t k = 0; k < padded && bad_word < 0; ++k)
        if (words[k] != (k < n ? m->colrow[k] : 0u)) bad_word = k;
    for (int64_t k = 0; k < padded && bad_val < 0; ++k) {
        double want = k < n ? (prec == CMRS_PREC_SINGLE
                                   ? (double)(float)m->values[k]
                                   : m->values[k])
                            : 0.0;
        if (memcmp(&vals[k], &want, sizeof want) != 0) bad_val = k;
    }
    CHECK(d->strips == m->strips && d->rows == m->rows && d->height == h &&
              bad_ptr < 0 && bad_word < 0 && bad_val < 0,
          "%s h=%d %s: strips %lld/%lld, first differing pointer %lld, word "
          "%lld, value %lld", name, h, cmrs_prec_name(prec),
          (long long)d->strips, (long long)m->strips, (long long)bad_ptr,
          (long long)bad_word, (long long)bad_val);
    free(ptr);
    free(words);
    free(vals);
}

/* Every height, or (g_few_heights: the chunked builds' extra runs) 1, 2,
 * 5 and 16: strips of one row, of a few, and the tallest. */
static int g_few_heights;

static int next_height(int h)
{
    if (!g_few_heights) return h + 1;
    return h == 1 ? 2 : h == 2 ? 5 : h == 5 ? CMRS_MAX_HEIGHT : CMRS_MAX_HEIGHT + 1;
}

static void test_matrix(const cmrs_csr *A, const char *name)
{
    for (int h = 1; h <= CMRS_MAX_HEIGHT; h = next_height(h)) {
        cmrs_mat m;
        CHECK_OK(cmrs_mat_from_csr(A, h, 0, &m));
        const int offsets = cmrs_row_offsets_fit(A, h);
        for (int p = 0; p < 4; ++p) {
            cmrs_prec prec = p % 2 ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
            const int with_off = p >= 2 && offsets;
            cmrs_mat_dev d;
            double secs = -1, bytes = -1;
            CHECK_OK(cmrs_mat_dev_build(A, h, prec, with_off, NULL, &d, &secs,
                                        &bytes));
            compare(&d, &m, prec, name, h, CMRS_TILE_PAD);
            CHECK((d.row_off_d != NULL) == with_off, "offsets when asked");
            if (with_off) compare_offsets(&d, A, h, name);
            double want = 8.0 * (double)(A->rows + 1) + 8.0 * (double)A->nnz +
                          4.0 * (double)(m.strips + 1) +
                          (with_off ? 10.0 * (double)A->rows : 0.0);
            CHECK(bytes == want && (A->rows == 0 ? secs == 0 : secs > 0),
                  "%s h=%d: conversion figures %g bytes (want %g), %g s", name,
                  h, bytes, want, secs);
            cmrs_mat_dev_free(&d);
        }
        cmrs_mat_free(&m);
    }
}

/* The permutation at perm_d equals the host layout's of A's entry
 * numbers (cmrs_csr_index_pattern: entry k + 1, padding 0). */
static void compare_perm(const int32_t *perm_d, const cmrs_csr *A, int h,
                         const char *name)
{
    cmrs_csr idx;
    cmrs_mat mi;
    CHECK_OK(cmrs_csr_index_pattern(A, &idx));
    CHECK_OK(cmrs_mat_from_csr_sliced(&idx, h, 1, &mi));
    uint32_t *perm = download_words((const uint32_t *)perm_d, mi.stored);
    int64_t bad = -1;
    for (int64_t k = 0; k < mi.stored && bad < 0; ++k)
        if ((int32_t)perm[k] != (int32_t)mi.values[k] - 1) bad = k;
    CHECK(bad < 0, "%s h=%d su: permutation differs at slot %lld", name, h,
          (long long)bad);
    free(perm);
    cmrs_mat_free(&mi);
    free(idx.values);
}

/* su (mode 2) at every height and precision: the host's one-width layout,
 * bit for bit, its permutation and figures; the rule (mode -1) takes it
 * exactly where cmrs_slice_takes does. */
static void test_sliced(const cmrs_csr *A, const char *name)
{
    for (int h = 1; h <= CMRS_MAX_HEIGHT; h = next_height(h)) {
        cmrs_mat m;
        CHECK_OK(cmrs_mat_from_csr_sliced(A, h, 1, &m));
        for (int p = 0; p < 3; ++p) {
            cmrs_prec prec = p == 1 ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
            cmrs_slice_req req = {p == 2 ? -1 : 2, NULL, 0, 1};
            cmrs_mat_dev d;
            double secs = -1, bytes = -1;
            CHECK_OK(cmrs_mat_dev_build(A, h, prec, 1, &req, &d, &secs, &bytes));
            const int want = A->rows > 0 &&
                             cmrs_slice_takes(req.mode, A->rows, A->nnz,
                                              m.slice_width);
            CHECK((d.slice_width > 0) == want && (req.perm_d != NULL) == want,
                  "%s h=%d mode %d: sliced %d, want %d", name, h, req.mode,
                  d.slice_width, want);
            if (want) {
                const double sv = prec == CMRS_PREC_SINGLE ? 4.0 : 8.0;
                compare(&d, &m, prec, name, h, 0);
                compare_perm(req.perm_d, A, h, name);
                const double w = 16.0 * (double)(A->rows + 1) +
                                 (4.0 + sv) * (double)A->nnz +
                                 (8.0 + sv) * (double)m.stored +
                                 4.0 * (double)(m.strips + 1);
                CHECK(d.slice_width == m.slice_width && d.row_off_d == NULL &&
                          bytes == w && secs > 0,
                      "%s h=%d su: width %d (want %d), %g bytes (want %g), %g s",
                      name, h, d.slice_width, m.slice_width, bytes, w, secs);
            }
            cudaFree(req.perm_d);
            cmrs_mat_dev_free(&d);
        }
        cmrs_mat_free(&m);
    }
}

/* Bad heights and the column limit fail before anything is allocated. */
static void test_refusals(void)
{
    cmrs_csr A;
    cmrs_mat_dev d;
    double secs = 0, bytes = 0;
    CHECK_OK(cmrs_csr_alloc(&A, 2, 2, 0));
    A.indptr[1] = A.indptr[2] = 0;
    CHECK_FAILS(cmrs_mat_dev_build(&A, 0, CMRS_PREC_DOUBLE, 1, NULL, &d, &secs, &bytes),
                CMRS_E_USAGE, "height 0");
    CHECK_FAILS(cmrs_mat_dev_build(&A, 17, CMRS_PREC_DOUBLE, 1, NULL, &d, &secs, &bytes),
                CMRS_E_USAGE, "height 17");
    A.cols = CMRS_MAX_COLS + 1;
    CHECK_FAILS(cmrs_mat_dev_build(&A, 4, CMRS_PREC_DOUBLE, 1, NULL, &d, &secs, &bytes),
                CMRS_E_LIMIT, "28 bits");
    cmrs_csr_free(&A);
}

/* A bad chunk size: a usage error naming the variable, nothing built. */
static void test_bad_chunk(void)
{
    cmrs_csr A;
    cmrs_mat_dev d;
    double secs = 0, bytes = 0;
    CHECK_OK(test_random_csr(&k_test_specs[0], 900, &A));
    setenv("CMRS_CONVERT_CHUNK_ENTRIES", "-3", 1);
    for (int p = 0; p < 2; ++p) /* single precision refuses it too */
        CHECK_FAILS(cmrs_mat_dev_build(&A, 4, (cmrs_prec)p, 1, NULL, &d,
                                       &secs, &bytes),
                    CMRS_E_USAGE, "CMRS_CONVERT_CHUNK_ENTRIES=-3");
    CHECK(d.colrow_d == NULL && d.values_d == NULL, "nothing built");
    unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
    cmrs_csr_free(&A);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    /* The host matrices in double go up and are converted a chunk of rows
     * at a time (cmrs_mat_dev_build's pipeline): the one-pass build (the
     * default, unset), chunks of 1 entry (a chunk a row, rows longer than
     * a chunk alone), 13 and 257 (strips spanning chunk boundaries; a
     * matrix of one chunk takes the one-pass build); every one the host's
     * arrays
     * bit for bit (the extra chunk sizes at heights 1, 2, 5 and 16).
     * Single precision takes the one-pass build in all. */
    static const char *const chunks[] = {NULL, "1", "13", "257"};
    for (int c = 0; c < 4; ++c) {
        if (chunks[c]) setenv("CMRS_CONVERT_CHUNK_ENTRIES", chunks[c], 1);
        else unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
        g_few_heights = c >= 1; /* the one-pass build: all 16 */
        for (int i = 0; i < N_TEST_SPECS; ++i) {
            cmrs_csr A;
            /* chunks of 1 entry: the small matrices only (a chunk a row) */
            if (c == 1 && k_test_specs[i].rows > 400) continue;
            CHECK_OK(test_random_csr(&k_test_specs[i], 900 + (uint64_t)i, &A));
            test_matrix(&A, k_test_specs[i].name);
            test_sliced(&A, k_test_specs[i].name);
            cmrs_csr_free(&A);
        }
    }
    test_refusals();
    test_bad_chunk();
    return check_summary();
}
