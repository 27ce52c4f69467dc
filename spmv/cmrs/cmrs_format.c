/* The CMRS format on the host: limits, the basic CSR -> CMRS conversion, the
 * way back, the invariant check and the host product (see cmrs_format.h).
 * The modified layout of §6.7 is built in cmrs_mod_layout.c. */
#include "base/memory.h"
#include "cmrs_format.h"

#include <stdlib.h>
#include <string.h>

cmrs_code cmrs_mat_check_limits(const cmrs_csr *A, const char *what)
{
    CMRS_ENSURE(A->cols <= CMRS_MAX_COLS, CMRS_E_LIMIT,
                "%s: matrix has %lld columns; CMRS packs column indices in 28 "
                "bits, so at most %lld are supported", what,
                (long long)A->cols, (long long)CMRS_MAX_COLS);
    CMRS_ENSURE(A->rows <= INT32_MAX, CMRS_E_LIMIT,
                "%s: matrix has %lld rows; at most %d are supported", what,
                (long long)A->rows, INT32_MAX);
    CMRS_ENSURE(A->nnz <= CMRS_MAX_ENTRIES, CMRS_E_LIMIT,
                "%s: matrix has %lld nonzeros; CMRS strip pointers are 32-bit, "
                "so at most %lld are supported", what, (long long)A->nnz,
                (long long)CMRS_MAX_ENTRIES);
    return CMRS_OK;
}

cmrs_code cmrs_mat_alloc(cmrs_mat *m, const cmrs_csr *A, int height,
                         int64_t stored, int with_chunk_fill)
{
    memset(m, 0, sizeof *m);
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "CMRS strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    m->rows = A->rows;
    m->cols = A->cols;
    m->height = height;
    m->nnz = A->nnz;
    m->stored = stored;
    m->strips = (A->rows + height - 1) / height;
    m->strip_ptr = cmrs_malloc_array((size_t)m->strips + 1, sizeof(uint32_t));
    m->colrow = cmrs_malloc_array((size_t)stored, sizeof(uint32_t));
    m->values = cmrs_malloc_array((size_t)stored, sizeof(double));
    if (with_chunk_fill)
        m->chunk_fill = cmrs_malloc_array((size_t)stored / CMRS_CHUNK, 1);
    if (!m->strip_ptr || !m->colrow || !m->values ||
        (with_chunk_fill && !m->chunk_fill)) {
        cmrs_mat_free(m);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate a CMRS matrix of %lld strips "
                  "and %lld entries", (long long)((A->rows + height - 1) /
                                                  height), (long long)stored);
    }
    m->strip_ptr[0] = 0;
    return CMRS_OK;
}

void cmrs_mat_free(cmrs_mat *m)
{
    if (!m) return;
    CMRS_FREE_ALL(m->strip_ptr, m->colrow, m->values, m->chunk_fill);
    memset(m, 0, sizeof *m);
}

int64_t cmrs_longest_strip(const cmrs_csr *A, int height)
{
    int64_t longest = 0;
    for (int64_t r0 = 0; r0 < A->rows; r0 += height) {
        int64_t r1 = r0 + height < A->rows ? r0 + height : A->rows;
        if (A->indptr[r1] - A->indptr[r0] > longest)
            longest = A->indptr[r1] - A->indptr[r0];
    }
    return longest;
}

cmrs_code cmrs_strip_scratch_alloc(const cmrs_csr *A, int height,
                                   cmrs_strip_scratch *w)
{
    int64_t longest = cmrs_longest_strip(A, height);
    w->keys = cmrs_malloc_array((size_t)longest, sizeof *w->keys);
    w->vals = cmrs_malloc_array((size_t)longest, sizeof *w->vals);
    CMRS_ENSURE(w->keys && w->vals, CMRS_E_NOMEM, "cmrs: cannot allocate a "
                "strip buffer of %lld entries", (long long)longest);
    return CMRS_OK;
}

