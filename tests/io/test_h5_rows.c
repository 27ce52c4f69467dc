/* cmrs_h5_read_rows: every block of rows read from a file equals the same
 * rows of the whole-file read (cmrs_system_read), for matrices with uneven
 * rows, empty rows, one long row and n = 1, in the native layout with 32-
 * and 64-bit indices (contiguous and chunked, vectors 1-D and 2-D) and the
 * anndata / h5sparse CSR spellings, for 1, 2, 3 and 7 parts; the blocks
 * tile 0..n as the block partition of the whole matrix cuts it. Refusals:
 * bad part/nparts (usage), CSC and MATLAB layouts, corrupt blocks, memory
 * checked for the block and not the whole matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "check.h"
#include "h5_make.h"
#include "io/h5_rows.h"
#include "io/system.h"
#include "tdir.h"

/* A test matrix in CSR (64-bit arrays, as the writers take them) with b
 * and x0. */
typedef struct tmat {
    int64_t n, nnz;
    int64_t *ptr, *idx;
    double *val, *b, *x0;
} tmat;

static void tm_free(tmat *m)
{
    free(m->ptr), free(m->idx), free(m->val), free(m->b), free(m->x0);
    memset(m, 0, sizeof *m);
}

/* Room for n rows and nnz entries; b and x0 filled with distinct values. */
static void tm_alloc(tmat *m, int64_t n, int64_t nnz)
{
    m->n = n;
    m->nnz = nnz;
    m->ptr = calloc((size_t)n + 1, sizeof *m->ptr);
    m->idx = calloc((size_t)nnz + 1, sizeof *m->idx);
    m->val = calloc((size_t)nnz + 1, sizeof *m->val);
    m->b = calloc((size_t)n, sizeof *m->b);
    m->x0 = calloc((size_t)n, sizeof *m->x0);
    for (int64_t i = 0; i < n; ++i) {
        m->b[i] = 0.5 * (double)i - 3.25;
        m->x0[i] = 1.0 / (double)(i + 2);
    }
}

/* The CSR of the n x n dense array d (0: no entry). */
static void tm_from_dense(tmat *m, const double *d, int64_t n)
{
    int64_t nnz = 0;
    for (int64_t k = 0; k < n * n; ++k) nnz += d[k] != 0;
    tm_alloc(m, n, nnz);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j)
            if (d[i * n + j] != 0) {
                m->idx[k] = j;
                m->val[k++] = d[i * n + j];
            }
        m->ptr[i + 1] = k;
    }
}

/* A distinct nonzero value for entry (i, j). */
static double value_of(int64_t i, int64_t j)
{
    return (double)(i + 1) + (double)(j + 1) / 128.0;
}

/* 5-point Laplacian of a 6 x 5 grid (boundary rows shorter), plus a far
 * coupling in every third row: rows of 3 to 6 entries. */
static void tm_laplacian(tmat *m)
{
    const int64_t nx = 6, ny = 5, n = nx * ny;
    double *d = calloc((size_t)(n * n), sizeof *d);
    for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x) {
            int64_t i = y * nx + x;
            d[i * n + i] = 4 + value_of(i, i);
            if (x > 0) d[i * n + i - 1] = -value_of(i, i - 1);
            if (x < nx - 1) d[i * n + i + 1] = -value_of(i, i + 1);
            if (y > 0) d[i * n + i - nx] = -value_of(i, i - nx);
            if (y < ny - 1) d[i * n + i + nx] = -value_of(i, i + nx);
            if (i % 3 == 0) d[i * n + (i * 7 + 11) % n] = 0.25;
        }
    tm_from_dense(m, d, n);
    free(d);
}

/* 12 rows, 0, 3, 4 and 11 of them empty. */
static void tm_empty_rows(tmat *m)
{
    const int64_t n = 12;
    double d[12 * 12] = {0};
    for (int64_t i = 0; i < n; ++i) {
        if (i == 0 || i == 3 || i == 4 || i == 11) continue;
        d[i * n + i] = value_of(i, i);
        d[i * n + (i + 5) % n] = -value_of(i, (i + 5) % n);
    }
    tm_from_dense(m, d, n);
}

