/* The distributed back end's operations (dist.h): each op runs on every
 * part's inner back end; spmv adds the halo exchange, reductions add the
 * all-reduce. Nothing here allocates but the setup-side kit ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_impl.h"

#define ARR(a) ((cmrs_dist_arr *)(a))
#define CARR(a) ((const cmrs_dist_arr *)(a))
/* Part p's inner ops, its device made current once per call (dist_inner):
 * PART_OPS(d, p)->op(d->inner[p], ...). */
#define PART_OPS(d, p) (dist_inner(d, p)->ops)

static cmrs_code check_len(const cmrs_backend *be, int64_t n)
{
    CMRS_ENSURE(n == be->n, CMRS_E_USAGE, "the distributed back end (--parts,"
                " --gpus) holds arrays of its %lld rows only, not %lld (its "
                "amg is its own, dist/pc/)",
                (long long)be->n, (long long)n);
    return CMRS_OK;
}

static void arr_destroy(cmrs_backend *be, void *a)
{
    dist_impl *d = DIST(be);
    if (!a) return;
    FOR_MY_PARTS(d, p)
        if (ARR(a)->part[p])
            PART_OPS(d, p)->arr_destroy(d->inner[p], ARR(a)->part[p]);
    dist_home(d);
    free(a);
}

static cmrs_code arr_create(cmrs_backend *be, int64_t n, void **a)
{
    dist_impl *d = DIST(be);
    *a = NULL;
    CMRS_CHECK(check_len(be, n));
    cmrs_dist_arr *x = calloc(1, sizeof(void *) * (size_t)d->pt.nparts);
    CMRS_ENSURE(x, CMRS_E_NOMEM, "cannot allocate a distributed array");
    FOR_MY_PARTS(d, p) {
        cmrs_code rc = PART_OPS(d, p)->arr_create(
            d->inner[p], dist_local_len(d, p), &x->part[p]);
        if (rc != CMRS_OK) {
            arr_destroy(be, x);
            return cmrs_error_trace(rc, __FILE__, __LINE__);
        }
    }
    *a = x;
    dist_home(d);
    return CMRS_OK;
}

/* Global h (NULL: zeros) into every part's owned entries, ghosts 0. */
static cmrs_code arr_set(cmrs_backend *be, int64_t n, void *a,
                         const double *h)
{
    dist_impl *d = DIST(be);
    CMRS_CHECK(check_len(be, n));
    FOR_MY_PARTS(d, p) {
        int64_t own = d->halo.part[p].n_own, len = dist_local_len(d, p);
        const int64_t *rows = d->pt.by_rows ? NULL
                                           : d->pt.order + d->pt.start[p];
        for (int64_t j = 0; j < len; ++j)
            d->stage[j] = h && j < own ? h[rows ? rows[j] : j] : 0.0;
        CMRS_CHECK(PART_OPS(d, p)->arr_set(d->inner[p], len, ARR(a)->part[p],
                                           d->stage));
    }
    dist_home(d);
    return CMRS_OK;
}

static cmrs_code arr_get(cmrs_backend *be, int64_t n, const void *a,
                         double *h)
{
    dist_impl *d = DIST(be);
    CMRS_CHECK(check_len(be, n));
    int gather = d->ex->ops->gather && !d->pt.by_rows;
    if (gather) memset(h, 0, (size_t)n * sizeof *h);
    FOR_MY_PARTS(d, p) {
        int64_t own = d->halo.part[p].n_own;
        const int64_t *rows = d->pt.by_rows ? NULL
                                           : d->pt.order + d->pt.start[p];
        CMRS_CHECK(PART_OPS(d, p)->arr_get(d->inner[p], dist_local_len(d, p),
                                           CARR(a)->part[p], d->stage));
        for (int64_t j = 0; j < own; ++j) h[rows ? rows[j] : j] = d->stage[j];
    }
    if (gather) /* the other ranks' rows */
        CMRS_CHECK(d->ex->ops->gather(d->ex, h, n));
    dist_home(d);
    return CMRS_OK;
}

