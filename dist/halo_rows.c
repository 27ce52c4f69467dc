/* cmrs_halo_build_rows (halo_rows.h): the partition and this rank's halo
 * where the rank holds only its rows. */
#ifdef CMRS_HAVE_MPI
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/thread.h"
#include "halo_rows.h"

#define ROWS_MPI(expr, what)                                                \
    CMRS_ENSURE((expr) == MPI_SUCCESS, CMRS_E_IO, "mpirun: %s failed",     \
                what)

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* start[] from every rank's (row0, rows): the ranks' blocks must tile
 * 0 .. n in rank order, each with a row. */
static cmrs_code gather_starts(const cmrs_csr *A, int64_t row0,
                               MPI_Comm comm, int size, cmrs_partition *pt)
{
    int64_t mine[2] = {row0, A->rows};
    int64_t *all = cmrs_malloc_array((size_t)size * 2, sizeof *all);
    pt->start = cmrs_malloc_array((size_t)size + 1, sizeof *pt->start);
    if (!all || !pt->start) {
        free(all);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %d ranks' rows", size);
    }
    int e = MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, comm);
    cmrs_code rc = CMRS_OK;
    pt->start[0] = 0;
    for (int r = 0; r < size && rc == CMRS_OK && e == MPI_SUCCESS; ++r) {
        if (all[2 * r] != pt->start[r] || all[2 * r + 1] < 1)
            rc = cmrs_error_set(CMRS_E_USAGE, __FILE__, __LINE__, "the "
                                "ranks' rows do not tile the matrix: rank "
                                "%d holds %lld rows from %lld, expected at "
                                "least one from %lld (rank order)", r,
                                (long long)all[2 * r + 1],
                                (long long)all[2 * r],
                                (long long)pt->start[r]);
        pt->start[r + 1] = pt->start[r] + all[2 * r + 1];
    }
    free(all);
    ROWS_MPI(e, "gathering the ranks' rows");
    CMRS_CHECK(rc);
    CMRS_ENSURE(pt->start[size] == A->cols, CMRS_E_USAGE, "the ranks hold "
                "%lld rows of a matrix of %lld", (long long)pt->start[size],
                (long long)A->cols);
    return CMRS_OK;
}

/* Per-rank counts and displacements (MPI's int) of a list grouped by
 * rank; CMRS_E_USAGE past int. */
static cmrs_code to_counts(const int64_t *cnt, int size, int *c, int *at)
{
    int64_t sum = 0;
    for (int r = 0; r < size; ++r) {
        CMRS_ENSURE(cnt[r] <= 0x7fffffff && sum <= 0x7fffffff,
                    CMRS_E_USAGE, "a halo of over 2^31 values between two "
                    "ranks");
        c[r] = (int)cnt[r];
        at[r] = (int)sum;
        sum += cnt[r];
    }
    return CMRS_OK;
}

typedef struct a2a {
    int *scount, *sdisp, *rcount, *rdisp;
    int64_t *recv;  /* received values, rdisp[size] ... */
    int64_t total;  /* received */
} a2a;

static void a2a_free(a2a *x)
{
    CMRS_FREE_ALL(x->scount, x->sdisp, x->rcount, x->rdisp, x->recv);
}

/* Sends send[sdisp..] (cnt[r] int64 values to rank r: the list grouped
 * by rank) and receives every rank's values for this one. */
static cmrs_code exchange_lists(const int64_t *send, const int64_t *cnt,
                                MPI_Comm comm, int size, a2a *x)
{
    memset(x, 0, sizeof *x);
    x->scount = cmrs_malloc_array((size_t)size, sizeof(int));
    x->sdisp = cmrs_malloc_array((size_t)size, sizeof(int));
    x->rcount = cmrs_malloc_array((size_t)size, sizeof(int));
    x->rdisp = cmrs_malloc_array((size_t)size, sizeof(int));
    CMRS_ENSURE(x->scount && x->sdisp && x->rcount && x->rdisp,
                CMRS_E_NOMEM, "cannot allocate halo requests");
    CMRS_CHECK(to_counts(cnt, size, x->scount, x->sdisp));
    ROWS_MPI(MPI_Alltoall(x->scount, 1, MPI_INT, x->rcount, 1, MPI_INT,
                          comm), "exchanging halo counts");
    for (int r = 0; r < size; ++r) {
        x->rdisp[r] = (int)x->total;
        x->total += x->rcount[r];
        CMRS_ENSURE(x->total <= 0x7fffffff, CMRS_E_USAGE, "a halo of over "
                    "2^31 values");
    }
    x->recv = cmrs_malloc_array((size_t)x->total + 1, sizeof *x->recv);
    CMRS_ENSURE(x->recv, CMRS_E_NOMEM, "cannot allocate halo requests");
    ROWS_MPI(MPI_Alltoallv(send, x->scount, x->sdisp, MPI_INT64_T, x->recv,
                           x->rcount, x->rdisp, MPI_INT64_T, comm),
             "exchanging halo requests");
    return CMRS_OK;
}

