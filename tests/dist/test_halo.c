/* Renumbering and halo lists: the local matrices with ghosts gathered from
 * the global x reproduce y = A x bitwise; send and receive lists agree
 * pairwise; the host exchange fills the ghosts; new values reach the local
 * matrices. Over several matrices, part counts and methods. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "spmv/ref.h"
#include "tdist.h"

/* Part p's local x: owned rows then ghosts, from the global x. */
static void gather_local(const cmrs_partition *pt, const cmrs_halo_part *hp,
                         int p, const double *x, double *xl)
{
    for (int64_t j = 0; j < hp->n_own; ++j)
        xl[j] = x[pt->order[pt->start[p] + j]];
    for (int64_t g = 0; g < hp->n_ghost; ++g)
        xl[hp->n_own + g] = x[hp->ghost_gid[g]];
}

/* bitwise: memcmp per row (rows in global order); else within 1e-14 of
 * max |y| (rows sorted by local column: summed in another order). */
static void check_products(const cmrs_csr *A, const cmrs_partition *pt,
                           const cmrs_halo *h, int bitwise, const char *what)
{
    int64_t n = A->rows, wrong = 0;
    double ymax = 0;
    double *x = calloc((size_t)n, sizeof *x), *y = malloc((size_t)n * 8);
    double *xl = malloc((size_t)n * 8), *yl = malloc((size_t)n * 8);
    fill_x(n, x);
    cmrs_ref_spmv(A, 1.0, x, 0.0, y);
    for (int64_t i = 0; i < n; ++i) ymax = fmax(ymax, fabs(y[i]));
    for (int p = 0; p < pt->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        gather_local(pt, hp, p, x, xl);
        cmrs_ref_spmv(&hp->A, 1.0, xl, 0.0, yl);
        for (int64_t j = 0; j < hp->n_own; ++j) {
            double yg = y[pt->order[pt->start[p] + j]];
            wrong += bitwise ? memcmp(&yl[j], &yg, 8) != 0
                             : !(fabs(yl[j] - yg) <= 1e-14 * ymax);
        }
    }
    CHECK(wrong == 0, "%s: %lld rows of y differ from the global product",
          what, (long long)wrong);
    free(x), free(y), free(xl), free(yl);
}

/* p receives range k from q  <=>  q sends to p the same rows, in order. */
static void check_lists(const cmrs_partition *pt, const cmrs_halo *h,
                        const char *what)
{
    int64_t bad = 0, ghosts = 0, most = 0;
    int nbrs = 0;
    for (int p = 0; p < h->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        ghosts += hp->n_ghost;
        most = hp->n_ghost > most ? hp->n_ghost : most;
        nbrs = hp->nrecv > nbrs ? hp->nrecv : nbrs;
        for (int k = 0; k < hp->nrecv; ++k) {
            int q = hp->recv_from[k], s = -1;
            const cmrs_halo_part *hq = &h->part[q];
            for (int t = 0; t < hq->nsend; ++t)
                if (hq->send_to[t] == p) s = t;
            bad += q == p || s < 0;
            if (s < 0) continue;
            int64_t len = hp->recv_start[k + 1] - hp->recv_start[k];
            bad += hq->send_start[s + 1] - hq->send_start[s] != len;
            for (int64_t i = 0; i < len && bad == 0; ++i)
                bad += pt->order[pt->start[q] +
                                 hq->send_idx[hq->send_start[s] + i]] !=
                       hp->ghost_gid[hp->recv_start[k] + i];
        }
        for (int t = 0; t < hp->nsend; ++t)  /* no send nobody receives */
            bad += hp->send_start[t + 1] <= hp->send_start[t];
    }
    CHECK(bad == 0, "%s: %lld list mismatches", what, (long long)bad);
    CHECK(ghosts == pt->halo, "%s: halo %lld, ghosts %lld", what,
          (long long)pt->halo, (long long)ghosts);
    CHECK(most == pt->max_halo && nbrs == pt->max_nbrs, "%s: max halo %lld "
          "(want %lld), max neighbours %d (want %d)", what,
          (long long)pt->max_halo, (long long)most, pt->max_nbrs, nbrs);
}

