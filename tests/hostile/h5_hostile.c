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
/* put_i / put_d of the values listed (their count is n). */
#define PUT_INTS(f, name, type, ...)                                        \
    put_i(f, name, type, (const int64_t[]){__VA_ARGS__},                    \
          sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define PUT_REALS(f, name, ...)                                             \
    put_d(f, name, (const double[]){__VA_ARGS__},                           \
          sizeof((double[]){__VA_ARGS__}) / sizeof(double))
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
/* Replace dataset `name` by n values of type t, the same in memory (t
 * closed here). */
static void put_as(hid_t f, const char *name, hid_t t, const void *v,
                   hsize_t n)
{
    del(f, name);
    W(h5m_write(f, name, t, t, v, n));
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
    put_as(f, "/A/data", h5m_complex_type(), z, 10);
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
    put_as(f, "/A/data", bool_type(), v, 10);
}
static void idx_bool(hid_t f)
{
    int8_t v[10] = {0, 1, 0, 1, 1, 1, 1, 1, 1, 1};
    put_as(f, "/A/indices", bool_type(), v, 10);
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
    put_as(f, "/A/data", t, h, 10);
}
static void data_opaque(hid_t f)
{
    hid_t t = H5Tcreate(H5T_OPAQUE, 8);
    H5Tset_tag(t, "raw doubles");
    put_as(f, "/A/data", t, g_val, 10);
}
static void data_vlen(hid_t f)
{
    hvl_t v[10];
    for (int i = 0; i < 10; ++i) v[i] = (hvl_t){1, (void *)&g_val[i]};
    hid_t t = H5Tvlen_create(H5T_NATIVE_DOUBLE);
    put_as(f, "/A/data", t, v, 10);
}
static void data_array(hid_t f) /* each element an array of 2 doubles */
{
    double v[20] = {0};
    hsize_t two = 2;
    hid_t t = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &two);
    put_as(f, "/A/data", t, v, 10);
}
static void data_u64_max(hid_t f) /* 2^64-1 does not convert to double exactly */
{
    uint64_t v[10] = {4, 1, 1, 4, 1, 1, 4, 1, 1, UINT64_MAX};
    del(f, "/A/data");
    W(h5m_write(f, "/A/data", H5T_STD_U64LE, H5T_NATIVE_UINT64, v, 10));
}
static void data_i64_2p53p1(hid_t f) /* the case: 2^53+1 */
{
    PUT_INTS(f, "/A/data", H5T_STD_I64LE, 4, -1, -1, 4, -1, -1, 4, -1, -1,
             ((int64_t)1 << 53) + 1);
}
static void data_u64_ok(hid_t f) /* small uint64 values: accepted */
{
    PUT_INTS(f, "/A/data", H5T_STD_U64LE, 4, 1, 1, 4, 1, 1, 4, 1, 1, 4);
}
static void idx_float(hid_t f)
{
    PUT_REALS(f, "/A/indices", 0, 1, 0, 1, 2, 1, 2, 3, 2, 3);
}
static void idx_string(hid_t f)
{
    put_s(f, "/A/indices", 2, "0 1 0 1 2 1 2 3 2 3 ", 10);
}
static void idx_complex(hid_t f)
{
    double z[20] = {0};
    put_as(f, "/A/indices", h5m_complex_type(), z, 10);
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
    PUT_REALS(f, "/A/indptr", 0, 2, 5, 8, 10);
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
    put_as(f, "/b", h5m_complex_type(), z, 4);
}
static void b_bool(hid_t f)
{
    int8_t v[4] = {1, 1, 1, 1};
    put_as(f, "/b", bool_type(), v, 4);
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
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, 2, 5, 8, 10, 10);
}
static void ptr_empty(hid_t f) { put_i(f, "/A/indptr", H5T_STD_I64LE, g_ptr, 0); }
static void idx_short(hid_t f) { put_i(f, "/A/indices", H5T_STD_I32LE, g_idx, 9); }
static void idx_long(hid_t f)
{
    PUT_INTS(f, "/A/indices", H5T_STD_I32LE, 0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 0);
}
static void data_short(hid_t f) { put_d(f, "/A/data", g_val, 9); }
static void data_long(hid_t f)
{
    PUT_REALS(f, "/A/data", 4, -1, -1, 4, -1, -1, 4, -1, -1, 4, 7);
}
static void data_empty(hid_t f) { put_d(f, "/A/data", g_val, 0); }