void cmrs_strip_scratch_free(cmrs_strip_scratch *w)
{
    free(w->keys);
    free(w->vals);
    memset(w, 0, sizeof *w);
}

/* Merges the sorted runs a (na entries) and b (nb) into out; keys are
 * distinct, so the order is total. */
static void merge_runs(const uint32_t *ka, const double *va, int64_t na,
                       const uint32_t *kb, const double *vb, int64_t nb,
                       uint32_t *ko, double *vo)
{
    int64_t i = 0, j = 0, o = 0;
    while (i < na && j < nb) {
        int take_a = ka[i] < kb[j];
        ko[o] = take_a ? ka[i] : kb[j];
        vo[o++] = take_a ? va[i++] : vb[j++];
    }
    for (; i < na; ++i, ++o) ko[o] = ka[i], vo[o] = va[i];
    for (; j < nb; ++j, ++o) ko[o] = kb[j], vo[o] = vb[j];
}

/* Sorts keys/vals, made of `runs` sorted runs starting at bound[0..runs)
 * (bound[runs] = the end), by pairwise merge passes through the scratch:
 * log2(height) passes over the strip. */
static void sort_runs(uint32_t *keys, double *vals, int64_t *bound, int runs,
                      cmrs_strip_scratch *w)
{
    uint32_t *ks = keys, *kd = w->keys, *kt;
    double *vs = vals, *vd = w->vals, *vt;
    int64_t n = bound[runs];
    while (runs > 1) {
        int out = 0;
        for (int r = 0; r < runs; r += 2) {
            int64_t lo = bound[r], mid = bound[r + 1];
            int64_t hi = r + 2 <= runs ? bound[r + 2] : mid;
            merge_runs(ks + lo, vs + lo, mid - lo, ks + mid, vs + mid,
                       hi - mid, kd + lo, vd + lo);
            bound[out++] = lo;
        }
        bound[out] = n;
        runs = out;
        kt = ks, ks = kd, kd = kt;
        vt = vs, vs = vd, vd = vt;
    }
    if (ks != keys && n > 0) {
        memcpy(keys, ks, (size_t)n * sizeof *keys);
        memcpy(vals, vs, (size_t)n * sizeof *vals);
    }
}

int64_t cmrs_strip_entries(const cmrs_csr *A, int height, int64_t s,
                           cmrs_strip_scratch *sort, uint32_t *keys,
                           double *vals)
{
    int64_t r0 = s * height, bound[CMRS_MAX_HEIGHT + 1];
    int64_t r1 = r0 + height < A->rows ? r0 + height : A->rows;
    int64_t out = 0;
    for (int64_t r = r0; r < r1; ++r) {
        bound[r - r0] = out; /* each row is a run sorted by column */
        for (int64_t k = A->indptr[r]; k < A->indptr[r + 1]; ++k, ++out) {
            keys[out] = cmrs_pack((uint32_t)A->indices[k], (uint32_t)(r - r0));
            vals[out] = A->values[k];
        }
    }
    bound[r1 - r0] = out;
    if (sort) sort_runs(keys, vals, bound, (int)(r1 - r0), sort);
    return out;
}

cmrs_code cmrs_mat_from_csr(const cmrs_csr *A, int height, int sorted,
                            cmrs_mat *m)
{
    cmrs_code rc = CMRS_OK;
    cmrs_strip_scratch w = {0};
    memset(m, 0, sizeof *m);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs"));
    CMRS_CHECK(cmrs_mat_alloc(m, A, height, A->nnz, 0));
    m->sorted = sorted != 0;
    if (m->sorted) CMRS_TRY(cmrs_strip_scratch_alloc(A, height, &w));
    for (int64_t s = 0; s < m->strips; ++s) {
        int64_t begin = A->indptr[s * height]; /* StripPtr[s] = RowPtr[s*h] */
        m->strip_ptr[s] = (uint32_t)begin;
        cmrs_strip_entries(A, height, s, m->sorted ? &w : NULL,
                           m->colrow + begin, m->values + begin);
    }
    m->strip_ptr[m->strips] = (uint32_t)A->nnz;
done:
    cmrs_strip_scratch_free(&w);
    if (rc != CMRS_OK) cmrs_mat_free(m);
    return rc;
}

