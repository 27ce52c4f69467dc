/* h5_hostile DIR: writes the HDF5 files of the hostile-input suite
 * (test_hostile.sh) into DIR, with the plain HDF5 C API (tests/io/h5_make.h),
 * independently of cmrs's own writer. Each file is a small good system
 * spoiled in one way; the table at the end names them. Exit 0 when every
 * file was written. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/h5_make.h"

/* The base system: 4 x 4 SPD tridiagonal (4 on the diagonal, -1 beside). */
static const int64_t g_ptr[] = {0, 2, 5, 8, 10};
static const int64_t g_idx[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
static const double g_val[] = {4, -1, -1, 4, -1, -1, 4, -1, -1, 4};
static const double g_b[] = {3, 2, 2, 3};
static const double g_x0[] = {0, 0, 0, 0};

static int g_rc;
#define W(x) (g_rc |= ((x) < 0) ? 1 : 0)

static void del(hid_t f, const char *name) { W(H5Ldelete(f, name, H5P_DEFAULT)); }

/* Replace dataset `name` by n values of file type `type` (int64 or double
 * in memory, by the type's class). */
static void put_i(hid_t f, const char *name, hid_t type, const int64_t *v,
                  hsize_t n)
{
    if (H5Lexists(f, name, H5P_DEFAULT) > 0) del(f, name);
    W(h5m_write(f, name, type, H5T_NATIVE_INT64, v, n));
}
static void put_d(hid_t f, const char *name, const double *v, hsize_t n)
{
    if (H5Lexists(f, name, H5P_DEFAULT) > 0) del(f, name);
    W(h5m_write(f, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n));
}
/* Replace dataset `name` by n fixed-width strings of `width` bytes each
 * (`text`: their bytes back to back). */
static void put_s(hid_t f, const char *name, size_t width, const char *text,
                  hsize_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, width);
    if (H5Lexists(f, name, H5P_DEFAULT) > 0) del(f, name);
    W(h5m_write(f, name, t, t, text, n));
    H5Tclose(t);
}
static void put_nd(hid_t f, const char *name, hid_t type, hid_t mem,
                   const void *v, int rank, hsize_t d0, hsize_t d1)
{
    hsize_t dims[2] = {d0, d1};
    if (H5Lexists(f, name, H5P_DEFAULT) > 0) del(f, name);
    W(h5m_write_nd(f, name, type, mem, v, rank, dims));
}
static void shape(hid_t f, hid_t type, int64_t r, int64_t c, hsize_t count)
{
    int64_t s[3] = {r, c, 1};
    if (H5Aexists_by_name(f, "/A", "shape", H5P_DEFAULT) > 0)
        W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT));
    W(h5m_attr_ints(f, "/A", "shape", type, s, count));
}

/* A chunked, deflate-compressed 1-D dataset declaring n elements, none
 * written: a file of a few KB declaring gigabytes. */
static void huge(hid_t f, const char *name, hid_t type, hsize_t n)
{
    W(h5m_write_sparse(f, name, type, n, -1, 0));
}
/* A huge system: no data, only the declarations (indptr's end included). */
static void huge_system(hid_t f, int64_t rows, int64_t cols, int64_t nnz)
{
    del(f, "/A");
    del(f, "/b");
    del(f, "/x0");
    /* indptr[rows] = nnz, so that what a reader checks before allocating
     * (the shape, the lengths, indptr's first and last entries) is
     * consistent: only the memory estimate can refuse the file. */
    W(h5m_write_sparse(f, "/A/indptr", H5T_STD_I64LE, (hsize_t)rows + 1, rows,
                       nnz));
    huge(f, "/A/indices", H5T_STD_I32LE, (hsize_t)nnz);
    huge(f, "/A/data", H5T_IEEE_F64LE, (hsize_t)nnz);
    huge(f, "/b", H5T_IEEE_F64LE, (hsize_t)rows);
    int64_t s[2] = {rows, cols};
    W(h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, s, 2));
}

/* ---- the spoilers, one per file ---- */
typedef void (*spoil_fn)(hid_t f);

