/* Row partitioning (partition.h): block and RCM blocks balanced by nnz,
 * METIS's k-way partition (base/csr_metis.h); the local order, edge cut
 * and imbalance. */
#include <stdlib.h>
#include <string.h>

#include "base/csr_metis.h"
#include "base/csr_rcm.h"
#include "base/memory.h"
#include "base/thread.h"
#include "partition.h"

static const char *const k_methods[] = {"block", "rcm", "metis"};

const char *cmrs_part_method_name(cmrs_part_method m)
{
    return (unsigned)m < 3 ? k_methods[m] : "unknown";
}

cmrs_code cmrs_part_method_parse(const char *text, cmrs_part_method *m)
{
    for (int i = 0; i < 3; ++i)
        if (strcmp(text, k_methods[i]) == 0) {
            *m = (cmrs_part_method)i;
            return CMRS_OK;
        }
    CMRS_FAIL(CMRS_E_USAGE, "--partition: unknown method '%s' (known: "
              "block, rcm, metis)", text);
}

int cmrs_part_owner(const cmrs_partition *pt, int64_t j)
{
    if (pt->owner) return pt->owner[j];
    int lo = 0, hi = pt->nparts - 1; /* the last p with start[p] <= j */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (pt->start[mid] <= j) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

void cmrs_part_blocks(const cmrs_csr *A, const int64_t *order, int nparts,
                      int32_t *owner)
{
    int64_t start[CMRS_MAX_PARTS + 1]; /* nparts <= CMRS_MAX_PARTS */
    cmrs_csr_row_blocks(A->indptr, A->rows, order, nparts, start);
    for (int p = 0; p < nparts; ++p)
        for (int64_t k = start[p]; k < start[p + 1]; ++k)
            owner[order ? order[k] : k] = p;
}

/* Does row j store column i? (binary search: rows are sorted) */
static int stores(const cmrs_csr *A, int64_t j, int64_t i)
{
    int found = 0;
    (void)cmrs_csr_lookup(A, j, (int32_t)i, &found);
    return found;
}

/* The edge cut by threads over the rows (a pass over every entry: a
 * second at 50M rows): each its rows' count. */
typedef struct cut_job {
    const cmrs_csr *A;
    const int32_t *owner;
    int64_t cut[CMRS_PARALLEL_CHUNKS];
} cut_job;

/* Each edge once: from its lower end when a_ij is stored with i < j, from
 * the upper end only when the mirror entry is missing. */
static void cut_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    cut_job *c = ctx;
    const cmrs_csr *A = c->A;
    int64_t cut = 0;
    for (int64_t i = lo; i < hi; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t j = A->indices[k];
            if (j == i || c->owner[i] == c->owner[j]) continue;
            if (i < j || !stores(A, j, i)) ++cut;
        }
    c->cut[t] = cut;
}

int64_t cmrs_part_edge_cut(const cmrs_csr *A, const int32_t *owner)
{
    cut_job c = {.A = A, .owner = owner};
    int nt = cmrs_parallel_threads(A->nnz, CMRS_DIST_GRAIN);
    cmrs_parallel_ranges(A->rows, nt, cut_rows, &c);
    int64_t cut = 0;
    for (int t = 0; t < nt; ++t) cut += c.cut[t];
    return cut;
}

/* The largest part's nnz over the mean part's (1: perfect). */
static double imbalance(const cmrs_csr *A, int P, double max_nnz)
{
    return A->nnz > 0 ? max_nnz * P / (double)A->nnz : 1.0;
}

/* owner -> start, order, lidx (stable: a part's rows keep the order in
 * which `by` lists them), and the nnz imbalance. */
static void local_order(const cmrs_csr *A, const int64_t *by,
                        cmrs_partition *pt)
{
    int P = pt->nparts;
    memset(pt->start, 0, (size_t)(P + 1) * sizeof *pt->start);
    for (int64_t i = 0; i < pt->n; ++i) ++pt->start[pt->owner[i] + 1];
    for (int p = 0; p < P; ++p) pt->start[p + 1] += pt->start[p];
    for (int64_t k = 0; k < pt->n; ++k) {
        int64_t i = by ? by[k] : k;
        int32_t p = pt->owner[i];
        pt->lidx[i] = k; /* temporarily the position; fixed below */
        pt->order[pt->start[p]++] = i;
    }
    for (int p = P; p > 0; --p) pt->start[p] = pt->start[p - 1];
    pt->start[0] = 0;
    double max_nnz = 0;
    for (int p = 0; p < P; ++p) {
        int64_t nz = 0;
        for (int64_t k = pt->start[p]; k < pt->start[p + 1]; ++k) {
            int64_t i = pt->order[k];
            pt->lidx[i] = k - pt->start[p];
            nz += A->indptr[i + 1] - A->indptr[i];
        }
        if ((double)nz > max_nnz) max_nnz = (double)nz;
    }
    pt->imbalance = imbalance(A, P, max_nnz);
}

/* Blocks of the file order (block): owner, order and lidx in one pass by
 * threads (three arrays of every row, ~1 GB at 50M rows, were four serial
 * passes); the same arrays local_order makes of them. */
