/* ArgCSR conversion (spmv/formats/fmt_argcsr.c): the group layout of paper 002,
 * every nonzero stored once, chunk sizes equal to the paper's greedy lane
 * distribution, padding bounded (refused by cmrs_check_padding only for
 * pathological patterns), a host emulation of the GPU kernel that must
 * match the CPU reference product, and the value permutation (the
 * conversion of A's index pattern: same layout, values gathered bit for
 * bit). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "spmv/formats/fmt_argcsr.h"
#include "spmv/ref.h"
#include "spmv/spmv.h"
#include "spmv/cmrs/test_cmrs_matrices.h"
#include "spmv/test_value_perm.h"

#define LANES CMRS_ARGCSR_LANES

/* The paper's greedy: one lane per nonempty row, then each spare lane to
 * the row with the largest chunk filling; returns the final chunk size. */
static int64_t greedy_chunk(const int64_t *len, int n)
{
    int64_t lanes[LANES];
    int used = 0;
    for (int i = 0; i < n; ++i) used += lanes[i] = len[i] > 0;
    for (; used < LANES; ++used) {
        int best = -1;
        int64_t fill = 0;
        for (int i = 0; i < n; ++i) {
            int64_t f = lanes[i] ? (len[i] + lanes[i] - 1) / lanes[i] : 0;
            if (f > fill) { fill = f; best = i; }
        }
        if (best < 0) break;
        ++lanes[best];
    }
    int64_t c = 0;
    for (int i = 0; i < n; ++i) {
        int64_t f = lanes[i] ? (len[i] + lanes[i] - 1) / lanes[i] : 0;
        if (f > c) c = f;
    }
    return c;
}

static void test_chunk_matches_greedy(void)
{
    uint64_t rng = 7;
    for (int t = 0; t < 2000; ++t) {
        int n = 1 + (int)(cmrs_rng_uniform(&rng) * LANES);
        int64_t len[LANES];
        int64_t scale = t % 3 == 0 ? 200 : 6;
        for (int i = 0; i < n; ++i)
            len[i] = (int64_t)(cmrs_rng_uniform(&rng) * (double)scale);
        int64_t want = greedy_chunk(len, n), got = cmrs_argcsr_chunk_size(len, n);
        CHECK(got == want, "case %d: chunk %lld, greedy %lld", t,
              (long long)got, (long long)want);
        if (got != want) return;
    }
}

/* Host emulation of argcsr_kernel: lane sums, then row sums over lanes. */
static void emulate(const cmrs_argcsr *m, const double *x, double *y)
{
    for (int64_t gi = 0; gi < m->n_groups; ++gi) {
        const cmrs_argcsr_group *g = &m->groups[gi];
        double part[LANES];
        for (int l = 0; l < LANES; ++l) {
            part[l] = 0.0;
            for (int64_t i = 0, k = g->offset + l; i < g->chunk; ++i, k += LANES) {
                if (m->cols[k] < 0) break;
                part[l] += m->vals[k] * x[m->cols[k]];
            }
        }
        for (int r = 0; r < g->size; ++r) {
            int begin = r ? m->row_end[g->first_row + r - 1] : 0;
            double s = 0.0;
            for (int i = begin; i < m->row_end[g->first_row + r]; ++i) s += part[i];
            y[g->first_row + r] = s;
        }
    }
}

/* Groups tile the rows, offsets are the prefix of 32*chunk, the padding of
 * each chunk is at its end, and the stored nonzeros are exactly A's. */
static void check_layout(const cmrs_csr *A, const cmrs_argcsr *m,
                         const char *name)
{
    int64_t next_row = 0, offset = 0, real = 0, bad = 0;
    for (int64_t gi = 0; gi < m->n_groups; ++gi) {
        const cmrs_argcsr_group *g = &m->groups[gi];
        bad += g->first_row != next_row || g->size < 1 || g->size > LANES ||
               g->offset != offset || g->chunk < 0;
        next_row += g->size;
        offset += (int64_t)LANES * g->chunk;
        for (int l = 0; l < LANES; ++l) {
            int padded = 0;
            for (int64_t i = 0; i < g->chunk; ++i) {
                int64_t k = g->offset + l + i * LANES;
                if (m->cols[k] < 0) { padded = 1; bad += m->vals[k] != 0.0; }
                else { bad += padded; ++real; }
            }
        }
    }
    CHECK(bad == 0 && next_row == A->rows && offset == m->stored &&
              real == A->nnz,
          "%s: layout broken (%lld bad, rows %lld/%lld, stored %lld/%lld, "
          "nnz %lld/%lld)", name, (long long)bad, (long long)next_row,
          (long long)A->rows, (long long)offset, (long long)m->stored,
          (long long)real, (long long)A->nnz);
}

