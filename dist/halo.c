/* Renumbering and halo lists (halo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/memory.h"
#include "base/thread.h"
#include "halo.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Entries of part p's rows in foreign columns: a bound on its ghosts. */
static int64_t foreign_entries(const cmrs_csr *A, const cmrs_partition *pt,
                               int p)
{
    int64_t count = 0;
    for (int64_t r = pt->start[p]; r < pt->start[p + 1]; ++r) {
        int64_t i = pt->order[r];
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            count += pt->owner[A->indices[k]] != p;
    }
    return count;
}

/* Part p's ghosts in the order of halo.h: the key owner * n + lidx sorts
 * by (owner, owner's local index). pos[] (n entries, all -1 on entry)
 * marks ghosts seen; on return pos[g] is global row g's offset in the
 * ghost tail (cmrs_halo_build resets it after the part). */
static cmrs_code find_ghosts(const cmrs_csr *A, const cmrs_partition *pt,
                             int p, int64_t *pos, cmrs_halo_part *hp)
{
    int64_t n = pt->n, count = 0;
    int64_t *key = cmrs_malloc_array((size_t)foreign_entries(A, pt, p),
                                     sizeof *key);
    CMRS_ENSURE(key, CMRS_E_NOMEM, "cannot allocate part %d's ghosts", p);
    hp->ghost_gid = key; /* keys now, global rows below */
    for (int64_t r = pt->start[p]; r < pt->start[p + 1]; ++r) {
        int64_t i = pt->order[r];
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t j = A->indices[k];
            if (pt->owner[j] == p || pos[j] != -1) continue;
            pos[j] = 0;
            key[count++] = pt->owner[j] * n + pt->lidx[j];
        }
    }
    qsort(key, (size_t)count, sizeof *key, cmp_i64);
    for (int64_t g = 0; g < count; ++g) {
        int64_t q = key[g] / n;
        key[g] = pt->order[pt->start[q] + key[g] % n];
        pos[key[g]] = g;
    }
    hp->n_ghost = count;
    return CMRS_OK;
}

cmrs_code cmrs_halo_recv_groups(const cmrs_partition *pt,
                                cmrs_halo_part *hp)
{
    int groups = 0;
    for (int64_t g = 0; g < hp->n_ghost; ++g)
        groups += g == 0 || cmrs_part_owner(pt, hp->ghost_gid[g]) !=
                                cmrs_part_owner(pt, hp->ghost_gid[g - 1]);
    hp->recv_from = cmrs_malloc_array((size_t)groups, sizeof(int));
    hp->recv_start = cmrs_malloc_array((size_t)groups + 1, sizeof(int64_t));
    CMRS_ENSURE(hp->recv_from && hp->recv_start, CMRS_E_NOMEM, "cannot "
                "allocate receive lists");
    hp->nrecv = 0;
    for (int64_t g = 0; g < hp->n_ghost; ++g) {
        int q = cmrs_part_owner(pt, hp->ghost_gid[g]);
        if (hp->nrecv > 0 && hp->recv_from[hp->nrecv - 1] == q) continue;
        hp->recv_from[hp->nrecv] = q;
        hp->recv_start[hp->nrecv++] = g;
    }
    hp->recv_start[hp->nrecv] = hp->n_ghost;
    return CMRS_OK;
}

/* Rows [r0, r1) of part p's local matrix, whose indptr is set: owned
 * columns by local index, ghosts after them (pos), each row's entries in
 * the global row's order (bitwise SpMV, halo.h). */
typedef struct fill_job {
    const cmrs_csr *A;
    const cmrs_partition *pt;
    int p;
    const int64_t *pos;
    cmrs_halo_part *hp;
} fill_job;

static void fill_rows(void *ctx, int t, int64_t r0, int64_t r1)
{
    const fill_job *j = ctx;
    const cmrs_csr *A = j->A;
    const cmrs_partition *pt = j->pt;
    cmrs_halo_part *hp = j->hp;
    const int64_t rows = hp->n_own, *order = pt->order + pt->start[j->p];
    (void)t;
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i = order[r], e = hp->A.indptr[r];
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k, ++e) {
            int64_t c = A->indices[k];
            hp->A.indices[e] = (int32_t)(pt->owner[c] == j->p
                                             ? pt->lidx[c] : rows + j->pos[c]);
            hp->A.values[e] = A->values[k];
            hp->value_of[e] = k;
        }
    }
}

/* Threads that fill one part's rows (the halo's threads run one part
 * each; a part's fill moves 20 bytes an entry, more than one core can):
 * the cores left per running part, at most FILL_THREADS, one for a part
 * under FILL_MIN entries. */
