/* Matrix Market corner cases, from memory buffers (the parser the fuzz
 * target drives) and from files (plain, gzip, lines across read blocks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CMRS_HAVE_ZLIB
#include <zlib.h>
#endif

#include "cases/cases.h"
#include "check.h"
#include "tdir.h"
#include "io/mm_src.h"
#include "io/readers.h"
#include "io/system.h"
#include "base/timer.h"

#define BANNER "%%MatrixMarket matrix coordinate "

static cmrs_code parse(const char *text, cmrs_csr *A)
{
    return cmrs_mm_parse_matrix(text, strlen(text), "t.mtx", A);
}

/* A (dense view, row-major, rows x cols) must equal want exactly. */
static void check_dense(const cmrs_csr *A, int64_t rows, int64_t cols,
                        const double *want, const char *what)
{
    CHECK(A->rows == rows && A->cols == cols, "%s: %lld x %lld", what,
          (long long)A->rows, (long long)A->cols);
    if (A->rows != rows || A->cols != cols) return;
    CHECK_OK(cmrs_csr_validate(A, what));
    double *dense = calloc((size_t)(rows * cols) + 1, sizeof(double));
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            dense[i * cols + A->indices[k]] = A->values[k];
    CHECK(memcmp(dense, want, (size_t)(rows * cols) * sizeof(double)) == 0,
          "%s: values differ", what);
    free(dense);
}

static void expect_matrix(const char *text, int64_t rows, int64_t cols,
                          int64_t nnz, const double *want, const char *what)
{
    cmrs_csr A;
    CHECK_OK(parse(text, &A));
    CHECK(A.nnz == nnz, "%s: nnz %lld, expected %lld", what, (long long)A.nnz,
          (long long)nnz);
    check_dense(&A, rows, cols, want, what);
    cmrs_csr_free(&A);
}

static void expect_fail(const char *text, cmrs_code code, const char *want)
{
    cmrs_csr A;
    memset(&A, 0x5a, sizeof A);
    CHECK_FAILS(parse(text, &A), code, want);
    CHECK(strncmp(cmrs_error_message(), "t.mtx", 5) == 0, "message '%s' does "
          "not start with the file name", cmrs_error_message());
    CHECK(!A.indptr && !A.indices && !A.values, "A not emptied");
}

static void test_general(void)
{
    /* Unsorted entries, a duplicate (summed), comments, blank lines, CRLF,
     * tabs, exponent notation, mixed-case banner. */
    const char *text = "%%MatrixMarket MATRIX Coordinate Real General\r\n"
                       "% a comment\n\n%another\n"
                       "  3 3 6\r\n"
                       "3 1 -2.5e0\n1 1 4\n\n2\t2 5\n1 3 1\n3 3 6\r\n"
                       "1 1 0.5\n% trailing comment\n\n";
    double want[] = {4.5, 0, 1, 0, 5, 0, -2.5, 0, 6};
    expect_matrix(text, 3, 3, 5, want, "general");
    double one[] = {7};
    expect_matrix(BANNER "real general\n1 1 1\n1 1 7", 1, 1, 1, one, "1x1");
    double rect[] = {0, 0, 0, 0, 0, 2};
    expect_matrix(BANNER "integer general\n2 3 1\n2 3 2\n", 2, 3, 1, rect,
                  "integer");
    double pat[] = {1, 1, 0, 1};
    expect_matrix(BANNER "pattern general\n2 2 3\n1 1\n1 2\n2 2\n", 2, 2, 3,
                  pat, "pattern");
    double zero[9] = {0};
    expect_matrix(BANNER "real general\n3 3 0\n", 3, 3, 0, zero, "empty");
    expect_matrix(BANNER "real general\n0 0 0\n", 0, 0, 0, pat, "0x0");
}

static void test_symmetric(void)
{
    /* Lower triangle stored; the diagonal is not doubled. */
    double sym[] = {2, -1, 0, -1, 2, -3, 0, -3, 2};
    expect_matrix(BANNER "real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n"
                  "3 2 -3\n3 3 2\n", 3, 3, 7, sym, "symmetric");
    double skew[] = {0, -1, 2, 1, 0, 0, -2, 0, 0};
    expect_matrix(BANNER "real skew-symmetric\n3 3 2\n2 1 1\n3 1 -2\n", 3, 3,
                  4, skew, "skew-symmetric");
    double pat[] = {1, 1, 1, 0};
    expect_matrix(BANNER "pattern symmetric\n2 2 2\n1 1\n2 1\n", 2, 2, 3, pat,
                  "pattern symmetric");
    expect_fail(BANNER "real skew-symmetric\n2 2 1\n1 1 3\n", CMRS_E_INPUT,
                "line 3: a skew-symmetric matrix has a zero diagonal");
    expect_fail(BANNER "real symmetric\n2 3 1\n1 1 3\n", CMRS_E_INPUT,
                "line 2: a symmetric matrix must be square");
}