static void check_product(const cmrs_csr *A, const cmrs_argcsr *m,
                          const char *name)
{
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y = cmrs_malloc_array((size_t)A->rows, sizeof *y);
    double *y_ref = cmrs_malloc_array((size_t)A->rows, sizeof *y_ref);
    CHECK(x && y && y_ref, "out of memory");
    if (x && y && y_ref) {
        for (int64_t j = 0; j < A->cols; ++j) x[j] = 1.0 + 0.01 * (double)(j % 97);
        for (int64_t i = 0; i < A->rows; ++i) y[i] = NAN;
        emulate(m, x, y);
        cmrs_ref_spmv(A, 1.0, x, 0.0, y_ref);
        double err = cmrs_ref_rel_err(A->rows, y, y_ref);
        CHECK(err < 1e-13, "%s: emulated product rel err %g", name, err);
    }
    free(x);
    free(y);
    free(y_ref);
}

/* Setup converts A's index pattern: the same layout, and its values are
 * the permutation that gathers m's values exactly. */
static void check_permutation(const cmrs_csr *A, const cmrs_argcsr *m,
                              int desired, const char *name)
{
    cmrs_csr idx;
    cmrs_argcsr p;
    CHECK_OK(cmrs_csr_index_pattern(A, &idx));
    CHECK_OK(cmrs_argcsr_build(&idx, desired, &p));
    int same = p.n_groups == m->n_groups && p.stored == m->stored &&
               !memcmp(p.groups, m->groups,
                       (size_t)m->n_groups * sizeof *p.groups) &&
               !memcmp(p.row_end, m->row_end, (size_t)m->rows) &&
               !memcmp(p.cols, m->cols, (size_t)m->stored * sizeof *p.cols);
    check_pattern_perm(A, same, p.vals, m->vals, m->stored, name);
    cmrs_argcsr_free(&p);
    free(idx.values);
}

static void test_random_specs(void)
{
    for (int s = 0; s < N_TEST_SPECS; ++s) {
        const test_spec *spec = &k_test_specs[s];
        cmrs_csr A;
        cmrs_argcsr m;
        CHECK_OK(test_random_csr(spec, 1234 + (uint64_t)s, &A));
        CHECK_OK(cmrs_argcsr_build(&A, CMRS_ARGCSR_DESIRED_CHUNK, &m));
        check_layout(&A, &m, spec->name);
        check_product(&A, &m, spec->name);
        check_permutation(&A, &m, CMRS_ARGCSR_DESIRED_CHUNK, spec->name);
        /* Empty rows own no lane, so even the long row pads < 2x + 32 per
         * group: no test matrix is refused. */
        CHECK(m.stored <= 2 * A.nnz + 32 * (A.rows > 0),
              "%s: stored %lld for nnz %lld", spec->name, (long long)m.stored,
              (long long)A.nnz);
        CHECK_OK(cmrs_check_padding("argcsr", m.stored, A.nnz, A.rows));
        cmrs_argcsr_free(&m);
        cmrs_csr_free(&A);
    }
}

/* A from per-row lengths; row i's entries in columns 0..len-1, value i+1. */
static void make_rows(cmrs_csr *A, const int64_t *len, int64_t rows,
                      int64_t cols)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows; ++i) nnz += len[i];
    CHECK_OK(cmrs_csr_alloc(A, rows, cols, nnz));
    for (int64_t i = 0; i < rows; ++i) {
        A->indptr[i + 1] = A->indptr[i] + len[i];
        for (int64_t e = 0; e < len[i]; ++e) {
            A->indices[A->indptr[i] + e] = (int32_t)e;
            A->values[A->indptr[i] + e] = (double)(i + 1);
        }
    }
}

/* Paper 002's figure: short rows and one full row share a group; the full
 * row gets the spare lanes, so the chunk size is 1 (no padding per lane). */
static void test_paper_example(void)
{
    int64_t len[8] = {1, 1, 1, 1, 1, 1, 1, 8};
    cmrs_csr A;
    cmrs_argcsr m;
    make_rows(&A, len, 8, 8);
    CHECK_OK(cmrs_argcsr_build(&A, 1, &m));
    CHECK(m.n_groups == 1 && m.groups[0].size == 8 && m.groups[0].chunk == 1 &&
              m.stored == 32, "groups %lld chunk %d stored %lld",
          (long long)m.n_groups, m.n_groups ? m.groups[0].chunk : -1,
          (long long)m.stored);
    CHECK(m.row_end[0] == 1 && m.row_end[6] == 7 && m.row_end[7] == 15,
          "row_end %d %d %d", m.row_end[0], m.row_end[6], m.row_end[7]);
    CHECK(m.cols[7] == 0 && m.cols[14] == 7 && m.vals[14] == 8.0 &&
              m.cols[15] == -1, "row 7 lanes: %d %d %d", m.cols[7],
          m.cols[14], m.cols[15]);
    check_product(&A, &m, "paper example");
    cmrs_argcsr_free(&m);
    cmrs_csr_free(&A);
}

