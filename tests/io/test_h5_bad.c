/* Bad HDF5 input: every case must fail with CMRS_E_INPUT or CMRS_E_LIMIT
 * and a one-line message naming the file, the dataset and the problem, fast
 * (no allocation sized from a lying file), leaving *sys empty. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tdir.h"
#include "h5_make.h"
#include "io/readers.h"
#include "io/system.h"
#include "base/timer.h"

/* Reading `file` must fail with code and a message holding `want` and the
 * file's name, on one line, with *sys left empty. */
static void expect_fail(const char *file, const cmrs_read_opts *o,
                        cmrs_code code, const char *want)
{
    cmrs_system s;
    memset(&s, 0x5a, sizeof s); /* poison: the reader must zero it */
    CHECK_FAILS(cmrs_system_read(path_of(file), o, &s), code, want);
    const char *msg = cmrs_error_message();
    CHECK(strstr(msg, file) && !strchr(msg, '\n'), "%s: message '%s' does "
          "not name the file on one line", file, msg);
    CHECK(!s.A.indptr && !s.A.indices && !s.A.values && !s.b && !s.x0,
          "%s: *sys not emptied after failure", file);
}

/* Native file with the reference arrays, then `edit` spoils it. */
typedef void (*spoil_fn)(hid_t f);

static void make_native(const char *file, spoil_fn spoil, int with_b)
{
    CHECK(h5m_native(path_of(file), with_b, 0) == 0, "write %s", file);
    hid_t f = H5Fopen(path_of(file), H5F_ACC_RDWR, H5P_DEFAULT);
    if (spoil) spoil(f);
    H5Fclose(f);
}

/* dataset (deleted first) rewritten as n values of file_type from v. */
static void rewrite(hid_t f, const char *dataset, hid_t file_type,
                    hid_t mem_type, const void *v, hsize_t n)
{
    H5Ldelete(f, dataset, H5P_DEFAULT);
    h5m_write(f, dataset, file_type, mem_type, v, n);
}

/* One bad file: the native reference file with b, spoiled by rewriting
 * `dataset` with the n native integers `ints` or doubles `reals`, or by
 * `edit` where a rewrite cannot spoil it; reading it must fail with `code`
 * and a message holding `want`. */
typedef struct bad_file {
    const char *file;
    const char *dataset;
    const int64_t *ints;
    const double *reals;
    hsize_t n;
    spoil_fn edit;
    cmrs_code code;
    const char *want;
} bad_file;

/* Table rows failing with CMRS_E_INPUT: `dataset` rewritten with the
 * integers or reals listed, or the file spoiled by `fn`. */
#define BAD_INTS(file, dataset, want, ...)                                 \
    {file, dataset, (const int64_t[]){__VA_ARGS__}, NULL,                  \
     sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t), NULL,             \
     CMRS_E_INPUT, want}
#define BAD_REALS(file, dataset, want, ...)                                \
    {file, dataset, NULL, (const double[]){__VA_ARGS__},                   \
     sizeof((double[]){__VA_ARGS__}) / sizeof(double), NULL,               \
     CMRS_E_INPUT, want}
#define BAD_EDIT(file, fn, want)                                           \
    {file, NULL, NULL, NULL, 0, fn, CMRS_E_INPUT, want}

static void expect_bad(const bad_file *c)
{
    CHECK(h5m_native(path_of(c->file), 1, 0) == 0, "write %s", c->file);
    hid_t f = H5Fopen(path_of(c->file), H5F_ACC_RDWR, H5P_DEFAULT);
    if (c->ints)
        rewrite(f, c->dataset, H5T_NATIVE_INT64, H5T_NATIVE_INT64, c->ints,
                c->n);
    else if (c->reals)
        rewrite(f, c->dataset, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE,
                c->reals, c->n);
    else
        c->edit(f);
    H5Fclose(f);
    expect_fail(c->file, NULL, c->code, c->want);
}

static void expect_all_bad(const bad_file *cases, size_t count)
{
    for (size_t i = 0; i < count; ++i) expect_bad(&cases[i]);
}
#define EXPECT_ALL_BAD(cases)                                              \
    expect_all_bad(cases, sizeof cases / sizeof *cases)