/* Send lists from the other ranks' ghosts: each requester's rows of this
 * rank, in the requester's receive order. */
static cmrs_code send_lists(const cmrs_partition *pt, int rank,
                            MPI_Comm comm, cmrs_halo_part *hp)
{
    int P = pt->nparts;
    int64_t *cnt = calloc((size_t)P, sizeof *cnt);
    CMRS_ENSURE(cnt, CMRS_E_NOMEM, "cannot allocate halo counts");
    for (int k = 0; k < hp->nrecv; ++k)
        cnt[hp->recv_from[k]] = hp->recv_start[k + 1] - hp->recv_start[k];
    a2a x;
    cmrs_code rc = exchange_lists(hp->ghost_gid, cnt, comm, P, &x);
    free(cnt);
    hp->send_to = cmrs_malloc_array((size_t)P, sizeof(int));
    hp->send_start = calloc((size_t)P + 1, sizeof(int64_t));
    if (rc == CMRS_OK && (!hp->send_to || !hp->send_start))
        rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                            "allocate send lists");
    for (int64_t k = 0; rc == CMRS_OK && k < x.total; ++k)
        x.recv[k] -= pt->start[rank]; /* global row -> owned local row */
    hp->nsend = 0;
    for (int q = 0; rc == CMRS_OK && q < P; ++q) {
        if (x.rcount[q] == 0) continue;
        hp->send_to[hp->nsend] = q;
        hp->send_start[hp->nsend + 1] = hp->send_start[hp->nsend] +
                                        x.rcount[q];
        ++hp->nsend;
    }
    hp->send_idx = x.recv; /* grouped by requester, ascending: the lists */
    x.recv = NULL;
    a2a_free(&x);
    return rc;
}

/* The edge cut's passes over this rank's rows, by threads: 0 counts the
 * entries in upper parts' columns, 1 lists them as keys (column, row),
 * 2 counts the entries in lower parts' columns whose mirror the lower
 * part does not store (not among the keys it sent, `recv`). */
typedef struct cut_job {
    const cmrs_csr *A;
    int64_t r0, r1, n;
    int pass;
    int64_t at[CMRS_PARALLEL_CHUNKS]; /* counts; pass 1: offsets */
    int64_t *send;
    const int64_t *recv;
    int64_t nrecv;
} cut_job;

static void cut_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    cut_job *c = ctx;
    const cmrs_csr *A = c->A;
    int64_t at = c->pass == 1 ? c->at[t] : 0;
    for (int64_t i = lo; i < hi; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t j = A->indices[k];
            if (c->pass < 2 && j >= c->r1) {
                if (c->pass == 1) c->send[at] = j * c->n + (c->r0 + i);
                ++at;
            } else if (c->pass == 2 && j < c->r0) {
                int64_t key = (c->r0 + i) * c->n + j; /* a_ji below? */
                at += !bsearch(&key, c->recv, (size_t)c->nrecv, sizeof key,
                               cmp_i64);
            }
        }
    if (c->pass != 1) c->at[t] = at;
}

/* One pass of c over the rows; the sum of the chunks' counts (pass 0
 * turns them into offsets for pass 1). */
static int64_t cut_pass(cut_job *c, int pass, int nt)
{
    c->pass = pass;
    cmrs_parallel_ranges(c->A->rows, nt, cut_rows, c);
    int64_t sum = 0;
    for (int t = 0; pass != 1 && t < nt; ++t) {
        int64_t n = c->at[t];
        c->at[t] = sum;
        sum += n;
    }
    return sum;
}

/* Edges {i, j} across the cut, each once: from the lower part where it
 * stores a_ij, else from the upper part (whose a_ji the lower part does
 * not store): the lower parts send their cut pairs (j, i) to the upper. */
