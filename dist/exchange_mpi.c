/* The MPI exchange (exchange.h): one part per rank, host memory. */
#ifdef CMRS_HAVE_MPI
#include <mpi.h>
#include <stdlib.h>

#include "base/memory.h"
#include "exchange.h"

typedef struct mpi_impl {
    MPI_Comm comm;       /* the parts' ranks */
    int rank;            /* this rank's part */
    double *sendbuf;     /* its packed sends */
    double *sums;        /* nparts * CMRS_ALLREDUCE_MAX: the all-reduce */
    MPI_Request *req;    /* nsend + nrecv */
    int nreq;
} mpi_impl;

#define MPI_OF(ex) ((mpi_impl *)(ex)->impl)

static cmrs_code mpi_error(int e, const char *what, const char *file,
                           int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(e, msg, &len);
    return cmrs_error_set(CMRS_E_IO, file, line, "%s: MPI error %d (%s)",
                          what, e, msg);
}

#define CMRS_MPI(expr)                                                      \
    do {                                                                    \
        int e_ = (expr);                                                    \
        if (e_ != MPI_SUCCESS) return mpi_error(e_, #expr, __FILE__, __LINE__); \
    } while (0)

/* Receives first (into the ghost tail), then the packed sends; one
 * message per neighbour and direction, matched in order (tag 0). */
static cmrs_code mpi_post(cmrs_exchange *ex, int p, const void *x_p)
{
    mpi_impl *mi = MPI_OF(ex);
    const cmrs_halo_part *hp = &ex->halo->part[p];
    double *x = (double *)(uintptr_t)x_p; /* the ghost tail is scratch */
    CMRS_ENSURE(p == mi->rank, CMRS_E_INTERNAL, "mpi exchange: part %d "
                "posted on rank %d", p, mi->rank);
    mi->nreq = 0;
    for (int k = 0; k < hp->nrecv; ++k) {
        int64_t at = hp->recv_start[k], count = hp->recv_start[k + 1] - at;
        CMRS_MPI(MPI_Irecv(x + hp->n_own + at, (int)count, MPI_DOUBLE,
                           hp->recv_from[k], 0, mi->comm,
                           &mi->req[mi->nreq++]));
    }
    for (int64_t k = 0; k < hp->send_start[hp->nsend]; ++k)
        mi->sendbuf[k] = x[hp->send_idx[k]];
    for (int k = 0; k < hp->nsend; ++k) {
        int64_t at = hp->send_start[k], count = hp->send_start[k + 1] - at;
        CMRS_MPI(MPI_Isend(mi->sendbuf + at, (int)count, MPI_DOUBLE,
                           hp->send_to[k], 0, mi->comm,
                           &mi->req[mi->nreq++]));
    }
    return CMRS_OK;
}

static cmrs_code mpi_wait(cmrs_exchange *ex, int p, void *x_p)
{
    (void)p, (void)x_p;
    mpi_impl *mi = MPI_OF(ex);
    CMRS_MPI(MPI_Waitall(mi->nreq, mi->req, MPI_STATUSES_IGNORE));
    mi->nreq = 0;
    return CMRS_OK;
}

static cmrs_code mpi_sum(cmrs_exchange *ex, const double *partial, int count,
                         double *out)
{
    mpi_impl *mi = MPI_OF(ex);
    int n = ex->halo->nparts * count;
    CMRS_ENSURE(count >= 1 && count <= CMRS_ALLREDUCE_MAX, CMRS_E_INTERNAL,
                "mpi exchange: %d sums at once", count);
    CMRS_MPI(MPI_Allreduce(partial, mi->sums, n, MPI_DOUBLE, MPI_SUM,
                           mi->comm));
    return cmrs_exchange_sum_host(ex, mi->sums, count, out);
}

/* h summed over the ranks in place (the gather: rows of other ranks are
 * 0 here and theirs there, so that sum is exact). */
static cmrs_code mpi_sum_vec(cmrs_exchange *ex, double *h, int64_t n)
{
    const int64_t chunk = (int64_t)1 << 28; /* MPI counts are int */
    for (int64_t at = 0; at < n; at += chunk) {
        int64_t m = n - at < chunk ? n - at : chunk;
        CMRS_MPI(MPI_Allreduce(MPI_IN_PLACE, h + at, (int)m, MPI_DOUBLE,
                               MPI_SUM, MPI_OF(ex)->comm));
    }
    return CMRS_OK;
}

static void mpi_destroy(cmrs_exchange *ex)
{
    mpi_impl *mi = ex ? MPI_OF(ex) : NULL;
    if (mi && mi->nreq) /* an exchange left half way: finish it first */
        MPI_Waitall(mi->nreq, mi->req, MPI_STATUSES_IGNORE);
    if (mi) {
        CMRS_FREE_ALL(mi->sendbuf, mi->sums, mi->req);
    }
    free(mi);
    free(ex);
}

/* (Both exchanges match their messages on one communicator in order:
 * their exchanges never interleave.) */
static cmrs_code mpi_relist(const cmrs_exchange *ex, const cmrs_halo *h,
                            cmrs_exchange **out)
{
    const mpi_impl *mi = MPI_OF(ex);
    return cmrs_exchange_mpi_create(h, mi->comm, mi->rank, out);
}

static const cmrs_exchange_ops k_mpi_ops = {
    .name = "mpi", .post = mpi_post, .wait = mpi_wait, .sum = mpi_sum,
    .destroy = mpi_destroy, .gather = mpi_sum_vec, .sum_vec = mpi_sum_vec,
    .relist = mpi_relist};

cmrs_code cmrs_exchange_mpi_create(const cmrs_halo *h, MPI_Comm comm,
                                   int rank, cmrs_exchange **out)
{
    *out = NULL;
    const cmrs_halo_part *hp = &h->part[rank];
    cmrs_exchange *ex = calloc(1, sizeof *ex);
    mpi_impl *mi = calloc(1, sizeof *mi);
    CMRS_CHECK(cmrs_alloc_both(ex, mi, "the MPI exchange"));
    *ex = (cmrs_exchange){.ops = &k_mpi_ops, .halo = h, .impl = mi};
    mi->comm = comm;
    mi->rank = rank;
    mi->sendbuf = cmrs_malloc_array((size_t)hp->send_start[hp->nsend] + 1,
                                    sizeof(double));
    mi->sums = cmrs_malloc_array((size_t)h->nparts * CMRS_ALLREDUCE_MAX,
                                 sizeof(double));
    mi->req = cmrs_malloc_array((size_t)(hp->nsend + hp->nrecv) + 1,
                                sizeof(MPI_Request));
    if (!mi->sendbuf || !mi->sums || !mi->req) {
        mpi_destroy(ex);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the MPI exchange");
    }
    *out = ex;
    return CMRS_OK;
}
#else
typedef int cmrs_no_mpi; /* ISO C: a translation unit declares something */
#endif