/* structure */
static void no_A(hid_t f) { del(f, "/A"); }
static void A_dataset(hid_t f) { del(f, "/A"); put_d(f, "/A", g_val, 10); }
static void no_data(hid_t f) { del(f, "/A/data"); }
static void no_indices(hid_t f) { del(f, "/A/indices"); }
static void no_indptr(hid_t f) { del(f, "/A/indptr"); }
static void data_group(hid_t f) { del(f, "/A/data"); h5m_group(f, "/A/data"); }
static void b_group(hid_t f) { del(f, "/b"); h5m_group(f, "/b/x"); }
static void A_empty(hid_t f) { no_A(f); h5m_group(f, "/A"); }
static void A_softlink(hid_t f) /* /A/data -> itself: a link loop */
{
    del(f, "/A/data");
    W(H5Lcreate_soft("/A/data", f, "/A/data", H5P_DEFAULT, H5P_DEFAULT));
}
static void A_extlink(hid_t f) /* /A/data in a file that does not exist */
{
    del(f, "/A/data");
    W(H5Lcreate_external("no_such_file.h5", "/A/data", f, "/A/data",
                         H5P_DEFAULT, H5P_DEFAULT));
}

/* the shape attribute */
static void shape_missing(hid_t f) { W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT)); }
static void shape_three(hid_t f) { shape(f, H5T_STD_I64LE, 4, 4, 3); }
static void shape_one(hid_t f) { shape(f, H5T_STD_I64LE, 4, 4, 1); }
static void shape_scalar(hid_t f) { shape(f, H5T_STD_I64LE, 4, 4, 0); }
static void shape_float(hid_t f)
{
    double s[2] = {4, 4};
    W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT));
    W(h5m_attr_f64(f, "/A", "shape", s, 2));
}
static void shape_string(hid_t f)
{
    W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT));
    W(h5m_attr_str(f, "/A", "shape", "(4, 4)", 1));
}
static void shape_negative(hid_t f) { shape(f, H5T_STD_I64LE, -4, 4, 2); }
static void shape_wide(hid_t f) { shape(f, H5T_STD_I64LE, 4, (int64_t)1 << 31, 2); }
static void shape_rect(hid_t f) { shape(f, H5T_STD_I64LE, 4, 5, 2); }
static void shape_rows5(hid_t f) { shape(f, H5T_STD_I64LE, 5, 5, 2); }
static void shape_cols3(hid_t f) { shape(f, H5T_STD_I64LE, 4, 3, 2); }
static void shape_zero(hid_t f) { shape(f, H5T_STD_I64LE, 0, 0, 2); }