static cmrs_code edge_cut(const cmrs_csr *A, const cmrs_partition *pt,
                          int rank, MPI_Comm comm, int64_t *cut)
{
    int P = pt->nparts, nt = cmrs_parallel_threads(A->nnz, CMRS_DIST_GRAIN);
    cut_job c = {.A = A, .r0 = pt->start[rank], .r1 = pt->start[rank + 1],
                 .n = pt->n};
    int64_t n_up = cut_pass(&c, 0, nt), n = pt->n;
    c.send = cmrs_malloc_array((size_t)n_up + 1, sizeof *c.send);
    int64_t *cnt = calloc((size_t)P, sizeof *cnt);
    cmrs_code rc = c.send && cnt ? CMRS_OK
                                 : cmrs_error_set(CMRS_E_NOMEM, __FILE__,
                                                  __LINE__, "cannot allocate "
                                                  "the cut's pairs");
    /* (global column, global row) keys, key = col * n + row: sorted, they
     * ascend by the column's owner */
    if (rc == CMRS_OK) {
        cut_pass(&c, 1, nt);
        qsort(c.send, (size_t)n_up, sizeof *c.send, cmp_i64);
    }
    for (int64_t k = 0; rc == CMRS_OK && k < n_up; ++k)
        ++cnt[cmrs_part_owner(pt, c.send[k] / n)];
    a2a x;
    memset(&x, 0, sizeof x);
    if (rc == CMRS_OK) rc = exchange_lists(c.send, cnt, comm, P, &x);
    if (rc == CMRS_OK) qsort(x.recv, (size_t)x.total, sizeof *x.recv, cmp_i64);
    c.recv = x.recv;
    c.nrecv = x.total;
    int64_t mine = rc == CMRS_OK ? n_up + cut_pass(&c, 2, nt) : 0;
    free(c.send);
    free(cnt);
    a2a_free(&x);
    CMRS_CHECK(rc);
    ROWS_MPI(MPI_Allreduce(&mine, cut, 1, MPI_INT64_T, MPI_SUM, comm),
             "summing the edge cut");
    return CMRS_OK;
}

/* halo, max_halo, max_nbrs and imbalance over the ranks. */
static cmrs_code measures(const cmrs_csr *A, const cmrs_halo_part *hp,
                          MPI_Comm comm, cmrs_partition *pt)
{
    int64_t sum_in[2] = {hp->n_ghost, A->nnz}, sum[2];
    int64_t max_in[3] = {hp->n_ghost, hp->nrecv, A->nnz}, max[3];
    ROWS_MPI(MPI_Allreduce(sum_in, sum, 2, MPI_INT64_T, MPI_SUM, comm),
             "summing the halo");
    ROWS_MPI(MPI_Allreduce(max_in, max, 3, MPI_INT64_T, MPI_MAX, comm),
             "the largest halo");
    pt->halo = sum[0];
    pt->nnz = sum[1];
    pt->max_halo = max[0];
    pt->max_nbrs = (int)max[1];
    pt->imbalance = sum[1] > 0 ? (double)max[2] * pt->nparts / (double)sum[1]
                               : 1.0;
    return CMRS_OK;
}

static cmrs_code build(const cmrs_csr *A, int64_t row0, MPI_Comm comm,
                       int rank, int size, cmrs_partition *pt, cmrs_halo *h)
{
    pt->nparts = size;
    pt->method = CMRS_PART_BLOCK;
    pt->n = A->cols;
    pt->by_rows = 1;
    CMRS_CHECK(gather_starts(A, row0, comm, size, pt));
    h->nparts = size;
    h->part = calloc((size_t)size, sizeof *h->part);
    CMRS_ENSURE(h->part, CMRS_E_NOMEM, "cannot allocate the halo of %d "
                "parts", size);
    for (int q = 0; q < size; ++q)
        h->part[q].n_own = pt->start[q + 1] - pt->start[q];
    cmrs_halo_part *hp = &h->part[rank];
    /* The local matrix: owned columns as local rows, ghosts (ascending:
     * halo.h's order for blocks) after them, each row's entries in the
     * row's order (bitwise SpMV, halo.h). Its value map is the identity
     * (entry k is the rank's entry k: value_base 0, no array); a sort of
     * the rows (cmrs_halo_sort_rows) lists the entries it moves: new
     * values of the rank's rows then come in as the whole matrix's do
     * (cmrs_halo_update_values). */
    cmrs_halo_scan_in in = {.A = A, .pt = pt, .p = rank, .fill = 1,
                            .threads = cmrs_parallel_threads(
                                A->nnz, CMRS_DIST_GRAIN)};
    CMRS_CHECK(cmrs_halo_scan(&in, hp));
    CMRS_CHECK(cmrs_halo_recv_groups(pt, hp));
    CMRS_CHECK(send_lists(pt, rank, comm, hp));
    CMRS_CHECK(edge_cut(A, pt, rank, comm, &pt->edge_cut));
    return measures(A, hp, comm, pt);
}

cmrs_code cmrs_halo_build_rows(const cmrs_csr *A_rows, int64_t row0,
                               MPI_Comm comm, cmrs_partition *pt,
                               cmrs_halo *h)
{
    int rank = 0, size = 1;
    memset(pt, 0, sizeof *pt);
    memset(h, 0, sizeof *h);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cmrs_code rc = build(A_rows, row0, comm, rank, size, pt, h);
    if (rc != CMRS_OK) {
        cmrs_halo_free(h);
        cmrs_partition_free(pt);
    }
    return rc;
}
#else
typedef int cmrs_no_mpi; /* ISO C: a translation unit declares something */
#endif
