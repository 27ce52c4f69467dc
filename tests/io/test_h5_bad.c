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

static void replace(hid_t f, const char *name, hid_t type, const void *v,
                    hsize_t n)
{
    H5Ldelete(f, name, H5P_DEFAULT);
    h5m_write(f, name, type, type == H5T_NATIVE_DOUBLE ? H5T_NATIVE_DOUBLE
                                                       : H5T_NATIVE_INT64,
              v, n);
}

static void no_indices(hid_t f) { H5Ldelete(f, "/A/indices", H5P_DEFAULT); }
static void ptr0(hid_t f)
{
    int64_t p[] = {1, 2, 4, 6, 8};
    replace(f, "/A/indptr", H5T_NATIVE_INT64, p, 5);
}
static void ptr_decreasing(hid_t f)
{
    int64_t p[] = {0, 4, 2, 6, 8};
    replace(f, "/A/indptr", H5T_NATIVE_INT64, p, 5);
}
static void ptr_last(hid_t f)
{
    int64_t p[] = {0, 2, 4, 6, 7};
    replace(f, "/A/indptr", H5T_NATIVE_INT64, p, 5);
}
static void ptr_short(hid_t f)
{
    int64_t p[] = {0, 2, 4, 8};
    replace(f, "/A/indptr", H5T_NATIVE_INT64, p, 4);
}
static void ptr_negative(hid_t f)
{
    int64_t p[] = {0, -5, 4, 6, 8};
    replace(f, "/A/indptr", H5T_NATIVE_INT64, p, 5);
}
static void col_range(hid_t f)
{
    int64_t i[] = {0, 1, 1, 9, 0, 2, 2, 3};
    replace(f, "/A/indices", H5T_NATIVE_INT64, i, 8);
}
static void col_negative(hid_t f)
{
    int64_t i[] = {0, 1, 1, 2, -1, 2, 2, 3};
    replace(f, "/A/indices", H5T_NATIVE_INT64, i, 8);
}
static void col_huge(hid_t f) /* fits int64, not int32 */
{
    int64_t i[] = {0, 1, 1, 2, 0, 2, 2, (int64_t)1 << 40};
    replace(f, "/A/indices", H5T_NATIVE_INT64, i, 8);
}
static void ptr_uint64_huge(hid_t f)
{
    uint64_t p[] = {0, 2, 4, 6, UINT64_MAX};
    H5Ldelete(f, "/A/indptr", H5P_DEFAULT);
    h5m_write(f, "/A/indptr", H5T_STD_U64LE, H5T_NATIVE_UINT64, p, 5);
}
static void idx_short(hid_t f)
{
    replace(f, "/A/indices", H5T_NATIVE_INT64, k_idx, 7);
}
static void value_nan(hid_t f)
{
    double v[] = {4, 1, 5, 2, 3, NAN, 7, 8};
    replace(f, "/A/data", H5T_NATIVE_DOUBLE, v, 8);
}
static void b_inf(hid_t f)
{
    double v[] = {1, INFINITY, 1, 1};
    replace(f, "/b", H5T_NATIVE_DOUBLE, v, 4);
}
static void b_short(hid_t f)
{
    replace(f, "/b", H5T_NATIVE_DOUBLE, k_b, 3);
}

static void test_structure(void)
{
    make_native("noidx.h5", no_indices, 1);
    expect_fail("noidx.h5", NULL, CMRS_E_INPUT, "missing dataset /A/indices");
    make_native("ptr0.h5", ptr0, 1);
    expect_fail("ptr0.h5", NULL, CMRS_E_INPUT, "/A/indptr: indptr[0] is 1");
    make_native("ptrdec.h5", ptr_decreasing, 1);
    expect_fail("ptrdec.h5", NULL, CMRS_E_INPUT, "/A/indptr decreases at 1");
    make_native("ptrneg.h5", ptr_negative, 1);
    expect_fail("ptrneg.h5", NULL, CMRS_E_INPUT, "/A/indptr decreases at 0");
    make_native("ptrlast.h5", ptr_last, 1);
    expect_fail("ptrlast.h5", NULL, CMRS_E_INPUT, "indptr[4] is 7 but there "
                "are 8 nonzeros");
    make_native("ptrshort.h5", ptr_short, 1);
    expect_fail("ptrshort.h5", NULL, CMRS_E_INPUT, "/A/indptr has 4 entries "
                "but the shape is 4 x 4");
    make_native("idxshort.h5", idx_short, 1);
    expect_fail("idxshort.h5", NULL, CMRS_E_INPUT, "/A/indices has 7 entries "
                "but /A/data has 8");
    make_native("colrange.h5", col_range, 1);
    expect_fail("colrange.h5", NULL, CMRS_E_INPUT, "/A/indices[3] is 9, "
                "outside [0, 4) (row 1)");
    make_native("colneg.h5", col_negative, 1);
    expect_fail("colneg.h5", NULL, CMRS_E_INPUT, "/A/indices[4] is -1");
    make_native("colhuge.h5", col_huge, 1);
    expect_fail("colhuge.h5", NULL, CMRS_E_INPUT, "/A/indices holds a value "
                "outside the range of 32-bit integers");
    make_native("ptrhuge.h5", ptr_uint64_huge, 1);
    expect_fail("ptrhuge.h5", NULL, CMRS_E_INPUT, "/A/indptr holds a value "
                "outside the range of 64-bit integers");
}

