/* Renumbering and halo lists (halo.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/thread.h"
#include "halo.h"

/* One part's scan (cmrs_halo_scan), by threads over its rows:
 * list_rows writes the local matrix, owned columns final and each foreign
 * column c as -(c + 1), and lists the ghosts each chunk meets first (a
 * bit per global row, set atomically: each ghost listed once over all
 * chunks, so only the distinct ghosts are sorted, not every foreign
 * entry); number_rows then numbers the foreign entries by the sorted
 * ghosts. */
typedef struct scan_job {
    const cmrs_halo_scan_in *in;
    cmrs_halo_part *hp;
    int64_t n_own, r0, r1; /* r0, r1: the part's global rows (by rows) */
    int consecutive;       /* its rows are consecutive rows of A in order:
                              no value map (value_base) */
    int64_t at[CMRS_PARALLEL_CHUNKS];    /* each chunk's first entry */
    int64_t found[CMRS_PARALLEL_CHUNKS]; /* ghosts each chunk listed */
    int64_t *ukey;         /* each chunk's ghosts' keys, from at[t] (room
                              for every entry of the part; touched only
                              where written) */
    _Atomic uint64_t *seen;/* a bit per global row: listed */
    int32_t *pos;          /* 1 + each ghost's number by global row (n
                              entries, touched where ghosts are): a
                              foreign entry numbered in one read (searching
                              the sorted keys cost 2 s of 12M entries of a
                              randomly numbered matrix on 2 cores) */
} scan_job;

/* The source row of local row r, and the key of foreign column c: owner
 * * n + the owner's local index (halo.h's ghost order); -1 for owned. */
static int64_t src_row(const scan_job *j, int64_t r)
{
    return j->in->rows ? j->in->rows[r] : r;
}

static int64_t foreign_key(const scan_job *j, int64_t c)
{
    const cmrs_partition *pt = j->in->pt;
    if (pt->by_rows) {
        if (c >= j->r0 && c < j->r1) return -1;
        int q = cmrs_part_owner(pt, c);
        return q * pt->n + (c - pt->start[q]);
    }
    int q = pt->owner[c];
    return q == j->in->p ? -1 : q * pt->n + pt->lidx[c];
}

/* The local index of owned column c. */
static int32_t own_index(const scan_job *j, int64_t c)
{
    return (int32_t)(j->in->pt->by_rows ? c - j->r0 : j->in->pt->lidx[c]);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The ghost list: key of column c, where no chunk listed c yet. */
static void list_ghost(scan_job *j, int t, int64_t c, int64_t key)
{
    uint64_t bit = (uint64_t)1 << (c & 63);
    _Atomic uint64_t *word = &j->seen[c >> 6];
    /* a ghost recurs in several rows: look before the locked write */
    if ((atomic_load_explicit(word, memory_order_relaxed) & bit) ||
        (atomic_fetch_or_explicit(word, bit, memory_order_relaxed) & bit))
        return;
    j->ukey[j->at[t] + j->found[t]++] = key;
}

/* The chunk's rows of the local matrix and its first ghosts. */
static void list_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    scan_job *j = ctx;
    const cmrs_csr *A = j->in->A;
    cmrs_halo_part *hp = j->hp;
    int fill = j->in->fill;
    for (int64_t r = lo; r < hi; ++r) {
        int64_t i = src_row(j, r);
        int64_t e = fill ? hp->A.indptr[r] : 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k, ++e) {
            int64_t c = A->indices[k], key = foreign_key(j, c);
            if (key >= 0) list_ghost(j, t, c, key);
            if (!fill) continue;
            hp->A.indices[e] = key < 0 ? own_index(j, c)
                                       : (int32_t)(-c - 1);
            hp->A.values[e] = A->values[k];
            if (hp->value_of) hp->value_of[e] = k;
        }
    }
}

/* The chunk's foreign entries: their ghosts' numbers as columns. */
static void number_rows(void *ctx, int t, int64_t lo, int64_t hi)
{
    const scan_job *j = ctx;
    int32_t *col = j->hp->A.indices;
    (void)t;
    for (int64_t e = j->hp->A.indptr[lo]; e < j->hp->A.indptr[hi]; ++e)
        if (col[e] < 0)
            col[e] = (int32_t)(j->n_own + j->pos[-(int64_t)col[e] - 1] - 1);
}