/* The host exchange: owned values in, ghosts (poisoned first) out. */
static void check_exchange(const cmrs_partition *pt, const cmrs_halo *h,
                           const char *what)
{
    int64_t n = pt->n, bad = 0;
    double *x = malloc((size_t)n * sizeof *x);
    double **xl = calloc((size_t)h->nparts, sizeof *xl);
    cmrs_exchange *ex = NULL;
    fill_x(n, x);
    CHECK_OK(cmrs_exchange_host_create(h, &ex));
    for (int p = 0; p < h->nparts && ex; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        xl[p] = malloc((size_t)(hp->n_own + hp->n_ghost + 1) * sizeof(double));
        gather_local(pt, hp, p, x, xl[p]);
        for (int64_t g = 0; g < hp->n_ghost; ++g) xl[p][hp->n_own + g] = NAN;
        CHECK_OK(ex->ops->post(ex, p, xl[p]));
    }
    for (int p = 0; p < h->nparts && ex; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        CHECK_OK(ex->ops->wait(ex, p, xl[p]));
        for (int64_t g = 0; g < hp->n_ghost; ++g)
            bad += xl[p][hp->n_own + g] != x[hp->ghost_gid[g]];
    }
    CHECK(bad == 0, "%s: %lld ghosts wrong after the exchange", what,
          (long long)bad);
    for (int p = 0; p < h->nparts; ++p) free(xl[p]);
    free(xl), free(x);
    cmrs_exchange_destroy(ex);
}

/* Each local entry's global index (the value map, or value_base + its
 * own where the part's rows are consecutive rows of A in order: no
 * array then, the entries a sort moved listed) lies in its global row,
 * holds its value and is no other entry's; block parts have no array. */
static void check_map(const cmrs_csr *A, const cmrs_partition *pt,
                      const cmrs_halo *h, const char *what)
{
    int64_t wrong = 0;
    int arrays = 0;
    char *seen = calloc((size_t)A->nnz + 1, 1);
    for (int p = 0; p < h->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        int64_t *map = malloc(((size_t)hp->A.nnz + 1) * sizeof *map);
        cmrs_halo_value_map(hp, map);
        arrays += hp->value_of != NULL;
        for (int64_t r = 0; r < hp->n_own; ++r) {
            int64_t i = pt->order[pt->start[p] + r];
            for (int64_t e = hp->A.indptr[r]; e < hp->A.indptr[r + 1]; ++e) {
                int64_t g = map[e];
                int out = g < A->indptr[i] || g >= A->indptr[i + 1];
                wrong += out || seen[g]++ || A->values[g] != hp->A.values[e];
            }
        }
        free(map);
    }
    free(seen);
    CHECK(wrong == 0, "%s: %lld entries' global indices wrong", what,
          (long long)wrong);
    CHECK(pt->method != CMRS_PART_BLOCK || arrays == 0, "%s: %d block parts "
          "with a value map array", what, arrays);
}

/* New global values (doubled) reach every local entry. */
static void check_update(cmrs_csr *A, const cmrs_partition *pt,
                         cmrs_halo *h, int bitwise, const char *what)
{
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] *= 2.0;
    cmrs_halo_update_values(A, h);
    check_products(A, pt, h, bitwise, what);
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] *= 0.5;
    cmrs_halo_update_values(A, h);
}

/* Rows sorted by local column: valid CSR, products to rounding, new
 * values still land on the right entries. */
static void check_sorted(cmrs_csr *A, const cmrs_partition *pt,
                         cmrs_halo *h, const char *what)
{
    CHECK_OK(cmrs_halo_sort_rows(h));
    for (int p = 0; p < h->nparts; ++p)
        CHECK(cmrs_csr_validate(&h->part[p].A, what) == CMRS_OK,
              "%s: part %d not sorted: %s", what, p, cmrs_error_message());
    check_map(A, pt, h, what);
    check_products(A, pt, h, 0, what);
    check_update(A, pt, h, 0, what);
}