/* dtypes */
static void data_string(hid_t f)
{
    put_s(f, "/A/data", 4, "4   -1  -1  4   -1  -1  4   -1  -1  4   ", 10);
}
static void data_complex(hid_t f)
{
    double z[20] = {4, 0, -1, 0, -1, 0, 4, 0, -1, 0, -1, 0, 4, 0, -1, 0, -1, 0, 4, 0};
    hid_t t = h5m_complex_type();
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, z, 10));
    H5Tclose(t);
}
/* numpy bool as h5py stores it: an int8 enum FALSE = 0, TRUE = 1. */
static hid_t bool_type(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t v = 0;
    H5Tenum_insert(t, "FALSE", &v);
    v = 1;
    H5Tenum_insert(t, "TRUE", &v);
    return t;
}
static void data_bool(hid_t f)
{
    int8_t v[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    hid_t t = bool_type();
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, v, 10));
    H5Tclose(t);
}
static void idx_bool(hid_t f)
{
    int8_t v[10] = {0, 1, 0, 1, 1, 1, 1, 1, 1, 1};
    hid_t t = bool_type();
    del(f, "/A/indices");
    W(h5m_write(f, "/A/indices", t, t, v, 10));
    H5Tclose(t);
}
/* numpy float16 as h5py stores it (HDF5 1.10 has no predefined type). */
static void data_f16(hid_t f)
{
    static const uint16_t h[10] = {0x4400, 0xbc00, 0xbc00, 0x4400, 0xbc00,
                                   0xbc00, 0x4400, 0xbc00, 0xbc00, 0x4400};
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(t, 15, 10, 5, 0, 10);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 15);
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, h, 10));
    H5Tclose(t);
}
static void data_opaque(hid_t f)
{
    hid_t t = H5Tcreate(H5T_OPAQUE, 8);
    H5Tset_tag(t, "raw doubles");
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, g_val, 10));
    H5Tclose(t);
}
static void data_vlen(hid_t f)
{
    hvl_t v[10];
    for (int i = 0; i < 10; ++i) v[i] = (hvl_t){1, (void *)&g_val[i]};
    hid_t t = H5Tvlen_create(H5T_NATIVE_DOUBLE);
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, v, 10));
    H5Tclose(t);
}
static void data_array(hid_t f) /* each element an array of 2 doubles */
{
    double v[20] = {0};
    hsize_t two = 2;
    hid_t t = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &two);
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", t, t, v, 10));
    H5Tclose(t);
}
static void data_u64_max(hid_t f) /* 2^64-1 does not convert to double exactly */
{
    uint64_t v[10] = {4, 1, 1, 4, 1, 1, 4, 1, 1, UINT64_MAX};
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", H5T_STD_U64LE, H5T_NATIVE_UINT64, v, 10));
}
static void data_i64_2p53p1(hid_t f) /* the case: 2^53+1 */
{
    int64_t v[10] = {4, -1, -1, 4, -1, -1, 4, -1, -1, ((int64_t)1 << 53) + 1};
    put_i(f, "/A/data", H5T_STD_I64LE, v, 10);
}
static void data_u64_ok(hid_t f) /* small uint64 values: accepted */
{
    int64_t v[10] = {4, 1, 1, 4, 1, 1, 4, 1, 1, 4};
    put_i(f, "/A/data", H5T_STD_U64LE, v, 10);
}
static void idx_float(hid_t f)
{
    double v[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    put_d(f, "/A/indices", v, 10);
}
static void idx_string(hid_t f)
{
    put_s(f, "/A/indices", 2, "0 1 0 1 2 1 2 3 2 3 ", 10);
}
static void idx_complex(hid_t f)
{
    double z[20] = {0};
    hid_t t = h5m_complex_type();
    del(f, "/A/indices");
    W(h5m_write(f, "/A/indices", t, t, z, 10));
    H5Tclose(t);
}
static void idx_24bit(hid_t f)
{
    hid_t t = H5Tcopy(H5T_STD_I32LE);
    H5Tset_precision(t, 24);
    del(f, "/A/indices");
    W(h5m_write(f, "/A/indices", t, H5T_NATIVE_INT64, g_idx, 10));
    H5Tclose(t);
}
static void ptr_float(hid_t f)
{
    double v[5] = {0, 2, 5, 8, 10};
    put_d(f, "/A/indptr", v, 5);
}
static void ptr_string(hid_t f)
{
    put_s(f, "/A/indptr", 3, "0  2  5  8  10 ", 5);
}
static void b_string(hid_t f)
{
    put_s(f, "/b", 2, "3 2 2 3 ", 4);
}
static void b_complex(hid_t f)
{
    double z[8] = {3, 0, 2, 0, 2, 0, 3, 0};
    hid_t t = h5m_complex_type();
    del(f, "/b");
    W(h5m_write(f, "/b", t, t, z, 4));
    H5Tclose(t);
}
static void b_bool(hid_t f)
{
    int8_t v[4] = {1, 1, 1, 1};
    hid_t t = bool_type();
    del(f, "/b");
    W(h5m_write(f, "/b", t, t, v, 4));
    H5Tclose(t);
}

/* ranks */
static void data_rank2(hid_t f)
{
    put_nd(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_val, 2, 2, 5);
}
static void idx_rank2(hid_t f)
{
    put_nd(f, "/A/indices", H5T_STD_I32LE, H5T_NATIVE_INT64, g_idx, 2, 5, 2);
}
static void ptr_scalar(hid_t f)
{
    put_nd(f, "/A/indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, g_ptr, 0, 0, 0);
}
static void data_scalar(hid_t f)
{
    put_nd(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_val, 0, 0, 0);
}
static void b_rank2(hid_t f) /* (2, 2): neither (1, n) nor (n, 1) */
{
    put_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_b, 2, 2, 2);
}
static void b_scalar(hid_t f)
{
    put_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_b, 0, 0, 0);
}
static void b_rank3(hid_t f)
{
    hsize_t dims[3] = {1, 4, 1};
    del(f, "/b");
    hid_t s = H5Screate_simple(3, dims, NULL);
    hid_t d = H5Dcreate2(f, "/b", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    W(d);
    W(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, g_b));
    H5Dclose(d);
    H5Sclose(s);
}
static void data_null_space(hid_t f) /* H5S_NULL: a dataset with no extent */
{
    del(f, "/A/data");
    hid_t s = H5Screate(H5S_NULL);
    hid_t d = H5Dcreate2(f, "/A/data", H5T_IEEE_F64LE, s, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    W(d);
    H5Dclose(d);
    H5Sclose(s);
}

/* lengths that disagree */
static void ptr_short(hid_t f) { put_i(f, "/A/indptr", H5T_STD_I64LE, g_ptr, 4); }
static void ptr_long(hid_t f)
{
    int64_t v[6] = {0, 2, 5, 8, 10, 10};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 6);
}
static void ptr_empty(hid_t f) { put_i(f, "/A/indptr", H5T_STD_I64LE, g_ptr, 0); }
static void idx_short(hid_t f) { put_i(f, "/A/indices", H5T_STD_I32LE, g_idx, 9); }
static void idx_long(hid_t f)
{
    int64_t v[11] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 0};
    put_i(f, "/A/indices", H5T_STD_I32LE, v, 11);
}
static void data_short(hid_t f) { put_d(f, "/A/data", g_val, 9); }
static void data_long(hid_t f)
{
    double v[11] = {4, -1, -1, 4, -1, -1, 4, -1, -1, 4, 7};
    put_d(f, "/A/data", v, 11);
}
static void data_empty(hid_t f) { put_d(f, "/A/data", g_val, 0); }