static void block_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    cmrs_partition *pt = ctx;
    int p = 0;
    (void)t;
    while (p + 1 < pt->nparts && pt->start[p + 1] <= lo) ++p;
    for (int64_t i = lo; i < hi; ++i) {
        while (pt->start[p + 1] <= i) ++p;
        pt->owner[i] = p;
        pt->order[i] = i;
        pt->lidx[i] = i - pt->start[p];
    }
}

static void block_order(const cmrs_csr *A, cmrs_partition *pt)
{
    int P = pt->nparts;
    cmrs_csr_row_blocks(A->indptr, A->rows, NULL, P, pt->start);
    cmrs_parallel_ranges(pt->n, cmrs_parallel_threads(pt->n, CMRS_DIST_GRAIN),
                         block_rows, pt);
    double max_nnz = 0;
    for (int p = 0; p < P; ++p) {
        double nz = (double)(A->indptr[pt->start[p + 1]] -
                             A->indptr[pt->start[p]]);
        if (nz > max_nnz) max_nnz = nz;
    }
    pt->imbalance = imbalance(A, P, max_nnz);
}

/* The RCM order as a list of rows (order[new] = old). */
static cmrs_code rcm_order(const cmrs_csr *A, int64_t *order)
{
    int32_t *new_of_old = cmrs_malloc_array((size_t)A->rows,
                                            sizeof *new_of_old);
    CMRS_ENSURE(new_of_old, CMRS_E_NOMEM, "cannot allocate an RCM order");
    cmrs_code rc = cmrs_rcm_perm(A, new_of_old);
    if (rc == CMRS_OK)
        for (int64_t i = 0; i < A->rows; ++i) order[new_of_old[i]] = i;
    free(new_of_old);
    return rc == CMRS_OK ? CMRS_OK : cmrs_error_trace(rc, __FILE__, __LINE__);
}

static cmrs_code check_args(const cmrs_csr *A, int nparts,
                            cmrs_part_method m)
{
    CMRS_ENSURE(A->rows == A->cols && A->rows > 0, CMRS_E_INPUT, "a "
                "partition needs a square matrix with rows (got %lld x %lld)",
                (long long)A->rows, (long long)A->cols);
    CMRS_ENSURE(nparts >= 1 && nparts <= CMRS_MAX_PARTS &&
                nparts <= A->rows, CMRS_E_USAGE, "--parts %d: between 1 and "
                "min(rows = %lld, %d)", nparts, (long long)A->rows,
                CMRS_MAX_PARTS);
    CMRS_ENSURE(m != CMRS_PART_METIS || cmrs_metis_built(), CMRS_E_USAGE,
                "--partition metis: this build has no METIS (install "
                "libmetis-dev and reconfigure; or use block or rcm)");
    return CMRS_OK;
}

static cmrs_code alloc_partition(int64_t n, int nparts, cmrs_partition *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->nparts = nparts;
    pt->n = n;
    pt->owner = cmrs_malloc_array((size_t)n, sizeof *pt->owner);
    pt->lidx = cmrs_malloc_array((size_t)n, sizeof *pt->lidx);
    pt->order = cmrs_malloc_array((size_t)n, sizeof *pt->order);
    pt->start = cmrs_malloc_array((size_t)nparts + 1, sizeof *pt->start);
    if (pt->owner && pt->lidx && pt->order && pt->start) return CMRS_OK;
    cmrs_partition_free(pt);
    CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate a partition of %lld rows",
              (long long)n);
}

cmrs_code cmrs_partition_build(const cmrs_csr *A, int nparts,
                               cmrs_part_method m, cmrs_partition *pt)
{
    cmrs_code rc = CMRS_OK;
    int64_t *by = NULL; /* the order blocks are cut from (rcm), else NULL */
    CMRS_CHECK(check_args(A, nparts, m));
    CMRS_CHECK(alloc_partition(A->rows, nparts, pt));
    pt->method = m;
    pt->nnz = A->nnz;
    if (m == CMRS_PART_RCM) {
        by = cmrs_malloc_array((size_t)A->rows, sizeof *by);
        if (!by) CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate an order");
        CMRS_TRY(rcm_order(A, by));
    }
    if (m == CMRS_PART_BLOCK) {
        block_order(A, pt);
    } else {
        if (m == CMRS_PART_METIS && nparts > 1)
            CMRS_TRY(cmrs_metis_kway(A, nparts, pt->owner));
        else
            cmrs_part_blocks(A, by, nparts, pt->owner);
        local_order(A, by, pt);
    }
    pt->edge_cut = cmrs_part_edge_cut(A, pt->owner);
done:
    free(by);
    if (rc != CMRS_OK) cmrs_partition_free(pt);
    return rc;
}

void cmrs_partition_free(cmrs_partition *pt)
{
    if (!pt) return;
    CMRS_FREE_ALL(pt->owner, pt->lidx, pt->order, pt->start);
    memset(pt, 0, sizeof *pt);
}
