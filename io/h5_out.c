/* Safe HDF5 output: a temporary file beside the target, renamed over it only
 * when complete. Any failure closes and removes the temporary at once (so a
 * caller that forgets to abort still leaves nothing behind). */
#include "h5_out.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "readers.h"

/* Creating the temporary with stdio first gives errno's reason ("No such
 * file or directory", "Permission denied") that HDF5 does not report. */
static cmrs_code probe_writable(const cmrs_h5_out *o)
{
    FILE *f = fopen(o->tmp_path, "wb");
    CMRS_ENSURE(f, CMRS_E_IO, "%s: cannot create output: %s", o->path,
                strerror(errno));
    fclose(f);
    return CMRS_OK;
}

cmrs_code cmrs_h5_out_open(cmrs_h5_out *o, const char *path,
                           const char *input_path)
{
    memset(o, 0, sizeof *o);
    o->file = -1;
    o->slot = -1;
    CMRS_ENSURE(!path || strcmp(path, "-") != 0, CMRS_E_USAGE,
                "an HDF5 file cannot be written to stdout ('-'): give a file "
                "name");
    CMRS_CHECK(cmrs_out_path_prepare(path, input_path, o->path, sizeof o->path,
                                     o->tmp_path, sizeof o->tmp_path));
    CMRS_CHECK(cmrs_outputs_track(o->tmp_path, o->path, &o->slot));
    cmrs_code rc = probe_writable(o);
    if (rc != CMRS_OK) {
        cmrs_outputs_release(o->slot);
        o->slot = -1;
        return rc;
    }
    cmrs_h5_quiet();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* STRONG: closing the file closes anything left open in it, so abort
     * always releases the file before unlinking it. */
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    o->file = H5Fcreate(o->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (o->file < 0) {
        cmrs_outputs_release(o->slot);
        o->slot = -1;
        CMRS_FAIL(CMRS_E_IO, "%s: cannot create the HDF5 file %s", o->path,
                  o->tmp_path);
    }
    return CMRS_OK;
}

cmrs_code cmrs_h5_out_finish(cmrs_h5_out *o)
{
    CMRS_ENSURE(o->file >= 0, CMRS_E_INTERNAL, "%s: output is not open",
                o->path);
    herr_t closed = H5Fclose(o->file);
    o->file = -1;
    if (closed < 0) {
        cmrs_outputs_release(o->slot);
        o->slot = -1;
        CMRS_FAIL(CMRS_E_IO, "%s: cannot finish writing (disk full?)", o->path);
    }
    cmrs_outputs_stage(o->slot);
    return CMRS_OK;
}

cmrs_code cmrs_h5_out_commit(cmrs_h5_out *o)
{
    CMRS_CHECK(cmrs_h5_out_finish(o));
    int slot = o->slot;
    o->slot = -1;
    CMRS_CHECK(cmrs_outputs_commit_one(slot));
    return CMRS_OK;
}

void cmrs_h5_out_abort(cmrs_h5_out *o)
{
    if (!o || o->file < 0) return;
    H5Fclose(o->file);
    o->file = -1;
    cmrs_outputs_release(o->slot);
    o->slot = -1;
}

/* Fails (and aborts the output) with a message naming the object. */
static cmrs_code write_failed(cmrs_h5_out *o, const char *obj)
{
    cmrs_h5_out_abort(o);
    CMRS_FAIL(CMRS_E_IO, "%s: cannot write %s (disk full, or the name is "
              "already used?)", o->path, obj);
}

static hid_t intermediate_groups(void)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (lcpl >= 0) H5Pset_create_intermediate_group(lcpl, 1);
    return lcpl;
}

/* A 1-D dataset of n elements of mem_type, stored as file_type. */
static cmrs_code write_array(cmrs_h5_out *o, const char *name, hid_t file_type,
                             hid_t mem_type, const void *v, int64_t n)
{
    CMRS_ENSURE(o->file >= 0, CMRS_E_INTERNAL, "%s: output is not open",
                o->path);
    hsize_t dims[1] = {(hsize_t)n};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t lcpl = intermediate_groups();
    hid_t d = H5Dcreate2(o->file, name, file_type, space, lcpl, H5P_DEFAULT,
                         H5P_DEFAULT);
    herr_t ok = d >= 0 ? 0 : -1;
    if (ok >= 0 && n > 0)
        ok = H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (d >= 0 && H5Dclose(d) < 0) ok = -1;
    H5Pclose(lcpl);
    H5Sclose(space);
    if (ok < 0 || n < 0) return write_failed(o, name);
    return CMRS_OK;
}