/* indptr */
static void ptr_start1(hid_t f)
{
    int64_t v[5] = {1, 2, 5, 8, 10};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}
static void ptr_decreasing(hid_t f)
{
    int64_t v[5] = {0, 5, 2, 8, 10};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}
static void ptr_end_low(hid_t f)
{
    int64_t v[5] = {0, 2, 5, 8, 9};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}
static void ptr_end_high(hid_t f)
{
    int64_t v[5] = {0, 2, 5, 8, 11};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}
static void ptr_negative(hid_t f)
{
    int64_t v[5] = {0, -2, 5, 8, 10};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}
static void ptr_u64_max(hid_t f)
{
    uint64_t v[5] = {0, 2, 5, 8, UINT64_MAX};
    del(f, "/A/indptr");
    W(h5m_write(f, "/A/indptr", H5T_STD_U64LE, H5T_NATIVE_UINT64, v, 5));
}
static void ptr_i64_max(hid_t f)
{
    int64_t v[5] = {0, 2, 5, 8, INT64_MAX};
    put_i(f, "/A/indptr", H5T_STD_I64LE, v, 5);
}

/* column indices */
static void idx_negative(hid_t f)
{
    int64_t v[10] = {0, 1, 0, 1, 2, 1, -1, 3, 2, 3};
    put_i(f, "/A/indices", H5T_STD_I32LE, v, 10);
}
static void idx_eq_n(hid_t f)
{
    int64_t v[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 4};
    put_i(f, "/A/indices", H5T_STD_I32LE, v, 10);
}
static void idx_int_max(hid_t f)
{
    int64_t v[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, INT32_MAX};
    put_i(f, "/A/indices", H5T_STD_I32LE, v, 10);
}
static void idx_2p40(hid_t f)
{
    int64_t v[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, (int64_t)1 << 40};
    put_i(f, "/A/indices", H5T_STD_I64LE, v, 10);
}
static void idx_u32_wrap(hid_t f) /* 2^32-1: -1 if read as int32 */
{
    int64_t v[10] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 4294967295LL};
    put_i(f, "/A/indices", H5T_STD_U32LE, v, 10);
}
/* accepted (FORMAT.md): unsorted rows and duplicates (summed) */
static void idx_unsorted(hid_t f)
{
    int64_t i[10] = {1, 0, 2, 1, 0, 3, 2, 1, 3, 2};
    double v[10] = {-1, 4, -1, 4, -1, -1, 4, -1, 4, -1};
    put_i(f, "/A/indices", H5T_STD_I32LE, i, 10);
    put_d(f, "/A/data", v, 10);
}
static void idx_duplicate(hid_t f) /* row 0: (0, 0) stored twice as 2 + 2 */
{
    int64_t p[5] = {0, 3, 6, 9, 11};
    int64_t i[11] = {0, 0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    double v[11] = {2, 2, -1, -1, 4, -1, -1, 4, -1, -1, 4};
    put_i(f, "/A/indptr", H5T_STD_I64LE, p, 5);
    put_i(f, "/A/indices", H5T_STD_I32LE, i, 11);
    put_d(f, "/A/data", v, 11);
}

/* values */
static void set_val(hid_t f, int at, double x)
{
    double v[10];
    memcpy(v, g_val, sizeof v);
    v[at] = x;
    put_d(f, "/A/data", v, 10);
}
static void A_nan(hid_t f) { set_val(f, 4, NAN); }
static void A_inf(hid_t f) { set_val(f, 3, INFINITY); }
static void A_ninf(hid_t f) { set_val(f, 9, -INFINITY); }
static void A_f32_nan(hid_t f)
{
    float v[10] = {4, -1, -1, 4, -1, -1, NAN, -1, -1, 4};
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v, 10));
}
static void set_vec(hid_t f, const char *name, int at, double x, hsize_t n)
{
    double v[8] = {3, 2, 2, 3, 1, 1, 1, 1};
    if (at >= 0) v[at] = x;
    put_d(f, name, v, n);
}
static void b_nan(hid_t f) { set_vec(f, "/b", 2, NAN, 4); }
static void b_inf(hid_t f) { set_vec(f, "/b", 0, INFINITY, 4); }
static void b_ninf(hid_t f) { set_vec(f, "/b", 3, -INFINITY, 4); }
static void b_short(hid_t f) { set_vec(f, "/b", -1, 0, 3); }
static void b_long(hid_t f) { set_vec(f, "/b", -1, 0, 5); }
static void b_empty(hid_t f) { set_vec(f, "/b", -1, 0, 0); }
static void b_row_wrong(hid_t f) /* (1, 3) */
{
    put_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_b, 2, 1, 3);
}
static void x0_nan(hid_t f) { set_vec(f, "/x0", 1, NAN, 4); }
static void x0_inf(hid_t f) { set_vec(f, "/x0", 3, INFINITY, 4); }
static void x0_short(hid_t f) { set_vec(f, "/x0", -1, 0, 2); }
static void x0_long(hid_t f) { set_vec(f, "/x0", -1, 0, 8); }
static void x0_string(hid_t f)
{
    put_s(f, "/x0", 2, "0 0 0 0 ", 4);
}

