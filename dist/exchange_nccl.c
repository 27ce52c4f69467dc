/* The NCCL exchange (exchange.h): one communicator rank per part, the
 * halo moved with grouped ncclSend/ncclRecv on the parts' own streams, so
 * that nothing waits on the host: each part's SpMV, queued after the group
 * on the same stream, starts when its ghosts have arrived. Two launch
 * styles, one code: every part's GPU in this process (the host sums
 * here), or a part per MPI rank (the host sums and gathers through an MPI
 * exchange over the same ranks). The communicators come made (nccl_comms.h:
 * ncclCommInitAll, or ncclCommInitRank with rank 0's id over MPI). The
 * loops below visit the parts of this process only (`mine`). */
#ifdef CMRS_HAVE_NCCL
#include <nccl.h>
#include <stdlib.h>

#include "base/gpu/cuda_check.h"
#include "base/memory.h"
#include "spmv/device.h"
#include "exchange.h"
#include "nccl_comms.h"

typedef struct nccl_part {
    int device;           /* -1: another process's part */
    cudaStream_t stream;  /* the inner back end's */
    int32_t *send_idx_d;  /* send_start[nsend] owned local rows */
    void *sendbuf_d;      /* their values, packed */
    void *x_d;            /* the posted vector: receives land in its tail */
} nccl_part;

typedef struct nccl_impl {
    int nparts, posted;
    int rank, nranks;     /* nranks > 1: part `rank` only is here (MPI) */
    int nlocal;           /* parts in this process */
    cmrs_prec prec;       /* the parts' back ends' */
    size_t elem;          /* its bytes */
    ncclDataType_t type;
    ncclComm_t *comm;     /* nparts, rank p = part p (this process's) */
    int borrowed;         /* comm is another exchange's (relist) */
    nccl_part *part;
    cmrs_exchange *host;  /* MPI: the host sums and gathers; else NULL */
} nccl_impl;

#define NCCL_OF(ex) ((nccl_impl *)(ex)->impl)

static int mine(const nccl_impl *ni, int p)
{
    return cmrs_part_is_local(p, ni->rank, ni->nranks);
}

/* Part p's sends and receives, queued in the open group. */
static ncclResult_t queue_part(const cmrs_exchange *ex, int p)
{
    const nccl_impl *ni = NCCL_OF(ex);
    const cmrs_halo_part *hp = &ex->halo->part[p];
    const nccl_part *np = &ni->part[p];
    ncclResult_t r = ncclSuccess;
    for (int k = 0; k < hp->nsend && r == ncclSuccess; ++k) {
        int64_t at = hp->send_start[k];
        size_t count = (size_t)(hp->send_start[k + 1] - at);
        if (count)
            r = ncclSend((char *)np->sendbuf_d + at * ni->elem, count,
                         ni->type, hp->send_to[k], ni->comm[p], np->stream);
    }
    for (int k = 0; k < hp->nrecv && r == ncclSuccess; ++k) {
        int64_t at = hp->n_own + hp->recv_start[k];
        size_t count = (size_t)(hp->recv_start[k + 1] - hp->recv_start[k]);
        if (count)
            r = ncclRecv((char *)np->x_d + at * ni->elem, count, ni->type,
                         hp->recv_from[k], ni->comm[p], np->stream);
    }
    return r;
}

/* Part p's in-place sum of its buf_d[first .. first + count), queued. */
static ncclResult_t queue_sum(const nccl_impl *ni, int p, double *buf_d,
                              int first, int count)
{
    return ncclAllReduce(buf_d + first, buf_d + first, (size_t)count,
                         ncclFloat64, ncclSum, ni->comm[p],
                         ni->part[p].stream);
}

/* Part p's sends and receives (halo) and its sum (buf_d: p's own, or
 * NULL), queued in the open group. */
static ncclResult_t queue_both(const cmrs_exchange *ex, int p, int halo,
                               double *buf_d, int first, int count)
{
    ncclResult_t r = halo ? queue_part(ex, p) : ncclSuccess;
    if (buf_d && r == ncclSuccess)
        r = queue_sum(NCCL_OF(ex), p, buf_d, first, count);
    return r;
}

