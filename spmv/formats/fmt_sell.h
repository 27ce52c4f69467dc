/* Host side of the 'sell' format (cuSPARSE sliced ELL): CSR -> SELL arrays
 * exactly as cusparseCreateSlicedEll reads them, kept apart from the
 * cuSPARSE calls so the layout is testable on a machine without a GPU.
 *
 * Rows are cut into slices of CMRS_SELL_SLICE consecutive rows (the last
 * slice is padded with phantom rows up to the full slice). Slice s has
 * width w_s = longest row in it and holds SLICE * w_s entries, column-major:
 * entry k of row r (r = s*SLICE + i) sits at slice_offsets[s] + k*SLICE + i.
 * Padding entries have column -1 (cuSPARSE's marker) and value 0. */
#ifndef CMRS_FMT_SELL_H
#define CMRS_FMT_SELL_H

#include <stdint.h>

#include "spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows per slice. 16, not a warp of 32: with exponentially distributed
 * row lengths (sigma = mu) the longest of 32 rows averages 4.06 mu, over the
 * shared CMRS_MAX_PADDING_RATIO of 4, so such matrices would be refused;
 * with 16 rows it is 3.38 mu (and 16 is the published SELL optimum on
 * Hopper, see /work/shared/GPU.md). */
#define CMRS_SELL_SLICE 16

typedef struct cmrs_sell_host {
    int64_t rows, cols, nnz;
    int64_t slices;          /* ceil(rows / CMRS_SELL_SLICE) */
    int64_t stored;          /* sum of SLICE * width over slices (>= nnz) */
    int32_t *slice_offsets;  /* slices + 1 entries, [0] = 0, [slices] = stored */
    int32_t *col_ind;        /* stored entries, -1 marks padding */
    double *values;          /* stored entries, 0 for padding */
} cmrs_sell_host;

/* Entries the SELL layout of A stores (nonzeros plus padding), without
 * building it. */
int64_t cmrs_sell_count(const cmrs_csr *A);

/* Builds the SELL arrays of A (zeroes *s first; on failure *s holds
 * nothing). Too much padding (cmrs_check_padding) or more than INT32_MAX
 * stored entries (cuSPARSE gets 32-bit offsets) is CMRS_E_LIMIT; out of
 * memory CMRS_E_NOMEM. Free with cmrs_sell_host_free. */
cmrs_code cmrs_sell_build(const cmrs_csr *A, cmrs_sell_host *s);
void cmrs_sell_host_free(cmrs_sell_host *s); /* NULL-safe, idempotent */

#ifdef __cplusplus
}
#endif

#endif