/* 20 rows: row 7 full, the others their diagonal alone. */
static void tm_long_row(tmat *m)
{
    const int64_t n = 20;
    double d[20 * 20] = {0};
    for (int64_t i = 0; i < n; ++i) d[i * n + i] = value_of(i, i);
    for (int64_t j = 0; j < n; ++j) d[7 * n + j] = value_of(7, j);
    tm_from_dense(m, d, n);
}

static void tm_one(tmat *m)
{
    double d[1] = {2.5};
    tm_from_dense(m, d, 1);
}

/* How a file spells the matrix. */
typedef struct spelling {
    const char *name;
    int tag;      /* 0 native ("shape"), 1 anndata, 2 h5sparse */
    int idx64;    /* indices (and indptr) as int64, else int32 */
    int chunked;  /* chunked, deflated datasets (chunks of 3 entries) */
    int vec2d;    /* b as 1 x n, x0 as n x 1 (as MATLAB stores vectors) */
    int with_x0;
} spelling;

static const spelling k_spellings[] = {
    {"native32", 0, 0, 0, 0, 1}, {"native64", 0, 1, 0, 0, 0},
    {"chunked64", 0, 1, 1, 1, 1}, {"anndata", 1, 0, 0, 0, 1},
    {"h5sparse", 2, 1, 0, 0, 0}};

/* A 1-D dataset of n >= 1 elements in chunks of 3, deflated. */
static int write_chunked(hid_t f, const char *name, hid_t file_type,
                         hid_t mem_type, const void *data, hsize_t n)
{
    hid_t space;
    hid_t d = h5m_create_chunked(f, name, file_type, n, 3, 1, &space);
    int ok = d >= 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                data) >= 0;
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    return ok ? 0 : -1;
}

static int write_array(hid_t f, const spelling *sp, const char *name,
                       hid_t file_type, hid_t mem_type, const void *data,
                       hsize_t n)
{
    if (sp->chunked)
        return write_chunked(f, name, file_type, mem_type, data, n);
    return h5m_write(f, name, file_type, mem_type, data, n);
}

static int write_vectors(hid_t f, const spelling *sp, const tmat *m)
{
    hsize_t row[2] = {1, (hsize_t)m->n}, col[2] = {(hsize_t)m->n, 1};
    if (sp->vec2d)
        return h5m_write_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->b,
                            2, row) |
               h5m_write_nd(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                            m->x0, 2, col);
    int rc = h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->b,
                       (hsize_t)m->n);
    if (sp->with_x0)
        rc |= h5m_write(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->x0,
                        (hsize_t)m->n);
    return rc;
}

/* The layout attributes of group /A. */
static int write_tags(hid_t f, const spelling *sp, const int64_t *shape,
                      int csc)
{
    if (sp->tag == 1)
        return h5m_attr_str(f, "/A", "encoding-type",
                            csc ? "csc_matrix" : "csr_matrix", 1) |
               h5m_attr_str(f, "/A", "encoding-version", "0.1.0", 1) |
               h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    if (sp->tag == 2)
        return h5m_attr_str(f, "/A", "h5sparse_format", csc ? "csc" : "csr",
                            0) |
               h5m_attr_ints(f, "/A", "h5sparse_shape", H5T_STD_I64LE,
                             shape, 2);
    return h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
}

/* m written to path in spelling sp (csc: the tag says CSC, as the arrays of
 * a symmetric matrix would be the same). 0 or -1. */
static int write_matrix(const char *path, const tmat *m, const spelling *sp,
                        int csc)
{
    hid_t f = h5m_create(path, 0);
    if (f < 0) return -1;
    hid_t itype = sp->idx64 ? H5T_STD_I64LE : H5T_STD_I32LE;
    int64_t shape[2] = {m->n, m->n};
    int rc = write_array(f, sp, "/A/indptr", itype, H5T_NATIVE_INT64, m->ptr,
                         (hsize_t)m->n + 1);
    rc |= write_array(f, sp, "/A/indices", itype, H5T_NATIVE_INT64, m->idx,
                      (hsize_t)m->nnz);
    rc |= write_array(f, sp, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                      m->val, (hsize_t)m->nnz);
    rc |= write_tags(f, sp, shape, csc);
    rc |= write_vectors(f, sp, m);
    return h5m_close(f, rc);
}