/* The open group closed (also after a failure r of queueing `what`). */
static cmrs_code close_group(ncclResult_t r, const char *what)
{
    ncclResult_t end = ncclGroupEnd();
    if (r != ncclSuccess)
        return cmrs_nccl_error(r, what, __FILE__, __LINE__);
    CMRS_NCCL(end);
    return CMRS_OK;
}

/* What a group of halo sends and receives, or of sums only, queues. */
static const char *group_calls(int halo)
{
    return halo ? "ncclSend/ncclRecv" : "ncclAllReduce";
}

/* Every local part's sends and receives (halo), its sum (buf_d[p]), or
 * both, in one group (NCCL pairs the sends and receives; one process
 * driving several ranks must group their calls). Ring or tree, each
 * element of a sum is reduced once and broadcast, so every part holds
 * the same bits. */
static cmrs_code issue_group(cmrs_exchange *ex, int halo,
                             double *const *buf_d, int first, int count)
{
    const nccl_impl *ni = NCCL_OF(ex);
    ncclResult_t r = ncclSuccess;
    CMRS_NCCL(ncclGroupStart());
    for (int p = 0; p < ni->nparts && r == ncclSuccess; ++p)
        if (mine(ni, p))
            r = queue_both(ex, p, halo, buf_d ? buf_d[p] : NULL, first,
                           count);
    return close_group(r, group_calls(halo));
}

/* Part p's send rows of x_p packed on its stream; the receives will land
 * in x_p's ghost tail (scratch until then). */
static cmrs_code pack_part(cmrs_exchange *ex, int p, const void *x_p)
{
    nccl_impl *ni = NCCL_OF(ex);
    const cmrs_halo_part *hp = &ex->halo->part[p];
    nccl_part *np = &ni->part[p];
    CMRS_ENSURE(mine(ni, p) && x_p, CMRS_E_INTERNAL, "nccl exchange: part "
                "%d is not in this process, or has no vector", p);
    CMRS_CUDA(cudaSetDevice(np->device));
    CMRS_CHECK(cmrs_dev_gather_values(x_p, np->send_idx_d,
                                      hp->send_start[hp->nsend], ni->prec,
                                      np->sendbuf_d, NULL, np->stream));
    np->x_d = (void *)(uintptr_t)x_p;
    return CMRS_OK;
}

static cmrs_code nccl_post(cmrs_exchange *ex, int p, const void *x_p)
{
    nccl_impl *ni = NCCL_OF(ex);
    CMRS_CHECK(pack_part(ex, p, x_p));
    if (++ni->posted < ni->nlocal) return CMRS_OK;
    ni->posted = 0;
    return issue_group(ex, 1, NULL, 0, 0);
}

/* Stream order does the waiting. */
static cmrs_code nccl_wait(cmrs_exchange *ex, int p, void *x_p)
{
    (void)ex, (void)p, (void)x_p;
    return CMRS_OK;
}

static cmrs_code nccl_allreduce_d(cmrs_exchange *ex, double *const *buf_d,
                                  int first, int count)
{
    return issue_group(ex, 0, buf_d, first, count);
}

/* The halo of every local part's x[p] and the sum in one group. */
static cmrs_code nccl_post_allreduce_d(cmrs_exchange *ex, void *const *x,
                                       double *const *buf_d, int first,
                                       int count)
{
    nccl_impl *ni = NCCL_OF(ex);
    CMRS_ENSURE(ni->posted == 0, CMRS_E_INTERNAL, "nccl exchange: a halo "
                "and sum while %d parts have posted", ni->posted);
    for (int p = 0; p < ni->nparts; ++p)
        if (mine(ni, p)) CMRS_CHECK(pack_part(ex, p, x[p]));
    return issue_group(ex, 1, buf_d, first, count);
}

/* Part p's halo and sum in a group of its own (its thread's: NCCL's group
 * state is per thread). */