static void no_indices(hid_t f) { H5Ldelete(f, "/A/indices", H5P_DEFAULT); }
static void ptr_uint64_huge(hid_t f)
{
    uint64_t p[] = {0, 2, 4, 6, UINT64_MAX};
    rewrite(f, "/A/indptr", H5T_STD_U64LE, H5T_NATIVE_UINT64, p, 5);
}

static const bad_file k_structure[] = {
    BAD_EDIT("noidx.h5", no_indices, "missing dataset /A/indices"),
    BAD_INTS("ptr0.h5", "/A/indptr", "/A/indptr: indptr[0] is 1", 1, 2, 4, 6,
             8),
    BAD_INTS("ptrdec.h5", "/A/indptr", "/A/indptr decreases at 1", 0, 4, 2, 6,
             8),
    BAD_INTS("ptrneg.h5", "/A/indptr", "/A/indptr decreases at 0", 0, -5, 4, 6,
             8),
    BAD_INTS("ptrlast.h5", "/A/indptr", "indptr[4] is 7 but there are 8 "
             "nonzeros", 0, 2, 4, 6, 7),
    BAD_INTS("ptrshort.h5", "/A/indptr", "/A/indptr has 4 entries but the "
             "shape is 4 x 4", 0, 2, 4, 8),
    /* k_idx less its last entry */
    BAD_INTS("idxshort.h5", "/A/indices", "/A/indices has 7 entries but "
             "/A/data has 8", 0, 1, 1, 2, 0, 2, 2),
    BAD_INTS("colrange.h5", "/A/indices", "/A/indices[3] is 9, outside [0, 4) "
             "(row 1)", 0, 1, 1, 9, 0, 2, 2, 3),
    BAD_INTS("colneg.h5", "/A/indices", "/A/indices[4] is -1", 0, 1, 1, 2, -1,
             2, 2, 3),
    /* fits int64, not int32 */
    BAD_INTS("colhuge.h5", "/A/indices", "/A/indices holds a value outside "
             "the range of 32-bit integers", 0, 1, 1, 2, 0, 2, 2,
             (int64_t)1 << 40),
    BAD_EDIT("ptrhuge.h5", ptr_uint64_huge, "/A/indptr holds a value outside "
             "the range of 64-bit integers"),
};

static const bad_file k_values[] = {
    BAD_REALS("nan.h5", "/A/data", "/A: value nan (row 2, column 2) is not "
              "finite", 4, 1, 5, 2, 3, NAN, 7, 8),
    BAD_REALS("binf.h5", "/b", "/b[1] is inf", 1, INFINITY, 1, 1),
    /* k_b less its last entry */
    BAD_REALS("bshort.h5", "/b", "/b has 3 entries but the matrix has 4 rows",
              1, -2, 3.5),
};

static void test_structure(void)
{
    EXPECT_ALL_BAD(k_structure);
}

static void test_values(void)
{
    EXPECT_ALL_BAD(k_values);
    make_native("ok.h5", NULL, 1);
    cmrs_read_opts o = {.rhs = "rhs"};
    expect_fail("ok.h5", &o, CMRS_E_INPUT, "missing dataset /rhs");
    cmrs_read_opts ox = {.x0 = "b/x"};
    expect_fail("ok.h5", &ox, CMRS_E_INPUT, "missing dataset /b/x");
    cmrs_read_opts om = {.matrix = "M"};
    expect_fail("ok.h5", &om, CMRS_E_INPUT, "no group /M");
    cmrs_read_opts ob = {.matrix = "b"};
    expect_fail("ok.h5", &ob, CMRS_E_INPUT, "/b is not a group");
}