/* Rows [row0, row0 + len) of vector w (the whole read's) equal v. */
static int same_rows(const double *v, const double *w, int64_t row0,
                     int64_t len)
{
    if (!v || !w) return v == w;
    return memcmp(v, w + row0, (size_t)len * sizeof *v) == 0;
}

/* Block B (rows from row0) equals those rows of the whole matrix W. */
static int same_block(const cmrs_csr *B, const cmrs_csr *W, int64_t row0)
{
    if (B->cols != W->cols || row0 + B->rows > W->rows || B->indptr[0] != 0)
        return 0;
    int64_t k0 = W->indptr[row0];
    for (int64_t i = 0; i <= B->rows; ++i)
        if (B->indptr[i] != W->indptr[row0 + i] - k0) return 0;
    if (B->nnz != B->indptr[B->rows]) return 0;
    for (int64_t k = 0; k < B->nnz; ++k)
        if (B->indices[k] != W->indices[k0 + k] ||
            B->values[k] != W->values[k0 + k])
            return 0;
    return 1;
}

/* Every block of `nparts` read from path equals its rows of the whole read
 * W, and the blocks are the block partition's of W, tiling 0..n. */
static void check_parts_of(const char *path, const cmrs_system *W, int nparts,
                           const char *what)
{
    int64_t start[8], next = 0;
    cmrs_csr_row_blocks(W->A.indptr, W->A.rows, NULL, nparts, start);
    for (int p = 0; p < nparts; ++p) {
        cmrs_system s;
        int64_t row0 = -1, n = -1, nnz = -1;
        cmrs_code rc = cmrs_h5_read_rows(path, NULL, p, nparts, &s, &row0, &n,
                                         &nnz);
        CHECK(rc == CMRS_OK, "%s: part %d/%d: %s", what, p, nparts,
              cmrs_error_message());
        if (rc != CMRS_OK) return;
        CHECK(row0 == next && row0 == start[p] &&
                  s.A.rows == start[p + 1] - start[p],
              "%s: part %d/%d is rows %lld + %lld, expected %lld + %lld",
              what, p, nparts, (long long)row0, (long long)s.A.rows,
              (long long)start[p], (long long)(start[p + 1] - start[p]));
        CHECK(n == W->A.rows && nnz == W->A.nnz, "%s: part %d/%d: n %lld, "
              "nnz %lld", what, p, nparts, (long long)n, (long long)nnz);
        CHECK(same_block(&s.A, &W->A, row0), "%s: part %d/%d: the block "
              "differs from the whole read's rows", what, p, nparts);
        CHECK(same_rows(s.b, W->b, row0, s.A.rows) &&
                  same_rows(s.x0, W->x0, row0, s.A.rows),
              "%s: part %d/%d: b or x0 rows differ", what, p, nparts);
        CHECK(strcmp(s.layout, W->layout) == 0, "%s: layout %s, whole %s",
              what, s.layout, W->layout);
        next = row0 + s.A.rows;
        cmrs_system_free(&s);
    }
    CHECK(next == W->A.rows, "%s: %d parts end at row %lld of %lld", what,
          nparts, (long long)next, (long long)W->A.rows);
}

/* m in every spelling: readable, and every block of 1, 2, 3, 7 parts right. */
static void check_matrix(const tmat *m, const char *name)
{
    static const int k_nparts[] = {1, 2, 3, 7};
    for (size_t k = 0; k < sizeof k_spellings / sizeof *k_spellings; ++k) {
        const spelling *sp = &k_spellings[k];
        char what[128];
        snprintf(what, sizeof what, "%s_%s.h5", name, sp->name);
        const char *path = path_of(what);
        CHECK(write_matrix(path, m, sp, 0) == 0, "write %s", what);
        CHECK(cmrs_h5_rows_readable(path, NULL) == 1, "%s: not readable "
              "by rows", what);
        cmrs_system W;
        CHECK_OK(cmrs_system_read(path, NULL, &W));
        int want_x0 = sp->with_x0 || sp->vec2d;
        CHECK(W.A.rows == m->n && W.A.nnz == m->nnz &&
                  same_rows(W.b, m->b, 0, m->n) &&
                  (want_x0 ? same_rows(W.x0, m->x0, 0, m->n) : !W.x0),
              "%s: the whole read is not the system written", what);
        for (size_t j = 0; j < 4; ++j)
            if (k_nparts[j] <= m->n)
                check_parts_of(path, &W, k_nparts[j], what);
        cmrs_system_free(&W);
    }
}