/* Partial dots over the owned rows, summed in part order. */
static cmrs_code arr_dot(cmrs_backend *be, int64_t n, const void *x,
                         const void *y, double *out)
{
    dist_impl *d = DIST(be);
    CMRS_CHECK(check_len(be, n));
    /* (another rank's parts add 0 here: the sum adds them over ranks) */
    memset(d->partial, 0, (size_t)d->pt.nparts * sizeof *d->partial);
    if (d->dots)
        CMRS_CHECK(d->dots(d->user, &d->halo, CARR(x), CARR(y), d->partial));
    else
        FOR_MY_PARTS(d, p)
            CMRS_CHECK(PART_OPS(d, p)->arr_dot(
                d->inner[p], d->halo.part[p].n_own, CARR(x)->part[p],
                CARR(y)->part[p], &d->partial[p]));
    CMRS_CHECK(d->ex->ops->sum(d->ex, d->partial, 1, out));
    dist_home(d);
    return CMRS_OK;
}

static cmrs_code dxpby(cmrs_backend *be, int64_t n, double alpha,
                       const void *dv, const void *x, double beta, void *y)
{
    dist_impl *d = DIST(be);
    CMRS_CHECK(check_len(be, n));
    FOR_MY_PARTS(d, p)
        CMRS_CHECK(PART_OPS(d, p)->dxpby(
            d->inner[p], d->halo.part[p].n_own, alpha,
            dv ? CARR(dv)->part[p] : NULL, CARR(x)->part[p], beta,
            ARR(y)->part[p]));
    dist_home(d);
    return CMRS_OK;
}

/* y = alpha A x + beta y: the ghosts of x first (they are scratch, not
 * part of the vector's value: hence writing through a const x). */
static cmrs_code op_apply(cmrs_backend *be, const cmrs_op *op, double alpha,
                          const void *x, double beta, void *y)
{
    dist_impl *d = DIST(be);
    cmrs_dist_arr *xg = (cmrs_dist_arr *)(uintptr_t)x;
    CMRS_ENSURE(!op, CMRS_E_INTERNAL, "distributed back end: operators other"
                " than A are not distributed");
    FOR_MY_PARTS(d, p)
        CMRS_CHECK(d->ex->ops->post(d->ex, p, xg->part[p]));
    FOR_MY_PARTS(d, p)
        CMRS_CHECK(d->ex->ops->wait(d->ex, p, xg->part[p]));
    FOR_MY_PARTS(d, p)
        CMRS_CHECK(PART_OPS(d, p)->op_apply(
            d->inner[p], d->local_op ? d->local_op[p] : NULL, alpha,
            xg->part[p], beta, ARR(y)->part[p]));
    dist_home(d);
    return CMRS_OK;
}

/* The Krylov ops: the kit's ops on the vectors' arrays. */
static cmrs_code vec_create(cmrs_backend *be, cmrs_vec **v)
{
    *v = calloc(1, sizeof **v);
    CMRS_ENSURE(*v, CMRS_E_NOMEM, "cannot allocate a vector");
    cmrs_code rc = arr_create(be, be->n, &(*v)->data);
    if (rc != CMRS_OK) {
        free(*v);
        *v = NULL;
    }
    return rc;
}

static void vec_destroy(cmrs_backend *be, cmrs_vec *v)
{
    if (!v) return;
    arr_destroy(be, v->data);
    free(v);
}

static cmrs_code vec_set(cmrs_backend *be, cmrs_vec *v, const double *h)
{
    return arr_set(be, be->n, v->data, h);
}

static cmrs_code vec_get(cmrs_backend *be, const cmrs_vec *v, double *h)
{
    return arr_get(be, be->n, v->data, h);
}

static cmrs_code spmv(cmrs_backend *be, double alpha, const cmrs_vec *x,
                      double beta, cmrs_vec *y)
{
    return op_apply(be, NULL, alpha, x->data, beta, y->data);
}

static cmrs_code dot(cmrs_backend *be, const cmrs_vec *x, const cmrs_vec *y,
                     double *out)
{
    return arr_dot(be, be->n, x->data, y->data, out);
}