/* systems a solver must refuse */
static void empty_row(hid_t f) /* symmetric; row (and column) 2 empty */
{
    int64_t p[5] = {0, 2, 4, 4, 5};
    int64_t i[5] = {0, 1, 0, 1, 3};
    double v[5] = {4, -1, -1, 4, 4};
    put_i(f, "/A/indptr", H5T_STD_I64LE, p, 5);
    put_i(f, "/A/indices", H5T_STD_I32LE, i, 5);
    put_d(f, "/A/data", v, 5);
}
static void all_zero(hid_t f) /* nnz 0 */
{
    int64_t p[5] = {0, 0, 0, 0, 0};
    put_i(f, "/A/indptr", H5T_STD_I64LE, p, 5);
    put_i(f, "/A/indices", H5T_STD_I32LE, p, 0);
    put_d(f, "/A/data", g_val, 0);
}

/* declared sizes far beyond the file */
static void huge_not_square(hid_t f) /* the case: 1.5e9 x 4 */
{
    huge_system(f, 1500000000LL, 4, 6000000000LL);
}
static void huge_consistent(hid_t f) /* 2e9 x 2e9, 1e11 nonzeros: TBs */
{
    huge_system(f, 2000000000LL, 2000000000LL, 100000000000LL);
}
static void big_consistent(hid_t f) /* 1e6 x 1e6, 5e6 nonzeros: ~70 MB */
{
    huge_system(f, 1000000, 1000000, 5000000);
}

/* MATLAB v7.3 (CSC, user block) */
static void mat_complex(hid_t f) { data_complex(f); }
static void mat_ir_range(hid_t f)
{
    int64_t ir[8] = {0, 2, 0, 1, 1, 2, 3, 4};
    del(f, "/A/ir");
    W(h5m_write(f, "/A/ir", H5T_STD_U64LE, H5T_NATIVE_INT64, ir, 8));
}
static void mat_jc_decreasing(hid_t f)
{
    int64_t jc[5] = {0, 4, 2, 7, 8};
    del(f, "/A/jc");
    W(h5m_write(f, "/A/jc", H5T_STD_U64LE, H5T_NATIVE_INT64, jc, 5));
}
static void mat_rows_huge(hid_t f)
{
    int64_t rows = 4000000000000LL;
    W(H5Adelete_by_name(f, "/A", "MATLAB_sparse", H5P_DEFAULT));
    W(h5m_attr_ints(f, "/A", "MATLAB_sparse", H5T_STD_U64LE, &rows, 0));
}
static void mat_sparse_string(hid_t f)
{
    W(H5Adelete_by_name(f, "/A", "MATLAB_sparse", H5P_DEFAULT));
    W(h5m_attr_str(f, "/A", "MATLAB_sparse", "4", 1));
}
static void mat_no_jc(hid_t f) { del(f, "/A/jc"); }

