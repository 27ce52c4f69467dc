/* Symmetric renumbering of a system: the permutation (random, RCM, BFS or
 * METIS) and its application A <- P A P^T, b and x0 alike. */
#include <stdlib.h>
#include <string.h>

#include "base/csr_metis.h"
#include "base/csr_rcm.h"
#include "base/memory.h"
#include "cases.h"
#include "rng.h"

const char *const cmrs_order_names[CMRS_ORDER_COUNT + 1] = {
    "natural", "random", "rcm", "bfs", "metis", NULL};

static cmrs_code random_perm(int64_t n, uint64_t seed, int32_t *new_of_old)
{
    cmrs_rng rng = cmrs_rng_make(seed);
    for (int64_t i = 0; i < n; ++i) new_of_old[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; --i) { /* Fisher-Yates */
        int64_t j = (int64_t)cmrs_rng_below(&rng, (uint64_t)i + 1);
        int32_t t = new_of_old[i];
        new_of_old[i] = new_of_old[j];
        new_of_old[j] = t;
    }
    return CMRS_OK;
}

cmrs_code cmrs_order_check(cmrs_order order)
{
    CMRS_ENSURE((unsigned)order < CMRS_ORDER_COUNT, CMRS_E_INTERNAL,
                "unknown order %d", (int)order);
    CMRS_ENSURE(order != CMRS_ORDER_METIS || cmrs_metis_built(),
                CMRS_E_USAGE, "METIS order: cmrs was built without METIS "
                "(install libmetis-dev and reconfigure; or use rcm or bfs)");
    return CMRS_OK;
}

/* The permutation (4 bytes a row) and the order's workspace at its peak:
 * RCM and BFS keep three int32 arrays of rows; METIS a transposed copy of
 * A (12 bytes an entry, 8 a row), its graph (up to 8 an entry, 8 a row)
 * and its two orders (8 a row), before METIS's own workspace, which this
 * does not count. */
static double workspace_bytes(const cmrs_csr *A, cmrs_order order)
{
    double rows = (double)A->rows, nnz = (double)A->nnz;
    if (order == CMRS_ORDER_METIS) return 28.0 * rows + 20.0 * nnz;
    return 16.0 * rows;
}

static cmrs_code fill_perm(const cmrs_csr *A, cmrs_order order,
                           uint64_t seed, int32_t *perm)
{
    if (order == CMRS_ORDER_RANDOM)
        CMRS_CHECK(random_perm(A->rows, seed, perm));
    else if (order == CMRS_ORDER_RCM)
        CMRS_CHECK(cmrs_rcm_perm(A, perm));
    else if (order == CMRS_ORDER_BFS)
        CMRS_CHECK(cmrs_bfs_perm(A, perm));
    else if (order == CMRS_ORDER_METIS)
        CMRS_CHECK(cmrs_metis_nd_perm(A, perm));
    else /* natural: the identity */
        for (int64_t i = 0; i < A->rows; ++i) perm[i] = (int32_t)i;
    return CMRS_OK;
}

cmrs_code cmrs_order_perm(const cmrs_csr *A, cmrs_order order, uint64_t seed,
                          int32_t **new_of_old)
{
    *new_of_old = NULL;
    CMRS_CHECK(cmrs_order_check(order));
    CMRS_ENSURE(A->rows == A->cols, CMRS_E_INPUT, "cannot reorder a %lld x "
                "%lld matrix: it is not square", (long long)A->rows,
                (long long)A->cols);
    CMRS_CHECK(cmrs_check_memory("reorder", "the permutation",
                                 workspace_bytes(A, order)));
    int32_t *perm = cmrs_malloc_array((size_t)A->rows, sizeof *perm);
    CMRS_ENSURE(perm, CMRS_E_NOMEM, "cannot allocate a permutation of %lld "
                "rows", (long long)A->rows);
    cmrs_code rc = fill_perm(A, order, seed, perm);
    if (rc != CMRS_OK) free(perm);
    CMRS_CHECK(rc);
    *new_of_old = perm;
    return CMRS_OK;
}

/* Moves each row i to new row new_of_old[i], keeping its entries in order
 * (the caller sorts them afterwards). Walking the old rows in order keeps
 * the column remapping cache-friendly for a local input ordering; each
 * array is replaced as soon as its copy is complete, so the peak is one
 * extra array of values. */
static cmrs_code scatter_values(cmrs_csr *A, const int64_t *new_indptr,
                                const int32_t *new_of_old)
{
    double *v = cmrs_malloc_array((size_t)A->nnz, sizeof *v);
    CMRS_ENSURE(v, CMRS_E_NOMEM, "cannot allocate %lld permuted values",
                (long long)A->nnz);
    for (int64_t i = 0; i < A->rows; ++i)
        memcpy(v + new_indptr[new_of_old[i]], A->values + A->indptr[i],
               (size_t)(A->indptr[i + 1] - A->indptr[i]) * sizeof *v);
    cmrs_host_free(A->values);
    A->values = v;
    return CMRS_OK;
}

