/* The system renumbered once (option renumber, docs/API.md): where A is
 * numbered so that neighbouring rows share no columns (a mesher's or a
 * partitioner's order, a random one), every product gathers x at random.
 * The cmrs format's own reordering (--reorder) keeps the caller's order
 * and pays two gathers around every product; here the solver itself is
 * set up on B = P A P^T (the same breadth-first order, spmv/cmrs/
 * cmrs_reorder.h) and every back end, format and preconditioner works in
 * B's order. Only the boundary permutes: b and x0 in and x out once per
 * solve, new values once per update, r and z of a preconditioner applied
 * alone; the residuals and iterations need nothing (norms do not see the
 * order). Messages that name a row or an entry name the caller's. */
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/thread.h"
#include "base/timer.h"
#include "base/gpu/dev_permute.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "api_internal.h"

struct cmrs_api_ren {
    cmrs_reordered r;        /* B with new_of_old, old_of_new, entry_of */
    double *b_h, *x_h;       /* n: a host solve's b and x in B's order */
    int32_t *old_of_new_d;   /* n: kept from the GPU's build */
    int32_t *entry_of_d;     /* nnz: kept from the GPU's build (r's host
                                entry_of then made on first use) */
    void *b_d, *x_d;         /* n of the precision: device solves */
    void *vals_d;            /* nnz of the precision: device updates */
    double seconds;          /* what the setup spent on it */
};

/* Hosts loops over n items: split between threads above this many. */
#define REN_GRAIN 65536

int cmrs_api_ren_wanted(const cmrs_opts *o, const cmrs_csr *A)
{
    if (o->renumber < 0 || o->mpi || o->gpus > 1 || o->parts > 0) return 0;
    if (A->rows != A->cols || A->rows < 2 || A->nnz > INT32_MAX) return 0;
    if (o->renumber > 0) return 1;
    return A->rows >= CMRS_RENUMBER_MIN_ROWS &&
           cmrs_reorder_near_share(A) < CMRS_REORDER_MAX_NEAR;
}

cmrs_code cmrs_api_ren_check(const cmrs_opts *o, const cmrs_csr *A)
{
    if (o->renumber <= 0) return CMRS_OK;
    CMRS_ENSURE(!o->mpi && o->gpus <= 1 && o->parts == 0, CMRS_E_USAGE,
                "--renumber on: a distributed solve (--gpus, --parts, "
                "mpirun) keeps the file's numbering (its partition "
                "follows it)");
    CMRS_ENSURE(A->nnz <= INT32_MAX, CMRS_E_USAGE, "--renumber on: the "
                "matrix has %lld entries; renumbering maps at most %d",
                (long long)A->nnz, INT32_MAX);
    return CMRS_OK;
}

/* B's rows sorted by column (cmrs_csr's promise, which the host's lookups
 * and the formats rely on; the reordering leaves them in A's order), the
 * entry map along: insertion sorts, rows being short. */
static void sort_range(void *ctx, int t, int64_t lo, int64_t hi)
{
    cmrs_reordered *r = ctx;
    (void)t;
    for (int64_t row = lo; row < hi; ++row) {
        const int64_t a = r->B.indptr[row], b = r->B.indptr[row + 1];
        for (int64_t k = a + 1; k < b; ++k) {
            const int32_t col = r->B.indices[k], e = r->entry_of[k];
            const double v = r->B.values[k];
            int64_t m = k;
            for (; m > a && r->B.indices[m - 1] > col; --m) {
                r->B.indices[m] = r->B.indices[m - 1];
                r->B.values[m] = r->B.values[m - 1];
                r->entry_of[m] = r->entry_of[m - 1];
            }
            r->B.indices[m] = col;
            r->B.values[m] = v;
            r->entry_of[m] = e;
        }
    }
}

cmrs_code cmrs_api_ren_make(const cmrs_csr *A, int gpu, cmrs_api_ren **out)
{
    cmrs_code rc = CMRS_OK;
    double t0 = cmrs_wtime();
    cmrs_api_ren *ren = calloc(1, sizeof *ren);
    *out = NULL;
    CMRS_ENSURE(ren, CMRS_E_NOMEM, "cannot allocate a renumbering");
    /* the host's search and permutation ran at 0.4 s for 1M rows and 7M
     * entries (two cores): on a GPU context the GPU builds it, keeping
     * the maps' device copies for the device paths */
    if (gpu) {
        CMRS_TRY(cmrs_reordered_build_sorted_gpu(A, &ren->r,
                                                 &ren->old_of_new_d,
                                                 &ren->entry_of_d));
    } else {
        CMRS_TRY(cmrs_reordered_build(A, &ren->r));
        cmrs_parallel_ranges(A->rows,
                             cmrs_parallel_threads(A->nnz, REN_GRAIN),
                             sort_range, &ren->r);
    }
    ren->b_h = cmrs_malloc_array((size_t)A->rows, sizeof(double));
    ren->x_h = cmrs_malloc_array((size_t)A->rows, sizeof(double));
    if (!ren->b_h || !ren->x_h)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot allocate the renumbered "
                      "system's vectors (%lld rows)", (long long)A->rows);
    ren->seconds = cmrs_wtime() - t0;
    *out = ren;
    return CMRS_OK;