static void test_blocks_equal_whole_rows(void)
{
    void (*make[])(tmat *) = {tm_laplacian, tm_empty_rows, tm_long_row,
                              tm_one};
    const char *names[] = {"laplacian", "empty_rows", "long_row", "one"};
    for (int i = 0; i < 4; ++i) {
        tmat m = {0};
        make[i](&m);
        check_matrix(&m, names[i]);
        tm_free(&m);
    }
}

/* Reading `path` by rows must fail with code and a message holding want,
 * leaving everything empty. */
static void expect_rows_fail(const char *path, const cmrs_read_opts *o,
                             int part, int nparts, cmrs_code code,
                             const char *want)
{
    cmrs_system s;
    int64_t row0 = -1, n = -1, nnz = -1;
    memset(&s, 0x5a, sizeof s); /* poison: the reader must zero it */
    CHECK_FAILS(cmrs_h5_read_rows(path, o, part, nparts, &s, &row0, &n, &nnz),
                code, want);
    CHECK(!strchr(cmrs_error_message(), '\n'), "message on several lines");
    CHECK(!s.A.indptr && !s.A.indices && !s.A.values && !s.b && !s.x0 &&
              row0 == 0 && n == 0 && nnz == 0,
          "part %d/%d: outputs not emptied after failure", part, nparts);
}

static void test_bad_parts(void)
{
    tmat m = {0};
    tm_empty_rows(&m);
    const char *path = path_of("parts.h5");
    CHECK(write_matrix(path, &m, &k_spellings[0], 0) == 0, "write parts.h5");
    expect_rows_fail(path, NULL, -1, 2, CMRS_E_USAGE, "part -1 of 2");
    expect_rows_fail(path, NULL, 2, 2, CMRS_E_USAGE, "part 2 of 2");
    expect_rows_fail(path, NULL, 0, 0, CMRS_E_USAGE, "0 parts");
    expect_rows_fail(path, NULL, 0, 13, CMRS_E_USAGE, "13 parts for the 12 "
                     "rows");
    cmrs_system s;
    int64_t row0, n, nnz;
    CHECK_OK(cmrs_h5_read_rows(path, NULL, 11, 12, &s, &row0, &n, &nnz));
    CHECK(row0 == 11 && s.A.rows == 1, "12 parts of 12 rows: the last is "
          "row %lld + %lld", (long long)row0, (long long)s.A.rows);
    cmrs_system_free(&s);
    tm_free(&m);
}

/* CSC spellings and MATLAB: not readable by rows, refused by the reader. */
static void test_csc_refused(void)
{
    tmat m = {0};
    tm_laplacian(&m);
    const spelling *tagged[] = {&k_spellings[3], &k_spellings[4]};
    for (int i = 0; i < 2; ++i) {
        const char *path = path_of(i ? "csc_h5sparse.h5" : "csc_anndata.h5");
        CHECK(write_matrix(path, &m, tagged[i], 1) == 0, "write %s", path);
        CHECK(cmrs_h5_rows_readable(path, NULL) == 0, "%s: CSC said "
              "readable by rows", path);
        CHECK(cmrs_error_code() == CMRS_OK, "readable left an error");
        expect_rows_fail(path, NULL, 0, 2, CMRS_E_INPUT, "per-rank reading "
                         "needs a CSR layout");
    }
    CHECK(h5m_matlab(path_of("matlab.mat")) == 0, "write matlab.mat");
    CHECK(cmrs_h5_rows_readable(path_of("matlab.mat"), NULL) == 0,
          "MATLAB said readable by rows");
    expect_rows_fail(path_of("matlab.mat"), NULL, 0, 2, CMRS_E_INPUT,
                     "per-rank reading needs a CSR layout");
    /* Not HDF5, absent, no such group: 0 too (the whole read says why). */
    FILE *fp = fopen(path_of("a.mtx"), "w");
    CHECK(fp, "write a.mtx");
    if (fp) {
        fputs("%%MatrixMarket matrix coordinate real general\n1 1 1\n"
              "1 1 2\n", fp);
        fclose(fp);
    }
    cmrs_read_opts other = {.matrix = "M"};
    CHECK(cmrs_h5_rows_readable(path_of("a.mtx"), NULL) == 0 &&
              cmrs_h5_rows_readable(path_of("absent.h5"), NULL) == 0 &&
              cmrs_h5_rows_readable(path_of("csc_anndata.h5"), &other) == 0,
          "a file without an HDF5 CSR matrix said readable by rows");
    expect_rows_fail(path_of("a.mtx"), NULL, 0, 1, CMRS_E_INPUT, "not an "
                     "HDF5 file");
    tm_free(&m);
}

