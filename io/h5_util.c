#include "h5_util.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_raw.h"
#include "readers.h"

void cmrs_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

typedef struct error_text { char *buf; size_t n; } error_text;

static herr_t innermost(unsigned depth, const H5E_error2_t *e, void *data)
{
    error_text *t = data;
    if (depth == 0 && e->desc) snprintf(t->buf, t->n, "%s", e->desc);
    return 0;
}

void cmrs_h5_error_text(char *buf, size_t n)
{
    error_text t = {buf, n};
    if (n) buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &t);
}

cmrs_code cmrs_h5_full_name(const char *file, const char *parent,
                            const char *name, char *out, size_t n)
{
    int w;
    if (name[0] == '/')
        w = snprintf(out, n, "%s", name);
    else
        w = snprintf(out, n, "%s/%s", strcmp(parent, "/") ? parent : "", name);
    CMRS_ENSURE(w > 0 && (size_t)w < n, CMRS_E_INPUT,
                "%s: object name '%s' is too long", file, name);
    return CMRS_OK;
}

int cmrs_h5_exists(int64_t loc, const char *name)
{
    /* H5Oexists_by_name fails (< 0) when an intermediate group is missing:
     * that is "absent" too. */
    return H5Oexists_by_name(loc, name, H5P_DEFAULT) > 0;
}

/* Checks the dataspace of an open dataset; sets a->n. */
static cmrs_code check_space(cmrs_h5_array *a, const char *file)
{
    hid_t space = H5Dget_space(a->dset);
    H5S_class_t cls =
        space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    hsize_t dims[H5S_MAX_RANK] = {0};
    int rank =
        cls == H5S_SIMPLE ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0) H5Sclose(space);
    CMRS_ENSURE(cls != H5S_SCALAR, CMRS_E_INPUT,
                "%s: %s is a scalar, expected a 1-D array", file, a->name);
    CMRS_ENSURE(cls == H5S_SIMPLE && rank >= 1, CMRS_E_INPUT,
                "%s: %s has no usable shape (null or corrupt dataspace)", file,
                a->name);
    int vector2d = rank == 2 && (dims[0] == 1 || dims[1] == 1);
    CMRS_ENSURE(rank == 1 || vector2d, CMRS_E_INPUT,
                "%s: %s has rank %d (first dimensions %llu x %llu), expected "
                "a 1-D array (or 1 x n / n x 1)", file, a->name, rank,
                (unsigned long long)dims[0], (unsigned long long)dims[1]);
    hsize_t n = rank == 1 ? dims[0] : dims[0] * dims[1];
    CMRS_ENSURE(n <= (hsize_t)INT64_MAX, CMRS_E_LIMIT,
                "%s: %s claims %llu elements", file, a->name,
                (unsigned long long)n);
    a->n = (int64_t)n;
    return CMRS_OK;
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_COMPOUND: return "a compound type (complex numbers?)";
    case H5T_STRING: return "a string type";
    case H5T_ENUM: return "an enum (boolean?) type";
    case H5T_ARRAY: return "an array type";
    case H5T_VLEN: return "a variable-length type";
    case H5T_REFERENCE: return "a reference type";
    default: return "a non-numeric type";
    }
}

/* 1 when type is a standard 8-64 bit integer or an IEEE float32/float64
 * (either byte order). Anything else (float16, bit-offset or odd-sized
 * numbers) would go through HDF5's soft conversions, which crash on corrupt
 * type fields (found by fuzz_h5): no real matrix file needs them. */