done:
    cmrs_api_ren_free(ren);
    return rc;
}

void cmrs_api_ren_free(cmrs_api_ren *ren)
{
    if (!ren) return;
    cmrs_reordered_free(&ren->r);
    CMRS_FREE_ALL(ren->b_h, ren->x_h);
    /* Guarded: a CPU context never calls into CUDA (not even a free). */
    if (ren->old_of_new_d || ren->entry_of_d || ren->b_d || ren->x_d ||
        ren->vals_d)
        CMRS_GPU_FREE_ALL(ren->old_of_new_d, ren->entry_of_d, ren->b_d,
                          ren->x_d, ren->vals_d);
    free(ren);
}

const cmrs_csr *cmrs_api_ren_matrix(const cmrs_api_ren *ren)
{
    return &ren->r.B;
}

double cmrs_api_ren_seconds(const cmrs_api_ren *ren) { return ren->seconds; }

const int32_t *cmrs_api_ren_rows(const cmrs_api_ren *ren)
{
    return ren->r.old_of_new;
}

cmrs_code cmrs_api_ren_entries(cmrs_api_ren *ren, const int32_t **entries)
{
    const size_t bytes = (size_t)ren->r.B.nnz * sizeof(int32_t);
    if (!ren->r.entry_of) {
        ren->r.entry_of = cmrs_malloc_array(bytes > 0 ? bytes : 1, 1);
        CMRS_ENSURE(ren->r.entry_of, CMRS_E_NOMEM, "cannot allocate the "
                    "renumbering's entry map (%lld entries)",
                    (long long)ren->r.B.nnz);
        cmrs_code rc = cmrs_gpu_d2h(ren->r.entry_of, ren->entry_of_d, bytes,
                                    "the renumbering's entry map");
        if (rc != CMRS_OK) {
            free(ren->r.entry_of);
            ren->r.entry_of = NULL;
            CMRS_CHECK(rc);
        }
    }
    *entries = ren->r.entry_of;
    return CMRS_OK;
}

int64_t cmrs_api_ren_entry(void *ren_v, int64_t j)
{
    const cmrs_api_ren *ren = ren_v;
    int32_t e = -1;
    if (ren->r.entry_of) return ren->r.entry_of[j];
    /* one entry from the device: a message needs no 4 bytes per entry */
    if (cmrs_gpu_d2h(&e, ren->entry_of_d + j, sizeof e, "an entry") !=
        CMRS_OK) {
        cmrs_error_clear(); /* the message keeps B's index then */
        return j;
    }
    return e;
}

/* The host permutations, split between threads on large systems. */
typedef struct permute_job {
    const int32_t *map;
    const double *src;
    double *dst;
    int gather;
} permute_job;

static void permute_range(void *ctx, int t, int64_t lo, int64_t hi)
{
    const permute_job *j = ctx;
    (void)t;
    if (j->gather)
        for (int64_t i = lo; i < hi; ++i) j->dst[i] = j->src[j->map[i]];
    else
        for (int64_t i = lo; i < hi; ++i) j->dst[j->map[i]] = j->src[i];
}

static void permute_h(int gather, int64_t n, const int32_t *map,
                      const double *src, double *dst)
{
    permute_job j = {map, src, dst, gather};
    cmrs_parallel_ranges(n, cmrs_parallel_threads(n, REN_GRAIN),
                         permute_range, &j);
}

double *cmrs_api_ren_b(cmrs_api_ren *ren) { return ren->b_h; }
double *cmrs_api_ren_x(cmrs_api_ren *ren) { return ren->x_h; }

void cmrs_api_ren_in(const cmrs_api_ren *ren, const double *v, double *v_b)
{
    permute_h(1, ren->r.B.rows, ren->r.old_of_new, v, v_b);
}

void cmrs_api_ren_out(const cmrs_api_ren *ren, const double *v_b, double *v)
{
    permute_h(0, ren->r.B.rows, ren->r.old_of_new, v_b, v);
}

cmrs_code cmrs_api_ren_values_in(cmrs_api_ren *ren, const double *values)
{
    const int32_t *entries = NULL;
    CMRS_CHECK(cmrs_api_ren_entries(ren, &entries));
    permute_h(1, ren->r.B.nnz, entries, values, ren->r.B.values);
    return CMRS_OK;
}

cmrs_code cmrs_api_ren_values_out(cmrs_api_ren *ren, double *values)
{
    const int32_t *entries = NULL;
    CMRS_CHECK(cmrs_api_ren_entries(ren, &entries));
    permute_h(0, ren->r.B.nnz, entries, ren->r.B.values, values);
    return CMRS_OK;
}

/* *map_d = a device copy of the host map of n entries, made once (left
 * NULL when it cannot be made whole). */
