/* Writing HDF5 output files safely: everything goes to a temporary file
 * beside the target (in the table of outputs.h, so a signal removes it),
 * renamed over it only when committed (cmrs_h5_out_commit on its own, or
 * cmrs_h5_out_finish and then cmrs_outputs_commit with the command's other
 * outputs); abort (or a failure) removes the temporary. The input file is
 * never a target. */
#ifndef CMRS_H5_OUT_H
#define CMRS_H5_OUT_H

#include <stdint.h>

#include "base/csr.h"

typedef struct cmrs_h5_out {
    int64_t file;           /* hid_t of the open temporary file */
    char path[4096];        /* final name */
    char tmp_path[4200];    /* temporary name */
    int slot;               /* outputs.h; -1: none */
} cmrs_h5_out;

/* Opens a temporary file for path. Refuses (CMRS_E_USAGE) when path names
 * the same file as input_path (NULL: no check). */
cmrs_code cmrs_h5_out_open(cmrs_h5_out *o, const char *path,
                           const char *input_path);
cmrs_code cmrs_h5_out_finish(cmrs_h5_out *o); /* close + stage */
cmrs_code cmrs_h5_out_commit(cmrs_h5_out *o); /* close + rename */
void cmrs_h5_out_abort(cmrs_h5_out *o);       /* close + unlink; NULL-safe;
                                                 nothing after finish */

/* name: absolute dataset path such as "/x" or "/history/residual"; missing
 * parent groups are created. */
cmrs_code cmrs_h5_write_f64(cmrs_h5_out *o, const char *name, const double *v,
                            int64_t n);
cmrs_code cmrs_h5_write_csr(cmrs_h5_out *o, const char *group,
                            const cmrs_csr *A);
/* Attributes on an existing object ("/" for the file root). */
cmrs_code cmrs_h5_attr_str(cmrs_h5_out *o, const char *obj, const char *name,
                           const char *value);
cmrs_code cmrs_h5_attr_f64(cmrs_h5_out *o, const char *obj, const char *name,
                           double value);
cmrs_code cmrs_h5_attr_i64(cmrs_h5_out *o, const char *obj, const char *name,
                           int64_t value);

#endif