static int same_i64(const int64_t *a, const int64_t *b, int64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* The same value map: both arrays, equal, or both value_base with the
 * same moved entries. */
static int same_map(const cmrs_halo_part *a, const cmrs_halo_part *b)
{
    if (!a->value_of || !b->value_of)
        return !a->value_of && !b->value_of &&
               a->value_base == b->value_base && a->npatch == b->npatch &&
               same_i64(a->patch_at, b->patch_at, b->npatch) &&
               same_i64(a->patch_from, b->patch_from, b->npatch);
    return same_i64(a->value_of, b->value_of, b->A.nnz);
}

/* cmrs_halo_build_for as a rank of nranks sees it: its parts' local
 * matrices, value maps and lists those of the full build; the other
 * parts' lists (the send lists come from them) too, their A left empty. */
static void check_for_rank(cmrs_csr *A, cmrs_partition *pt,
                           const cmrs_halo *full, int rank, int nranks,
                           const char *what)
{
    cmrs_halo h;
    CHECK_OK(cmrs_halo_build_for(A, pt, rank, nranks, &h));
    for (int p = 0; p < pt->nparts; ++p) {
        const cmrs_halo_part *a = &h.part[p], *b = &full->part[p];
        int mine = p % nranks == rank;
        CHECK(a->n_own == b->n_own && a->n_ghost == b->n_ghost &&
                  a->nrecv == b->nrecv && a->nsend == b->nsend &&
                  same_i64(a->ghost_gid, b->ghost_gid, b->n_ghost) &&
                  same_i64(a->send_idx, b->send_idx,
                           b->send_start[b->nsend]),
              "%s rank %d of %d: part %d's lists differ", what, rank, nranks,
              p);
        if (mine)
            CHECK(a->A.nnz == b->A.nnz &&
                      same_i64(a->A.indptr, b->A.indptr, b->A.rows + 1) &&
                      same_map(a, b) &&
                      memcmp(a->A.indices, b->A.indices,
                             (size_t)b->A.nnz * sizeof *b->A.indices) == 0,
                  "%s rank %d of %d: part %d's matrix differs", what, rank,
                  nranks, p);
        else
            CHECK(a->A.rows == 0 && a->A.nnz == 0 && !a->value_of,
                  "%s rank %d of %d: part %d's matrix built here", what,
                  rank, nranks, p);
    }
    cmrs_halo_free(&h);
}

static void sweep(cmrs_csr *A, const char *name)
{
    char what[128];
    for (int m = 0; m < method_count(); ++m)
        for (int c = 0; c < N_PARTS_CASES; ++c) {
            cmrs_partition pt;
            cmrs_halo h;
            snprintf(what, sizeof what, "%s %s P=%d", name,
                     cmrs_part_method_name(m), k_parts[c]);
            CHECK_OK(cmrs_partition_build(A, k_parts[c], m, &pt));
            CHECK_OK(cmrs_halo_build(A, &pt, &h));
            check_products(A, &pt, &h, 1, what);
            check_lists(&pt, &h, what);
            check_map(A, &pt, &h, what);
            if (k_parts[c] > 1) {
                check_for_rank(A, &pt, &h, 0, k_parts[c], what);
                check_for_rank(A, &pt, &h, k_parts[c] - 1, k_parts[c], what);
                check_for_rank(A, &pt, &h, 1, 2, what);
            }
            check_exchange(&pt, &h, what);
            check_update(A, &pt, &h, 1, what);
            check_sorted(A, &pt, &h, what);
            cmrs_halo_free(&h);
            cmrs_partition_free(&pt);
        }
}

/* Every array of two halos of one partition equal. */
static void check_same_halo(const cmrs_halo *a, const cmrs_halo *b,
                            const char *what)
{
    for (int p = 0; p < a->nparts; ++p) {
        const cmrs_halo_part *x = &a->part[p], *y = &b->part[p];
        int same = x->n_own == y->n_own && x->n_ghost == y->n_ghost &&
                   x->nrecv == y->nrecv && x->nsend == y->nsend &&
                   x->A.nnz == y->A.nnz && x->A.cols == y->A.cols &&
                   same_i64(x->ghost_gid, y->ghost_gid, x->n_ghost) &&
                   same_i64(x->A.indptr, y->A.indptr, x->A.rows + 1) &&
                   same_map(x, y) &&
                   same_i64(x->send_idx, y->send_idx,
                            x->send_start[x->nsend]) &&
                   memcmp(x->A.indices, y->A.indices,
                          (size_t)x->A.nnz * sizeof *x->A.indices) == 0 &&
                   memcmp(x->A.values, y->A.values,
                          (size_t)x->A.nnz * sizeof *x->A.values) == 0;
        CHECK(same, "%s: part %d differs between one thread and chunks",
              what, p);
    }
}

/* The halo's scan split into chunks of a few rows (CMRS_HOST_THREADS 24
 * with a grain of 1, shared by the parts built at once: 24 chunks for
 * one part, 12 for 2, 3 each for 7; rows of every length land on chunk
 * edges) builds what one thread builds, array for array, sorted rows
 * included. */
static void threads_agree(cmrs_csr *A, const char *name)
{
    char what[128];
    for (int m = 0; m < method_count(); ++m)
        for (int c = 0; c < N_PARTS_CASES; ++c) {
            cmrs_partition pt;
            cmrs_halo one, chunked;
            snprintf(what, sizeof what, "%s %s P=%d (chunks)", name,
                     cmrs_part_method_name(m), k_parts[c]);
            CHECK_OK(cmrs_partition_build(A, k_parts[c], m, &pt));
            unsetenv("CMRS_PARALLEL_GRAIN");
            CHECK_OK(cmrs_halo_build(A, &pt, &one));
            setenv("CMRS_PARALLEL_GRAIN", "1", 1);
            CHECK_OK(cmrs_halo_build(A, &pt, &chunked));
            check_same_halo(&one, &chunked, what);
            check_products(A, &pt, &chunked, 1, what);
            CHECK_OK(cmrs_halo_sort_rows(&one));
            CHECK_OK(cmrs_halo_sort_rows(&chunked));
            check_same_halo(&one, &chunked, what);
            cmrs_halo_free(&one);
            cmrs_halo_free(&chunked);
            cmrs_partition_free(&pt);
        }
    unsetenv("CMRS_PARALLEL_GRAIN");
}

/* The bidiagonal in 3 blocks: 1 receives from 0 only, 0 from nobody. */
static void one_way(void)
{
    cmrs_csr A = {0};
    cmrs_partition pt;
    cmrs_halo h;
    bidiag_in_blocks(&A, &pt);
    CHECK_OK(cmrs_halo_build(&A, &pt, &h));
    CHECK(h.part[0].nrecv == 0 && h.part[0].nsend == 1, "part 0 lists");
    CHECK(h.part[1].nrecv == 1 && h.part[1].recv_from[0] == 0 &&
          h.part[1].n_ghost == 1, "part 1 receives one value from 0");
    CHECK(h.part[2].nsend == 0, "the last part sends nothing");
    CHECK(pt.halo == 2, "halo %lld, want 2", (long long)pt.halo);
    cmrs_halo_free(&h);
    cmrs_partition_free(&pt);
    cmrs_csr_free(&A);
}

/* A part big enough (over 2^20 entries) that its local matrix is filled
 * by several threads where the machine has the cores: the same bitwise
 * products, lists and value map. */
static void big_parts(void)
{
    cmrs_csr A = {0};
    lap2d(&A, 520); /* 270,400 rows, 1.35M entries */
    for (int parts = 1; parts <= 2; ++parts) {
        cmrs_partition pt;
        cmrs_halo h;
        char what[64];
        snprintf(what, sizeof what, "lap2d 520 block P=%d", parts);
        CHECK_OK(cmrs_partition_build(&A, parts, CMRS_PART_BLOCK, &pt));
        CHECK_OK(cmrs_halo_build(&A, &pt, &h));
        check_products(&A, &pt, &h, 1, what);
        check_lists(&pt, &h, what);
        check_update(&A, &pt, &h, 1, what);
        cmrs_halo_free(&h);
        cmrs_partition_free(&pt);
    }
    cmrs_csr_free(&A);
}

int main(void)
{
    static const dist_matrix mats[] = {
        {DIST_LAP2D, 23}, {DIST_UPWIND, 11}, {DIST_BIDIAG, 40}};
    sweep_matrices(sweep, mats, 3);
    setenv("CMRS_HOST_THREADS", "24", 1);
    sweep_matrices(threads_agree, mats, 3);
    unsetenv("CMRS_HOST_THREADS");
    one_way();
    big_parts();
    return check_summary();
}