static cmrs_code nrm2(cmrs_backend *be, const cmrs_vec *x, double *out)
{
    CMRS_CHECK(arr_dot(be, be->n, x->data, x->data, out));
    *out = sqrt(*out);
    return CMRS_OK;
}

static cmrs_code axpy(cmrs_backend *be, double a, const cmrs_vec *x,
                      cmrs_vec *y)
{
    return dxpby(be, be->n, a, NULL, x->data, 1.0, y->data);
}

static cmrs_code scal(cmrs_backend *be, double a, cmrs_vec *x)
{
    return dxpby(be, be->n, a, NULL, x->data, 0.0, x->data);
}

static cmrs_code copy(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y)
{
    return dxpby(be, be->n, 1.0, NULL, x->data, 0.0, y->data);
}

static cmrs_code xpby(cmrs_backend *be, const cmrs_vec *x, double b,
                      cmrs_vec *y)
{
    return dxpby(be, be->n, 1.0, NULL, x->data, b, y->data);
}

static cmrs_code history_reserve(cmrs_backend *be, int64_t count)
{
    dist_impl *d = DIST(be);
    return cmrs_history_grow(&d->history, &d->history_cap, count);
}

static cmrs_code resnorm(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                         double *out)
{
    dist_impl *d = DIST(be);
    CMRS_ENSURE(k >= 0 && k < d->history_cap, CMRS_E_INTERNAL, "history "
                "entry %lld beyond its %lld reserved", (long long)k,
                (long long)d->history_cap);
    CMRS_CHECK(nrm2(be, r, out));
    d->history[k] = *out;
    return CMRS_OK;
}

static cmrs_code history_get(cmrs_backend *be, int64_t count, double *h)
{
    dist_impl *d = DIST(be);
    CMRS_ENSURE(count <= d->history_cap, CMRS_E_INTERNAL, "history of %lld "
                "entries requested, %lld reserved", (long long)count,
                (long long)d->history_cap);
    memcpy(h, d->history, (size_t)count * sizeof *h);
    return CMRS_OK;
}

static cmrs_code sync(cmrs_backend *be)
{
    dist_impl *d = DIST(be);
    FOR_MY_PARTS(d, p)
        CMRS_CHECK(PART_OPS(d, p)->sync(d->inner[p]));
    dist_home(d);
    return CMRS_OK;
}

static cmrs_code update_values(cmrs_backend *be, const cmrs_csr *A,
                               int *in_place)
{
    dist_impl *d = DIST(be);
    CMRS_ENSURE(!d->borrowed, CMRS_E_USAGE, "a sibling distributed back "
                "end takes no new values (made anew instead)");
    /* rows mode: A is this rank's rows, as at setup (be->n, be->nnz) */
    CMRS_ENSURE(A->rows == be->n && A->nnz == be->nnz, CMRS_E_USAGE,
                "new values for %lld rows and %lld entries; the back end "
                "holds %lld and %lld", (long long)A->rows, (long long)A->nnz,
                (long long)be->n, (long long)be->nnz);
    cmrs_halo_update_values(A, &d->halo);
    *in_place = 1;
    FOR_MY_PARTS(d, p) {
        int kept = 1;
        CMRS_CHECK(PART_OPS(d, p)->update_values(
            d->inner[p], &d->halo.part[p].A, &kept));
        *in_place = *in_place && kept;
    }
    dist_home(d);
    return CMRS_OK;
}

/* D^-1 from each part's own (GPU parts found their diagonals converting
 * their local matrices: no host pass over the whole A nor its scatter to
 * the parts, 0.3 s at 50M rows); the ghost tails stay 0, as arr_set
 * leaves them. *done = 0 (the host path) where a part cannot, for a
 * sibling (its parts hold another matrix) and where a part finds a bad
 * diagonal: the host path's message names the global row. */
