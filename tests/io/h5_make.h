/* Test helpers: write HDF5 files of every supported (and many unsupported)
 * shapes with the plain HDF5 C API, so the readers are tested against files
 * made independently of cmrs's own writer. Included by tests and by the fuzz
 * seed generator; all functions are static. */
#ifndef CMRS_TEST_H5_MAKE_H
#define CMRS_TEST_H5_MAKE_H

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Closes the file f and passes the writer's status rc on. */
static inline int h5m_close(hid_t f, int rc)
{
    H5Fclose(f);
    return rc;
}

/* The folder a file-writing tool (h5_hostile, the fuzz seeds) writes
 * into: its one argument; else a usage line naming `tool`, exit 2. */
static inline const char *h5m_dir_arg(int argc, char **argv,
                                      const char *tool)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", tool);
        exit(2);
    }
    return argv[1];
}

/* A new file; userblock > 0 reserves that many bytes before the HDF5 data
 * (MATLAB v7.3 files have 512). */
static inline hid_t h5m_create(const char *path, hsize_t userblock)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (userblock) H5Pset_userblock(fcpl, userblock);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    return f;
}

/* Dataset `name` (parents created) of rank 1 (dims[0]) or 2, stored as
 * file_type, from data in mem_type (data may be NULL: nothing written). */
static inline int h5m_write_nd(hid_t f, const char *name, hid_t file_type,
                        hid_t mem_type, const void *data, int rank,
                        const hsize_t *dims)
{
    hid_t space = rank ? H5Screate_simple(rank, dims, NULL)
                       : H5Screate(H5S_SCALAR);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, name, file_type, space, lcpl, H5P_DEFAULT,
                         H5P_DEFAULT);
    int ok = d >= 0;
    if (ok && data) ok = H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                  data) >= 0;
    if (d >= 0) H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(space);
    return ok ? 0 : -1;
}

static inline int h5m_write(hid_t f, const char *name, hid_t file_type,
                     hid_t mem_type, const void *data, hsize_t n)
{
    return h5m_write_nd(f, name, file_type, mem_type, data, 1, &n);
}

/* A chunked 1-D dataset that claims n elements but stores none: a tiny file
 * with a huge size. */
static inline int h5m_write_huge(hid_t f, const char *name, hid_t type,
                                 hsize_t n)
{
    hsize_t chunk = 1024, maxdim = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &n, &maxdim);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, name, type, space, lcpl, dcpl, H5P_DEFAULT);
    int ok = d >= 0;
    if (d >= 0) H5Dclose(d);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ok ? 0 : -1;
}

/* A 1-D dataset of n elements in deflated chunks (of `chunk`, at most n)
 * over the dataspace *space (made here: the caller closes it). */
static inline hid_t h5m_create_chunked(hid_t f, const char *name, hid_t type,
                                       hsize_t n, hsize_t chunk, int level,
                                       hid_t *space)
{
    if (chunk > n) chunk = n;
    *space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_deflate(dcpl, (unsigned)level);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, name, type, *space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    return d;
}

/* A deflate-compressed chunked 1-D dataset of n elements that stores only
 * `value` at index `at` (at < 0: nothing): a tiny file, a huge size. */
static inline int h5m_write_sparse(hid_t f, const char *name, hid_t type,
                                   hsize_t n, int64_t at, int64_t value)
{
    hsize_t one = 1, start = (hsize_t)(at < 0 ? 0 : at);
    hid_t space;
    hid_t d = h5m_create_chunked(f, name, type, n, 4096, 6, &space);
    int ok = d >= 0;
    if (ok && at >= 0) {
        hid_t mem = H5Screate_simple(1, &one, NULL);
        ok = H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one,
                                 NULL) >= 0 &&
             H5Dwrite(d, H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, &value) >=
                 0;
        H5Sclose(mem);
    }
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    return ok ? 0 : -1;
}

static inline void h5m_group(hid_t f, const char *name)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t g = H5Gcreate2(f, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0) H5Gclose(g);
    H5Pclose(lcpl);
}

/* Attribute `name` of obj over `space` (closed here), written from v: the
 * one body of the attribute writers below. 0, or -1 on a failure. */
static inline int h5m_attr_write(hid_t f, const char *obj, const char *name,
                                 hid_t file_type, hid_t mem_type, hid_t space,
                                 const void *v)
{
    hid_t a = H5Acreate_by_name(f, obj, name, file_type, space, H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, mem_type, v) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return ok ? 0 : -1;
}

/* Integer attribute: count values (count 0: one scalar value). */
static inline int h5m_attr_ints(hid_t f, const char *obj, const char *name,
                         hid_t file_type, const int64_t *v, hsize_t count)
{
    hid_t space = count ? H5Screate_simple(1, &count, NULL)
                        : H5Screate(H5S_SCALAR);
    return h5m_attr_write(f, obj, name, file_type, H5T_NATIVE_INT64, space, v);
}