/* m (as a test spoiled it) written natively with 64-bit indices. */
static const char *write_spoiled(const char *file, tmat *m)
{
    const char *path = path_of(file);
    CHECK(write_matrix(path, m, &k_spellings[1], 0) == 0, "write %s", file);
    return path;
}

/* A column index out of range in row 20 of 30 (3 parts: rows 20.. are the
 * last block): only the block holding it is refused. */
static void test_corrupt_index(void)
{
    tmat m = {0};
    tm_laplacian(&m);
    int64_t k = m.ptr[20] + 1;
    m.idx[k] = m.n;
    const char *path = write_spoiled("bad_index.h5", &m);
    char want[96];
    snprintf(want, sizeof want, "/A/indices[%lld] is 30, outside [0, 30) "
             "(row 20)", (long long)k);
    int64_t start[4];
    cmrs_csr_row_blocks(m.ptr, m.n, NULL, 3, start);
    int holder = 20 >= start[2] ? 2 : 20 >= start[1] ? 1 : 0;
    expect_rows_fail(path, NULL, holder, 3, CMRS_E_INPUT, want);
    cmrs_system s;
    int64_t row0, n, nnz;
    CHECK_OK(cmrs_h5_read_rows(path, NULL, holder == 0 ? 1 : 0, 3, &s, &row0,
                               &n, &nnz));
    cmrs_system_free(&s);
    tm_free(&m);
}

static void test_corrupt_pointers_and_values(void)
{
    tmat m = {0};
    tm_laplacian(&m);
    int64_t saved = m.ptr[5];
    m.ptr[5] = m.ptr[4] - 1; /* decreases from row 4 to row 5 */
    const char *path = write_spoiled("bad_ptr.h5", &m);
    for (int p = 0; p < 3; ++p)
        expect_rows_fail(path, NULL, p, 3, CMRS_E_INPUT, "/A/indptr "
                         "decreases at 4");
    m.ptr[5] = saved;

    m.val[m.ptr[29]] = NAN; /* last row: the last block alone */
    path = write_spoiled("bad_value.h5", &m);
    expect_rows_fail(path, NULL, 2, 3, CMRS_E_INPUT, "not finite");
    cmrs_system s;
    int64_t row0, n, nnz;
    CHECK_OK(cmrs_h5_read_rows(path, NULL, 0, 3, &s, &row0, &n, &nnz));
    cmrs_system_free(&s);
    m.val[m.ptr[29]] = 1;

    m.b[28] = INFINITY;
    path = write_spoiled("bad_b.h5", &m);
    expect_rows_fail(path, NULL, 2, 3, CMRS_E_INPUT, "/b[28] is inf");
    m.b[28] = 0;

    m.idx[3] = (int64_t)1 << 33; /* no int32 */
    path = write_spoiled("bad_wide.h5", &m);
    expect_rows_fail(path, NULL, 0, 3, CMRS_E_INPUT, "outside the range of "
                     "32-bit integers");
    tm_free(&m);
}

/* Integer values, one with no exact double in the last block: refused,
 * naming the file's entry (a range read re-reads it from the file). */