static void wrong_rank(hid_t f)
{
    hsize_t dims[2] = {2, 4};
    H5Ldelete(f, "/A/data", H5P_DEFAULT);
    h5m_write_nd(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_val, 2,
                 dims);
}
static void scalar_b(hid_t f)
{
    H5Ldelete(f, "/b", H5P_DEFAULT);
    h5m_write_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 0, NULL);
}
static void complex_data(hid_t f)
{
    double z[16] = {0};
    hid_t t = h5m_complex_type();
    rewrite(f, "/A/data", t, t, z, 8);
    H5Tclose(t);
}
static void string_indices(hid_t f)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    rewrite(f, "/A/indices", t, t, "0000111122223333", 4);
    H5Tclose(t);
}
static void float_indices(hid_t f)
{
    double v[] = {0, 1, 1, 2, 0, 2, 2, 3};
    rewrite(f, "/A/indices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 8);
}
static void odd_indices(hid_t f) /* 24-bit integers in 4 bytes */
{
    hid_t t = H5Tcopy(H5T_STD_I32LE);
    H5Tset_precision(t, 24);
    rewrite(f, "/A/indices", t, H5T_NATIVE_INT64, k_idx, 8);
    H5Tclose(t);
}
static void group_data(hid_t f)
{
    H5Ldelete(f, "/A/data", H5P_DEFAULT);
    h5m_group(f, "/A/data");
}

static const bad_file k_types[] = {
    BAD_EDIT("rank.h5", wrong_rank, "/A/data has rank 2"),
    BAD_EDIT("scalar.h5", scalar_b, "/b is a scalar"),
    BAD_EDIT("complex.h5", complex_data, "/A/data has a compound type "
             "(complex numbers?)"),
    BAD_EDIT("strings.h5", string_indices, "/A/indices has a string type"),
    BAD_EDIT("floatidx.h5", float_indices, "/A/indices has a floating-point "
             "type, expected integers"),
    BAD_EDIT("oddidx.h5", odd_indices, "/A/indices has a nonstandard 4-byte "
             "integer type"),
    BAD_EDIT("groupdata.h5", group_data, "/A/data is a group"),
};

static void test_types(void)
{
    EXPECT_ALL_BAD(k_types);
}

/* /A's attribute 'shape' rewritten as the first n of (r, c, 1). */
static void shape_set(hid_t f, int64_t r, int64_t c, hsize_t n)
{
    int64_t shape[3] = {r, c, 1};
    hid_t g = H5Gopen2(f, "/A", H5P_DEFAULT);
    H5Adelete(g, "shape");
    h5m_attr_ints(g, ".", "shape", H5T_STD_I64LE, shape, n);
    H5Gclose(g);
}
static void shape_missing(hid_t f) { H5Adelete_by_name(f, "/A", "shape", 0); }
static void shape_three(hid_t f) { shape_set(f, 4, 4, 3); }
static void shape_float(hid_t f)
{
    double s[2] = {4, 4};
    H5Adelete_by_name(f, "/A", "shape", 0);
    h5m_attr_f64(f, "/A", "shape", s, 2);
}
static void shape_rect(hid_t f) { shape_set(f, 4, 5, 2); }
static void shape_negative(hid_t f) { shape_set(f, -4, 4, 2); }
static void shape_wide(hid_t f) { shape_set(f, 4, (int64_t)1 << 31, 2); }
static void anndata_coo(hid_t f)
{
    h5m_attr_str(f, "/A", "encoding-type", "coo_matrix", 1);
}

static const bad_file k_shapes[] = {
    BAD_EDIT("noshape.h5", shape_missing, "/A: missing attribute 'shape'"),
    BAD_EDIT("shapeneg.h5", shape_negative, "expected sizes >= 0"),
    {"shapewide.h5", .edit = shape_wide, .code = CMRS_E_LIMIT,
     .want = "at most 2147483647"},
    BAD_EDIT("shape3.h5", shape_three, "attribute 'shape' has 3 values, "
             "expected 2"),
    BAD_EDIT("shapef.h5", shape_float, "attribute 'shape' has a "
             "floating-point type"),
    BAD_EDIT("coo.h5", anndata_coo, "attribute 'encoding-type' is "
             "'coo_matrix', expected 'csr_matrix' or 'csc_matrix'"),
};

static void test_shape(void)
{
    EXPECT_ALL_BAD(k_shapes);
    /* A rectangular shape reads fine but is refused where a square matrix
     * is required (solvers). */
    make_native("rect.h5", shape_rect, 0);
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of("rect.h5"), NULL, &s));
    CHECK(s.A.cols == 5, "rectangular shape");
    cmrs_system_free(&s);
    cmrs_read_opts sq = {.require_square = 1};
    expect_fail("rect.h5", &sq, CMRS_E_INPUT, "the matrix is 4 x 5; a square "
                "matrix is required");
}