#define FILL_THREADS 8
#define FILL_MIN ((int64_t)1 << 20)

static int fill_threads(int64_t nnz, int parts_at_once)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long t = cpus > 0 ? cpus / (parts_at_once > 0 ? parts_at_once : 1) : 1;
    if (nnz < FILL_MIN || t < 1) t = 1;
    return (int)(t < FILL_THREADS ? t : FILL_THREADS);
}

/* The local matrix (fill_rows), its rows split between threads. */
static cmrs_code local_matrix(const cmrs_csr *A, const cmrs_partition *pt,
                              int p, int parts_at_once, const int64_t *pos,
                              cmrs_halo_part *hp)
{
    int64_t rows = pt->start[p + 1] - pt->start[p], nnz = 0;
    const int64_t *order = pt->order + pt->start[p];
    for (int64_t r = 0; r < rows; ++r)
        nnz += A->indptr[order[r] + 1] - A->indptr[order[r]];
    hp->n_own = rows;
    CMRS_CHECK(cmrs_csr_alloc(&hp->A, rows, rows + hp->n_ghost, nnz));
    hp->value_of = cmrs_malloc_array((size_t)nnz, sizeof *hp->value_of);
    CMRS_ENSURE(hp->value_of, CMRS_E_NOMEM, "cannot allocate a value map");
    for (int64_t r = 0; r < rows; ++r)
        hp->A.indptr[r + 1] = hp->A.indptr[r] + A->indptr[order[r] + 1] -
                              A->indptr[order[r]];
    fill_job job = {.A = A, .pt = pt, .p = p, .pos = pos, .hp = hp};
    cmrs_parallel_ranges(rows, fill_threads(nnz, parts_at_once), fill_rows,
                         &job);
    return CMRS_OK;
}

/* Part p's ghosts and receive lists (every part's: the senders' lists
 * come from them), and its local matrix where `local` (its process). */
static cmrs_code build_part(const cmrs_csr *A, const cmrs_partition *pt,
                            int p, int local, int parts_at_once,
                            int64_t *pos, cmrs_halo_part *hp)
{
    CMRS_CHECK(find_ghosts(A, pt, p, pos, hp));
    CMRS_CHECK(cmrs_halo_recv_groups(pt, hp));
    if (local)
        CMRS_CHECK(local_matrix(A, pt, p, parts_at_once, pos, hp));
    else
        hp->n_own = pt->start[p + 1] - pt->start[p];
    for (int64_t g = 0; g < hp->n_ghost; ++g) pos[hp->ghost_gid[g]] = -1;
    return CMRS_OK;
}

/* Room for part q's send lists: one per part that receives from q. */
static cmrs_code alloc_sends(cmrs_halo *h)
{
    int P = h->nparts;
    int64_t *total = calloc((size_t)P, sizeof *total);
    CMRS_ENSURE(total, CMRS_E_NOMEM, "cannot allocate send counts");
    for (int p = 0; p < P; ++p) {
        cmrs_halo_part *hp = &h->part[p];
        for (int k = 0; k < hp->nrecv; ++k) {
            ++h->part[hp->recv_from[k]].nsend;
            total[hp->recv_from[k]] += hp->recv_start[k + 1] -
                                       hp->recv_start[k];
        }
    }
    cmrs_code rc = CMRS_OK;
    for (int q = 0; q < P && rc == CMRS_OK; ++q) {
        cmrs_halo_part *hq = &h->part[q];
        hq->send_to = cmrs_malloc_array((size_t)hq->nsend, sizeof(int));
        hq->send_start = calloc((size_t)hq->nsend + 1, sizeof(int64_t));
        hq->send_idx = cmrs_malloc_array((size_t)total[q], sizeof(int64_t));
        if (!hq->send_to || !hq->send_start || !hq->send_idx)
            rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                                "allocate send lists");
        hq->nsend = 0; /* refilled by fill_sends */
    }
    free(total);
    return rc;
}

/* Visiting receivers p in ascending order gives every sender its send_to
 * list ascending; each list mirrors the receiver's range entry by entry. */
static void fill_sends(const cmrs_partition *pt, cmrs_halo *h)
{
    for (int p = 0; p < h->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        for (int k = 0; k < hp->nrecv; ++k) {
            cmrs_halo_part *hq = &h->part[hp->recv_from[k]];
            int64_t at = hq->send_start[hq->nsend];
            for (int64_t g = hp->recv_start[k]; g < hp->recv_start[k + 1];
                 ++g)
                hq->send_idx[at++] = pt->lidx[hp->ghost_gid[g]];
            hq->send_to[hq->nsend++] = p;
            hq->send_start[hq->nsend] = at;
        }
    }
}

