/* Host tests of the 'sell' conversion (spmv/formats/fmt_sell.h): a hand-checked
 * layout, the invariants cuSPARSE relies on (offsets, column-major slots,
 * -1 padding with value 0, stored = sum of SLICE * width), a host
 * emulation of the SELL product against the CSR reference, the value
 * permutation (the conversion of A's index pattern: same layout, values
 * gathered bit for bit), and the refusals (long row via
 * cmrs_check_padding). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spmv/spmv.h"
#include "spmv/formats/fmt_sell.h"
#include "spmv/ref.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "spmv/test_value_perm.h"

#define S CMRS_SELL_SLICE

/* Rows 0..S: row i has i % 3 entries at columns i, i+1 (mod cols); row S
 * (alone in the second slice) has 1 entry. 2 slices of widths 2 and 1. */
static void small_matrix(cmrs_csr *A)
{
    int64_t rows = S + 1, nnz = 0;
    for (int64_t i = 0; i < S; ++i) nnz += i % 3;
    cmrs_csr_alloc(A, rows, rows + 2, nnz + 1);
    int64_t k = 0;
    for (int64_t i = 0; i < rows; ++i) {
        int64_t len = i < S ? i % 3 : 1;
        for (int64_t j = 0; j < len; ++j, ++k) {
            A->indices[k] = (int32_t)(i + j);
            A->values[k] = (double)(10 * i + j + 1);
        }
        A->indptr[i + 1] = k;
    }
}

/* Setup converts A's index pattern: the same layout, and its values are
 * the permutation that gathers h's values exactly. */
static void check_permutation(const cmrs_csr *A, const cmrs_sell_host *h,
                              const char *name)
{
    cmrs_csr idx;
    cmrs_sell_host p;
    CHECK_OK(cmrs_csr_index_pattern(A, &idx));
    CHECK_OK(cmrs_sell_build(&idx, &p));
    int same = p.slices == h->slices && p.stored == h->stored &&
               !memcmp(p.slice_offsets, h->slice_offsets,
                       ((size_t)h->slices + 1) * sizeof *p.slice_offsets) &&
               !memcmp(p.col_ind, h->col_ind,
                       (size_t)h->stored * sizeof *p.col_ind);
    check_pattern_perm(A, same, p.values, h->values, h->stored, name);
    cmrs_sell_host_free(&p);
    free(idx.values);
}

static void test_small_layout(void)
{
    cmrs_csr A;
    cmrs_sell_host h;
    small_matrix(&A);
    CHECK_OK(cmrs_sell_build(&A, &h));
    CHECK(h.slices == 2 && h.stored == 3 * S, "slices %lld stored %lld",
          (long long)h.slices, (long long)h.stored);
    CHECK(h.slice_offsets[0] == 0 && h.slice_offsets[1] == 2 * S &&
              h.slice_offsets[2] == 3 * S, "offsets %d %d %d",
          h.slice_offsets[0], h.slice_offsets[1], h.slice_offsets[2]);
    /* row 2 (len 2): slots 2 and S + 2; row 1 (len 1): slot 1, S + 1 pad */
    CHECK(h.col_ind[2] == 2 && h.col_ind[S + 2] == 3 && h.values[S + 2] == 22,
          "row 2 misplaced");
    CHECK(h.col_ind[1] == 1 && h.col_ind[S + 1] == -1 && h.values[S + 1] == 0,
          "row 1 / its padding misplaced");
    /* last slice: row S in slot 0, phantom rows are padding */
    CHECK(h.col_ind[2 * S] == S && h.values[2 * S] == 10 * S + 1 &&
              h.col_ind[2 * S + 1] == -1 && h.col_ind[3 * S - 1] == -1,
          "last (partial) slice wrong");
    check_permutation(&A, &h, "small example");
    cmrs_sell_host_free(&h);
    cmrs_sell_host_free(&h); /* idempotent */
    cmrs_csr_free(&A);
}