static cmrs_code nccl_part_group_d(cmrs_exchange *ex, int p, const void *x_p,
                                   double *buf_d, int first, int count)
{
    if (x_p) CMRS_CHECK(pack_part(ex, p, x_p));
    CMRS_NCCL(ncclGroupStart());
    return close_group(queue_both(ex, p, x_p != NULL, buf_d, first, count),
                       group_calls(x_p != NULL));
}

/* Every local part's calls of the slices' collective (for each root q:
 * ncclReduce or ncclBroadcast of slice q, in place) in one group. */
static cmrs_code nccl_slices(cmrs_exchange *ex, double *const *buf_d,
                             const int64_t *start, int reduce)
{
    const nccl_impl *ni = NCCL_OF(ex);
    ncclResult_t r = ncclSuccess;
    CMRS_ENSURE(ni->type == ncclFloat64, CMRS_E_INTERNAL, "nccl slices: "
                "double arrays on parts of another precision");
    CMRS_NCCL(ncclGroupStart());
    for (int p = 0; p < ni->nparts && r == ncclSuccess; ++p) {
        if (!mine(ni, p)) continue;
        for (int q = 0; q < ni->nparts && r == ncclSuccess; ++q) {
            double *at = buf_d[p] + start[q];
            size_t count = (size_t)(start[q + 1] - start[q]);
            if (count == 0) continue; /* the same on every part */
            r = reduce ? ncclReduce(at, at, count, ncclFloat64, ncclSum, q,
                                    ni->comm[p], ni->part[p].stream)
                       : ncclBroadcast(at, at, count, ncclFloat64, q,
                                       ni->comm[p], ni->part[p].stream);
        }
    }
    return close_group(r, reduce ? "ncclReduce" : "ncclBroadcast");
}

static cmrs_code nccl_reduce_slices_d(cmrs_exchange *ex, double *const *buf_d,
                                      const int64_t *start)
{
    return nccl_slices(ex, buf_d, start, 1);
}

static cmrs_code nccl_allgather_slices_d(cmrs_exchange *ex,
                                         double *const *buf_d,
                                         const int64_t *start)
{
    return nccl_slices(ex, buf_d, start, 0);
}

static void nccl_destroy(cmrs_exchange *ex)
{
    nccl_impl *ni = NCCL_OF(ex);
    for (int p = 0; ni && ni->part && p < ni->nparts; ++p) {
        nccl_part *np = &ni->part[p];
        if (np->device < 0 || cudaSetDevice(np->device) != cudaSuccess)
            continue;
        if (np->stream) (void)cudaStreamSynchronize(np->stream);
        cudaFree(np->send_idx_d);
        cudaFree(np->sendbuf_d);
    }
    if (ni) {
        if (!ni->borrowed) cmrs_nccl_comms_destroy(ni->comm, ni->nparts);
        cmrs_exchange_destroy(ni->host);
        free(ni->part);
    }
    free(ni);
    free(ex);
}

static cmrs_code nccl_relist(const cmrs_exchange *ex, const cmrs_halo *h,
                             cmrs_exchange **out);

static const cmrs_exchange_ops k_nccl_ops = {
    .name = "nccl", .post = nccl_post, .wait = nccl_wait,
    .sum = cmrs_exchange_sum_host, .destroy = nccl_destroy,
    .allreduce_d = nccl_allreduce_d, .relist = nccl_relist,
    .post_allreduce_d = nccl_post_allreduce_d,
    .part_group_d = nccl_part_group_d,
    .reduce_slices_d = nccl_reduce_slices_d,
    .allgather_slices_d = nccl_allgather_slices_d};

#ifdef CMRS_HAVE_MPI
/* A part per rank: the host sums and the gather of the other ranks' rows
 * by the MPI exchange over the same ranks (exchange_mpi.c). */
static cmrs_code nccl_host_sum(cmrs_exchange *ex, const double *partial,
                               int count, double *out)
{
    cmrs_exchange *host = NCCL_OF(ex)->host;
    return host->ops->sum(host, partial, count, out);
}

static cmrs_code nccl_host_gather(cmrs_exchange *ex, double *h, int64_t n)
{
    cmrs_exchange *host = NCCL_OF(ex)->host;
    return host->ops->gather(host, h, n);
}

