/* The raw read of contiguous datasets (io/h5_raw.h) against HDF5's own
 * read, bit for bit: int32, int64 and float64 arrays of rank 1, n x 1 and
 * 1 x n, in files with and without a user block (MATLAB's 512 bytes);
 * the whole array and ranges at both ends, one element, the middle; split
 * into 3 threads' chunks of a few bytes (CMRS_H5_RAW=all,
 * CMRS_HOST_THREADS=3, CMRS_PARALLEL_GRAIN=1). The raw way must be taken
 * exactly where it reads what HDF5 does (a counter): not for chunked or
 * compressed datasets, not where the type converts (int64 stored, int32
 * read; float32 stored), not with CMRS_H5_RAW=0, and by default only
 * from 16 MB on. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tdir.h"
#include "h5_make.h"
#include "io/h5_raw.h"
#include "io/h5_util.h"

#define N 1001 /* elements of the test arrays: not a multiple of anything */

typedef enum { T_I32, T_I64, T_F64 } elem_t;

static size_t elem_size(elem_t t)
{
    return t == T_I32 ? 4 : 8;
}

/* Element k of the arrays (distinct bytes everywhere). */
static void fill(elem_t t, void *out, int64_t n)
{
    for (int64_t k = 0; k < n; ++k) {
        if (t == T_I32) ((int32_t *)out)[k] = (int32_t)(k * 7919 - 3);
        if (t == T_I64) ((int64_t *)out)[k] = k * 1000003 - 17;
        if (t == T_F64) ((double *)out)[k] = 0.1 * (double)k - 1e-3;
    }
}

/* [first, first + count) of dataset `name` of `path` read as t. */
static cmrs_code read_as(const char *path, const char *name, elem_t t,
                         int64_t first, int64_t count, void *out)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CMRS_ENSURE(f >= 0, CMRS_E_INPUT, "cannot open %s", path);
    cmrs_h5_array a;
    cmrs_code rc = cmrs_h5_array_open(f, path, "", name, 0, &a);
    if (rc == CMRS_OK) {
        if (t == T_I32)
            rc = cmrs_h5_array_read_range_i32(&a, path, first, count, out);
        else if (t == T_I64)
            rc = cmrs_h5_array_read_range_i64(&a, path, first, count, out);
        else
            rc = cmrs_h5_array_read_range_f64(&a, path, first, count, out);
        cmrs_h5_array_close(&a);
    }
    H5Fclose(f);
    return rc;
}

/* The read of [first, first + count) the raw way (`raw` 1: it must be
 * taken, 0: it must not) equals HDF5's, byte for byte. */
static void same_read(const char *path, const char *name, elem_t t,
                      int64_t first, int64_t count, int raw)
{
    size_t bytes = (size_t)count * elem_size(t);
    char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    memset(a, 0x5a, bytes + 1);
    memset(b, 0xa5, bytes + 1);
    setenv("CMRS_H5_RAW", "0", 1);
    cmrs_code r0 = read_as(path, name, t, first, count, b);
    setenv("CMRS_H5_RAW", "all", 1);
    long before = cmrs_h5_raw_reads();
    cmrs_code r1 = read_as(path, name, t, first, count, a);
    long took = cmrs_h5_raw_reads() - before;
    CHECK(r0 == CMRS_OK && r1 == CMRS_OK, "%s %s [%lld, +%lld): %s", path,
          name, (long long)first, (long long)count, cmrs_error_message());
    CHECK(took == raw, "%s %s [%lld, +%lld): %ld raw reads, %d expected",
          path, name, (long long)first, (long long)count, took, raw);
    CHECK(memcmp(a, b, bytes) == 0 && a[bytes] == 0x5a, "%s %s [%lld, "
          "+%lld): the raw read differs from HDF5's", path, name,
          (long long)first, (long long)count);
    free(a), free(b);
}

/* Ranges of every kind on dataset `name` of n elements. */
static void ranges(const char *path, const char *name, elem_t t, int64_t n,
                   int raw)
{
    const int64_t at[][2] = {{0, n},     {0, 1},         {n - 1, 1},
                             {1, n - 2}, {n / 3, n / 3}, {n - 7, 7}};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; ++k)
        same_read(path, name, t, at[k][0], at[k][1], raw);
}

static const char *const k_names[] = {"i32", "i64", "f64"};

/* The stored type of t (HDF5's type ids are not constants). */
static hid_t file_type(elem_t t)
{
    return t == T_I32 ? H5T_STD_I32LE
                      : t == T_I64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
}

