/* ArgCSR (Heller & Oberhuber, paper 002): adaptive row-grouped CSR, host
 * side. Rows are cut into groups of at most 32 consecutive rows, one warp
 * per group. Each group owns 32 "chunks" (one per lane) of the same chunk
 * size; a row gets as many lanes as it needs so that no chunk holds more
 * than chunk entries, so long rows get more lanes. The chunks of a group are
 * stored column-wise (entry j of lane l at offset + 32*j + l), padded with
 * column -1 / value 0. See docs/formats/argcsr.md. */
#ifndef CMRS_FMT_ARGCSR_H
#define CMRS_FMT_ARGCSR_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_ARGCSR_LANES 32         /* chunks per group (one warp) */
#define CMRS_ARGCSR_DESIRED_CHUNK 1  /* the paper's robust default */

/* The paper's ArgCSRGroupInfo: rows first_row .. first_row+size-1, entries
 * offset .. offset + 32*chunk - 1. */
typedef struct cmrs_argcsr_group {
    int32_t first_row, size, offset, chunk;
} cmrs_argcsr_group;

typedef struct cmrs_argcsr {
    int64_t rows, nnz, n_groups;
    int64_t stored;             /* 32 * sum of chunk sizes, incl. padding */
    cmrs_argcsr_group *groups;  /* n_groups */
    uint8_t *row_end;  /* rows: one past the last lane of the row within its
                          group (the paper's per-group prefix sum of
                          threadsMapping); empty rows own no lane */
    int32_t *cols;     /* stored; -1 marks padding */
    double *vals;      /* stored; 0 in padding */
} cmrs_argcsr;

/* Converts A with the paper's desiredChunkSize (>= 1). Fails with
 * CMRS_E_LIMIT when rows or stored entries exceed int32, CMRS_E_NOMEM on
 * allocation failure; *out then holds nothing. Free with cmrs_argcsr_free. */
cmrs_code cmrs_argcsr_build(const cmrs_csr *A, int desired_chunk,
                            cmrs_argcsr *out);
void cmrs_argcsr_free(cmrs_argcsr *m); /* NULL-safe, idempotent */

/* Smallest chunk size c with sum over rows of ceil(len/c) <= 32 lanes, for
 * the n row lengths of a group (0 if all are empty). It is the chunk size
 * the paper's greedy lane distribution ends with. */
int64_t cmrs_argcsr_chunk_size(const int64_t *len, int n);

#ifdef __cplusplus
}
#endif

#endif