/* Tiny files claiming huge sizes must fail at once, before allocating. */
static void test_huge_claims(void)
{
    hid_t f = h5m_create(path_of("huge.h5"), 0);
    int64_t shape[2] = {1000000000000LL, 4};
    h5m_write_huge(f, "/A/indptr", H5T_STD_I64LE, 1000000000001ULL);
    h5m_write_huge(f, "/A/indices", H5T_STD_I32LE, 1000000000000ULL);
    h5m_write_huge(f, "/A/data", H5T_IEEE_F64LE, 1000000000000ULL);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    H5Fclose(f);
    /* indptr's last entry is read alone (it is the fill value 0) */
    expect_fail("huge.h5", NULL, CMRS_E_INPUT, "/A/indptr: last entry "
                "indptr[1000000000000] is 0 but there are 1000000000000 "
                "nonzeros");

    /* With a small limit, a consistent claim (no entries: indptr all 0)
     * needs more than there is. */
    f = h5m_create(path_of("big.h5"), 0);
    int64_t shape2[2] = {1000000, 1000000};
    h5m_write_huge(f, "/A/indptr", H5T_STD_I64LE, 1000001);
    h5m_write_huge(f, "/A/indices", H5T_STD_I32LE, 0);
    h5m_write_huge(f, "/A/data", H5T_IEEE_F64LE, 0);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape2, 2);
    H5Fclose(f);
    cmrs_set_memory_limit(1e6);
    expect_fail("big.h5", NULL, CMRS_E_NOMEM, "big.h5: a 1000000 x 1000000 "
                "matrix with 0 entries needs about 24.0 MB of host memory; "
                "1.0 MB available");
    cmrs_set_memory_limit(0);

    /* MATLAB: the row count (attribute) sizes the transposed matrix even
     * when jc is tiny (found by fuzz_h5). */
    CHECK(h5m_matlab(path_of("tall.mat")) == 0, "write tall.mat");
    f = H5Fopen(path_of("tall.mat"), H5F_ACC_RDWR, H5P_DEFAULT);
    int64_t rows = 20000000;
    H5Adelete_by_name(f, "/A", "MATLAB_sparse", H5P_DEFAULT);
    H5Ldelete(f, "/b", H5P_DEFAULT); /* their lengths would be refused first */
    H5Ldelete(f, "/x0", H5P_DEFAULT);
    h5m_attr_ints(f, "/A", "MATLAB_sparse", H5T_STD_U64LE, &rows, 0);
    H5Fclose(f);
    cmrs_set_memory_limit(1e8);
    expect_fail("tall.mat", NULL, CMRS_E_NOMEM, "tall.mat: a 20000000 x 4 "
                "matrix with 8 entries needs about 320.0 MB of host memory; "
                "100.0 MB available");
    cmrs_set_memory_limit(0);
}

