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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/thread.h"
#include "base/timer.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "api_internal.h"

struct cmrs_api_ren {
    cmrs_reordered r;        /* B with old_of_new (and, from the host's
                                build, new_of_old and entry_of) */
    double *b_h, *x_h;       /* n: a host solve's b and x in B's order */
    cmrs_reordered_d maps;   /* the GPU's build: the three maps on the
                                device (r's host entry_of then made on
                                first use); B's arrays empty */
    void *b_d, *x_d;         /* n of the precision: device solves */
    void *vals_d;            /* nnz of the precision: device updates */
    double seconds;          /* what the setup spent on it */
};

/* Hosts loops over n items: split between threads above this many. */
#define REN_GRAIN 65536

int cmrs_api_ren_rule(const cmrs_opts *o, const cmrs_csr *A, int gpu,
                      int64_t min_rows)
{
    if (o->renumber < 0 || o->mpi || o->gpus > 1 || o->parts > 0) return 0;
    if (A->rows != A->cols || A->rows < 2 || A->nnz > INT32_MAX) return 0;
    if (o->renumber > 0) return 1;
    return gpu && A->rows >= min_rows &&
           cmrs_reorder_near_share(A) < CMRS_REORDER_MAX_NEAR;
}

int cmrs_api_ren_wanted(const cmrs_opts *o, const cmrs_csr *A, int gpu)
{
    /* CMRS_RENUMBER_MIN_ROWS (tests): the floor, so that the default's
     * path on a GPU context runs on small systems */
    const char *env = getenv("CMRS_RENUMBER_MIN_ROWS");
    long long floor = env && *env ? atoll(env) : 0;
    return cmrs_api_ren_rule(o, A, gpu,
                             floor > 0 ? floor : CMRS_RENUMBER_MIN_ROWS);
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
        CMRS_TRY(cmrs_reordered_build_sorted_gpu(A, &ren->r, &ren->maps));
    } else { /* B's rows sorted: cmrs_csr's promise, which the host's
                lookups and the formats rely on */
        CMRS_TRY(cmrs_reordered_build(A, &ren->r));
        cmrs_reordered_sort_rows(&ren->r);
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
    if (ren->maps.old_of_new_d) {
        cmrs_reordered_dev_free(&ren->maps);
        CMRS_GPU_FREE_ALL(ren->b_d, ren->x_d, ren->vals_d);
    }
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
        cmrs_code rc = cmrs_gpu_d2h(ren->r.entry_of, ren->maps.entry_of_d,
                                    bytes, "the renumbering's entry map");
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
    if (cmrs_gpu_d2h(&e, ren->maps.entry_of_d + j, sizeof e, "an entry") !=
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

/* be's stream, and the GPU's maps: the permutations order with the
 * library's work there (a back end without a stream -- distributed --
 * never renumbers; a CPU context never comes here). */
static cmrs_code ren_stream(const cmrs_api_ren *ren, const cmrs_backend *be,
                            cmrs_stream *stream)
{
    *stream = cmrs_backend_gpu_stream(be);
    CMRS_ENSURE(*stream && ren->maps.old_of_new_d, CMRS_E_INTERNAL, "a "
                "renumbered system's device permutation on %s without the "
                "GPU's maps", be->ops->name);
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
    CMRS_CHECK(device_array(&ren->b_d, be->n, bytes));
    CMRS_CHECK(device_array(&ren->x_d, be->n, bytes));
    *b_d = ren->b_d;
    *x_d = ren->x_d;
    return CMRS_OK;
}

/* dst = src through `map` (n values of be's precision) on be's stream. */
static cmrs_code gather_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                          const int32_t *map_d, int64_t n, const void *src_d,
                          void *dst_d)
{
    cmrs_stream stream;
    CMRS_CHECK(ren_stream(ren, be, &stream));
    CMRS_CHECK(cmrs_reorder_gather(map_d, n, be->prec, src_d, dst_d,
                                   stream));
    return CMRS_OK;
}

cmrs_code cmrs_api_ren_in_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                            const void *v_d, void *v_b_d)
{
    return gather_d(ren, be, ren->maps.old_of_new_d, be->n, v_d, v_b_d);
}

cmrs_code cmrs_api_ren_out_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                             const void *v_b_d, void *v_d)
{
    /* x[i] = x_B[new_of_old[i]]: the scatter as a gather */
    return gather_d(ren, be, ren->maps.new_of_old_d, be->n, v_b_d, v_d);
}

cmrs_code cmrs_api_ren_values_d(cmrs_api_ren *ren, const cmrs_backend *be,
                                const void *values_d, const void **vals_b_d)
{
    CMRS_CHECK(device_array(&ren->vals_d, be->nnz,
                            cmrs_prec_value_bytes(be->prec)));
    CMRS_CHECK(gather_d(ren, be, ren->maps.entry_of_d, be->nnz, values_d,
                        ren->vals_d));
    *vals_b_d = ren->vals_d;
    return CMRS_OK;
}

/* A value of B outside the float range (a single-precision upload):
 * the first such value of A, in A's order, is the one the caller's
 * order would have named, under the same WHAT (the message's text up to
 * ": value "). rc where A has none (a message of another kind). */
static cmrs_code range_error(const cmrs_csr *A, cmrs_code rc)
{
    const char *msg = cmrs_error_message(), *tail = strstr(msg, ": value ");
    char what[256];
    if (!tail) return rc;
    snprintf(what, sizeof what, "%.*s", (int)(tail - msg), msg);
    cmrs_code again = cmrs_check_float_range(A->values, A->nnz, what);
    return again != CMRS_OK ? again : rc;
}

cmrs_code cmrs_api_ren_error(const cmrs_solver *s, cmrs_code rc)
{
    const cmrs_csr *A = &s->A->sys.A;
    const char *what = s->A->what;
    if (rc == CMRS_E_INPUT && strstr(cmrs_error_message(),
                                     CMRS_FLOAT_RANGE_TEXT))
        return range_error(A, rc);
    /* only the other messages that name a row of B need the caller's:
     * the setup's own checks run again on A, in the setup's order, and
     * their failure (the same message, A's row) replaces B's */
    if (rc != CMRS_E_INPUT || !strstr(cmrs_error_message(), "row "))
        return rc;
    cmrs_code again = cmrs_check_no_empty_row(A, 0, what);
    if (again == CMRS_OK && s->o.solve.pc != CMRS_PC_NONE) {
        double *dinv = cmrs_malloc_array((size_t)A->rows, sizeof *dinv);
        if (!dinv) return rc; /* B's message, rather than none */
        again = cmrs_jacobi_inverse_diagonal(A, what, dinv);
        free(dinv);
    }
    return again != CMRS_OK ? again : rc;
}