static void test_header_errors(void)
{
    expect_fail("", CMRS_E_INPUT, "no %%MatrixMarket banner");
    expect_fail("1 2 3\n", CMRS_E_INPUT, "line 1: no %%MatrixMarket banner");
    expect_fail(BANNER "complex general\n1 1 1\n1 1 1 0\n", CMRS_E_INPUT,
                "complex matrices are not supported");
    expect_fail(BANNER "real hermitian\n1 1 1\n1 1 1\n", CMRS_E_INPUT,
                "hermitian matrices are not supported");
    expect_fail(BANNER "real\n1 1 1\n1 1 1\n", CMRS_E_INPUT,
                "malformed banner");
    expect_fail(BANNER "real general extra\n", CMRS_E_INPUT,
                "malformed banner");
    expect_fail("%%MatrixMarket matrix sparse real general\n", CMRS_E_INPUT,
                "unknown format 'sparse'");
    expect_fail(BANNER "real general\n% only comments\n", CMRS_E_INPUT,
                "the size line is missing");
    expect_fail(BANNER "real general\n3 3\n", CMRS_E_INPUT,
                "line 2: malformed size line");
    expect_fail(BANNER "real general\n3 -3 1\n", CMRS_E_INPUT,
                "line 2: malformed size line");
    expect_fail(BANNER "real general\n3 3 x\n", CMRS_E_INPUT,
                "malformed size line");
    expect_fail(BANNER "real general\n2 2 5\n", CMRS_E_INPUT,
                "5 entries claimed, more than a 2 x 2 matrix has");
    expect_fail("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
                CMRS_E_INPUT, "a dense 'array' file");
}

static void test_huge_claims(void)
{
    /* That no claim is allocated before it is refused is measured (max
     * RSS) by tests/io/test_sizes; no timing threshold here. */
    expect_fail(BANNER "real general\n1000000 1000000 1000000000000\n1 1 1\n",
                CMRS_E_INPUT, "the file is too small to hold them");
    expect_fail(BANNER "real general\n10000000000 1 1\n1 1 1\n", CMRS_E_LIMIT,
                "at most 2147483647 rows and columns");
    expect_fail(BANNER "real general\n99999999999999999999 1 1\n",
                CMRS_E_INPUT, "malformed size line");
    cmrs_set_memory_limit(100);
    expect_fail(BANNER "real general\n10 10 10\n" "1 1 1\n1 1 1\n1 1 1\n"
                "1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n",
                CMRS_E_NOMEM, "needs about 368 bytes of host memory; 100 "
                "bytes available");
    cmrs_set_memory_limit(0);
}

