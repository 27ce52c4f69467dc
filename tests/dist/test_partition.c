/* Partition invariants (every row owned once, local order consistent,
 * nnz balance), edge cuts on graphs whose cut is known by hand, and the
 * errors of bad part counts and methods. */
#include <string.h>

#include "check.h"
#include "tdist.h"

/* owner/lidx/order/start agree, every row exactly once. */
static void check_invariants(const cmrs_csr *A, const cmrs_partition *pt)
{
    int64_t n = A->rows, bad = 0;
    char *seen = calloc((size_t)n, 1);
    CHECK(pt->start[0] == 0 && pt->start[pt->nparts] == n, "start spans");
    for (int p = 0; p < pt->nparts; ++p)
        for (int64_t k = pt->start[p]; k < pt->start[p + 1]; ++k) {
            int64_t i = pt->order[k];
            bad += i < 0 || i >= n || seen[i] || pt->owner[i] != p ||
                   pt->lidx[i] != k - pt->start[p];
            if (i >= 0 && i < n) seen[i] = 1;
        }
    for (int64_t i = 0; i < n; ++i) bad += !seen[i];
    CHECK(bad == 0, "%lld rows owned other than once", (long long)bad);
    free(seen);
}

/* Block methods: no part above its share by more than the longest row. */
static void check_balance(const cmrs_csr *A, const cmrs_partition *pt)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (A->indptr[i + 1] - A->indptr[i] > longest)
            longest = A->indptr[i + 1] - A->indptr[i];
    double share = (double)A->nnz / pt->nparts;
    CHECK(pt->imbalance * share <= share + (double)longest + 1e-9,
          "imbalance %g with %d parts (share %g, longest row %lld)",
          pt->imbalance, pt->nparts, share, (long long)longest);
    for (int p = 0; p < pt->nparts; ++p)
        CHECK(pt->start[p + 1] > pt->start[p], "part %d is empty", p);
}

static void sweep(cmrs_csr *A, const char *name)
{
    for (int m = 0; m < method_count(); ++m)
        for (int c = 0; c < N_PARTS_CASES; ++c) {
            cmrs_partition pt;
            cmrs_code rc = cmrs_partition_build(A, k_parts[c],
                                                (cmrs_part_method)m, &pt);
            CHECK(rc == CMRS_OK, "%s %s P=%d: %s", name,
                  cmrs_part_method_name(m), k_parts[c], cmrs_error_message());
            if (rc != CMRS_OK) continue;
            check_invariants(A, &pt);
            if (m != CMRS_PART_METIS) check_balance(A, &pt);
            if (m == CMRS_PART_BLOCK) { /* by threads: the rule's blocks */
                int32_t *owner = malloc((size_t)A->rows * sizeof *owner);
                cmrs_part_blocks(A, NULL, k_parts[c], owner);
                CHECK(memcmp(owner, pt.owner,
                             (size_t)A->rows * sizeof *owner) == 0,
                      "%s block P=%d: owners differ from the rule's", name,
                      k_parts[c]);
                free(owner);
            }
            CHECK(pt.edge_cut == cmrs_part_edge_cut(A, pt.owner), "cut");
            CHECK(k_parts[c] > 1 || pt.edge_cut == 0, "one part cuts nothing");
            cmrs_partition_free(&pt);
        }
}

/* Hand-counted cuts: a path of 10 in 2 blocks cuts 1 edge; a 4x4 grid in
 * 2 blocks of 8 rows (two grid lines each) cuts the 4 vertical edges
 * between lines 1 and 2; the lower bidiagonal counts each coupling once
 * though only one direction is stored. */