/* A row longer than 32 sits alone and gets ceil(len/32) per lane. */
static void test_long_row_alone(void)
{
    int64_t len[3] = {3, 100, 3};
    cmrs_csr A;
    cmrs_argcsr m;
    make_rows(&A, len, 3, 100);
    CHECK_OK(cmrs_argcsr_build(&A, 1, &m));
    CHECK(m.n_groups == 3 && m.groups[1].first_row == 1 &&
              m.groups[1].size == 1 && m.groups[1].chunk == 4 &&
              m.groups[1].offset == 32 && m.groups[2].offset == 160 &&
              m.stored == 192 && m.row_end[1] == 25,
          "groups %lld, long row chunk %d, stored %lld, lanes %d",
          (long long)m.n_groups, m.n_groups > 1 ? m.groups[1].chunk : -1,
          (long long)m.stored, m.row_end[1]);
    check_layout(&A, &m, "long row");
    check_product(&A, &m, "long row");
    check_permutation(&A, &m, 1, "long row");
    cmrs_argcsr_free(&m);
    /* A larger desired chunk lets the short rows share the long row's
     * group: lanes 0 and 26 take them, chunk 4 still fits. */
    CHECK_OK(cmrs_argcsr_build(&A, 4, &m));
    CHECK(m.n_groups == 1 && m.groups[0].chunk == 4 && m.stored == 128 &&
              m.row_end[0] == 1 && m.row_end[1] == 26 && m.row_end[2] == 27,
          "desired 4: groups %lld chunk %d", (long long)m.n_groups,
          m.n_groups ? m.groups[0].chunk : -1);
    check_product(&A, &m, "desired 4");
    check_permutation(&A, &m, 4, "desired 4");
    cmrs_argcsr_free(&m);
    cmrs_csr_free(&A);
}

/* At most 32 rows per group (one lane writes each row's result). */
static void test_row_limit_and_empty(void)
{
    int64_t len[40];
    cmrs_csr A;
    cmrs_argcsr m;
    for (int i = 0; i < 40; ++i) len[i] = i % 2;
    make_rows(&A, len, 40, 1);
    CHECK_OK(cmrs_argcsr_build(&A, 1, &m));
    CHECK(m.n_groups == 2 && m.groups[0].size == 32 && m.groups[1].size == 8 &&
              m.stored == 64 && m.row_end[0] == 0 && m.row_end[1] == 1,
          "groups %lld stored %lld", (long long)m.n_groups, (long long)m.stored);
    check_product(&A, &m, "row limit");
    cmrs_argcsr_free(&m);
    cmrs_csr_free(&A);
    for (int i = 0; i < 40; ++i) len[i] = 0;
    make_rows(&A, len, 40, 5);
    CHECK_OK(cmrs_argcsr_build(&A, 1, &m));
    CHECK(m.n_groups == 2 && m.stored == 0, "all empty: stored %lld",
          (long long)m.stored);
    check_product(&A, &m, "all empty");
    cmrs_argcsr_free(&m);
    cmrs_csr_free(&A);
}

/* 31 empty rows then one entry, repeated: 32 stored per nonzero. */
static void test_padding_refused(void)
{
    enum { ROWS = 3200 };
    static int64_t len[ROWS];
    cmrs_csr A;
    cmrs_argcsr m;
    for (int i = 0; i < ROWS; ++i) len[i] = i % 32 == 31;
    make_rows(&A, len, ROWS, 1);
    CHECK_OK(cmrs_argcsr_build(&A, 1, &m));
    CHECK(m.stored == 32 * 100, "stored %lld", (long long)m.stored);
    CHECK_FAILS(cmrs_check_padding("argcsr", m.stored, A.nnz, A.rows),
                CMRS_E_LIMIT, "argcsr: padding");
    cmrs_argcsr_free(&m);
    cmrs_csr_free(&A);
}

static void test_bad_input(void)
{
    int64_t len[1] = {1};
    cmrs_csr A;
    cmrs_argcsr m;
    make_rows(&A, len, 1, 1);
    CHECK_FAILS(cmrs_argcsr_build(&A, 0, &m), CMRS_E_USAGE, "desired chunk");
    CHECK(m.groups == NULL && m.cols == NULL, "failed build left memory");
    cmrs_argcsr_free(&m);
    cmrs_argcsr_free(NULL);
    cmrs_csr_free(&A);
}

int main(void)
{
    test_chunk_matches_greedy();
    test_paper_example();
    test_long_row_alone();
    test_row_limit_and_empty();
    test_padding_refused();
    test_bad_input();
    test_random_specs();
    return check_summary();
}