/* Counting sort of the real entries by row. The basic layout keeps each
 * row's entries in column order; cmrs-mod may deal a row over several
 * chunks, so its rows are sorted afterwards. */
cmrs_code cmrs_mat_to_csr(const cmrs_mat *m, cmrs_csr *A)
{
    CMRS_CHECK(cmrs_csr_alloc(A, m->rows, m->cols, m->nnz));
    memset(A->indptr, 0, ((size_t)m->rows + 1) * sizeof *A->indptr);
    for (int64_t s = 0; s < m->strips; ++s)
        for (int64_t j = m->strip_ptr[s]; j < m->strip_ptr[s + 1]; ++j) {
            if (cmrs_mat_is_padding(m, j)) continue;
            int64_t row = s * m->height + cmrs_row_of(m->colrow[j]);
            if (row >= m->rows) {
                cmrs_csr_free(A);
                CMRS_FAIL(CMRS_E_INTERNAL, "cmrs: entry %lld of strip %lld "
                          "is in row %lld of a %lld-row matrix", (long long)j,
                          (long long)s, (long long)row, (long long)m->rows);
            }
            ++A->indptr[row + 1];
        }
    for (int64_t i = 0; i < m->rows; ++i) A->indptr[i + 1] += A->indptr[i];
    for (int64_t s = 0; s < m->strips; ++s)
        for (int64_t j = m->strip_ptr[s]; j < m->strip_ptr[s + 1]; ++j) {
            if (cmrs_mat_is_padding(m, j)) continue;
            int64_t row = s * m->height + cmrs_row_of(m->colrow[j]);
            int64_t pos = A->indptr[row]++;
            A->indices[pos] = (int32_t)cmrs_col_of(m->colrow[j]);
            A->values[pos] = m->values[j];
        }
    /* indptr[i] now holds the end of row i: shift back to the starts. */
    memmove(A->indptr + 1, A->indptr, (size_t)m->rows * sizeof *A->indptr);
    A->indptr[0] = 0;
    cmrs_code rc = m->modulo ? cmrs_csr_sort_sum_duplicates(A) : CMRS_OK;
    if (rc != CMRS_OK) {
        cmrs_csr_free(A);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

void cmrs_mat_spmv(const cmrs_mat *m, double alpha, const double *x,
                   double beta, double *y)
{
    const int M = m->modulo ? m->modulo : CMRS_CHUNK;
    double buf[CMRS_CHUNK][CMRS_MAX_HEIGHT]; /* [lane % M][row_in_strip] */
    for (int64_t s = 0; s < m->strips; ++s) {
        memset(buf, 0, sizeof buf[0] * (size_t)M);
        int64_t start = m->strip_ptr[s];
        for (int64_t j = start; j < m->strip_ptr[s + 1]; ++j) {
            int lane = (int)((j - start) % CMRS_CHUNK);
            uint32_t cr = m->colrow[j];
            buf[lane % M][cmrs_row_of(cr)] += m->values[j] * x[cmrs_col_of(cr)];
        }
        for (int r = 0; r < m->height && s * m->height + r < m->rows; ++r) {
            double sum = 0;
            for (int slot = 0; slot < M; ++slot) sum += buf[slot][r];
            double *yi = &y[s * m->height + r];
            *yi = alpha * sum + (beta == 0 ? 0.0 : beta * *yi);
        }
    }
}

double cmrs_mat_padding_ratio(const cmrs_mat *m)
{
    return m->nnz > 0 ? (double)m->stored / (double)m->nnz : 1.0;
}