/* indptr */
static void ptr_start1(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 1, 2, 5, 8, 10);
}
static void ptr_decreasing(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, 5, 2, 8, 10);
}
static void ptr_end_low(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, 2, 5, 8, 9);
}
static void ptr_end_high(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, 2, 5, 8, 11);
}
static void ptr_negative(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, -2, 5, 8, 10);
}
static void ptr_u64_max(hid_t f)
{
    uint64_t v[5] = {0, 2, 5, 8, UINT64_MAX};
    del(f, "/A/indptr");
    W(h5m_write(f, "/A/indptr", H5T_STD_U64LE, H5T_NATIVE_UINT64, v, 5));
}
static void ptr_i64_max(hid_t f)
{
    PUT_INTS(f, "/A/indptr", H5T_STD_I64LE, 0, 2, 5, 8, INT64_MAX);
}

/* column indices */
static void idx_negative(hid_t f)
{
    PUT_INTS(f, "/A/indices", H5T_STD_I32LE, 0, 1, 0, 1, 2, 1, -1, 3, 2, 3);
}
static void idx_eq_n(hid_t f)
{
    PUT_INTS(f, "/A/indices", H5T_STD_I32LE, 0, 1, 0, 1, 2, 1, 2, 3, 2, 4);
}
static void idx_int_max(hid_t f)
{
    PUT_INTS(f, "/A/indices", H5T_STD_I32LE, 0, 1, 0, 1, 2, 1, 2, 3, 2,
             INT32_MAX);
}
static void idx_2p40(hid_t f)
{
    PUT_INTS(f, "/A/indices", H5T_STD_I64LE, 0, 1, 0, 1, 2, 1, 2, 3, 2,
             (int64_t)1 << 40);
}
static void idx_u32_wrap(hid_t f) /* 2^32-1: -1 if read as int32 */
{
    PUT_INTS(f, "/A/indices", H5T_STD_U32LE, 0, 1, 0, 1, 2, 1, 2, 3, 2,
             4294967295LL);
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

/* The files written, in order; each a base file spoiled by `spoil`. */
struct kind {
    const char *file;
    spoil_fn spoil;
    int matlab; /* base: the MATLAB file of h5_make.h */
};

/* A file named after its spoiler: NAME.h5 on the native base, NAME.mat on
 * the MATLAB one. */
#define H5_FILE(spoil) {#spoil ".h5", spoil, 0}
#define MAT_FILE(spoil) {#spoil ".mat", spoil, 1}

static const struct kind k_files[] = {
    {"good.h5", NULL, 0},
    /* structure */
    H5_FILE(no_A),
    H5_FILE(A_dataset),
    H5_FILE(A_empty),
    H5_FILE(no_data),
    H5_FILE(no_indices),
    H5_FILE(no_indptr),
    H5_FILE(data_group),
    H5_FILE(b_group),
    {"A_softloop.h5", A_softlink, 0},
    H5_FILE(A_extlink),
    /* the shape attribute */
    H5_FILE(shape_missing),
    H5_FILE(shape_three),
    H5_FILE(shape_one),
    H5_FILE(shape_scalar),
    H5_FILE(shape_float),
    H5_FILE(shape_string),
    H5_FILE(shape_negative),
    H5_FILE(shape_wide),
    H5_FILE(shape_rect),
    H5_FILE(shape_rows5),
    H5_FILE(shape_cols3),
    H5_FILE(shape_zero),
    /* dtypes */
    H5_FILE(data_string),
    H5_FILE(data_complex),
    H5_FILE(data_bool),
    H5_FILE(data_f16),
    H5_FILE(data_opaque),
    H5_FILE(data_vlen),
    H5_FILE(data_array),
    H5_FILE(data_u64_max),
    H5_FILE(data_i64_2p53p1),
    H5_FILE(data_u64_ok),
    H5_FILE(idx_float),
    H5_FILE(idx_string),
    H5_FILE(idx_complex),
    H5_FILE(idx_bool),
    H5_FILE(idx_24bit),
    H5_FILE(ptr_float),
    H5_FILE(ptr_string),
    H5_FILE(b_string),
    H5_FILE(b_complex),
    H5_FILE(b_bool),
    /* ranks */
    H5_FILE(data_rank2),
    H5_FILE(idx_rank2),
    H5_FILE(ptr_scalar),
    H5_FILE(data_scalar),
    H5_FILE(b_rank2),
    H5_FILE(b_scalar),
    H5_FILE(b_rank3),
    {"data_null.h5", data_null_space, 0},
    /* lengths that disagree */
    H5_FILE(ptr_short),
    H5_FILE(ptr_long),
    H5_FILE(ptr_empty),
    H5_FILE(idx_short),
    H5_FILE(idx_long),
    H5_FILE(data_short),
    H5_FILE(data_long),
    H5_FILE(data_empty),
    /* indptr */
    H5_FILE(ptr_start1),
    H5_FILE(ptr_decreasing),
    H5_FILE(ptr_end_low),
    H5_FILE(ptr_end_high),
    H5_FILE(ptr_negative),
    H5_FILE(ptr_u64_max),
    H5_FILE(ptr_i64_max),
    /* column indices */
    H5_FILE(idx_negative),
    H5_FILE(idx_eq_n),
    H5_FILE(idx_int_max),
    H5_FILE(idx_2p40),
    H5_FILE(idx_u32_wrap),
    /* accepted (FORMAT.md): unsorted rows and duplicates */
    H5_FILE(idx_unsorted),
    H5_FILE(idx_duplicate),
    /* values */
    H5_FILE(A_nan),
    H5_FILE(A_inf),
    H5_FILE(A_ninf),
    H5_FILE(A_f32_nan),
    H5_FILE(b_nan),
    H5_FILE(b_inf),
    H5_FILE(b_ninf),
    H5_FILE(b_short),
    H5_FILE(b_long),
    H5_FILE(b_empty),
    H5_FILE(b_row_wrong),
    H5_FILE(x0_nan),
    H5_FILE(x0_inf),
    H5_FILE(x0_short),
    H5_FILE(x0_long),
    H5_FILE(x0_string),
    /* systems a solver must refuse */
    H5_FILE(empty_row),
    H5_FILE(all_zero),
    /* declared sizes far beyond the file */
    H5_FILE(huge_not_square),
    H5_FILE(huge_consistent),
    H5_FILE(big_consistent),
    /* MATLAB v7.3 (CSC, user block) */
    {"good.mat", NULL, 1},
    MAT_FILE(mat_complex),
    MAT_FILE(mat_ir_range),
    MAT_FILE(mat_jc_decreasing),
    MAT_FILE(mat_rows_huge),
    MAT_FILE(mat_sparse_string),
    MAT_FILE(mat_no_jc),
    /* anndata / h5sparse spellings */
    H5_FILE(ann_coo),
    H5_FILE(ann_int),
    H5_FILE(h5s_bad_format),
    H5_FILE(h5s_no_shape),
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
    return h5m_close(f, rc);
}

int main(int argc, char **argv)
{
    const char *dir = h5m_dir_arg(argc, argv, "h5_hostile");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int failed = 0;
    for (size_t i = 0; i < sizeof k_files / sizeof *k_files; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, k_files[i].file);
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
