/* Every supported HDF5 layout, written here with the plain HDF5 API: native
 * CSR with int32/int64 indices and float32/float64 values, anndata (CSR and
 * CSC), h5sparse, MATLAB v7.3 (user block, uint64 jc/ir, 1 x n and n x 1
 * vectors, nonsymmetric so a missing transpose shows), other group and
 * dataset names, b = A*1 when b is absent, unsorted rows with duplicates. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "check.h"
#include "tdir.h"
#include "h5_make.h"
#include "io/system.h"

/* A must equal the reference matrix exactly, b and x0 the reference
 * vectors when expected. */
static void check_reference(const cmrs_system *s, const char *layout,
                            int with_x0, const char *what)
{
    CHECK(strcmp(s->layout, layout) == 0, "%s: layout %s, expected %s", what,
          s->layout, layout);
    CHECK(s->A.rows == 4 && s->A.cols == 4 && s->A.nnz == 8,
          "%s: shape %lld x %lld, nnz %lld", what, (long long)s->A.rows,
          (long long)s->A.cols, (long long)s->A.nnz);
    if (s->A.nnz != 8 || s->A.rows != 4) return;
    int same = 1;
    for (int i = 0; i < 5; ++i) same &= s->A.indptr[i] == k_ptr[i];
    for (int k = 0; k < 8; ++k)
        same &= s->A.indices[k] == k_idx[k] && s->A.values[k] == k_val[k];
    CHECK(same, "%s: matrix differs from the reference", what);
    CHECK(s->b && !s->b_generated && memcmp(s->b, k_b, sizeof k_b) == 0,
          "%s: b differs", what);
    if (with_x0)
        CHECK(s->x0 && memcmp(s->x0, k_x0, sizeof k_x0) == 0, "%s: x0 "
              "differs", what);
    else
        CHECK(!s->x0, "%s: x0 should be absent", what);
}

static void read_and_check(const char *file, const cmrs_read_opts *o,
                           const char *layout, int with_x0)
{
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of(file), o, &s));
    check_reference(&s, layout, with_x0, file);
    cmrs_system_free(&s);
}

static void test_native_types(void)
{
    CHECK(h5m_native(path_of("native.h5"), 1, 1) == 0, "write native.h5");
    read_and_check("native.h5", NULL, "native", 1);

    hid_t f = h5m_create(path_of("native64.h5"), 0);
    int64_t shape[2] = {4, 4};
    h5m_csr(f, "/A", H5T_STD_I64BE, H5T_STD_I64LE, H5T_IEEE_F32LE);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I32LE, shape, 2);
    h5m_write(f, "/b", H5T_IEEE_F32BE, H5T_NATIVE_DOUBLE, k_b, 4);
    H5Fclose(f);
    read_and_check("native64.h5", NULL, "native", 0);

    f = h5m_create(path_of("native32.h5"), 0);
    h5m_csr(f, "/A", H5T_STD_I32LE, H5T_STD_U32LE, H5T_IEEE_F64LE);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_U64LE, shape, 2);
    h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    H5Fclose(f);
    read_and_check("native32.h5", NULL, "native", 0);
}

static void write_anndata_csc(const char *path)
{
    hid_t f = h5m_create(path, 0);
    int64_t shape[2] = {4, 4};
    h5m_write(f, "/A/indptr", H5T_STD_I32LE, H5T_NATIVE_INT64, k_jc, 5);
    h5m_write(f, "/A/indices", H5T_STD_I32LE, H5T_NATIVE_INT64, k_ir, 8);
    h5m_write(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_cval, 8);
    h5m_attr_str(f, "/A", "encoding-type", "csc_matrix", 1);
    h5m_attr_str(f, "/A", "encoding-version", "0.1.0", 1);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    H5Fclose(f);
}

static void test_anndata_h5sparse(void)
{
    hid_t f = h5m_create(path_of("anndata.h5"), 0);
    int64_t shape[2] = {4, 4};
    h5m_csr(f, "/A", H5T_STD_I64LE, H5T_STD_I32LE, H5T_IEEE_F64LE);
    h5m_attr_str(f, "/A", "encoding-type", "csr_matrix", 1);
    h5m_attr_str(f, "/A", "encoding-version", "0.1.0", 1);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    H5Fclose(f);
    read_and_check("anndata.h5", NULL, "anndata", 0);

    write_anndata_csc(path_of("anndata_csc.h5"));
    read_and_check("anndata_csc.h5", NULL, "anndata", 0);

    f = h5m_create(path_of("h5sparse.h5"), 0);
    h5m_csr(f, "/A", H5T_STD_I64LE, H5T_STD_I64LE, H5T_IEEE_F64LE);
    h5m_attr_str(f, "/A", "h5sparse_format", "csr", 0);
    h5m_attr_ints(f, "/A", "h5sparse_shape", H5T_STD_I64LE, shape, 2);
    h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    h5m_write(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_x0, 4);
    H5Fclose(f);
    read_and_check("h5sparse.h5", NULL, "h5sparse", 1);
}