static cmrs_code device_map(int32_t **map_d, const int32_t *map, int64_t n)
{
    if (*map_d) return CMRS_OK;
    CMRS_ENSURE(map, CMRS_E_INTERNAL, "the renumbering's map is on neither "
                "side");
    CMRS_CHECK(cmrs_gpu_malloc((void **)map_d, (size_t)n * sizeof **map_d));
    cmrs_code rc = cmrs_gpu_h2d(*map_d, map, (size_t)n * sizeof **map_d,
                                "the renumbering's map");
    if (rc != CMRS_OK) {
        cmrs_gpu_free(*map_d);
        *map_d = NULL;
        CMRS_CHECK(rc);
    }
    return CMRS_OK;
}

/* be's stream: the permutations order with the library's work there
 * (a back end without one -- distributed -- never renumbers). */
static cmrs_code ren_stream(const cmrs_backend *be, cmrs_stream *stream)
{
    *stream = cmrs_backend_gpu_stream(be);
    CMRS_ENSURE(*stream, CMRS_E_INTERNAL, "a renumbered system on a back "
                "end without a stream (%s)", be->ops->name);
    return CMRS_OK;
}

/* *a = a device array of n values of `bytes`, made once. */
static cmrs_code device_array(void **a, int64_t n, size_t bytes)
{
    if (*a) return CMRS_OK;
    CMRS_CHECK(cmrs_gpu_malloc(a, (size_t)n * bytes));
    return CMRS_OK;
}

cmrs_code cmrs_api_ren_vectors_d(cmrs_api_ren *ren, const cmrs_backend *be,
                                 void **b_d, void **x_d)
{
    const size_t bytes = cmrs_prec_value_bytes(be->prec);
    CMRS_CHECK(device_map(&ren->old_of_new_d, ren->r.old_of_new, be->n));
    CMRS_CHECK(device_array(&ren->b_d, be->n, bytes));
    CMRS_CHECK(device_array(&ren->x_d, be->n, bytes));
    *b_d = ren->b_d;
    *x_d = ren->x_d;
    return CMRS_OK;
}

/* A vector of be's precision through the row map, on be's stream: in
 * (gather into B's order) or out (scatter back). */
static cmrs_code permute_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                           int in, const void *src_d, void *dst_d)
{
    cmrs_stream stream;
    const int bytes = (int)cmrs_prec_value_bytes(be->prec);
    CMRS_CHECK(ren_stream(be, &stream));
    CMRS_CHECK((in ? cmrs_dev_gather : cmrs_dev_scatter)(
        be->n, ren->old_of_new_d, src_d, dst_d, bytes, stream));
    return CMRS_OK;
}

cmrs_code cmrs_api_ren_in_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                            const void *v_d, void *v_b_d)
{
    return permute_d(ren, be, 1, v_d, v_b_d);
}

cmrs_code cmrs_api_ren_out_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                             const void *v_b_d, void *v_d)
{
    return permute_d(ren, be, 0, v_b_d, v_d);
}

cmrs_code cmrs_api_ren_values_d(cmrs_api_ren *ren, const cmrs_backend *be,
                                const void *values_d, const void **vals_b_d)
{
    const size_t bytes = cmrs_prec_value_bytes(be->prec);
    cmrs_stream stream;
    CMRS_CHECK(ren_stream(be, &stream));
    CMRS_CHECK(device_map(&ren->entry_of_d, ren->r.entry_of, be->nnz));
    CMRS_CHECK(device_array(&ren->vals_d, be->nnz, bytes));
    CMRS_CHECK(cmrs_dev_gather(be->nnz, ren->entry_of_d, values_d,
                               ren->vals_d, (int)bytes, stream));
    *vals_b_d = ren->vals_d;
    return CMRS_OK;
}

/* The first row of A (the caller's numbering) with no entries, else,
 * where the diagonal is used, the first whose diagonal is missing or not
 * > 0 (the order the setup checks them in: empty rows first); -1 when
 * none. */
static int64_t first_bad_row(const cmrs_csr *A, int diagonal, int *empty)
{
    *empty = 1;
    for (int64_t i = 0; i < A->rows; ++i)
        if (A->indptr[i + 1] == A->indptr[i]) return i;
    *empty = 0;
    for (int64_t i = 0; i < A->rows && diagonal; ++i) {
        double d = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] == i) d = A->values[k];
        if (!(d > 0)) return i;
    }
    return -1;
}

cmrs_code cmrs_api_ren_error(const cmrs_csr *A, const char *what,
                             int diagonal, cmrs_code rc)
{
    int empty = 0;
    /* only the messages that name a row of B need the caller's */
    if (rc != CMRS_E_INPUT || !strstr(cmrs_error_message(), "row "))
        return rc;
    const int64_t i = first_bad_row(A, diagonal, &empty);
    if (i < 0) return rc;
    cmrs_error_clear();
    CMRS_ENSURE(!empty, CMRS_E_INPUT, "%s: row %lld has no entries: the "
                "matrix is singular", what, (long long)i);
    return cmrs_jacobi_row_error(A, what, i);
}
