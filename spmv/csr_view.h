/* The device CSR view of spmv.h (cmrs_csr_view_d), as cmrs_spmv_create_dev
 * and the formats' setup_dev use it: its checks, its counts, its download
 * into a host cmrs_csr (the fallback of formats without setup_dev) and its
 * 32-bit row offsets widened on the device. Setup-time code: everything
 * here may allocate and synchronise. */
#ifndef CMRS_CSR_VIEW_H
#define CMRS_CSR_VIEW_H

#include <stdint.h>

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What can be checked of M without reading its arrays whole: M given;
 * rows, cols, nnz >= 0, cols and nnz within int32 (what its index arrays
 * hold); indptr_d given, indices_d and values_d too unless nnz == 0
 * (else CMRS_E_USAGE); then indptr_d[0] == 0 and indptr_d[rows] == nnz,
 * two entries downloaded (else CMRS_E_INPUT: the counts do not describe
 * the arrays). The rest (offsets non-decreasing, columns in range and
 * increasing in each row) is the caller's promise, as for cmrs_csr in
 * cmrs_spmv_create. `what` names the format in messages. The counts are
 * checked before any CUDA call; then the device is synchronised, so that
 * M is complete whatever stream wrote it, before anything reads it. */
cmrs_code cmrs_csr_view_check(const cmrs_csr_view_d *M, const char *what);
/* Its first part, the counts and pointers, which reads no array (host
 * code). */
cmrs_code cmrs_csr_view_check_counts(const cmrs_csr_view_d *M,
                                     const char *what);

/* M's counts as a host matrix with no arrays (indptr, indices and values
 * NULL): for setup code that reads only rows, cols and nnz (the CMRS
 * options, kernel and limits). */
cmrs_csr cmrs_csr_view_counts(const cmrs_csr_view_d *M);

/* *A = new host copy of M, row offsets widened to int64 (free with
 * cmrs_csr_free; on failure *A holds nothing), copied on `stream` into
 * pinned destinations where they can be registered, stream synchronised;
 * CMRS_E_INTERNAL when the row offsets do not run from 0 to nnz. */
cmrs_code cmrs_csr_view_download(const cmrs_csr_view_d *M,
                                 cmrs_stream stream, cmrs_csr *A);

/* The same into A allocated with M's counts (cmrs_csr_alloc) and its
 * pages already touched (cmrs_touch_pages: the copies then run pageable,
 * unpinned), with indptr32 (rows + 1 int32) as the offsets' staging. */
cmrs_code cmrs_csr_view_download_into(const cmrs_csr_view_d *M,
                                      cmrs_stream stream, int32_t *indptr32,
                                      cmrs_csr *A);

/* The way every format can be set up from M: M downloaded, self->ops->setup
 * on the host copy, the copy freed. cmrs_spmv_create_dev's fallback for
 * formats without setup_dev, and a setup_dev's for layouts it does not
 * build on the device. */
cmrs_code cmrs_spmv_setup_host_copy(cmrs_spmv *self,
                                    const cmrs_csr_view_d *M);

/* dst_d[i] = src_d[i] widened to int64, for i < n, queued on `stream`
 * (0: the legacy default stream, ordered before setup's later work
 * there); not synchronised. */
cmrs_code cmrs_dev_widen_offsets(const int32_t *src_d, int64_t n,
                                 int64_t *dst_d, cmrs_stream stream);

#ifdef __cplusplus
}
#endif

#endif
