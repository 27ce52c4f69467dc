/* CSR-B (paper 003 §5.2): CSR whose nonzeros are cut into fixed fragments
 * of F consecutive entries, one fragment per thread block, plus a Bound
 * array giving for each fragment the first and the last row it touches.
 * This header is the host side (building Bound), shared by fmt_csrb.cu and
 * the host test; docs/formats/csrb.md describes the kernels. */
#ifndef CMRS_FMT_CSRB_H
#define CMRS_FMT_CSRB_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* F = threads per block: one nonzero per thread. */
#define CMRS_CSRB_DEFAULT_FRAGMENT 256

typedef struct cmrs_csrb_bounds {
    int64_t blocks;  /* ceil(nnz / fragment) */
    int fragment;    /* F: entries per block (the last one may hold fewer) */
    int32_t *bound;  /* 2*blocks: [2b] first row, [2b+1] last row with an
                        entry in fragment b (both rows are non-empty) */
} cmrs_csrb_bounds;

/* Checks that fragment is a multiple of 32 in [32, 1024] (CMRS_E_USAGE) and
 * that rows and nnz fit the int32 kernel indices (CMRS_E_LIMIT), then fills
 * *out (zeroed first; on failure it holds nothing). Free with
 * cmrs_csrb_bounds_free. */
cmrs_code cmrs_csrb_bounds_build(const cmrs_csr *A, int fragment,
                                 cmrs_csrb_bounds *out);
void cmrs_csrb_bounds_free(cmrs_csrb_bounds *b); /* NULL-safe, idempotent */

#ifdef __cplusplus
}
#endif

#endif