static void test_values(void)
{
    make_native("nan.h5", value_nan, 1);
    expect_fail("nan.h5", NULL, CMRS_E_INPUT, "/A: value nan (row 2, column "
                "2) is not finite");
    make_native("binf.h5", b_inf, 1);
    expect_fail("binf.h5", NULL, CMRS_E_INPUT, "/b[1] is inf");
    make_native("bshort.h5", b_short, 1);
    expect_fail("bshort.h5", NULL, CMRS_E_INPUT, "/b has 3 entries but the "
                "matrix has 4 rows");
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
    H5Ldelete(f, "/A/data", H5P_DEFAULT);
    h5m_write(f, "/A/data", t, t, z, 8);
    H5Tclose(t);
}
static void string_indices(hid_t f)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    H5Ldelete(f, "/A/indices", H5P_DEFAULT);
    h5m_write(f, "/A/indices", t, t, "0000111122223333", 4);
    H5Tclose(t);
}
static void float_indices(hid_t f)
{
    double v[] = {0, 1, 1, 2, 0, 2, 2, 3};
    H5Ldelete(f, "/A/indices", H5P_DEFAULT);
    h5m_write(f, "/A/indices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 8);
}
static void odd_indices(hid_t f) /* 24-bit integers in 4 bytes */
{
    hid_t t = H5Tcopy(H5T_STD_I32LE);
    H5Tset_precision(t, 24);
    H5Ldelete(f, "/A/indices", H5P_DEFAULT);
    h5m_write(f, "/A/indices", t, H5T_NATIVE_INT64, k_idx, 8);
    H5Tclose(t);
}
static void group_data(hid_t f)
{
    H5Ldelete(f, "/A/data", H5P_DEFAULT);
    h5m_group(f, "/A/data");
}

static void test_types(void)
{
    make_native("rank.h5", wrong_rank, 1);
    expect_fail("rank.h5", NULL, CMRS_E_INPUT, "/A/data has rank 2");
    make_native("scalar.h5", scalar_b, 1);
    expect_fail("scalar.h5", NULL, CMRS_E_INPUT, "/b is a scalar");
    make_native("complex.h5", complex_data, 1);
    expect_fail("complex.h5", NULL, CMRS_E_INPUT, "/A/data has a compound "
                "type (complex numbers?)");
    make_native("strings.h5", string_indices, 1);
    expect_fail("strings.h5", NULL, CMRS_E_INPUT, "/A/indices has a string "
                "type");
    make_native("floatidx.h5", float_indices, 1);
    expect_fail("floatidx.h5", NULL, CMRS_E_INPUT, "/A/indices has a "
                "floating-point type, expected integers");
    make_native("oddidx.h5", odd_indices, 1);
    expect_fail("oddidx.h5", NULL, CMRS_E_INPUT, "/A/indices has a "
                "nonstandard 4-byte integer type");
    make_native("groupdata.h5", group_data, 1);
    expect_fail("groupdata.h5", NULL, CMRS_E_INPUT, "/A/data is a group");
}

static void shape_set(hid_t f, int64_t r, int64_t c, hid_t type, hsize_t n)
{
    int64_t shape[3] = {r, c, 1};
    H5Adelete(f, "shape"); /* f is the /A group here */
    h5m_attr_ints(f, ".", "shape", type, shape, n);
}
static void shape_missing(hid_t f) { H5Adelete_by_name(f, "/A", "shape", 0); }
static void shape_three(hid_t f)
{
    hid_t g = H5Gopen2(f, "/A", H5P_DEFAULT);
    shape_set(g, 4, 4, H5T_STD_I64LE, 3);
    H5Gclose(g);
}
static void shape_float(hid_t f)
{
    double s[2] = {4, 4};
    H5Adelete_by_name(f, "/A", "shape", 0);
    h5m_attr_f64(f, "/A", "shape", s, 2);
}
static void shape_rect(hid_t f)
{
    hid_t g = H5Gopen2(f, "/A", H5P_DEFAULT);
    shape_set(g, 4, 5, H5T_STD_I64LE, 2);
    H5Gclose(g);
}
static void shape_negative(hid_t f)
{
    hid_t g = H5Gopen2(f, "/A", H5P_DEFAULT);
    shape_set(g, -4, 4, H5T_STD_I64LE, 2);
    H5Gclose(g);
}
static void shape_wide(hid_t f)
{
    hid_t g = H5Gopen2(f, "/A", H5P_DEFAULT);
    shape_set(g, 4, (int64_t)1 << 31, H5T_STD_I64LE, 2);
    H5Gclose(g);
}
static void anndata_coo(hid_t f)
{
    h5m_attr_str(f, "/A", "encoding-type", "coo_matrix", 1);
}

static void test_shape(void)
{
    make_native("noshape.h5", shape_missing, 1);
    expect_fail("noshape.h5", NULL, CMRS_E_INPUT, "/A: missing attribute "
                "'shape'");
    make_native("shape3.h5", shape_three, 1);
    expect_fail("shape3.h5", NULL, CMRS_E_INPUT, "attribute 'shape' has 3 "
                "values, expected 2");
    make_native("shapef.h5", shape_float, 1);
    expect_fail("shapef.h5", NULL, CMRS_E_INPUT, "attribute 'shape' has a "
                "floating-point type");
    make_native("shapeneg.h5", shape_negative, 1);
    expect_fail("shapeneg.h5", NULL, CMRS_E_INPUT, "expected sizes >= 0");
    make_native("shapewide.h5", shape_wide, 1);
    expect_fail("shapewide.h5", NULL, CMRS_E_LIMIT, "at most 2147483647");
    make_native("coo.h5", anndata_coo, 1);
    expect_fail("coo.h5", NULL, CMRS_E_INPUT, "attribute 'encoding-type' is "
                "'coo_matrix', expected 'csr_matrix' or 'csc_matrix'");
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
    H5Ldelete(f, "/A/ir", H5P_DEFAULT);
    h5m_write(f, "/A/ir", H5T_STD_U64LE, H5T_NATIVE_INT64, ir, 8);
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
    H5Ldelete(f, name, H5P_DEFAULT);
    h5m_write(f, name, type, H5T_NATIVE_INT64, is_data ? vals : vec,
              is_data ? 8 : 4);
    H5Fclose(f);
}

/* Integers convert to double exactly or not at all (docs/FORMAT.md). */
static void test_lossless(void)
{
    const int64_t p53 = INT64_C(1) << 53;
    make_int_values("d53.h5", "/A/data", H5T_STD_I64LE, p53 + 1);
    expect_fail("d53.h5", NULL, CMRS_E_INPUT, "/A/data[1] = 9007199254740993 "
                "has no exact double");
    make_int_values("d53be.h5", "/A/data", H5T_STD_I64BE, -(p53 + 1));
    expect_fail("d53be.h5", NULL, CMRS_E_INPUT, "/A/data[1] = "
                "-9007199254740993 has no exact double");
    make_int_values("du64.h5", "/A/data", H5T_STD_U64LE, INT64_MAX);
    expect_fail("du64.h5", NULL, CMRS_E_INPUT, "/A/data[1] = "
                "9223372036854775807 has no exact double");
    make_int_values("b53.h5", "/b", H5T_STD_I64LE, p53 + 1);
    expect_fail("b53.h5", NULL, CMRS_E_INPUT, "/b[1] = 9007199254740993");
    make_int_values("x53.h5", "/x0", H5T_STD_I64LE, p53 + 3);
    expect_fail("x53.h5", NULL, CMRS_E_INPUT, "/x0[1] = 9007199254740995");
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
    if (!tdir_make("h5_bad")) return 1;
    test_structure();
    test_values();
    test_lossless();
    test_types();
    test_shape();
    test_huge_claims();
    test_files();
    tdir_remove();
    return check_summary();
}