static void test_matlab(void)
{
    CHECK(h5m_matlab(path_of("matlab.mat")) == 0, "write matlab.mat");
    read_and_check("matlab.mat", NULL, "matlab", 1);
    /* The user block really is there: bytes 0..511 are not the signature. */
    FILE *fp = fopen(path_of("matlab.mat"), "rb");
    char head[8] = {0};
    CHECK(fp && fread(head, 1, 8, fp) == 8, "read matlab.mat");
    CHECK(memcmp(head, "\x89HDF", 4) != 0, "user block missing");
    if (fp) fclose(fp);

    /* Rectangular: columns come from len(jc) - 1, rows from MATLAB_sparse. */
    hid_t f = h5m_create(path_of("rect.mat"), 512);
    int64_t jc[] = {0, 1, 1, 2}, ir[] = {1, 0}, rows = 2;
    double v[] = {7, 9};
    h5m_write(f, "/A/jc", H5T_STD_U64LE, H5T_NATIVE_INT64, jc, 4);
    h5m_write(f, "/A/ir", H5T_STD_U64LE, H5T_NATIVE_INT64, ir, 2);
    h5m_write(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 2);
    h5m_attr_ints(f, "/A", "MATLAB_sparse", H5T_STD_U64LE, &rows, 0);
    H5Fclose(f);
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of("rect.mat"), NULL, &s));
    CHECK(s.A.rows == 2 && s.A.cols == 3 && s.A.nnz == 2 &&
          s.A.indptr[1] == 1 && s.A.indices[0] == 2 && s.A.values[0] == 9 &&
          s.A.indices[1] == 0 && s.A.values[1] == 7, "rect.mat read wrong");
    CHECK(!s.b, "rect.mat: the reader takes no b");
    CHECK_OK(cmrs_system_rhs_ones(&s, "rect.mat"));
    CHECK(s.b_generated && s.b[0] == 9 && s.b[1] == 7, "rect.mat: b = A*1");
    cmrs_system_free(&s);
}

static void test_names_and_generated_b(void)
{
    hid_t f = h5m_create(path_of("names.h5"), 0);
    int64_t shape[2] = {4, 4};
    h5m_csr(f, "/sys/M", H5T_STD_I64LE, H5T_STD_I32LE, H5T_IEEE_F64LE);
    h5m_attr_ints(f, "/sys/M", "shape", H5T_STD_I64LE, shape, 2);
    h5m_write(f, "/sys/rhs", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    h5m_write(f, "/guess", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_x0, 4);
    H5Fclose(f);
    cmrs_read_opts o = {.matrix = "sys/M", .rhs = "/sys/rhs", .x0 = "guess"};
    read_and_check("names.h5", &o, "native", 1);

    CHECK(h5m_native(path_of("nob.h5"), 0, 0) == 0, "write nob.h5");
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of("nob.h5"), NULL, &s));
    double want[] = {5, 7, 9, 15}; /* row sums */
    CHECK(!s.b, "nob.h5: the reader takes no b");
    CHECK_OK(cmrs_system_rhs_ones(&s, "nob.h5"));
    CHECK(s.b_generated && s.b && memcmp(s.b, want, sizeof want) == 0,
          "b = A*1 not generated");
    cmrs_system_free(&s);
}

static void test_unsorted_and_empty(void)
{
    /* Row 0 lists columns 1, 0, 1: sorted and summed to (0:4, 1:3). */
    hid_t f = h5m_create(path_of("unsorted.h5"), 0);
    int64_t shape[2] = {2, 2}, ptr[] = {0, 3, 4}, idx[] = {1, 0, 1, 1};
    double val[] = {1, 4, 2, 5};
    h5m_write(f, "/A/indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, ptr, 3);
    h5m_write(f, "/A/indices", H5T_STD_I64LE, H5T_NATIVE_INT64, idx, 4);
    h5m_write(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, val, 4);
    h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    H5Fclose(f);
    cmrs_system s;
    CHECK_OK(cmrs_system_read(path_of("unsorted.h5"), NULL, &s));
    CHECK(s.A.nnz == 3 && s.A.indptr[1] == 2 && s.A.indices[0] == 0 &&
          s.A.values[0] == 4 && s.A.values[1] == 3 && s.A.values[2] == 5,
          "unsorted rows not sorted and summed");
    cmrs_system_free(&s);

    /* MATLAB all-zero sparse: jc only, no ir/data. */
    f = h5m_create(path_of("zero.mat"), 512);
    int64_t jc[] = {0, 0, 0}, rows = 2;
    h5m_write(f, "/A/jc", H5T_STD_U64LE, H5T_NATIVE_INT64, jc, 3);
    h5m_attr_ints(f, "/A", "MATLAB_sparse", H5T_STD_U64LE, &rows, 0);
    H5Fclose(f);
    CHECK_OK(cmrs_system_read(path_of("zero.mat"), NULL, &s));
    CHECK(s.A.rows == 2 && s.A.cols == 2 && s.A.nnz == 0 && !s.b,
          "empty MATLAB matrix");
    cmrs_system_free(&s);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return TDIR_MAIN("h5_layouts", test_native_types, test_anndata_h5sparse,
                     test_matlab, test_names_and_generated_b,
                     test_unsorted_and_empty);
}