/* Each chunk's first entry (cmrs_parallel_ranges' chunks of the rows:
 * [n t / nt, n (t + 1) / nt)); returns the part's entries. */
static int64_t chunk_starts(scan_job *j, int nt)
{
    const cmrs_csr *A = j->in->A;
    int64_t nnz = 0, n = j->n_own;
    for (int t = 0; t < nt; ++t) {
        j->at[t] = nnz;
        for (int64_t r = n * t / nt; r < n * (t + 1) / nt; ++r) {
            int64_t i = src_row(j, r);
            nnz += A->indptr[i + 1] - A->indptr[i];
        }
    }
    return nnz;
}

/* Whether the part's rows are consecutive rows of A in their order (a
 * rank's own rows, or a block of the file's order). */
static int consecutive_rows(const scan_job *j)
{
    const int64_t *rows = j->in->rows;
    for (int64_t r = 1; rows && r < j->n_own; ++r)
        if (rows[r] != rows[0] + r) return 0;
    return 1;
}

/* The local matrix's arrays for its nnz entries, its row pointers set (a
 * row per owned row, the source row's length). */
static cmrs_code alloc_local(const scan_job *j, int64_t nnz,
                             cmrs_halo_part *hp)
{
    const cmrs_csr *A = j->in->A;
    /* columns: n_ghost is not known yet; set after the ghosts */
    CMRS_CHECK(cmrs_csr_alloc(&hp->A, j->n_own, j->n_own, nnz));
    hp->value_of = NULL;
    hp->value_base = j->n_own > 0 ? A->indptr[src_row(j, 0)] : 0;
    if (!j->consecutive) {
        hp->value_of = cmrs_malloc_array((size_t)nnz, sizeof *hp->value_of);
        CMRS_ENSURE(hp->value_of, CMRS_E_NOMEM, "cannot allocate a value "
                    "map");
    }
    for (int64_t r = 0; r < j->n_own; ++r) {
        int64_t i = src_row(j, r);
        hp->A.indptr[r + 1] = hp->A.indptr[r] + A->indptr[i + 1] -
                              A->indptr[i];
    }
    return CMRS_OK;
}

/* The ghosts the chunks listed, sorted: hp's ghost list (global rows). */
static cmrs_code ghosts_of(scan_job *j, int nt, cmrs_halo_part *hp)
{
    int64_t distinct = 0;
    for (int t = 0; t < nt; ++t) distinct += j->found[t];
    CMRS_ENSURE(j->n_own + distinct <= INT32_MAX, CMRS_E_LIMIT, "part %d: "
                "%lld rows and %lld ghosts pass 32-bit columns", j->in->p,
                (long long)j->n_own, (long long)distinct);
    int64_t *key = cmrs_malloc_array((size_t)distinct + 1, sizeof *key);
    CMRS_ENSURE(key, CMRS_E_NOMEM, "cannot allocate %lld ghosts",
                (long long)distinct);
    int64_t at = 0;
    for (int t = 0; t < nt; at += j->found[t++])
        memcpy(key + at, j->ukey + j->at[t],
               (size_t)j->found[t] * sizeof *key);
    qsort(key, (size_t)distinct, sizeof *key, cmp_i64);
    hp->ghost_gid = key; /* keys until the local matrix is numbered */
    hp->n_ghost = distinct;
    hp->A.cols = j->n_own + distinct;
    return CMRS_OK;
}

/* The global row of ghost key `key`. */
static int64_t key_row(const cmrs_partition *pt, int64_t key)
{
    int64_t q = key / pt->n, l = key % pt->n;
    return pt->by_rows ? pt->start[q] + l : pt->order[pt->start[q] + l];
}

/* j->pos from hp's ghost keys. */
static cmrs_code ghost_pos(scan_job *j, const cmrs_halo_part *hp)
{
    j->pos = calloc((size_t)j->in->pt->n, sizeof *j->pos);
    CMRS_ENSURE(j->pos, CMRS_E_NOMEM, "cannot allocate part %d's ghost "
                "numbers (%lld rows)", j->in->p, (long long)j->in->pt->n);
    for (int64_t g = 0; g < hp->n_ghost; ++g)
        j->pos[key_row(j->in->pt, hp->ghost_gid[g])] = (int32_t)(g + 1);
    return CMRS_OK;
}