static const cmrs_exchange_ops k_nccl_mpi_ops = {
    .name = "nccl", .post = nccl_post, .wait = nccl_wait,
    .sum = nccl_host_sum, .destroy = nccl_destroy,
    .gather = nccl_host_gather, .allreduce_d = nccl_allreduce_d,
    .post_allreduce_d = nccl_post_allreduce_d, .relist = nccl_relist,
    .reduce_slices_d = nccl_reduce_slices_d,
    .allgather_slices_d = nccl_allgather_slices_d};
#endif

/* Part p's send list (as int32: a GPU part has at most INT_MAX rows) and
 * send buffer on its device. */
static cmrs_code make_part(const cmrs_halo_part *hp, size_t elem,
                           nccl_part *np)
{
    int64_t n = hp->send_start[hp->nsend];
    CMRS_CUDA(cudaSetDevice(np->device));
    if (n == 0) return CMRS_OK;
    int32_t *idx = malloc((size_t)n * sizeof *idx);
    CMRS_ENSURE(idx, CMRS_E_NOMEM, "cannot allocate a send list");
    for (int64_t k = 0; k < n; ++k) idx[k] = (int32_t)hp->send_idx[k];
    cmrs_code rc = CMRS_OK;
    CMRS_CUDA_TRY(cudaMalloc((void **)&np->send_idx_d, (size_t)n * 4));
    CMRS_CUDA_TRY(cudaMalloc(&np->sendbuf_d, (size_t)n * elem));
    CMRS_CUDA_TRY(cudaMemcpy(np->send_idx_d, idx, (size_t)n * 4,
                             cudaMemcpyHostToDevice));
done:
    free(idx);
    return rc;
}

/* The parts of this process with their devices and streams (from[p]'s,
 * set for them), their send lists and buffers (the communicators come
 * made). */
static cmrs_code place_parts(cmrs_exchange *ex, const nccl_part *from)
{
    nccl_impl *ni = NCCL_OF(ex);
    int P = ni->nparts;
    ni->part = calloc((size_t)P, sizeof *ni->part);
    CMRS_ENSURE(ni->part, CMRS_E_NOMEM, "cannot allocate the NCCL exchange "
                "of %d parts", P);
    for (int p = 0; p < P; ++p) ni->part[p].device = -1;
    for (int p = 0; p < P; ++p) {
        if (!mine(ni, p)) continue;
        ni->nlocal++;
        ni->part[p].device = from[p].device;
        ni->part[p].stream = from[p].stream;
        CMRS_CHECK(make_part(&ex->halo->part[p], ni->elem, &ni->part[p]));
    }
    return CMRS_OK;
}

/* place_parts on devices[p] and the streams of the parts' inner GPU back
 * ends. */
static cmrs_code build_parts(cmrs_exchange *ex, const int *devices,
                             cmrs_backend *const *inner)
{
    nccl_impl *ni = NCCL_OF(ex);
    nccl_part *from = calloc((size_t)ni->nparts, sizeof *from);
    CMRS_ENSURE(from, CMRS_E_NOMEM, "cannot allocate %d parts", ni->nparts);
    cmrs_code rc = CMRS_OK;
    for (int p = 0; p < ni->nparts && rc == CMRS_OK; ++p) {
        if (!mine(ni, p)) continue;
        from[p].device = devices[p];
        from[p].stream = cmrs_backend_gpu_stream(inner[p]);
        if (!from[p].stream)
            rc = cmrs_error_set(CMRS_E_INTERNAL, __FILE__, __LINE__, "nccl "
                                "exchange: part %d is not on the GPU back "
                                "end", p);
    }
    if (rc == CMRS_OK) rc = place_parts(ex, from);
    free(from);
    return rc;
}

/* The exchange's shell for the parts' precision (inner[p] of a local p),
 * owning comm from here (also when it fails) unless borrowed. */