/* anndata / h5sparse spellings */
static void ann_coo(hid_t f)
{
    W(h5m_attr_str(f, "/A", "encoding-type", "coo_matrix", 1));
}
static void ann_int(hid_t f)
{
    int64_t one = 1;
    W(h5m_attr_ints(f, "/A", "encoding-type", H5T_STD_I64LE, &one, 0));
}
static void h5s_bad_format(hid_t f)
{
    int64_t s[2] = {4, 4};
    W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT));
    W(h5m_attr_str(f, "/A", "h5sparse_format", "bsr", 1));
    W(h5m_attr_ints(f, "/A", "h5sparse_shape", H5T_STD_I64LE, s, 2));
}
static void h5s_no_shape(hid_t f)
{
    W(H5Adelete_by_name(f, "/A", "shape", H5P_DEFAULT));
    W(h5m_attr_str(f, "/A", "h5sparse_format", "csr", 1));
}

struct kind {
    const char *file;
    spoil_fn spoil;
    int matlab; /* base: the MATLAB file of h5_make.h */
};

static const struct kind k_files[] = {
    {"good.h5", NULL, 0},
    {"no_A.h5", no_A, 0}, {"A_dataset.h5", A_dataset, 0},
    {"A_empty.h5", A_empty, 0}, {"no_data.h5", no_data, 0},
    {"no_indices.h5", no_indices, 0}, {"no_indptr.h5", no_indptr, 0},
    {"data_group.h5", data_group, 0}, {"b_group.h5", b_group, 0},
    {"A_softloop.h5", A_softlink, 0}, {"A_extlink.h5", A_extlink, 0},
    {"shape_missing.h5", shape_missing, 0}, {"shape_three.h5", shape_three, 0},
    {"shape_one.h5", shape_one, 0}, {"shape_scalar.h5", shape_scalar, 0},
    {"shape_float.h5", shape_float, 0}, {"shape_string.h5", shape_string, 0},
    {"shape_negative.h5", shape_negative, 0}, {"shape_wide.h5", shape_wide, 0},
    {"shape_rect.h5", shape_rect, 0}, {"shape_rows5.h5", shape_rows5, 0},
    {"shape_cols3.h5", shape_cols3, 0}, {"shape_zero.h5", shape_zero, 0},
    {"data_string.h5", data_string, 0}, {"data_complex.h5", data_complex, 0},
    {"data_bool.h5", data_bool, 0}, {"data_f16.h5", data_f16, 0},
    {"data_opaque.h5", data_opaque, 0}, {"data_vlen.h5", data_vlen, 0},
    {"data_array.h5", data_array, 0}, {"data_u64_max.h5", data_u64_max, 0},
    {"data_i64_2p53p1.h5", data_i64_2p53p1, 0}, {"data_u64_ok.h5", data_u64_ok, 0},
    {"idx_float.h5", idx_float, 0}, {"idx_string.h5", idx_string, 0},
    {"idx_complex.h5", idx_complex, 0}, {"idx_bool.h5", idx_bool, 0},
    {"idx_24bit.h5", idx_24bit, 0}, {"ptr_float.h5", ptr_float, 0},
    {"ptr_string.h5", ptr_string, 0}, {"b_string.h5", b_string, 0},
    {"b_complex.h5", b_complex, 0}, {"b_bool.h5", b_bool, 0},
    {"data_rank2.h5", data_rank2, 0}, {"idx_rank2.h5", idx_rank2, 0},
    {"ptr_scalar.h5", ptr_scalar, 0}, {"data_scalar.h5", data_scalar, 0},
    {"b_rank2.h5", b_rank2, 0}, {"b_scalar.h5", b_scalar, 0},
    {"b_rank3.h5", b_rank3, 0}, {"data_null.h5", data_null_space, 0},
    {"ptr_short.h5", ptr_short, 0}, {"ptr_long.h5", ptr_long, 0},
    {"ptr_empty.h5", ptr_empty, 0}, {"idx_short.h5", idx_short, 0},
    {"idx_long.h5", idx_long, 0}, {"data_short.h5", data_short, 0},
    {"data_long.h5", data_long, 0}, {"data_empty.h5", data_empty, 0},
    {"ptr_start1.h5", ptr_start1, 0}, {"ptr_decreasing.h5", ptr_decreasing, 0},
    {"ptr_end_low.h5", ptr_end_low, 0}, {"ptr_end_high.h5", ptr_end_high, 0},
    {"ptr_negative.h5", ptr_negative, 0}, {"ptr_u64_max.h5", ptr_u64_max, 0},
    {"ptr_i64_max.h5", ptr_i64_max, 0},
    {"idx_negative.h5", idx_negative, 0}, {"idx_eq_n.h5", idx_eq_n, 0},
    {"idx_int_max.h5", idx_int_max, 0}, {"idx_2p40.h5", idx_2p40, 0},
    {"idx_u32_wrap.h5", idx_u32_wrap, 0},
    {"idx_unsorted.h5", idx_unsorted, 0}, {"idx_duplicate.h5", idx_duplicate, 0},
    {"A_nan.h5", A_nan, 0}, {"A_inf.h5", A_inf, 0}, {"A_ninf.h5", A_ninf, 0},
    {"A_f32_nan.h5", A_f32_nan, 0},
    {"b_nan.h5", b_nan, 0}, {"b_inf.h5", b_inf, 0}, {"b_ninf.h5", b_ninf, 0},
    {"b_short.h5", b_short, 0}, {"b_long.h5", b_long, 0},
    {"b_empty.h5", b_empty, 0}, {"b_row_wrong.h5", b_row_wrong, 0},
    {"x0_nan.h5", x0_nan, 0}, {"x0_inf.h5", x0_inf, 0},
    {"x0_short.h5", x0_short, 0}, {"x0_long.h5", x0_long, 0},
    {"x0_string.h5", x0_string, 0},
    {"empty_row.h5", empty_row, 0}, {"all_zero.h5", all_zero, 0},
    {"huge_not_square.h5", huge_not_square, 0},
    {"huge_consistent.h5", huge_consistent, 0},
    {"big_consistent.h5", big_consistent, 0},
    {"good.mat", NULL, 1},
    {"mat_complex.mat", mat_complex, 1}, {"mat_ir_range.mat", mat_ir_range, 1},
    {"mat_jc_decreasing.mat", mat_jc_decreasing, 1},
    {"mat_rows_huge.mat", mat_rows_huge, 1},
    {"mat_sparse_string.mat", mat_sparse_string, 1},
    {"mat_no_jc.mat", mat_no_jc, 1},
    {"ann_coo.h5", ann_coo, 0}, {"ann_int.h5", ann_int, 0},
    {"h5s_bad_format.h5", h5s_bad_format, 0}, {"h5s_no_shape.h5", h5s_no_shape, 0},
};

static int write_base(const char *path)
{
    hid_t f = h5m_create(path, 0);
    if (f < 0) return -1;
    int64_t s[2] = {4, 4};
    int rc = h5m_write(f, "/A/indptr", H5T_STD_I64LE, H5T_NATIVE_INT64, g_ptr, 5);
    rc |= h5m_write(f, "/A/indices", H5T_STD_I32LE, H5T_NATIVE_INT64, g_idx, 10);
    rc |= h5m_write(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_val, 10);
    rc |= h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, s, 2);
    rc |= h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_b, 4);
    rc |= h5m_write(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g_x0, 4);
    H5Fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: h5_hostile DIR\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int failed = 0;
    for (size_t i = 0; i < sizeof k_files / sizeof *k_files; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], k_files[i].file);
        g_rc = 0;
        int rc = k_files[i].matlab ? h5m_matlab(path) : write_base(path);
        if (rc == 0 && k_files[i].spoil) {
            hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
            if (f < 0) rc = -1;
            else {
                k_files[i].spoil(f);
                H5Fclose(f);
            }
        }
        if (rc != 0 || g_rc != 0) {
            fprintf(stderr, "h5_hostile: cannot write %s\n", path);
            failed = 1;
        }
    }
    return failed;
}
