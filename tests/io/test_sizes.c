/* Declared sizes are checked before anything sized by them is allocated
 * (issue 27): tiny files (and gen options) that declare huge systems fail
 * at once, through the cmrs binary: the exit code (2 inconsistent, 4 too
 * large for the memory available), exactly one line on stderr, no output
 * file left, and a peak resident set (/usr/bin/time -f %M) within 100 MB of
 * `cmrs --version`'s. Integers with no exact double are refused (exit 2).
 * CMRS_MEM_AVAILABLE_BYTES makes the exit-4 cases independent of the
 * machine. No timing is asserted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tdir.h"
#include "h5_make.h"

static const char *g_bin;
static long g_base_kb; /* max RSS of cmrs --version */

#define RSS_SLACK_KB (100L * 1024)

static int write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* The whole of file `name` in the work folder into buf ("" if absent). */
static void read_text(const char *name, char *buf, size_t n)
{
    FILE *f = fopen(path_of(name), "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = '\0';
    if (f) fclose(f);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; ++s) n += *s == '\n';
    return n;
}

static double g_seconds; /* wall time of the last run: reported only */

/* Runs `env cmrs args` in the work folder under /usr/bin/time; returns the
 * exit code, sets *kb to the max RSS; stderr is left in "err.txt". */
static int run(const char *env, const char *args, long *kb)
{
    char cmd[2048], rss[256];
    snprintf(cmd, sizeof cmd, "cd '%s' && env %s /usr/bin/time -f '%%e %%M' -o "
             "rss.txt '%s' %s >out.txt 2>err.txt", g_dir, env, g_bin, args);
    int st = system(cmd);
    read_text("rss.txt", rss, sizeof rss);
    /* "Command exited with non-zero status N" may come first */
    const char *last = rss, *nl;
    while ((nl = strchr(last, '\n')) && nl[1]) last = nl + 1;
    char *end = NULL;
    g_seconds = strtod(last, &end);
    *kb = atol(end);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `cmrs args` must exit with `code`, print one stderr line holding `want`,
 * leave no out.h5 (nor its temporary) and stay within RSS_SLACK_KB of the
 * baseline's peak. */
static void expect_refusal(const char *what, const char *env,
                           const char *args, int code, const char *want)
{
    long kb = 0;
    unlink(path_of("out.h5")); /* each case on its own */
    int got = run(env, args, &kb);
    char err[4096];
    read_text("err.txt", err, sizeof err);
    CHECK(got == code, "%s: exit %d, expected %d: %s", what, got, code, err);
    CHECK(count_lines(err) == 1, "%s: stderr is not one line: %s", what, err);
    CHECK(strstr(err, want), "%s: stderr lacks '%s': %s", what, want, err);
    CHECK(access(path_of("out.h5"), F_OK) != 0, "%s: out.h5 left", what);
    char ls[512];
    snprintf(ls, sizeof ls, "ls -A '%s' | grep -q 'out\\.h5.'", g_dir);
    CHECK(system(ls) != 0, "%s: a temporary output file is left", what);
    CHECK(kb > 0 && kb - g_base_kb < RSS_SLACK_KB, "%s: max RSS %ld kB, "
          "%ld kB more than cmrs --version", what, kb, kb - g_base_kb);
    printf("%s: exit %d, %.2f s, max RSS %ld kB (cmrs --version %ld kB)\n",
           what, got, g_seconds, kb, g_base_kb);
}

/* A native CSR file declaring rows x cols with nnz entries, consistent on
 * its face (indptr of rows + 1 from 0 to nnz), with compressed arrays. */
static void make_huge_csr(const char *name, int64_t rows, int64_t cols,
                          int64_t nnz)
{
    hid_t f = h5m_create(path_of(name), 0);
    int64_t shape[2] = {rows, cols};
    int rc = h5m_write_sparse(f, "/A/indptr", H5T_STD_I64LE,
                                  (hsize_t)rows + 1, rows, nnz);
    rc |= h5m_write_sparse(f, "/A/indices", H5T_STD_I32LE, (hsize_t)nnz,
                               -1, 0);
    rc |= h5m_write_sparse(f, "/A/data", H5T_IEEE_F64LE, (hsize_t)nnz,
                               -1, 0);
    rc |= h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    H5Fclose(f);
    CHECK(rc == 0, "write %s", name);
}

/* 2 x 2 identity-like system whose `dataset` is int64 holding `big`. */
static void make_int64_system(const char *name, const char *dataset,
                              int64_t big, hid_t file_type)
{
    hid_t f = h5m_create(path_of(name), 0);
    int64_t ptr[] = {0, 1, 2}, idx[] = {0, 1}, data[] = {2, 2}, b[] = {1, 1};
    int64_t shape[2] = {2, 2};
    if (strcmp(dataset, "/A/data") == 0) data[1] = big;
    else b[1] = big;
    int rc = h5m_write(f, "/A/indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, ptr, 3);
    rc |= h5m_write(f, "/A/indices", H5T_STD_I64LE, H5T_NATIVE_INT64, idx, 2);
    rc |= h5m_write(f, "/A/data", strcmp(dataset, "/A/data") ? H5T_STD_I64LE
                    : file_type, H5T_NATIVE_INT64, data, 2);
    rc |= h5m_write(f, "/b", strcmp(dataset, "/b") ? H5T_STD_I64LE : file_type,
                    H5T_NATIVE_INT64, b, 2);
    rc |= h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    H5Fclose(f);
    CHECK(rc == 0, "write %s", name);
}

static void test_matrix_market(void)
{
    CHECK(write_text("h.mtx", "%%MatrixMarket matrix coordinate real general\n"
                     "2000000000 2000000000 3\n1 1 2\n2 2 2\n3 3 2\n") == 0,
          "write h.mtx");
    /* Solvers: fewer entries than rows leaves a row empty: singular. */
    expect_refusal("mm 2e9 solve", "", "solve --device cpu h.mtx -o out.h5",
                   2, "h.mtx: line 2: 3 entries for 2000000000 rows: some "
                   "row has no entry, so the matrix is singular");
    /* info/convert accept empty rows: the memory estimate refuses it. */
    expect_refusal("mm 2e9 info", "CMRS_MEM_AVAILABLE_BYTES=8e9", "info h.mtx",
                   4, "h.mtx: a 2000000000 x 2000000000 matrix with 3 entries "
                   "needs about 48.0 GB of host memory; 8.0 GB available");
    expect_refusal("mm 2e9 convert", "CMRS_MEM_AVAILABLE_BYTES=8e9",
                   "convert h.mtx -o out.h5", 4, "needs about 48.0 GB");
    /* A right-hand side file whose length disagrees, before allocation. */
    CHECK(write_text("a.mtx", "%%MatrixMarket matrix coordinate real general\n"
                     "2 2 2\n1 1 2\n2 2 2\n") == 0 &&
              write_text("b.mtx", "%%MatrixMarket matrix coordinate real "
                         "general\n2000000000 1 1\n1 1 1\n") == 0,
          "write a.mtx, b.mtx");
    expect_refusal("mm rhs 2e9", "", "convert a.mtx --rhs b.mtx -o out.h5", 2,
                   "b.mtx: right-hand side has 2000000000 entries but the "
                   "matrix has 2 rows");
    /* integer values beyond 2^53 are not rounded */
    CHECK(write_text("int.mtx", "%%MatrixMarket matrix coordinate integer "
                     "general\n2 2 2\n1 1 2\n2 2 9007199254740993\n") == 0,
          "write int.mtx");
    expect_refusal("mm integer 2^53+1", "", "convert int.mtx -o out.h5", 2,
                   "int.mtx: line 4: integer 9007199254740993 has no exact "
                   "double");
    /* the memory check, deterministic with a small file */
    expect_refusal("mm small, 50 bytes available",
                   "CMRS_MEM_AVAILABLE_BYTES=50", "convert a.mtx -o out.h5",
                   4, "a.mtx: a 2 x 2 matrix with 2 entries needs about");
}

static void test_hdf5(void)
{
    /* 1.5e9 x 4, compressed: the shape alone says "not square". */
    make_huge_csr("rect.h5", 1500000000, 4, 1500000000);
    expect_refusal("h5 1.5e9x4 solve", "", "solve --device cpu rect.h5 -o "
                   "out.h5", 2, "rect.h5: the matrix is 1500000000 x 4; a "
                   "square matrix is required");
    expect_refusal("h5 1.5e9x4 compare", "", "compare --device cpu rect.h5",
                   2, "a square matrix is required");
    expect_refusal("h5 1.5e9x4 convert", "CMRS_MEM_AVAILABLE_BYTES=4e9",
                   "convert rect.h5 -o out.h5", 4, "rect.h5: a 1500000000 x 4 "
                   "matrix with 1500000000 entries needs about");
    /* square and consistent, too large for the memory available */
    make_huge_csr("sq.h5", 1500000000, 1500000000, 1500000000);
    expect_refusal("h5 1.5e9 square solve", "CMRS_MEM_AVAILABLE_BYTES=16e9",
                   "solve --device cpu sq.h5 -o out.h5", 4, "sq.h5: a "
                   "1500000000 x 1500000000 matrix with 1500000000 entries "
                   "needs about ");
    expect_refusal("h5 1.5e9 square info", "CMRS_MEM_AVAILABLE_BYTES=16e9",
                   "info sq.h5", 4, "GB of host memory; 16.0 GB available");
    /* inconsistent on its face: more entries than the matrix has, fewer
     * entries than rows, indptr's last entry */
    make_huge_csr("dense.h5", 1000, 1000, 1000001);
    expect_refusal("h5 nnz > rows*cols", "", "info dense.h5", 2,
                   "dense.h5: /A: 1000001 entries declared, more than a 1000 "
                   "x 1000 matrix has");
    make_huge_csr("sparse.h5", 2000000000, 2000000000, 3);
    expect_refusal("h5 nnz < rows solve", "", "solve --device cpu sparse.h5",
                   2, "sparse.h5: /A: 3 entries for 2000000000 rows: some "
                   "row has no entry");
    hid_t f = h5m_create(path_of("last.h5"), 0);
    int64_t shape[2] = {1500000000, 1500000000};
    int rc = h5m_write_sparse(f, "/A/indptr", H5T_STD_I64LE, 1500000001,
                                  1500000000, 7);
    rc |= h5m_write_sparse(f, "/A/indices", H5T_STD_I32LE, 1500000000, -1,
                               0);
    rc |= h5m_write_sparse(f, "/A/data", H5T_IEEE_F64LE, 1500000000, -1,
                               0);
    rc |= h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    H5Fclose(f);
    CHECK(rc == 0, "write last.h5");
    expect_refusal("h5 indptr end", "", "info last.h5", 2, "last.h5: /A/indptr: "
                   "last entry indptr[1500000000] is 7 but there are "
                   "1500000000 nonzeros");
    /* int64 values with no exact double */
    int64_t big = (INT64_C(1) << 53) + 1;
    make_int64_system("data53.h5", "/A/data", big, H5T_STD_I64LE);
    expect_refusal("h5 /A/data 2^53+1", "", "convert data53.h5 -o out.h5", 2,
                   "data53.h5: /A/data[1] = 9007199254740993 has no exact "
                   "double");
    make_int64_system("b53.h5", "/b", big, H5T_STD_I64BE);
    expect_refusal("h5 /b 2^53+1 big-endian", "", "info b53.h5", 2,
                   "b53.h5: /b[1] = 9007199254740993 has no exact double");
}

static void test_gen(void)
{
    expect_refusal("gen vessel 1.5e9", "CMRS_MEM_AVAILABLE_BYTES=64e9",
                   "gen vessel --cells 1500000000 -o out.h5", 4,
                   "gen vessel: --cells 1500000000 (about 1650000000 rows and "
                   "8250000000 nonzeros) needs about 131.2 GB of host memory; "
                   "64.0 GB available");
    expect_refusal("gen poisson3d 1290^3", "CMRS_MEM_AVAILABLE_BYTES=64e9",
                   "gen poisson3d --n 1290 --stencil 27 -o out.h5", 4,
                   "gen poisson3d: --n 1290 --stencil 27 (about");
    expect_refusal("gen convdiff 1290^3", "CMRS_MEM_AVAILABLE_BYTES=64e9",
                   "gen convdiff --n 1290 -o out.h5", 4, "gen convdiff: --n "
                   "1290 (about 2146689000 rows");
    /* -q: no summary line, the file is written */
    long kb = 0;
    char out[8192];
    CHECK(run("", "gen poisson3d --n 4 -q -o q.h5", &kb) == 0, "gen -q");
    read_text("out.txt", out, sizeof out);
    CHECK(!*out && access(path_of("q.h5"), F_OK) == 0, "gen -q printed '%s' "
          "or wrote no file", out);
    CHECK(run("", "gen --help", &kb) == 0, "gen --help");
    read_text("out.txt", out, sizeof out);
    CHECK(strstr(out, "-q, --quiet"), "gen --help does not list -q");
}

int main(void)
{
    g_bin = getenv("CMRS_BIN");
    if (!g_bin || !*g_bin) {
        fprintf(stderr, "CMRS_BIN is not set (run through ctest)\n");
        return 1;
    }
    if (access("/usr/bin/time", X_OK) != 0) {
        fprintf(stderr, "FAIL: /usr/bin/time is missing: install the Debian "
                "package 'time' (scripts/setup.sh does)\n");
        return 1;
    }
    if (!tdir_make("sizes")) return 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    CHECK(run("", "--version", &g_base_kb) == 0 && g_base_kb > 0,
          "cmrs --version");
    test_matrix_market();
    test_hdf5();
    test_gen();
    tdir_remove();
    return check_summary();
}
