/* Internal to the readers (io/system.c, io/h5_read.c, io/mm_read.c), their
 * tests and the fuzz targets: not part of the public contract. */
#ifndef CMRS_READERS_H
#define CMRS_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "system.h"

/* Reads the system from an HDF5 file that is already open (hid_t file).
 * `name` stands for the file in messages. Fills A, b (or leaves b NULL when
 * the file has none and opts->rhs is NULL), x0 and layout; on failure *sys
 * holds nothing. */
cmrs_code cmrs_h5_read_system(int64_t file, const char *name,
                              const cmrs_read_opts *opts, cmrs_system *sys);

/* Turns HDF5's automatic error-stack printing off (we report our own one-line
 * messages). Idempotent; every HDF5 entry point of ours calls it. */
void cmrs_h5_quiet(void);
/* The innermost message on HDF5's error stack (its reason, e.g. "unable to
 * lock file" or "truncated file"), or "" when the stack is empty. */
void cmrs_h5_error_text(char *buf, size_t n);

/* 1 when the file starts with a "%%MatrixMarket" banner (read through zlib
 * when built with it, so a .mtx.gz counts), else 0. */
int cmrs_mm_has_banner(const char *path);
/* 1 when the file starts with the gzip magic bytes. */
int cmrs_is_gzip(const char *path);

/* Fails with CMRS_E_LIMIT unless `bytes` (needed to hold what `name`/`what`
 * describes) fits in the memory limit: physical memory by default. Called
 * BEFORE allocating anything whose size comes from a file. */
cmrs_code cmrs_check_memory(const char *name, const char *what, double bytes);
/* Overrides the limit (tests, fuzzing); 0 restores physical memory. */
void cmrs_set_memory_limit(double bytes);

/* Bytes a CSR matrix of rows x nnz takes on the host, plus `vectors` double
 * vectors of length rows (as a double: cannot overflow). */
double cmrs_csr_bytes(int64_t rows, int64_t nnz, int vectors);

/* Fails with CMRS_E_INPUT naming name/what and the first non-finite entry. */
cmrs_code cmrs_check_finite(const char *name, const char *what,
                            const double *v, int64_t n);

/* 1 when every row is strictly increasing in column (sorted, no
 * duplicates), so cmrs_csr_sort_sum_duplicates can be skipped. */
int cmrs_csr_is_sorted(const cmrs_csr *A);

#endif
