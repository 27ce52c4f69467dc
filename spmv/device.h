/* Device buffers in a format's precision: host doubles uploaded to (and
 * downloaded from) float or double device arrays, a plain CSR matrix on the
 * device, and y = beta*y. Shared by the CSR baselines (csr-scalar,
 * csr-vector, cusparse), the verification in verify.h and `cmrs bench`.
 * Everything here may allocate and synchronise: setup-time code only, never
 * inside an apply (except cmrs_dev_scale, which only launches a kernel). */
#ifndef CMRS_DEVICE_H
#define CMRS_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "spmv.h"

/* *v_d = new device array holding v_h[0..n) converted to prec. A value
 * that does not fit in single precision is CMRS_E_INPUT naming `what` and
 * the index. Free with cudaFree. */
cmrs_code cmrs_dev_upload_values(const double *v_h, int64_t n, cmrs_prec prec,
                                 const char *what, void **v_d);
/* v_h[0..n) = the device array v_d of prec, widened to double. */
cmrs_code cmrs_dev_download_values(const void *v_d, int64_t n, cmrs_prec prec,
                                   double *v_h);
/* *v_d = new uninitialised device array of n values of prec. */
cmrs_code cmrs_dev_alloc_values(int64_t n, cmrs_prec prec, void **v_d);
/* bytes from host to device, returning once they have landed (the
 * kernels that read the data run on non-blocking streams), through the
 * upload helper: staged, registered or pageable (upload.h, CMRS_UPLOAD). */
cmrs_code cmrs_dev_copy_to(void *dst_d, const void *src_h, size_t bytes);
/* *dst_d = new device copy of `bytes` host bytes (cmrs_dev_copy_to). */
cmrs_code cmrs_dev_upload(const void *src_h, size_t bytes, void **dst_d);

/* The stored values of a format from the nnz values of a CSR matrix, in
 * CSR order: dst_d[i] = values_h[perm_d[i]] (0 where perm_d[i] < 0, i.e.
 * padding), or values_h[i] when perm_d is NULL, for i < stored, converted
 * to prec on the GPU. What setup and the value updates of the formats share. A
 * value outside the float range in single precision: CMRS_E_INPUT naming
 * `what` and the index. Uses a scratch device buffer; synchronises. */
cmrs_code cmrs_dev_store_values(const double *values_h, int64_t nnz,
                                const int32_t *perm_d, int64_t stored,
                                cmrs_prec prec, void *dst_d, const char *what);

/* The same from values already on the device (values_d: doubles in CSR
 * order, e.g. a cmrs_csr_view_d's), with no upload: double in CSR order
 * is one device-to-device copy; otherwise a kernel converts (and
 * gathers). Like the host store, single precision reports the smallest
 * CSR index whose value is outside the float range (NaN and Inf included)
 * as CMRS_E_INPUT naming `what` (found on the device, then that value
 * downloaded for the message), and double checks nothing (host matrices'
 * finiteness is cmrs_csr_validate's; a device matrix's is its maker's).
 * Synchronises. */
cmrs_code cmrs_dev_store_values_d(const double *values_d,
                                  const int32_t *perm_d, int64_t stored,
                                  cmrs_prec prec, void *dst_d,
                                  const char *what);

/* The kernel of both stores, queued on stream (no allocation, no
 * synchronisation): dst_d[i] = src_d[perm_d[i]] (0 where perm_d[i] < 0)
 * or src_d[i] (perm_d NULL), doubles converted to prec; bad_d (NULL: no
 * check) lowered (atomicMin) to the CSR index of a value prec does not
 * hold (single: beyond float's range, NaN and Inf included; double: not
 * finite). */
cmrs_code cmrs_dev_store_values_on(const double *src_d, const int32_t *perm_d,
                                   int64_t stored, cmrs_prec prec,
                                   void *dst_d, unsigned long long *bad_d,
                                   cudaStream_t stream);

/* dst_d[i] = src_d[perm_d[i]] (0 where perm_d[i] < 0) or src_d[i] (perm_d
 * NULL) for i < stored, both of prec, on stream: the device-values update
 * (no allocation, no synchronisation, capturable). bad_d (NULL: no check)
 * is lowered (atomicMin) to the CSR index of any non-finite value. */
cmrs_code cmrs_dev_gather_values(const void *src_d, const int32_t *perm_d,
                                 int64_t stored, cmrs_prec prec, void *dst_d,
                                 unsigned long long *bad_d,
                                 cudaStream_t stream);

/* *perm_d = new device array of `stored` int32: index_values_h[i] - 1 (the
 * values of a converted index pattern; -1 marks padding). */
cmrs_code cmrs_dev_perm_upload(const double *index_values_h, int64_t stored,
                               int32_t **perm_d);

/* A CSR matrix on the device, as the CSR kernels and cuSPARSE read it. Row
 * offsets are int32 while nnz fits (4-byte strip pointers, as the beta+-
 * metrics assume), int64 beyond. */
typedef struct cmrs_csr_dev {
    int offsets64;      /* 1: indptr_d is int64_t[rows+1]; 0: int32_t */
    void *indptr_d;
    int32_t *indices_d; /* nnz column indices */
    void *values_d;     /* nnz values of the precision */
    size_t bytes;       /* device bytes held by the three arrays */
} cmrs_csr_dev;

/* Uploads A (zeroes *d first; on failure *d holds nothing). */
cmrs_code cmrs_csr_dev_upload(const cmrs_csr *A, cmrs_prec prec,
                              cmrs_csr_dev *d);
/* The same from a device CSR view (32-bit offsets kept; values converted
 * to prec as cmrs_dev_store_values_d does): device-to-device copies, no
 * host copy. Synchronises. */
cmrs_code cmrs_csr_dev_copy_d(const cmrs_csr_view_d *M, cmrs_prec prec,
                              cmrs_csr_dev *d);
void cmrs_csr_dev_free(cmrs_csr_dev *d); /* NULL-safe, idempotent */

/* Blocks of `block` threads for a grid-stride loop over n items: one per
 * item up to 65536 blocks (threads stride beyond), at least 1. */
unsigned cmrs_dev_stride_grid(int64_t n, int block);

/* indptr_d[0..n] = the exclusive sum of lengths_d[0..n] (rows' lengths
 * and a final 0, so indptr_d[n] is the entry count), on `stream`, which
 * is synchronised before the scan's scratch is freed. */
cmrs_code cmrs_dev_offsets_from_lengths(const int32_t *lengths_d, int64_t n,
                                        int32_t *indptr_d, cudaStream_t stream);

/* y = beta*y on stream, in prec; beta == 0 writes zeros without reading y
 * (it may hold NaN). For products with an empty matrix. n == 0: no-op. */
cmrs_code cmrs_dev_scale(cmrs_prec prec, int64_t n, double beta, void *y_d,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
