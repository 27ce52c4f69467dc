/* Renumbering and halo lists (docs/DISTRIBUTED.md): what each part of a
 * partition (partition.h) needs to compute its rows of y = A x.
 *
 * Part p's local numbering: its n_own owned rows first (in the partition's
 * local order), then its n_ghost ghost columns -- the foreign columns its
 * rows read -- grouped by owning part (ascending), within a group in the
 * owner's local order. A local vector is n_own + n_ghost values; the ghost
 * tail is filled by the halo exchange before each SpMV.
 *
 * The local matrix keeps each row's entries in the order of the global
 * row, so a part's y_i is summed in exactly the global order: the parts'
 * SpMV reproduces the global one bitwise. (Its column indices are
 * therefore not sorted within a row: a consumer that needs sorted rows
 * calls cmrs_halo_sort_rows, and then agrees to rounding only.)
 *
 * Lists: part p receives ghosts [recv_start[k], recv_start[k+1]) (offsets
 * into the ghost tail) from part recv_from[k]; it sends its owned entries
 * send_idx[send_start[k] .. send_start[k+1]) to part send_to[k], in the
 * order that part's receive range expects. */
#ifndef CMRS_DIST_HALO_H
#define CMRS_DIST_HALO_H

#include "partition.h"

typedef struct cmrs_halo_part {
    int64_t n_own, n_ghost;
    cmrs_csr A;          /* n_own x (n_own + n_ghost), see above */
    int64_t *value_of;   /* A.nnz: each entry's index in the global values
                            (new values: cmrs_halo_update_values); in
                            rows mode, in the rank's rows' values. NULL
                            where that index is value_base + the entry's
                            own (consecutive rows of A in their order:
                            block parts, a rank's rows; after a sort, but
                            for the entries listed below), which saves the
                            map's 8 bytes an entry (1 GB a part at 50M
                            rows) */
    int64_t value_base;
    /* Where value_of is NULL and a sort of the rows (cmrs_halo_sort_rows)
     * moved entries: entry patch_at[k]'s global index is patch_from[k]
     * (the others' still value_base + their own). Only the rows whose
     * local order was not sorted move: a part's boundary rows, whose
     * ghost columns come after its own. */
    int64_t npatch;
    int64_t *patch_at, *patch_from;
    int64_t *ghost_gid;  /* n_ghost: the global row of each ghost */
    int nrecv, nsend;
    int *recv_from, *send_to;     /* parts, ascending */
    int64_t *recv_start;          /* nrecv + 1 */
    int64_t *send_start;          /* nsend + 1 */
    int64_t *send_idx;            /* send_start[nsend]: owned local rows */
} cmrs_halo_part;

typedef struct cmrs_halo {
    int nparts;
    cmrs_halo_part *part;  /* nparts */
} cmrs_halo;

/* Builds every part's local matrix and lists from the global A and the
 * partition pt (whose `halo` count it fills). *h is allocated. */
cmrs_code cmrs_halo_build(const cmrs_csr *A, cmrs_partition *pt,
                          cmrs_halo *h);
/* The same where this process holds only the parts p with p % nranks ==
 * rank (nranks <= 1: every part): every part's ghosts and lists (the
 * send lists need them all), the local matrix and value map of those
 * parts only (the others' A stays empty, n_own set): a rank under mpirun
 * builds one part's matrix, not all of them. */
cmrs_code cmrs_halo_build_for(const cmrs_csr *A, cmrs_partition *pt,
                              int rank, int nranks, cmrs_halo *h);
/* Sorts every local row by local column (halo_sort.c), keeping the value
 * map, or where value_base stands for it, recording the entries that
 * moved (patch_at, patch_from): for inner back ends that need sorted rows.
 * The parts' products then agree with the global one to rounding, no
 * longer bitwise. */
cmrs_code cmrs_halo_sort_rows(cmrs_halo *h);
/* Every local entry's global index into out (hp->A.nnz): value_of, or
 * value_base + its own with the patches (for tests and checks). */
void cmrs_halo_value_map(const cmrs_halo_part *hp, int64_t *out);
/* New values of the global A (same pattern) into every local matrix; in
 * rows mode A is the rank's rows (halo_rows.h). */
void cmrs_halo_update_values(const cmrs_csr *A, cmrs_halo *h);
void cmrs_halo_free(cmrs_halo *h); /* NULL-safe, zeroes */

/* Internal steps, shared with halo_rows.c: */
/* One part's ghosts (ghost_gid ascending by owner, then the owner's local
 * index; n_own, n_ghost) and, where `fill`, its local matrix and value
 * map, by `threads` threads over its rows: the part's rows are rows[0 ..
 * n_own) of A in local order, or where rows is NULL A's rows themselves
 * (a rank's rows, pt->by_rows). The result does not depend on threads. */
typedef struct cmrs_halo_scan_in {
    const cmrs_csr *A;
    const int64_t *rows;
    const cmrs_partition *pt;
    int p, fill, threads;
} cmrs_halo_scan_in;
cmrs_code cmrs_halo_scan(const cmrs_halo_scan_in *in, cmrs_halo_part *hp);
/* hp's receive lists from its ghosts (ghost_gid, grouped by owner): the
 * runs with one owner. */
cmrs_code cmrs_halo_recv_groups(const cmrs_partition *pt,
                                cmrs_halo_part *hp);

#endif