static hid_t mem_type(elem_t t)
{
    return t == T_I32 ? H5T_NATIVE_INT32
                      : t == T_I64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

/* Contiguous arrays of rank 1, n x 1 and 1 x n of every type, in a file
 * with user block `ub`: raw reads, HDF5's bytes. */
static void contiguous(hsize_t ub)
{
    const char *path = path_of(ub ? "ub.h5" : "plain.h5");
    hid_t f = h5m_create(path, ub);
    CHECK(f >= 0, "cannot create %s", path);
    char buf[N * 8];
    for (int t = 0; t < 3; ++t) {
        char name[32];
        const hsize_t col[2] = {N, 1}, row[2] = {1, N};
        fill((elem_t)t, buf, N);
        h5m_write(f, k_names[t], file_type((elem_t)t), mem_type((elem_t)t), buf, N);
        snprintf(name, sizeof name, "%s_col", k_names[t]);
        h5m_write_nd(f, name, file_type((elem_t)t), mem_type((elem_t)t), buf, 2,
                     col);
        snprintf(name, sizeof name, "%s_row", k_names[t]);
        h5m_write_nd(f, name, file_type((elem_t)t), mem_type((elem_t)t), buf, 2,
                     row);
    }
    H5Fclose(f);
    for (int t = 0; t < 3; ++t) {
        char name[32];
        ranges(path, k_names[t], (elem_t)t, N, 1);
        snprintf(name, sizeof name, "%s_col", k_names[t]);
        ranges(path, name, (elem_t)t, N, 1);
        snprintf(name, sizeof name, "%s_row", k_names[t]);
        ranges(path, name, (elem_t)t, N, 1);
    }
}

static void test_contiguous(void)
{
    contiguous(0);
    contiguous(512);
}

/* Chunked and deflated, or converted (int64 stored, read as int32;
 * float32 stored, read as double): HDF5 reads them, not the raw way. */
static void test_not_raw(void)
{
    const char *path = path_of("other.h5");
    hid_t f = h5m_create(path, 0), space;
    int64_t i64[N];
    float f32[N];
    fill(T_I64, i64, N);
    for (int k = 0; k < N; ++k) f32[k] = (float)k * 0.25f;
    hid_t d = h5m_create_chunked(f, "chunked", H5T_STD_I64LE, N, 100, 1,
                                 &space);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                             H5P_DEFAULT, i64) >= 0, "chunked dataset");
    H5Dclose(d);
    H5Sclose(space);
    h5m_write(f, "wide", H5T_STD_I64LE, H5T_NATIVE_INT64, i64, N);
    h5m_write(f, "narrow", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, f32, N);
    H5Fclose(f);
    ranges(path, "chunked", T_I64, N, 0);
    ranges(path, "wide", T_I32, N, 0);     /* int64 stored: converted */
    ranges(path, "narrow", T_F64, N, 0);   /* float32 stored */
    ranges(path, "wide", T_I64, N, 1);     /* the same array unconverted */
}

/* Without CMRS_H5_RAW the raw way starts at CMRS_H5_RAW_MIN bytes. */
static void test_threshold(void)
{
    const char *path = path_of("big.h5");
    const int64_t n = CMRS_H5_RAW_MIN / 8;
    double *v = malloc((size_t)n * sizeof *v), *w = malloc((size_t)n * 8);
    fill(T_F64, v, n);
    hid_t f = h5m_create(path, 0);
    h5m_write(f, "v", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, (hsize_t)n);
    H5Fclose(f);
    unsetenv("CMRS_H5_RAW");
    long before = cmrs_h5_raw_reads();
    CHECK_OK(read_as(path, "v", T_F64, 0, n, w));
    CHECK(cmrs_h5_raw_reads() - before == 1 && memcmp(v, w, (size_t)n * 8) ==
          0, "%lld doubles: not read the raw way, or not the same",
          (long long)n);
    before = cmrs_h5_raw_reads();
    CHECK_OK(read_as(path, "v", T_F64, 1, n - 1, w));
    CHECK(cmrs_h5_raw_reads() == before && memcmp(v + 1, w, (size_t)(n - 1) *
          8) == 0, "one double short of the threshold: read the raw way");
    free(v), free(w);
}

int main(void)
{
    setenv("CMRS_HOST_THREADS", "3", 1);
    setenv("CMRS_PARALLEL_GRAIN", "1", 1);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const check_test tests[] = {test_contiguous, test_not_raw,
                                test_threshold};
    return tdir_run("h5raw", tests, sizeof tests / sizeof tests[0]);
}