static cmrs_code shell(const cmrs_halo *h, cmrs_prec prec, int rank,
                       int nranks, const cmrs_exchange_ops *ops,
                       ncclComm_t *comm, int borrowed, cmrs_exchange **out)
{
    cmrs_exchange *ex = calloc(1, sizeof *ex);
    nccl_impl *ni = calloc(1, sizeof *ni);
    if ((!ex || !ni) && !borrowed) cmrs_nccl_comms_destroy(comm, h->nparts);
    CMRS_CHECK(cmrs_alloc_both(ex, ni, "the NCCL exchange"));
    *ni = (nccl_impl){.nparts = h->nparts, .rank = rank, .nranks = nranks,
                      .prec = prec, .elem = cmrs_prec_value_bytes(prec),
                      .type = prec == CMRS_PREC_SINGLE ? ncclFloat32
                                                       : ncclFloat64,
                      .comm = comm, .borrowed = borrowed};
    *ex = (cmrs_exchange){.ops = ops, .halo = h, .impl = ni};
    *out = ex;
    return CMRS_OK;
}

/* out = ex where rc is CMRS_OK, else ex destroyed. */
static cmrs_code finish(cmrs_exchange *ex, cmrs_code rc, cmrs_exchange **out)
{
    if (rc != CMRS_OK) {
        nccl_destroy(ex);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    *out = ex;
    return CMRS_OK;
}

/* Over lists h: the same parts' devices, streams and communicators
 * (borrowed), new send lists; under MPI the host exchange relisted too. */
static cmrs_code nccl_relist(const cmrs_exchange *ex, const cmrs_halo *h,
                             cmrs_exchange **out)
{
    const nccl_impl *ni = NCCL_OF(ex);
    cmrs_exchange *nx = NULL;
    *out = NULL;
    CMRS_ENSURE(h->nparts == ni->nparts, CMRS_E_INTERNAL, "nccl relist: %d "
                "parts for %d", h->nparts, ni->nparts);
    CMRS_CHECK(shell(h, ni->prec, ni->rank, ni->nranks, ex->ops, ni->comm, 1,
                     &nx));
    cmrs_code rc = place_parts(nx, ni->part);
    if (rc == CMRS_OK && ni->host)
        rc = ni->host->ops->relist(ni->host, h, &NCCL_OF(nx)->host);
    return finish(nx, rc, out);
}

cmrs_code cmrs_exchange_nccl_create(const cmrs_halo *h, const int *devices,
                                    cmrs_backend *const *inner,
                                    ncclComm_t *comm, cmrs_exchange **out)
{
    cmrs_exchange *ex = NULL;
    *out = NULL;
    CMRS_CHECK(shell(h, inner[0]->prec, 0, 0, &k_nccl_ops, comm, 0, &ex));
    return finish(ex, build_parts(ex, devices, inner), out);
}

#ifdef CMRS_HAVE_MPI
static cmrs_code parts_and_host(cmrs_exchange *ex, int device,
                                cmrs_backend *const *inner, MPI_Comm comm)
{
    nccl_impl *ni = NCCL_OF(ex);
    int *devices = calloc((size_t)ni->nparts, sizeof *devices);
    CMRS_ENSURE(devices, CMRS_E_NOMEM, "cannot allocate %d devices",
                ni->nparts);
    devices[ni->rank] = device;
    cmrs_code rc = build_parts(ex, devices, inner);
    free(devices);
    CMRS_CHECK(rc);
    CMRS_CHECK(cmrs_exchange_mpi_create(ex->halo, comm, ni->rank,
                                        &ni->host));
    return CMRS_OK;
}

cmrs_code cmrs_exchange_nccl_mpi_create(const cmrs_halo *h, int device,
                                        cmrs_backend *const *inner,
                                        MPI_Comm comm, int rank,
                                        ncclComm_t *nccl, cmrs_exchange **out)
{
    cmrs_exchange *ex = NULL;
    *out = NULL;
    CMRS_CHECK(shell(h, inner[rank]->prec, rank, h->nparts, &k_nccl_mpi_ops,
                     nccl, 0, &ex));
    return finish(ex, parts_and_host(ex, device, inner, comm), out);
}
#endif
#else
typedef int cmrs_no_nccl; /* ISO C: a translation unit declares something */
#endif