static cmrs_code scatter_indices(cmrs_csr *A, const int64_t *new_indptr,
                                 const int32_t *new_of_old)
{
    int32_t *c = cmrs_malloc_array((size_t)A->nnz, sizeof *c);
    CMRS_ENSURE(c, CMRS_E_NOMEM, "cannot allocate %lld permuted column "
                "indices", (long long)A->nnz);
    for (int64_t i = 0; i < A->rows; ++i) {
        int32_t *dst = c + new_indptr[new_of_old[i]];
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            *dst++ = new_of_old[A->indices[k]];
    }
    cmrs_host_free(A->indices);
    A->indices = c;
    return CMRS_OK;
}

static void permute_vector(double *v, int64_t n, const int32_t *new_of_old,
                           double *tmp)
{
    if (!v) return;
    for (int64_t i = 0; i < n; ++i) tmp[new_of_old[i]] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* Checks that new_of_old is a permutation (before anything moves) and
 * stores the new row lengths in new_indptr[1..n]. */
static cmrs_code new_row_lengths(const cmrs_csr *A, const int32_t *new_of_old,
                                 int64_t *new_indptr)
{
    int64_t n = A->rows;
    for (int64_t r = 0; r <= n; ++r) new_indptr[r] = -1;
    for (int64_t i = 0; i < n; ++i) {
        int32_t r = new_of_old[i];
        CMRS_ENSURE(r >= 0 && r < n && new_indptr[r + 1] < 0, CMRS_E_INPUT,
                    "reorder: entry %lld (%d) makes it no permutation of %lld",
                    (long long)i, r, (long long)n);
        new_indptr[r + 1] = A->indptr[i + 1] - A->indptr[i];
    }
    return CMRS_OK;
}

/* new_indptr holds the new row lengths (new_row_lengths). */
static cmrs_code permute_arrays(cmrs_system *sys, const int32_t *new_of_old,
                                int64_t *new_indptr, double *tmp)
{
    cmrs_csr *A = &sys->A;
    int64_t n = A->rows;
    new_indptr[0] = 0;
    for (int64_t r = 0; r < n; ++r) new_indptr[r + 1] += new_indptr[r];
    CMRS_CHECK(scatter_values(A, new_indptr, new_of_old));
    CMRS_CHECK(scatter_indices(A, new_indptr, new_of_old));
    memcpy(A->indptr, new_indptr, ((size_t)n + 1) * sizeof *new_indptr);
    CMRS_CHECK(cmrs_csr_sort_sum_duplicates(A)); /* no duplicates: sorts */
    permute_vector(sys->b, n, new_of_old, tmp);
    permute_vector(sys->x0, n, new_of_old, tmp);
    return CMRS_OK;
}

cmrs_code cmrs_permute_system(cmrs_system *sys, const int32_t *new_of_old)
{
    int64_t n = sys->A.rows;
    cmrs_code rc = CMRS_OK;
    int moving = 0; /* once rows move, a failure leaves a broken system */
    /* new_indptr, tmp and one permuted copy of the values at the peak */
    CMRS_CHECK(cmrs_check_memory("reorder", "P A P^T",
                                 16.0 * ((double)n + 1) +
                                     8.0 * (double)sys->A.nnz));
    int64_t *new_indptr = cmrs_malloc_array((size_t)n + 1, sizeof *new_indptr);
    double *tmp = cmrs_malloc_array((size_t)n, sizeof *tmp);
    if (sys->A.rows != sys->A.cols)
        CMRS_TRY_FAIL(CMRS_E_INPUT, "cannot permute a %lld x %lld matrix "
                      "symmetrically", (long long)n, (long long)sys->A.cols);
    if (!new_indptr || !tmp)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate reordering workspace "
                      "for %lld rows", (long long)n);
    CMRS_TRY(new_row_lengths(&sys->A, new_of_old, new_indptr));
    moving = 1;
    CMRS_TRY(permute_arrays(sys, new_of_old, new_indptr, tmp));
done:
    if (rc != CMRS_OK && moving) cmrs_system_free(sys);
    free(new_indptr);
    free(tmp);
    return rc;
}

cmrs_code cmrs_reorder(cmrs_system *sys, cmrs_order order, uint64_t seed)
{
    if (order == CMRS_ORDER_NATURAL) return CMRS_OK;
    int32_t *perm = NULL;
    CMRS_CHECK(cmrs_order_perm(&sys->A, order, seed, &perm));
    cmrs_code rc = cmrs_permute_system(sys, perm);
    free(perm);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