static cmrs_code own_dinv(cmrs_backend *be, const cmrs_csr *A,
                          const char *what, void **dinv, int *done)
{
    dist_impl *d = DIST(be);
    void *x = NULL;
    int ok = !d->borrowed && A->rows == be->n && A->nnz == be->nnz;
    *done = 0;
    FOR_MY_PARTS(d, p) ok = ok && d->inner[p]->ops->own_dinv;
    if (!ok) return CMRS_OK;
    CMRS_CHECK(arr_create(be, be->n, &x));
    FOR_MY_PARTS(d, p) {
        void *xp = ARR(x)->part[p];
        int part_done = 0;
        if (ok && PART_OPS(d, p)->own_dinv(d->inner[p], &d->halo.part[p].A,
                                           what, &xp, &part_done) != CMRS_OK)
            cmrs_error_clear(); /* part_done stays 0 */
        ok = ok && part_done;
    }
    dist_home(d);
    if (!ok) {
        arr_destroy(be, x);
        return CMRS_OK;
    }
    *dinv = x;
    *done = 1;
    return CMRS_OK;
}

/* What the kit cannot distribute: the AMG hierarchy's operators. */
static cmrs_code op_create(cmrs_backend *be, const cmrs_csr *M,
                           const char *format, cmrs_op **op)
{
    (void)format;
    *op = NULL;
    CMRS_CHECK(check_len(be, M->rows));
    CMRS_FAIL(CMRS_E_USAGE, "the distributed back end (--parts, --gpus) "
              "applies A only: other operators (amg levels) are not "
              "distributed");
}

static const char *op_format(const cmrs_op *op)
{
    (void)op;
    return "dist";
}

static void op_destroy(cmrs_backend *be, cmrs_op *op)
{
    (void)be, (void)op; /* op_create never makes one */
}

/* The first part's memory (the parts' devices are alike). */
static cmrs_code copy_bandwidth(cmrs_backend *be, double *bytes_per_s)
{
    cmrs_backend *in = dist_inner(DIST(be), dist_first_mine(DIST(be)));
    CMRS_ENSURE(in->ops->copy_bandwidth, CMRS_E_USAGE, "the %s back end of "
                "the parts measures no copy bandwidth", in->ops->name);
    cmrs_code rc = in->ops->copy_bandwidth(in, bytes_per_s);
    dist_home(DIST(be));
    return rc;
}

/* The parts' fused CG (cmrs_dist_params.cg_loop: GPU parts with a device
 * all-reduce). */
static cmrs_code cg_loop(cmrs_backend *be, cmrs_cg_loop_io *io)
{
    dist_impl *d = DIST(be);
    cmrs_code rc = d->cg_loop(d->user, be, io);
    dist_home(d);
    return rc;
}

/* No amg_builder: --precond amg is the back end's own (pc_create,
 * pc/pc_block.c): the hierarchy over all rows on every part's device with
 * level 0 on the parts (pc/pc_global.c), or one hierarchy per part. */
#define DIST_OPS                                                            \
    .name = "dist", .vec_create = vec_create, .vec_destroy = vec_destroy,   \
    .vec_set = vec_set, .vec_get = vec_get,                                 \
    .history_reserve = history_reserve, .update_values = update_values,     \
    .spmv = spmv, .dot = dot, .nrm2 = nrm2, .axpy = axpy, .scal = scal,     \
    .copy = copy, .xpby = xpby, .resnorm = resnorm,                         \
    .history_get = history_get, .sync = sync,                               \
    .time_spmv = cmrs_backend_time_spmv_host,                               \
    .copy_bandwidth = copy_bandwidth, .pc_create = cmrs_dist_pc_create,     \
    .arr_create = arr_create, .arr_destroy = arr_destroy,                   \
    .arr_set = arr_set, .arr_get = arr_get, .arr_dot = arr_dot,             \
    .op_create = op_create, .op_destroy = op_destroy,                       \
    .op_format = op_format, .op_apply = op_apply, .dxpby = dxpby,           \
    .own_dinv = own_dinv, .destroy = cmrs_dist_destroy

const cmrs_backend_ops cmrs_dist_ops = {DIST_OPS};
const cmrs_backend_ops cmrs_dist_loop_ops = {DIST_OPS, .cg_loop = cg_loop};