cmrs_code cmrs_halo_scan(const cmrs_halo_scan_in *in, cmrs_halo_part *hp)
{
    const cmrs_partition *pt = in->pt;
    scan_job j = {.in = in, .hp = hp, .r0 = pt->start[in->p],
                  .r1 = pt->start[in->p + 1]};
    j.n_own = j.r1 - j.r0;
    hp->n_own = j.n_own;
    int nt = in->threads < 1 ? 1 : in->threads;
    if (nt > CMRS_PARALLEL_CHUNKS) nt = CMRS_PARALLEL_CHUNKS;
    int64_t nnz = chunk_starts(&j, nt);
    cmrs_code rc = CMRS_OK;
    j.consecutive = consecutive_rows(&j);
    if (in->fill) CMRS_CHECK(alloc_local(&j, nnz, hp));
    j.ukey = cmrs_malloc_array((size_t)nnz + 1, sizeof *j.ukey);
    j.seen = calloc((size_t)(pt->n >> 6) + 1, sizeof *j.seen);
    if (!j.ukey || !j.seen)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate part %d's ghost "
                      "lists (%lld entries)", in->p, (long long)nnz);
    cmrs_parallel_ranges(j.n_own, nt, list_rows, &j);
    CMRS_TRY(ghosts_of(&j, nt, hp));
    if (in->fill && hp->n_ghost > 0) {
        CMRS_TRY(ghost_pos(&j, hp));
        cmrs_parallel_ranges(j.n_own, nt, number_rows, &j);
    }
    for (int64_t g = 0; g < hp->n_ghost; ++g) /* keys -> global rows */
        hp->ghost_gid[g] = key_row(pt, hp->ghost_gid[g]);
done:
    free(j.ukey);
    free(j.pos);
    free((void *)j.seen);
    return rc;
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

/* Threads for one part's scan: its share of the threads when
 * parts_at_once parts are built at the same time (no more threads than
 * cores: 8 parts on 2 cores at 2 threads each ran 20% slower). */
static int scan_threads(int64_t nnz, int parts_at_once)
{
    int t = cmrs_parallel_threads(nnz, CMRS_DIST_GRAIN);
    if (parts_at_once > 1) t /= parts_at_once;
    return t > 1 ? t : 1;
}

/* Part p's ghosts and receive lists (every part's: the senders' lists
 * come from them), and its local matrix where `local` (its process). */
static cmrs_code build_part(const cmrs_csr *A, const cmrs_partition *pt,
                            int p, int local, int parts_at_once,
                            cmrs_halo_part *hp)
{
    int64_t nnz = (int64_t)((double)A->nnz *
                            (double)(pt->start[p + 1] - pt->start[p]) /
                            (double)(pt->n > 0 ? pt->n : 1));
    cmrs_halo_scan_in in = {.A = A, .rows = pt->order + pt->start[p],
                            .pt = pt, .p = p, .fill = local,
                            .threads = scan_threads(nnz, parts_at_once)};
    CMRS_CHECK(cmrs_halo_scan(&in, hp));
    return cmrs_halo_recv_groups(pt, hp);
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

/* Parts first, first + step, ... built by one thread; the first
 * failure's code and message kept for the caller's thread (errors are
 * thread-local). */
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
    cmrs_code rc = CMRS_OK;
    for (int p = j->first; p < j->pt->nparts && rc == CMRS_OK; p += j->step)
        rc = build_part(j->A, j->pt, p,
                        cmrs_part_is_local(p, j->rank, j->nranks),
                        j->step, &j->h->part[p]);
    cmrs_thread_job_end(&j->t, rc);
    return NULL;
}

/* Up to 8 parts at once (each part's scan has threads of its own). */
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
        if (!hp->value_of) {
            if (hp->A.nnz > 0)
                memcpy(hp->A.values, A->values + hp->value_base,
                       (size_t)hp->A.nnz * sizeof *hp->A.values);
            for (int64_t k = 0; k < hp->npatch; ++k) /* the sorted rows' */
                hp->A.values[hp->patch_at[k]] = A->values[hp->patch_from[k]];
            continue;
        }
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
                      hp->recv_start, hp->send_start, hp->send_idx,
                      hp->patch_at, hp->patch_from);
    }
    free(h->part);
    memset(h, 0, sizeof *h);
}