cmrs_code cmrs_h5_write_f64(cmrs_h5_out *o, const char *name, const double *v,
                            int64_t n)
{
    CMRS_CHECK(write_array(o, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n));
    return CMRS_OK;
}

static cmrs_code write_member(cmrs_h5_out *o, const char *group,
                              const char *member, hid_t file_type,
                              hid_t mem_type, const void *v, int64_t n)
{
    char name[1024];
    int w = snprintf(name, sizeof name, "%s/%s",
                     strcmp(group, "/") ? group : "", member);
    CMRS_ENSURE(w > 0 && (size_t)w < sizeof name, CMRS_E_USAGE,
                "%s: group name too long: %s", o->path, group);
    CMRS_CHECK(write_array(o, name, file_type, mem_type, v, n));
    return CMRS_OK;
}

/* The native layout: data (float64), indices (int32), indptr (int64) and
 * attribute shape (int64[2]). */
cmrs_code cmrs_h5_write_csr(cmrs_h5_out *o, const char *group,
                            const cmrs_csr *A)
{
    CMRS_CHECK(write_member(o, group, "data", H5T_IEEE_F64LE,
                            H5T_NATIVE_DOUBLE, A->values, A->nnz));
    CMRS_CHECK(write_member(o, group, "indices", H5T_STD_I32LE,
                            H5T_NATIVE_INT32, A->indices, A->nnz));
    CMRS_CHECK(write_member(o, group, "indptr", H5T_STD_I64LE,
                            H5T_NATIVE_INT64, A->indptr, A->rows + 1));
    int64_t shape[2] = {A->rows, A->cols};
    hsize_t two = 2;
    hid_t space = H5Screate_simple(1, &two, NULL);
    hid_t a = H5Acreate_by_name(o->file, group, "shape", H5T_STD_I64LE, space,
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t ok = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT64, shape) : -1;
    if (a >= 0 && H5Aclose(a) < 0) ok = -1;
    H5Sclose(space);
    if (ok < 0) return write_failed(o, "attribute shape");
    return CMRS_OK;
}

/* Writes one scalar attribute, replacing an existing one of that name. */
static cmrs_code write_attr(cmrs_h5_out *o, const char *obj, const char *name,
                            hid_t file_type, hid_t mem_type, const void *v)
{
    CMRS_ENSURE(o->file >= 0, CMRS_E_INTERNAL, "%s: output is not open",
                o->path);
    if (H5Aexists_by_name(o->file, obj, name, H5P_DEFAULT) > 0)
        H5Adelete_by_name(o->file, obj, name, H5P_DEFAULT);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(o->file, obj, name, file_type, space,
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t ok = a >= 0 ? H5Awrite(a, mem_type, v) : -1;
    if (a >= 0 && H5Aclose(a) < 0) ok = -1;
    H5Sclose(space);
    if (ok < 0) {
        char what[600];
        snprintf(what, sizeof what, "attribute %s of %s", name, obj);
        return write_failed(o, what);
    }
    return CMRS_OK;
}

/* Strings are variable-length UTF-8: h5py reads them back as str. */
cmrs_code cmrs_h5_attr_str(cmrs_h5_out *o, const char *obj, const char *name,
                           const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    cmrs_code rc = write_attr(o, obj, name, type, type, &value);
    H5Tclose(type);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_h5_attr_f64(cmrs_h5_out *o, const char *obj, const char *name,
                           double value)
{
    CMRS_CHECK(write_attr(o, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                          &value));
    return CMRS_OK;
}

cmrs_code cmrs_h5_attr_i64(cmrs_h5_out *o, const char *obj, const char *name,
                           int64_t value)
{
    CMRS_CHECK(write_attr(o, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64,
                          &value));
    return CMRS_OK;
}