/* Parts first, first + step, ... built by one thread with its own pos
 * (n entries, -1 between parts); the first failure's code and message
 * kept for the caller's thread (errors are thread-local). */
typedef struct halo_job {
    const cmrs_csr *A;
    const cmrs_partition *pt;
    cmrs_halo *h;
    int first, step;
    int rank, nranks; /* local matrices of parts p % nranks == rank only
                         (nranks <= 1: all) */
    cmrs_thread_job t;
} halo_job;

static void *build_parts(void *arg)
{
    halo_job *j = arg;
    int64_t *pos = cmrs_malloc_array((size_t)j->pt->n, sizeof *pos);
    cmrs_code rc = CMRS_OK;
    if (!pos)
        rc = cmrs_error_set(CMRS_E_NOMEM, __FILE__, __LINE__, "cannot "
                            "allocate the halo of %d parts", j->pt->nparts);
    for (int64_t i = 0; pos && i < j->pt->n; ++i) pos[i] = -1;
    for (int p = j->first; pos && p < j->pt->nparts && rc == CMRS_OK;
         p += j->step)
        rc = build_part(j->A, j->pt, p,
                        cmrs_part_is_local(p, j->rank, j->nranks),
                        j->step, pos, &j->h->part[p]);
    cmrs_thread_job_end(&j->t, rc);
    free(pos);
    return NULL;
}

/* Up to 8 threads, one per part at most (each holds an n-entry pos). */
#define HALO_THREADS 8

static cmrs_code build_all_parts(const cmrs_csr *A, const cmrs_partition *pt,
                                 int rank, int nranks, cmrs_halo *h)
{
    halo_job job[HALO_THREADS];
    int nt = pt->nparts < HALO_THREADS ? pt->nparts : HALO_THREADS;
    for (int t = 0; t < nt; ++t) {
        job[t] = (halo_job){.A = A, .pt = pt, .h = h, .first = t,
                            .step = nt, .rank = rank, .nranks = nranks};
        /* Thread 0's share runs here; a thread that cannot start, too. */
        job[t].t.started = t > 0 && cmrs_thread_start(&job[t].t.thread,
                                                      build_parts, &job[t]);
    }
    for (int t = 0; t < nt; ++t)
        if (!job[t].t.started) build_parts(&job[t]);
    for (int t = 0; t < nt; ++t)
        if (job[t].t.started) pthread_join(job[t].t.thread, NULL);
    for (int t = 0; t < nt; ++t) CMRS_CHECK(cmrs_thread_job_raise(&job[t].t));
    return CMRS_OK;
}

cmrs_code cmrs_halo_build(const cmrs_csr *A, cmrs_partition *pt,
                          cmrs_halo *h)
{
    return cmrs_halo_build_for(A, pt, 0, 0, h);
}

cmrs_code cmrs_halo_build_for(const cmrs_csr *A, cmrs_partition *pt,
                              int rank, int nranks, cmrs_halo *h)
{
    cmrs_code rc = CMRS_OK;
    memset(h, 0, sizeof *h);
    h->part = calloc((size_t)pt->nparts, sizeof *h->part);
    h->nparts = pt->nparts;
    if (!h->part)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate the halo of %d parts",
                      pt->nparts);
    CMRS_TRY(build_all_parts(A, pt, rank, nranks, h));
    pt->halo = pt->max_halo = 0;
    pt->max_nbrs = 0;
    for (int p = 0; p < pt->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        pt->halo += hp->n_ghost;
        if (hp->n_ghost > pt->max_halo) pt->max_halo = hp->n_ghost;
        if (hp->nrecv > pt->max_nbrs) pt->max_nbrs = hp->nrecv;
    }
    CMRS_TRY(alloc_sends(h));
    fill_sends(pt, h);
done:
    if (rc != CMRS_OK) cmrs_halo_free(h);
    return rc;
}

void cmrs_halo_update_values(const cmrs_csr *A, cmrs_halo *h)
{
    for (int p = 0; p < h->nparts; ++p) {
        cmrs_halo_part *hp = &h->part[p];
        for (int64_t e = 0; e < hp->A.nnz; ++e)
            hp->A.values[e] = A->values[hp->value_of[e]];
    }
}

void cmrs_halo_free(cmrs_halo *h)
{
    if (!h) return;
    for (int p = 0; h->part && p < h->nparts; ++p) {
        cmrs_halo_part *hp = &h->part[p];
        cmrs_csr_free(&hp->A);
        CMRS_FREE_ALL(hp->value_of, hp->ghost_gid, hp->recv_from, hp->send_to,
                      hp->recv_start, hp->send_start, hp->send_idx);
    }
    free(h->part);
    memset(h, 0, sizeof *h);
}