static int standard_type(hid_t type)
{
    const hid_t std[] = {
        H5T_STD_I8LE,   H5T_STD_I8BE,   H5T_STD_U8LE,   H5T_STD_U8BE,
        H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16LE,  H5T_STD_U16BE,
        H5T_STD_I32LE,  H5T_STD_I32BE,  H5T_STD_U32LE,  H5T_STD_U32BE,
        H5T_STD_I64LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE,
        H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
    for (size_t i = 0; i < sizeof std / sizeof std[0]; ++i)
        if (H5Tequal(type, std[i]) > 0) return 1;
    return 0;
}

/* Checks the element type: a standard integer or floating-point type. */
static cmrs_code check_type(cmrs_h5_array *a, const char *file)
{
    hid_t type = H5Dget_type(a->dset);
    H5T_class_t c = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    int standard = type >= 0 && standard_type(type);
    size_t bytes = type >= 0 ? H5Tget_size(type) : 0;
    if (type >= 0) H5Tclose(type);
    CMRS_ENSURE(c == H5T_INTEGER || c == H5T_FLOAT, CMRS_E_INPUT,
                "%s: %s has %s, expected real numbers", file, a->name,
                class_name(c));
    CMRS_ENSURE(standard, CMRS_E_INPUT, "%s: %s has a nonstandard %zu-byte "
                "%s type (expected 8-64 bit integers or IEEE float32/64)",
                file, a->name, bytes, c == H5T_INTEGER ? "integer" : "float");
    a->is_integer = c == H5T_INTEGER;
    return CMRS_OK;
}

static cmrs_code open_dataset(int64_t loc, const char *file, const char *name,
                              cmrs_h5_array *a)
{
    hid_t obj = H5Oopen(loc, name, H5P_DEFAULT);
    CMRS_ENSURE(obj >= 0, CMRS_E_INPUT, "%s: %s cannot be opened (corrupt "
                "file?)", file, a->name);
    H5I_type_t t = H5Iget_type(obj);
    if (t != H5I_DATASET) {
        H5Oclose(obj);
        CMRS_FAIL(CMRS_E_INPUT, "%s: %s is a %s, expected a dataset", file,
                  a->name, t == H5I_GROUP ? "group" : "named type");
    }
    a->dset = obj;
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_open(int64_t loc, const char *file, const char *parent,
                             const char *name, int optional, cmrs_h5_array *a)
{
    memset(a, 0, sizeof *a);
    a->dset = -1;
    CMRS_CHECK(cmrs_h5_full_name(file, parent, name, a->name, sizeof a->name));
    if (!cmrs_h5_exists(loc, name)) {
        if (optional) return CMRS_OK;
        CMRS_FAIL(CMRS_E_INPUT, "%s: missing dataset %s", file, a->name);
    }
    CMRS_CHECK(open_dataset(loc, file, name, a));
    cmrs_code rc = check_space(a, file);
    if (rc == CMRS_OK) rc = check_type(a, file);
    if (rc != CMRS_OK) {
        cmrs_h5_array_close(a);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

void cmrs_h5_array_close(cmrs_h5_array *a)
{
    if (a && a->dset >= 0) H5Dclose(a->dset);
    if (a) a->dset = -1;
}

/* What the conversion callback saw. */
typedef struct conv_flags { int out_of_range, inexact; } conv_flags;

/* Conversion exceptions: a value out of the target's range aborts the read
 * (HDF5 would clip it to the maximum otherwise, hiding the problem); an
 * integer with no exact double (more than 53 significant bits; HDF5 would
 * round it) is stored as NaN, which no integer converts to, so that the
 * first one can be found and named. */
static H5T_conv_ret_t on_conv_except(H5T_conv_except_t except, hid_t src,
                                     hid_t dst, void *src_buf, void *dst_buf,
                                     void *user)
{
    conv_flags *f = user;
    (void)src, (void)src_buf;
    if (except == H5T_CONV_EXCEPT_RANGE_HI ||
        except == H5T_CONV_EXCEPT_RANGE_LOW) {
        f->out_of_range = 1;
        return H5T_CONV_ABORT;
    }
    if (except == H5T_CONV_EXCEPT_PRECISION &&
        H5Tequal(dst, H5T_NATIVE_DOUBLE) > 0) {
        double nan = NAN;
        memcpy(dst_buf, &nan, sizeof nan);
        f->inexact = 1;
        return H5T_CONV_HANDLED;
    }
    return H5T_CONV_UNHANDLED;
}

/* Selects elements [first, first + count) in the file space of a 1-D
 * array, or of a 1 x n / n x 1 one along its long dimension. */
static herr_t select_range(hid_t fspace, int64_t first, int64_t count)
{
    hsize_t dims[H5S_MAX_RANK] = {0};
    hsize_t at[2] = {(hsize_t)first, 0}, len[2] = {(hsize_t)count, 1};
    int rank = H5Sget_simple_extent_dims(fspace, dims, NULL);
    if (rank < 1 || rank > 2) return -1;
    if (rank == 2 && dims[0] == 1) { /* (1, n): the run goes along dim 1 */
        at[0] = 0, at[1] = (hsize_t)first;
        len[0] = 1, len[1] = (hsize_t)count;
    }
    return H5Sselect_hyperslab(fspace, H5S_SELECT_SET, at, NULL, len, NULL);
}

/* Reads elements [first, first + count) of a->dset as mem_type into out:
 * the whole dataset in one read (H5S_ALL), a part through a hyperslab, so
 * that only the chunks holding it are read, however large the dataset. */
static herr_t read_range(const cmrs_h5_array *a, hid_t mem_type,
                         int64_t first, int64_t count, void *out,
                         conv_flags *flags)
{
    int whole = first == 0 && count == a->n;
    hsize_t n = (hsize_t)count;
    hid_t fspace = whole ? H5S_ALL : H5Dget_space(a->dset);
    hid_t mspace = whole ? H5S_ALL : H5Screate_simple(1, &n, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    herr_t r = fspace < 0 || mspace < 0 || dxpl < 0 ? -1 : 0;
    if (r >= 0 && !whole) r = select_range(fspace, first, count);
    if (r >= 0) r = H5Pset_type_conv_cb(dxpl, on_conv_except, flags);
    if (r >= 0) r = H5Dread(a->dset, mem_type, mspace, fspace, dxpl, out);
    if (dxpl >= 0) H5Pclose(dxpl);
    if (!whole && mspace >= 0) H5Sclose(mspace);
    if (!whole && fspace >= 0) H5Sclose(fspace);
    return r;
}

int cmrs_h5_array_read_element(const cmrs_h5_array *a, int64_t mem_type,
                               int64_t k, void *out)
{
    conv_flags f = {0, 0};
    return read_range(a, (hid_t)mem_type, k, 1, out, &f) >= 0 &&
           !f.out_of_range && !f.inexact;
}

/* The first element the read of [first, first + count) stored as NaN (an
 * integer with no exact double), read again exactly, as the error. */
static cmrs_code fail_inexact(const cmrs_h5_array *a, const char *file,
                              int64_t first, int64_t count, const double *out)
{
    int64_t k = 0;
    while (k < count - 1 && !isnan(out[k])) ++k;
    k += first;
    hid_t type = H5Dget_type(a->dset);
    int is_unsigned = type >= 0 && H5Tget_sign(type) == H5T_SGN_NONE;
    if (type >= 0) H5Tclose(type);
    conv_flags f = {0, 0};
    char value[32] = "?";
    if (is_unsigned) {
        unsigned long long u = 0;
        if (read_range(a, H5T_NATIVE_ULLONG, k, 1, &u, &f) >= 0)
            snprintf(value, sizeof value, "%llu", u);
    } else {
        long long x = 0;
        if (read_range(a, H5T_NATIVE_LLONG, k, 1, &x, &f) >= 0)
            snprintf(value, sizeof value, "%lld", x);
    }
    CMRS_FAIL(CMRS_E_INPUT, "%s: %s[%lld] = %s has no exact double (more "
              "than 53 significant bits): it would be rounded", file, a->name,
              (long long)k, value);
}

static cmrs_code array_read(const cmrs_h5_array *a, const char *file,
                            hid_t mem_type, const char *target, int64_t first,
                            int64_t count, void *out)
{
    CMRS_ENSURE(first >= 0 && count >= 0 && first <= a->n - count,
                CMRS_E_INTERNAL, "%s: %s: elements [%lld, +%lld) of %lld",
                file, a->name, (long long)first, (long long)count,
                (long long)a->n);
    if (count == 0) return CMRS_OK;
    /* large and stored as read: by threads (h5_raw.h) */
    if (cmrs_h5_raw_read(a, mem_type, first, count, out)) return CMRS_OK;
    conv_flags f = {0, 0};
    herr_t r = read_range(a, mem_type, first, count, out, &f);
    CMRS_ENSURE(!f.out_of_range, CMRS_E_INPUT, "%s: %s holds a value outside "
                "the range of %s", file, a->name, target);
    CMRS_ENSURE(r >= 0, CMRS_E_INPUT, "%s: %s cannot be read (corrupt or "
                "truncated file?)", file, a->name);
    if (f.inexact) CMRS_CHECK(fail_inexact(a, file, first, count, out));
    return CMRS_OK;
}

/* The one message of every integer reader for a floating-point dataset. */
static cmrs_code require_integers(const cmrs_h5_array *a, const char *file)
{
    CMRS_ENSURE(a->is_integer, CMRS_E_INPUT, "%s: %s has a floating-point "
                "type, expected integers", file, a->name);
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_one_i64(const cmrs_h5_array *a, const char *file,
                                     int64_t i, int64_t *out)
{
    CMRS_CHECK(require_integers(a, file));
    CMRS_ENSURE(i >= 0 && i < a->n, CMRS_E_INTERNAL, "%s: %s: element %lld "
                "of %lld", file, a->name, (long long)i, (long long)a->n);
    conv_flags f = {0, 0};
    herr_t r = read_range(a, H5T_NATIVE_INT64, i, 1, out, &f);
    CMRS_ENSURE(!f.out_of_range, CMRS_E_INPUT, "%s: %s holds a value outside "
                "the range of 64-bit integers (entry %lld)", file, a->name,
                (long long)i);
    CMRS_ENSURE(r >= 0, CMRS_E_INPUT, "%s: %s cannot be read (corrupt or "
                "truncated file?)", file, a->name);
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_range_i64(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, int64_t *out)
{
    CMRS_CHECK(require_integers(a, file));
    CMRS_CHECK(array_read(a, file, H5T_NATIVE_INT64, "64-bit integers",
                          first, count, out));
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_range_i32(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, int32_t *out)
{
    CMRS_CHECK(require_integers(a, file));
    CMRS_CHECK(array_read(a, file, H5T_NATIVE_INT32, "32-bit integers",
                          first, count, out));
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_range_f64(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, double *out)
{
    CMRS_CHECK(array_read(a, file, H5T_NATIVE_DOUBLE, "double", first, count,
                          out));
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_i64(const cmrs_h5_array *a, const char *file,
                                 int64_t *out)
{
    CMRS_CHECK(cmrs_h5_array_read_range_i64(a, file, 0, a->n, out));
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_i32(const cmrs_h5_array *a, const char *file,
                                 int32_t *out)
{
    CMRS_CHECK(cmrs_h5_array_read_range_i32(a, file, 0, a->n, out));
    return CMRS_OK;
}

cmrs_code cmrs_h5_array_read_f64(const cmrs_h5_array *a, const char *file,
                                 double *out)
{
    CMRS_CHECK(cmrs_h5_array_read_range_f64(a, file, 0, a->n, out));
    return CMRS_OK;
}

int cmrs_h5_has_attr(int64_t obj, const char *attr)
{
    return H5Aexists(obj, attr) > 0;
}

/* Opens attribute attr of obj with its type class and element count. */
static cmrs_code attr_open(int64_t obj, const char *file, const char *objname,
                           const char *attr, hid_t *a, H5T_class_t *cls,
                           hssize_t *count)
{
    CMRS_ENSURE(cmrs_h5_has_attr(obj, attr), CMRS_E_INPUT,
                "%s: %s: missing attribute '%s'", file, objname, attr);
    *a = H5Aopen(obj, attr, H5P_DEFAULT);
    CMRS_ENSURE(*a >= 0, CMRS_E_INPUT, "%s: %s: attribute '%s' cannot be "
                "opened (corrupt file?)", file, objname, attr);
    hid_t type = H5Aget_type(*a), space = H5Aget_space(*a);
    *cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    if (*cls == H5T_INTEGER && !standard_type(type))
        *cls = H5T_NO_CLASS; /* refused as "a non-numeric type" */
    *count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    return CMRS_OK;
}

cmrs_code cmrs_h5_attr_ints(int64_t obj, const char *file, const char *objname,
                            const char *attr, int64_t *out, int count)
{
    hid_t a = -1;
    H5T_class_t cls = H5T_NO_CLASS;
    hssize_t n = -1;
    CMRS_CHECK(attr_open(obj, file, objname, attr, &a, &cls, &n));
    herr_t r = -1;
    if (cls == H5T_INTEGER && n == count) r = H5Aread(a, H5T_NATIVE_INT64, out);
    H5Aclose(a);
    CMRS_ENSURE(cls == H5T_INTEGER, CMRS_E_INPUT, "%s: %s: attribute '%s' has "
                "%s, expected integers", file, objname, attr,
                cls == H5T_FLOAT ? "a floating-point type" : class_name(cls));
    CMRS_ENSURE(n == count, CMRS_E_INPUT, "%s: %s: attribute '%s' has %lld "
                "values, expected %d", file, objname, attr, (long long)n,
                count);
    CMRS_ENSURE(r >= 0, CMRS_E_INPUT, "%s: %s: attribute '%s' cannot be read",
                file, objname, attr);
    return CMRS_OK;
}

/* Reads a string attribute whose file type is `type` into buf. */
static herr_t read_string(hid_t a, hid_t type, char *buf, size_t cap)
{
    hid_t mem = H5Tcopy(H5T_C_S1);
    herr_t r = -1;
    H5Tset_cset(mem, H5Tget_cset(type)); /* no conversion between csets */
    if (H5Tis_variable_str(type) > 0) {
        char *s = NULL;
        H5Tset_size(mem, H5T_VARIABLE);
        r = H5Aread(a, mem, &s);
        if (r >= 0) snprintf(buf, cap, "%s", s ? s : "");
        if (s) H5free_memory(s);
    } else {
        size_t size = H5Tget_size(type);
        char *tmp = size > 0 && size < (1u << 20) ? calloc(size + 2, 1) : NULL;
        H5Tset_size(mem, size + 1); /* room for the terminating NUL */
        if (tmp) r = H5Aread(a, mem, tmp);
        if (r >= 0) snprintf(buf, cap, "%s", tmp);
        free(tmp);
    }
    H5Tclose(mem);
    return r;
}

cmrs_code cmrs_h5_attr_string(int64_t obj, const char *file,
                              const char *objname, const char *attr, char *buf,
                              size_t cap)
{
    hid_t a = -1;
    H5T_class_t cls = H5T_NO_CLASS;
    hssize_t n = -1;
    CMRS_CHECK(attr_open(obj, file, objname, attr, &a, &cls, &n));
    herr_t r = -1;
    if (cls == H5T_STRING && n == 1) {
        hid_t type = H5Aget_type(a);
        if (type >= 0) r = read_string(a, type, buf, cap);
        if (type >= 0) H5Tclose(type);
    }
    H5Aclose(a);
    CMRS_ENSURE(cls == H5T_STRING && n == 1, CMRS_E_INPUT, "%s: %s: attribute "
                "'%s' is not a single string", file, objname, attr);
    CMRS_ENSURE(r >= 0, CMRS_E_INPUT, "%s: %s: attribute '%s' cannot be read",
                file, objname, attr);
    return CMRS_OK;
}