static void test_files(void)
{
    expect_fail("missing.h5", NULL, CMRS_E_INPUT, "cannot open: No such file");
    FILE *fp = fopen(path_of("text.h5"), "w");
    fputs("hello, not a matrix\n", fp);
    fclose(fp);
    expect_fail("text.h5", NULL, CMRS_E_INPUT, "not HDF5 or Matrix Market");
    expect_fail("", NULL, CMRS_E_INPUT, "is a directory");
    /* A truncated HDF5 file keeps its signature but cannot be read. */
    make_native("trunc.h5", NULL, 1);
    CHECK(truncate(path_of("trunc.h5"), 1200) == 0, "truncate");
    expect_fail("trunc.h5", NULL, CMRS_E_INPUT, "corrupt or truncated");
    /* MATLAB: a complex sparse matrix and a bad ir. */
    CHECK(h5m_matlab(path_of("zmat.mat")) == 0, "write zmat.mat");
    hid_t f = H5Fopen(path_of("zmat.mat"), H5F_ACC_RDWR, H5P_DEFAULT);
    complex_data(f);
    H5Fclose(f);
    expect_fail("zmat.mat", NULL, CMRS_E_INPUT, "/A/data has a compound");
    CHECK(h5m_matlab(path_of("ir.mat")) == 0, "write ir.mat");
    f = H5Fopen(path_of("ir.mat"), H5F_ACC_RDWR, H5P_DEFAULT);
    int64_t ir[] = {0, 2, 0, 1, 1, 2, 3, 4};
    rewrite(f, "/A/ir", H5T_STD_U64LE, H5T_NATIVE_INT64, ir, 8);
    H5Fclose(f);
    expect_fail("ir.mat", NULL, CMRS_E_INPUT, "/A/ir[7] is 4, outside [0, 4) "
                "(column 3)");
}

/* /A/data (or /b, /x0) of integer type `type` holding v at entry 1. */
static void make_int_values(const char *file, const char *name, hid_t type,
                            int64_t v)
{
    CHECK(h5m_native(path_of(file), 1, 1) == 0, "write %s", file);
    hid_t f = H5Fopen(path_of(file), H5F_ACC_RDWR, H5P_DEFAULT);
    int64_t vals[8] = {4, v, 5, 2, 3, 6, 7, 8}, vec[4] = {1, v, 3, 4};
    int is_data = strcmp(name, "/A/data") == 0;
    rewrite(f, name, type, H5T_NATIVE_INT64, is_data ? vals : vec,
            is_data ? 8 : 4);
    H5Fclose(f);
}

/* make_int_values' file must fail: v has no exact double. */
static void expect_lossy(const char *file, const char *name, hid_t type,
                         int64_t v, const char *want)
{
    make_int_values(file, name, type, v);
    expect_fail(file, NULL, CMRS_E_INPUT, want);
}

/* Integers convert to double exactly or not at all (docs/FORMAT.md). */
static void test_lossless(void)
{
    const int64_t p53 = INT64_C(1) << 53;
    expect_lossy("d53.h5", "/A/data", H5T_STD_I64LE, p53 + 1,
                 "/A/data[1] = 9007199254740993 has no exact double");
    expect_lossy("d53be.h5", "/A/data", H5T_STD_I64BE, -(p53 + 1),
                 "/A/data[1] = -9007199254740993 has no exact double");
    expect_lossy("du64.h5", "/A/data", H5T_STD_U64LE, INT64_MAX,
                 "/A/data[1] = 9223372036854775807 has no exact double");
    expect_lossy("b53.h5", "/b", H5T_STD_I64LE, p53 + 1,
                 "/b[1] = 9007199254740993");
    expect_lossy("x53.h5", "/x0", H5T_STD_I64LE, p53 + 3,
                 "/x0[1] = 9007199254740995");
    /* 2^53 and 2^53 + 2 have exact doubles: read as they are */
    cmrs_system s;
    make_int_values("ok53.h5", "/A/data", H5T_STD_I64LE, p53);
    CHECK_OK(cmrs_system_read(path_of("ok53.h5"), NULL, &s));
    CHECK(s.A.nnz == 8 && s.A.values[1] == (double)p53, "2^53 read as %.17g",
          s.A.nnz == 8 ? s.A.values[1] : 0.0);
    cmrs_system_free(&s);
    make_int_values("ok53b.h5", "/b", H5T_STD_I64LE, p53 + 2);
    CHECK_OK(cmrs_system_read(path_of("ok53b.h5"), NULL, &s));
    CHECK(s.b && s.b[1] == (double)(p53 + 2), "2^53 + 2 read as %.17g",
          s.b ? s.b[1] : 0.0);
    cmrs_system_free(&s);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return TDIR_MAIN("h5_bad", test_structure, test_values, test_lossless,
                     test_types, test_shape, test_huge_claims, test_files);
}