/* Every row's entries sit at offsets[s] + k*S + i, the rest is -1 / 0. */
static int layout_ok(const cmrs_csr *A, const cmrs_sell_host *h)
{
    int64_t real = 0, pad = 0;
    for (int64_t s = 0; s < h->slices; ++s) {
        int64_t base = h->slice_offsets[s], n = h->slice_offsets[s + 1] - base;
        if (n < 0 || n % S) return 0;
        for (int64_t i = 0; i < S; ++i) {
            int64_t r = s * S + i, p0 = r < A->rows ? A->indptr[r] : 0;
            int64_t len = r < A->rows ? A->indptr[r + 1] - p0 : 0;
            for (int64_t k = 0; k < n / S; ++k) {
                int64_t slot = base + k * S + i;
                if (k < len && (h->col_ind[slot] != A->indices[p0 + k] ||
                                h->values[slot] != A->values[p0 + k]))
                    return 0;
                if (k >= len && (h->col_ind[slot] != -1 || h->values[slot] != 0))
                    return 0;
                k < len ? ++real : ++pad;
            }
            if (len > n / S) return 0;
        }
    }
    return h->slice_offsets[0] == 0 && h->slice_offsets[h->slices] == h->stored &&
           real == A->nnz && real + pad == h->stored;
}

/* y = alpha*A*x + beta*y walking the SELL arrays as a kernel would. */
static void sell_product(const cmrs_sell_host *h, double alpha, const double *x,
                         double beta, double *y)
{
    for (int64_t s = 0; s < h->slices; ++s) {
        int64_t base = h->slice_offsets[s], w = (h->slice_offsets[s + 1] - base) / S;
        for (int64_t i = 0; i < S && s * S + i < h->rows; ++i) {
            double sum = 0;
            for (int64_t k = 0; k < w; ++k) {
                int32_t c = h->col_ind[base + k * S + i];
                if (c >= 0) sum += h->values[base + k * S + i] * x[c];
            }
            int64_t r = s * S + i;
            y[r] = alpha * sum + (beta == 0 ? 0 : beta * y[r]);
        }
    }
}

static void check_product(const cmrs_csr *A, const cmrs_sell_host *h,
                          const char *name)
{
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y = cmrs_malloc_array((size_t)A->rows, sizeof *y);
    double *yr = cmrs_malloc_array((size_t)A->rows, sizeof *yr);
    for (int64_t j = 0; j < A->cols; ++j) x[j] = sin((double)j + 1);
    for (int64_t i = 0; i < A->rows; ++i) y[i] = yr[i] = cos((double)i);
    sell_product(h, -1.5, x, 0.75, y);
    cmrs_ref_spmv(A, -1.5, x, 0.75, yr);
    double err = cmrs_ref_rel_err(A->rows, y, yr);
    CHECK(err < 1e-13, "%s: SELL product differs from CSR by %g", name, err);
    free(x);
    free(y);
    free(yr);
}

static void test_random(void)
{
    for (int t = 0; t < N_TEST_SPECS; ++t) {
        const test_spec *g = &k_test_specs[t];
        cmrs_csr A;
        CHECK_OK(test_random_csr(g, 7 + (uint64_t)t, &A));
        int64_t count = cmrs_sell_count(&A);
        cmrs_sell_host h;
        if ((double)count > CMRS_MAX_PADDING_RATIO * (double)A.nnz + 1024) {
            CHECK_FAILS(cmrs_sell_build(&A, &h), CMRS_E_LIMIT, "sell: padding");
            CHECK(h.values == NULL, "%s: refused build left arrays", g->name);
        } else {
            CHECK_OK(cmrs_sell_build(&A, &h));
            CHECK(h.stored == count && h.stored >= A.nnz &&
                      h.slices == (A.rows + S - 1) / S,
                  "%s: stored %lld count %lld", g->name, (long long)h.stored,
                  (long long)count);
            CHECK(layout_ok(&A, &h), "%s: layout invariants broken", g->name);
            check_product(&A, &h, g->name);
            check_permutation(&A, &h, g->name);
            cmrs_sell_host_free(&h);
        }
        if (g->long_row >= 0)
            CHECK(count > 4 * A.nnz + 1024, "%s: long row not refused", g->name);
        cmrs_csr_free(&A);
    }
}

/* 4 rows x 4 entries in one slice: no padding within the rows, the
 * phantom rows pad to S * 4. */
static void test_memory_overhead(void)
{
    cmrs_csr A;
    cmrs_csr_alloc(&A, 4, 4, 16);
    for (int64_t k = 0; k < 16; ++k) {
        A.indices[k] = (int32_t)(k % 4);
        A.values[k] = 1;
    }
    for (int64_t i = 0; i <= 4; ++i) A.indptr[i] = 4 * i;
    CHECK(cmrs_sell_count(&A) == 4 * S, "count %lld",
          (long long)cmrs_sell_count(&A));
    cmrs_csr_free(&A);
}

int main(void)
{
    test_small_layout();
    test_random();
    test_memory_overhead();
    return check_summary();
}