static inline int h5m_attr_f64(hid_t f, const char *obj, const char *name,
                        const double *v, hsize_t count)
{
    return h5m_attr_write(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                          H5Screate_simple(1, &count, NULL), v);
}

/* String attribute, variable length (as h5py writes str) or fixed. */
static inline int h5m_attr_str(hid_t f, const char *obj, const char *name,
                        const char *value, int variable)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, variable ? H5T_VARIABLE : strlen(value));
    if (!variable) H5Tset_strpad(type, H5T_STR_NULLPAD); /* numpy 'S' */
    H5Tset_cset(type, H5T_CSET_UTF8);
    int rc = h5m_attr_write(f, obj, name, type, type, H5Screate(H5S_SCALAR),
                            variable ? (const void *)&value
                                     : (const void *)value);
    H5Tclose(type);
    return rc;
}

/* Complex numbers as h5py and MATLAB store them: compound {r, i}. */
static inline hid_t h5m_complex_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, 2 * sizeof(double));
    H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "i", sizeof(double), H5T_NATIVE_DOUBLE);
    return t;
}

/* The reference test matrix: 4 x 4, nonsymmetric (so a CSC read as CSR
 * without transposing gives a different matrix).
 *   [4 1 0 0; 0 5 2 0; 3 0 6 0; 0 0 7 8] */
static const int64_t k_ptr[] = {0, 2, 4, 6, 8};
static const int64_t k_idx[] = {0, 1, 1, 2, 0, 2, 2, 3};
static const double k_val[] = {4, 1, 5, 2, 3, 6, 7, 8};
/* The same matrix in CSC. */
static const int64_t k_jc[] = {0, 2, 4, 7, 8};
static const int64_t k_ir[] = {0, 2, 0, 1, 1, 2, 3, 3};
static const double k_cval[] = {4, 3, 1, 5, 2, 6, 7, 8};
static const double k_b[] = {1, -2, 3.5, 4};
static const double k_x0[] = {0.5, 0.25, 0, -1};

/* Writes the reference CSR arrays under group g with the given file types. */
static inline int h5m_csr(hid_t f, const char *g, hid_t ptr_type,
                          hid_t idx_type, hid_t val_type)
{
    char n[256];
    int rc = 0;
    snprintf(n, sizeof n, "%s/indptr", g);
    rc |= h5m_write(f, n, ptr_type, H5T_NATIVE_INT64, k_ptr, 5);
    snprintf(n, sizeof n, "%s/indices", g);
    rc |= h5m_write(f, n, idx_type, H5T_NATIVE_INT64, k_idx, 8);
    snprintf(n, sizeof n, "%s/data", g);
    rc |= h5m_write(f, n, val_type, H5T_NATIVE_DOUBLE, k_val, 8);
    return rc;
}

/* The reference matrix in the native layout with b (and x0 if asked). */
static inline int h5m_native(const char *path, int with_b, int with_x0)
{
    hid_t f = h5m_create(path, 0);
    if (f < 0) return -1;
    int64_t shape[2] = {4, 4};
    int rc = h5m_csr(f, "/A", H5T_STD_I64LE, H5T_STD_I32LE, H5T_IEEE_F64LE);
    rc |= h5m_attr_ints(f, "/A", "shape", H5T_STD_I64LE, shape, 2);
    if (with_b) rc |= h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                k_b, 4);
    if (with_x0) rc |= h5m_write(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                 k_x0, 4);
    return h5m_close(f, rc);
}

/* The reference matrix as MATLAB v7.3 saves it: 512-byte user block,
 * uint64 jc/ir, MATLAB_sparse = rows, b as 1 x n and x0 as n x 1. */
static inline int h5m_matlab(const char *path)
{
    hid_t f = h5m_create(path, 512);
    if (f < 0) return -1;
    hsize_t row[2] = {1, 4}, col[2] = {4, 1};
    int64_t rows = 4;
    int rc = h5m_write(f, "/A/jc", H5T_STD_U64LE, H5T_NATIVE_INT64, k_jc, 5);
    rc |= h5m_write(f, "/A/ir", H5T_STD_U64LE, H5T_NATIVE_INT64, k_ir, 8);
    rc |= h5m_write(f, "/A/data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_cval, 8);
    rc |= h5m_attr_ints(f, "/A", "MATLAB_sparse", H5T_STD_U64LE, &rows, 0);
    rc |= h5m_attr_str(f, "/A", "MATLAB_class", "double", 0);
    rc |= h5m_write_nd(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 2, row);
    rc |= h5m_write_nd(f, "/x0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_x0, 2,
                       col);
    return h5m_close(f, rc);
}

#endif
