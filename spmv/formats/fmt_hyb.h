/* Host side of the hyb format (Bell & Garland 2008/2009): an ELL part of
 * width K stored column-major, plus a COO remainder with the entries of
 * rows longer than K. Conversion only; spmv/formats/fmt_hyb.cu uploads and runs.
 * The values of both parts are one array (ELL, then COO), so converting
 * cmrs_csr_index_pattern(A) gives one permutation for new values. */
#ifndef CMRS_FMT_HYB_H
#define CMRS_FMT_HYB_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bell & Garland's break-even row count: the ELL part only pays off when
 * at least this many rows (and a third of all rows) fill a column. */
#define CMRS_HYB_BREAKEVEN_ROWS 4096
/* Marks a padding slot of the ELL part (its value is 0). */
#define CMRS_HYB_PAD (-1)

typedef struct cmrs_hyb_host {
    int64_t rows, cols;
    int32_t width;      /* K: ELL slots per row (0: all entries in COO) */
    int32_t *ell_cols;  /* rows*K, slot k of row r at k*rows + r;
                           CMRS_HYB_PAD after the row's last entry */
    double *ell_vals;   /* rows*K, 0 in padding slots, followed by the
                           coo_nnz COO values: the block of all
                           cmrs_hyb_stored() values, owned here */
    int64_t coo_nnz;    /* entries beyond slot K, sorted by row */
    int32_t *coo_rows, *coo_cols;
    double *coo_vals;   /* = ell_vals + rows*K (not a separate block) */
} cmrs_hyb_host;

/* K of Bell & Garland: the largest K such that at least
 * max(breakeven, rows/3) rows have K or more entries; 0 if none.
 * Fails only on allocation (CMRS_E_NOMEM). */
cmrs_code cmrs_hyb_width(const cmrs_csr *A, int64_t breakeven, int32_t *K);

/* Splits A into *h with ELL width K (h is zeroed first, owns its arrays;
 * on failure holds nothing). Sizes beyond int32 row indices or size_t
 * are CMRS_E_LIMIT; padding beyond cmrs_check_padding is CMRS_E_LIMIT. */
cmrs_code cmrs_hyb_build(const cmrs_csr *A, int32_t K, cmrs_hyb_host *h);

/* Entries stored incl. padding: rows*K + coo_nnz. */
int64_t cmrs_hyb_stored(const cmrs_hyb_host *h);

void cmrs_hyb_host_free(cmrs_hyb_host *h); /* NULL-safe, idempotent */

#ifdef __cplusplus
}
#endif

#endif