static void test_inexact_value(void)
{
    tmat m = {0};
    tm_laplacian(&m);
    const char *path = write_spoiled("inexact.h5", &m);
    int64_t *ints = malloc((size_t)m.nnz * sizeof *ints), k = m.ptr[29];
    for (int64_t j = 0; j < m.nnz; ++j) ints[j] = j + 1;
    ints[k] = ((int64_t)1 << 53) + 1;
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/A/data", H5P_DEFAULT);
    CHECK(h5m_write(f, "/A/data", H5T_STD_I64LE, H5T_NATIVE_INT64, ints,
                    (hsize_t)m.nnz) == 0, "rewrite /A/data");
    H5Fclose(f);
    char want[96];
    snprintf(want, sizeof want, "/A/data[%lld] = 9007199254740993 has no "
             "exact double", (long long)k);
    expect_rows_fail(path, NULL, 2, 3, CMRS_E_INPUT, want);
    cmrs_system s;
    int64_t row0, n, nnz;
    CHECK_OK(cmrs_h5_read_rows(path, NULL, 0, 3, &s, &row0, &n, &nnz));
    CHECK(s.A.nnz > 0 && s.A.values[s.A.nnz - 1] == (double)s.A.nnz,
          "integer values of part 0 read wrong");
    cmrs_system_free(&s);
    free(ints);
    tm_free(&m);
}

/* Unsorted rows with a duplicate: sorted and summed as the whole read does;
 * nnz_global is the file's entries. */
static void test_unsorted(void)
{
    tmat m = {0};
    tm_alloc(&m, 3, 5);
    int64_t ptr[] = {0, 1, 4, 5}, idx[] = {0, 2, 0, 2, 2};
    double val[] = {1, 2, 3, 4, 5};
    memcpy(m.ptr, ptr, sizeof ptr);
    memcpy(m.idx, idx, sizeof idx);
    memcpy(m.val, val, sizeof val);
    const char *path = write_spoiled("unsorted.h5", &m);
    cmrs_system s;
    int64_t row0, n, nnz;
    /* Part 1 of 2 is rows 1 and 2 (row 1's middle reaches half of 5). */
    CHECK_OK(cmrs_h5_read_rows(path, NULL, 1, 2, &s, &row0, &n, &nnz));
    CHECK(row0 == 1 && s.A.rows == 2 && s.A.nnz == 3 && nnz == 5 &&
              s.A.indptr[1] == 2 && s.A.indptr[2] == 3 &&
              s.A.indices[0] == 0 && s.A.values[0] == 3 &&
              s.A.indices[1] == 2 && s.A.values[1] == 6 &&
              s.A.indices[2] == 2 && s.A.values[2] == 5,
          "unsorted row 1 not sorted and summed");
    cmrs_system_free(&s);
    tm_free(&m);
}

/* A tridiagonal n = 4000 with b: the whole matrix needs about 200 kB, a
 * block of 8 about 50 kB (its arrays and the whole indptr). */
static void test_memory_of_the_block(void)
{
    tmat m = {0};
    const int64_t n = 4000;
    tm_alloc(&m, n, 3 * n - 2);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j)
            if (j >= 0 && j < n) m.idx[k] = j, m.val[k++] = value_of(i, j);
        m.ptr[i + 1] = k;
    }
    const char *path = write_spoiled("big.h5", &m);
    cmrs_system s;
    int64_t row0, nn, nnz;
    cmrs_set_memory_limit(100e3);
    CHECK_FAILS(cmrs_system_read(path, NULL, &s), CMRS_E_NOMEM, NULL);
    CHECK_OK(cmrs_h5_read_rows(path, NULL, 3, 8, &s, &row0, &nn, &nnz));
    cmrs_system_free(&s);
    cmrs_set_memory_limit(20e3); /* the pointers alone need 32 kB */
    expect_rows_fail(path, NULL, 3, 8, CMRS_E_NOMEM, "/A/indptr");
    cmrs_set_memory_limit(0);
    tm_free(&m);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return TDIR_MAIN("h5_rows", test_blocks_equal_whole_rows, test_bad_parts,
                     test_csc_refused, test_corrupt_index,
                     test_corrupt_pointers_and_values, test_inexact_value,
                     test_unsorted, test_memory_of_the_block);
}