static void known_cuts(void)
{
    cmrs_csr A = {0};
    cmrs_partition pt;
    double d[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    tridiag(&A, 10, d, -1.0);
    CHECK_OK(cmrs_partition_build(&A, 2, CMRS_PART_BLOCK, &pt));
    CHECK(pt.edge_cut == 1, "path cut %lld, want 1", (long long)pt.edge_cut);
    CHECK(pt.start[1] == 5, "path split at %lld", (long long)pt.start[1]);
    cmrs_partition_free(&pt);
    cmrs_csr_free(&A);
    lap2d(&A, 4);
    CHECK_OK(cmrs_partition_build(&A, 2, CMRS_PART_BLOCK, &pt));
    CHECK(pt.edge_cut == 4, "grid cut %lld, want 4", (long long)pt.edge_cut);
    cmrs_partition_free(&pt);
    int32_t owner[16];
    for (int i = 0; i < 16; ++i) owner[i] = i % 2; /* checkerboard columns */
    CHECK(cmrs_part_edge_cut(&A, owner) == 12, "striped cut %lld, want 12",
          (long long)cmrs_part_edge_cut(&A, owner));
    cmrs_csr_free(&A);
    bidiag_in_blocks(&A, &pt);
    CHECK(pt.edge_cut == 2, "bidiag cut %lld, want 2", (long long)pt.edge_cut);
    cmrs_partition_free(&pt);
    cmrs_csr_free(&A);
}

/* The cut counted by threads (CMRS_HOST_THREADS=4 on a grid of 5M
 * entries, 4 of the threads' chunks): the striped owner (odd and even
 * columns) cuts every one of the 1000 x 999 horizontal edges; a block
 * partition's cut is the same counted in one thread. */
static void threaded_cut(void)
{
    cmrs_csr A = {0};
    cmrs_partition pt;
    lap2d(&A, 1000);
    int32_t *owner = malloc((size_t)A.rows * sizeof *owner);
    for (int64_t i = 0; i < A.rows; ++i) owner[i] = (int32_t)(i % 2);
    setenv("CMRS_HOST_THREADS", "4", 1);
    int64_t striped = cmrs_part_edge_cut(&A, owner);
    CHECK(striped == 1000 * 999, "striped grid 1000: cut %lld, want %d",
          (long long)striped, 1000 * 999);
    CHECK_OK(cmrs_partition_build(&A, 3, CMRS_PART_BLOCK, &pt));
    setenv("CMRS_HOST_THREADS", "1", 1);
    int64_t one = cmrs_part_edge_cut(&A, pt.owner);
    CHECK(pt.edge_cut == one && one > 0, "3 blocks: cut %lld by threads, "
          "%lld by one", (long long)pt.edge_cut, (long long)one);
    unsetenv("CMRS_HOST_THREADS");
    cmrs_partition_free(&pt);
    free(owner);
    cmrs_csr_free(&A);
}

static void errors(void)
{
    cmrs_csr A = {0};
    cmrs_partition pt;
    cmrs_part_method m;
    lap2d(&A, 3);
    CHECK_FAILS(cmrs_partition_build(&A, 0, CMRS_PART_BLOCK, &pt),
                CMRS_E_USAGE, "--parts 0");
    CHECK_FAILS(cmrs_partition_build(&A, 10, CMRS_PART_BLOCK, &pt),
                CMRS_E_USAGE, "rows = 9");
    CHECK_FAILS(cmrs_part_method_parse("scotch", &m), CMRS_E_USAGE,
                "known: block, rcm, metis");
    if (!cmrs_metis_built())
        CHECK_FAILS(cmrs_partition_build(&A, 2, CMRS_PART_METIS, &pt),
                    CMRS_E_USAGE, "no METIS");
    CHECK_OK(cmrs_partition_build(&A, 9, CMRS_PART_RCM, &pt));
    cmrs_partition_free(&pt);
    cmrs_csr_free(&A);
}

int main(void)
{
    static const dist_matrix mats[] = {{DIST_LAP2D, 17}, {DIST_BIDIAG, 50}};
    sweep_matrices(sweep, mats, 2);
    setenv("CMRS_HOST_THREADS", "3", 1); /* the same, rows in 3 chunks */
    setenv("CMRS_PARALLEL_GRAIN", "1", 1);
    sweep_matrices(sweep, mats, 2);
    unsetenv("CMRS_HOST_THREADS");
    unsetenv("CMRS_PARALLEL_GRAIN");
    known_cuts();
    threaded_cut();
    errors();
    printf("metis %s\n", cmrs_metis_built() ? "built" : "not built");
    return check_summary();
}