static void test_entry_errors(void)
{
    /* integer values convert to double exactly or not at all */
    expect_fail(BANNER "integer general\n1 1 1\n1 1 9007199254740993\n",
                CMRS_E_INPUT, "line 3: integer 9007199254740993 has no exact "
                "double");
    expect_fail(BANNER "integer general\n1 1 1\n1 1 -9223372036854775807\n",
                CMRS_E_INPUT, "integer -9223372036854775807 has no exact");
    expect_fail(BANNER "integer general\n1 1 1\n1 1 9223372036854775807\n",
                CMRS_E_INPUT, "integer 9223372036854775807 has no exact");
    const double p53 = 9007199254740992.0;
    expect_matrix(BANNER "integer general\n1 1 1\n1 1 9007199254740992\n",
                  1, 1, 1, &p53, "integer 2^53");
    expect_fail(BANNER "real general\n2 2 3\n1 1 1\n2 2 2\n", CMRS_E_INPUT,
                "truncated: the size line announces 3 entries, the file ends "
                "after 2");
    expect_fail(BANNER "real general\n2 2 2\n1 1 1\n2 2\n", CMRS_E_INPUT,
                "line 4: expected 'row column value', found 2 fields");
    expect_fail(BANNER "real general\n2 2 1\n1 x 1\n", CMRS_E_INPUT,
                "line 3: column index 'x' is not an integer");
    expect_fail(BANNER "real general\n2 2 1\n3 1 1\n", CMRS_E_INPUT,
                "line 3: row index 3 out of range [1, 2]");
    expect_fail(BANNER "real general\n2 2 1\n1 0 1\n", CMRS_E_INPUT,
                "line 3: column index 0 out of range [1, 2]");
    expect_fail(BANNER "real general\n2 2 1\n1 1 1\n2 2 2\n", CMRS_E_INPUT,
                "line 4: more entries than the 1 the size line announces");
    expect_fail(BANNER "real general\n2 2 1\n1 1 1 7\n", CMRS_E_INPUT,
                "line 3: unexpected '7' after the entry");
    expect_fail(BANNER "pattern general\n2 2 1\n1 1 1\n", CMRS_E_INPUT,
                "unexpected '1' after the entry (the file says 'pattern')");
    expect_fail(BANNER "real general\n2 2 1\n1 1 nan\n", CMRS_E_INPUT,
                "line 3: value 'nan' is not finite");
    expect_fail(BANNER "real general\n2 2 1\n1 1 1e999\n", CMRS_E_INPUT,
                "value '1e999' is not finite");
    expect_fail(BANNER "real general\n2 2 1\n1 1 1.5x\n", CMRS_E_INPUT,
                "'1.5x' is not a number");
    expect_fail(BANNER "integer general\n2 2 1\n1 1 1.5\n", CMRS_E_INPUT,
                "'1.5' is not an integer");
    expect_fail(BANNER "real general\n2 2 2\n1 1 1e308\n1 1 1e308\n",
                CMRS_E_INPUT, "is not finite"); /* the sum overflows */
    const char nul[] = BANNER "real general\n1 1 1\n1 1\0 1\n";
    cmrs_csr A;
    CHECK_FAILS(cmrs_mm_parse_matrix(nul, sizeof nul - 1, "t.mtx", &A),
                CMRS_E_INPUT, "line 3 contains a NUL byte");
    const char hdf5[] = "\x89HDF\0\0\0\n"; /* NUL in line 1 */
    CHECK_FAILS(cmrs_mm_parse_matrix(hdf5, sizeof hdf5 - 1, "t.mtx", &A),
                CMRS_E_INPUT, "line 1: no %%MatrixMarket banner");
}

static void test_vectors(void)
{
    double *v = NULL;
    int64_t n = 0;
    const char *arr = "%%MatrixMarket matrix array real general\n% c\n3 1\n"
                      "1.5\n-2\n\n3e1\n";
    CHECK_OK(cmrs_mm_parse_vector(arr, strlen(arr), "v.mtx", &v, &n));
    CHECK(n == 3 && v && v[0] == 1.5 && v[1] == -2 && v[2] == 30, "array");
    free(v);
    const char *coo = BANNER "real general\n4 1 3\n4 1 2\n1 1 1\n4 1 0.5\n";
    CHECK_OK(cmrs_mm_parse_vector(coo, strlen(coo), "v.mtx", &v, &n));
    CHECK(n == 4 && v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 2.5,
          "coordinate vector (duplicates summed)");
    free(v);
    const char *row = BANNER "integer general\n1 2 1\n1 2 5\n";
    CHECK_OK(cmrs_mm_parse_vector(row, strlen(row), "v.mtx", &v, &n));
    CHECK(n == 2 && v[0] == 0 && v[1] == 5, "1 x n vector");
    free(v);
    const char *mat = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n"
                      "3\n4\n";
    CHECK_FAILS(cmrs_mm_parse_vector(mat, strlen(mat), "v.mtx", &v, &n),
                CMRS_E_INPUT, "a 2 x 2 matrix, expected a vector");
    const char *shortv = "%%MatrixMarket matrix array real general\n3 1\n1\n";
    CHECK_FAILS(cmrs_mm_parse_vector(shortv, strlen(shortv), "v.mtx", &v, &n),
                CMRS_E_INPUT, "truncated");
    CHECK(v == NULL && n == 0, "vector not emptied after failure");
    const char *pat = BANNER "pattern general\n2 1 1\n1 1\n";
    CHECK_FAILS(cmrs_mm_parse_vector(pat, strlen(pat), "v.mtx", &v, &n),
                CMRS_E_INPUT, "'pattern' file has no values");
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    fputs(text, f);
    fclose(f);
}

