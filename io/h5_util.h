/* Low-level HDF5 reading with every size and type checked (internal to the
 * readers). Messages read "FILE: /A/indptr: problem". */
#ifndef CMRS_H5_UTIL_H
#define CMRS_H5_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* An open 1-D numeric dataset: rank 1, or rank 2 with one dimension 1 (how
 * MATLAB stores vectors). */
typedef struct cmrs_h5_array {
    int64_t dset;    /* hid_t; -1 when not open (an absent optional array) */
    int64_t n;       /* number of elements */
    int is_integer;  /* integer type (else floating point) */
    char name[512];  /* full name for messages, e.g. "/A/indptr" */
} cmrs_h5_array;

/* "/" + name unless name is absolute, into out (size n). */
cmrs_code cmrs_h5_full_name(const char *file, const char *parent,
                            const char *name, char *out, size_t n);

/* 1 when `name` (relative to loc, may contain '/') exists. */
int cmrs_h5_exists(int64_t loc, const char *name);

/* Opens dataset `name` (relative to loc; parent is loc's full name, for
 * messages). When absent: an error, or with `optional` CMRS_OK and
 * a->dset == -1. Refuses non-datasets, scalars, matrices of rank > 1, and
 * types that are not integer or floating point (compound = complex, string,
 * enum, ...). */
cmrs_code cmrs_h5_array_open(int64_t loc, const char *file, const char *parent,
                             const char *name, int optional, cmrs_h5_array *a);
void cmrs_h5_array_close(cmrs_h5_array *a); /* idempotent */

/* Element k of a->dset read by HDF5 as memory type mem_type (an hid_t)
 * into out; 1 where the read succeeded (no error set: for checks such as
 * the raw read's, h5_raw.h). */
int cmrs_h5_array_read_element(const cmrs_h5_array *a, int64_t mem_type,
                               int64_t k, void *out);

/* Read all a->n elements converted to the given C type. Integer targets
 * require an integer dataset; a value that does not fit the target type is
 * an error (not silently clipped). */
cmrs_code cmrs_h5_array_read_i64(const cmrs_h5_array *a, const char *file,
                                 int64_t *out);
cmrs_code cmrs_h5_array_read_i32(const cmrs_h5_array *a, const char *file,
                                 int32_t *out);
/* Floating-point targets: an integer with no exact double (more than 53
 * significant bits) is an error naming the first such element, not
 * rounded. */
cmrs_code cmrs_h5_array_read_f64(const cmrs_h5_array *a, const char *file,
                                 double *out);
/* Elements [first, first + count) alone (a hyperslab: only the chunks
 * holding them are read), converted and checked as above; out holds count
 * elements. A range outside the array is CMRS_E_INTERNAL (a caller's bug:
 * ranges come from checked pointers). */
cmrs_code cmrs_h5_array_read_range_i64(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, int64_t *out);
cmrs_code cmrs_h5_array_read_range_i32(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, int32_t *out);
cmrs_code cmrs_h5_array_read_range_f64(const cmrs_h5_array *a,
                                       const char *file, int64_t first,
                                       int64_t count, double *out);
/* Element i alone (one chunk is read), as a 64-bit integer. */
cmrs_code cmrs_h5_array_read_one_i64(const cmrs_h5_array *a, const char *file,
                                     int64_t i, int64_t *out);

/* 1 when object obj has attribute attr. */
int cmrs_h5_has_attr(int64_t obj, const char *attr);
/* Reads an integer attribute holding exactly `count` values. */
cmrs_code cmrs_h5_attr_ints(int64_t obj, const char *file, const char *objname,
                            const char *attr, int64_t *out, int count);
/* Reads a scalar string attribute (fixed or variable length) into buf. */
cmrs_code cmrs_h5_attr_string(int64_t obj, const char *file,
                              const char *objname, const char *attr, char *buf,
                              size_t cap);

#endif