/* A file bigger than the 256 KiB read block: lines cross block edges. */
static void test_large_file(void)
{
    int64_t n = 30000;
    FILE *f = fopen(path_of("big.mtx"), "w");
    fputs(BANNER "real general\n", f);
    fprintf(f, "%lld %lld %lld\n", (long long)n,
            (long long)n, (long long)n);
    for (int64_t i = n; i >= 1; --i)
        fprintf(f, "%lld %lld %.17g\n", (long long)i, (long long)(n + 1 - i),
                1.0 / (double)i);
    fclose(f);
    cmrs_csr A;
    CHECK_OK(cmrs_mm_read_matrix(path_of("big.mtx"), &A));
    int ok = A.nnz == n;
    for (int64_t i = 0; ok && i < n; ++i)
        ok = A.indptr[i] == i && A.indices[i] == n - 1 - i &&
             A.values[i] == 1.0 / (double)(i + 1);
    CHECK(ok, "large file read wrong");
    cmrs_csr_free(&A);
    f = fopen(path_of("longline.mtx"), "w");
    fputs(BANNER "real general\n%", f);
    for (int i = 0; i < (CMRS_MM_MAX_LINE / 64) + 1; ++i)
        fputs("0123456789012345678901234567890123456789012345678901234567890"
              "123", f);
    fputs("\n1 1 1\n1 1 1\n", f);
    fclose(f);
    CHECK_FAILS(cmrs_mm_read_matrix(path_of("longline.mtx"), &A),
                CMRS_E_INPUT, "line 2 is longer than");
}

static void test_system_read(void)
{
    write_file("a.mtx", BANNER "real general\n2 2 3\n1 1 2\n2 2 4\n1 2 1\n");
    write_file("b.mtx", "%%MatrixMarket matrix array real general\n2 1\n3\n"
                        "4\n");
    write_file("b3.mtx", "%%MatrixMarket matrix array real general\n3 1\n3\n"
                         "4\n5\n");
    cmrs_system s;
    cmrs_read_opts o = {.rhs = path_of("b.mtx"), .x0 = path_of("b.mtx"),
                        .require_square = 1};
    CHECK_OK(cmrs_system_read(path_of("a.mtx"), &o, &s));
    CHECK(!strcmp(s.layout, "mtx") && !s.b_generated && s.b[1] == 4 &&
          s.x0 && s.x0[0] == 3, "mtx with rhs and x0");
    cmrs_system_free(&s);
    CHECK_OK(cmrs_system_read(path_of("a.mtx"), NULL, &s));
    CHECK(!s.b && !s.x0, "a.mtx alone: the reader takes no b");
    CHECK_OK(cmrs_system_rhs_ones(&s, "a.mtx"));
    CHECK(s.b_generated && s.b[0] == 3 && s.b[1] == 4, "b = A*1");
    cmrs_system_free(&s);
    cmrs_read_opts o3 = {.rhs = path_of("b3.mtx")};
    CHECK_FAILS(cmrs_system_read(path_of("a.mtx"), &o3, &s), CMRS_E_INPUT,
                "b3.mtx: right-hand side has 3 entries but the matrix has 2 "
                "rows");
    CHECK(!s.A.indptr && !s.b, "system not emptied");
    cmrs_read_opts om = {.rhs = path_of("nothere.mtx")};
    CHECK_FAILS(cmrs_system_read(path_of("a.mtx"), &om, &s), CMRS_E_INPUT,
                "nothere.mtx: cannot open");
}

#ifdef CMRS_HAVE_ZLIB
static void test_gzip(void)
{
    const char *text = BANNER "real symmetric\n2 2 2\n1 1 3\n2 1 1\n";
    gzFile gz = gzopen(path_of("a.mtx.gz"), "wb");
    gzputs(gz, text);
    gzclose(gz);
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of("a.mtx.gz"), NULL, &s));
    CHECK(s.A.nnz == 3 && s.A.values[1] == 1 && s.A.values[2] == 1, ".gz");
    cmrs_system_free(&s);
    /* Truncated gzip stream: an error, not a silently shorter matrix. */
    FILE *f = fopen(path_of("a.mtx.gz"), "rb");
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(path_of("cut.mtx.gz"), "wb");
    fwrite(buf, 1, len - 12, f);
    fclose(f);
    CHECK(cmrs_system_read(path_of("cut.mtx.gz"), NULL, &s) == CMRS_E_INPUT,
          "truncated .gz accepted: %s", cmrs_error_message());
}
#endif

int main(void)
{
    if (!tdir_make("mm")) return 1;
    test_general();
    test_symmetric();
    test_header_errors();
    test_huge_claims();
    test_entry_errors();
    test_vectors();
    test_large_file();
    test_system_read();
#ifdef CMRS_HAVE_ZLIB
    test_gzip();
#endif
    tdir_remove();
    return check_summary();
}
