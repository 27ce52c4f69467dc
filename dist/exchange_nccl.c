/* The NCCL exchange (exchange.h): parts on GPUs of this process, one
 * communicator rank per part (ncclCommInitAll), the halo moved with
 * grouped ncclSend/ncclRecv on the parts' own streams, so that nothing
 * waits on the host: each part's SpMV, queued after the group on the same
 * stream, starts when its ghosts have arrived. */
#ifdef CMRS_HAVE_NCCL
#include <nccl.h>
#include <stdlib.h>

#include "base/gpu/cuda_check.h"
#include "base/memory.h"
#include "spmv/device.h"
#include "exchange.h"

typedef struct nccl_part {
    int device;
    cudaStream_t stream;  /* the inner back end's */
    int32_t *send_idx_d;  /* send_start[nsend] owned local rows */
    void *sendbuf_d;      /* their values, packed */
    void *x_d;            /* the posted vector: receives land in its tail */
} nccl_part;

typedef struct nccl_impl {
    int nparts, posted;
    cmrs_prec prec;       /* the parts' back ends' */
    size_t elem;          /* its bytes */
    ncclDataType_t type;
    ncclComm_t *comm;     /* nparts, rank p = part p */
    nccl_part *part;
} nccl_impl;

#define NCCL_OF(ex) ((nccl_impl *)(ex)->impl)

static cmrs_code nccl_error(ncclResult_t r, const char *what,
                            const char *file, int line)
{
    return cmrs_error_set(CMRS_E_GPU, file, line, "%s: NCCL error %d (%s)",
                          what, (int)r, ncclGetErrorString(r));
}

#define CMRS_NCCL(expr)                                                     \
    do {                                                                    \
        ncclResult_t r_ = (expr);                                           \
        if (r_ != ncclSuccess)                                              \
            return nccl_error(r_, #expr, __FILE__, __LINE__);               \
    } while (0)

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

/* Every part's sends and receives, in one group (NCCL pairs them); the
 * group is closed on a failure too. */
static cmrs_code issue_group(cmrs_exchange *ex)
{
    ncclResult_t r = ncclSuccess;
    CMRS_NCCL(ncclGroupStart());
    for (int p = 0; p < NCCL_OF(ex)->nparts && r == ncclSuccess; ++p)
        r = queue_part(ex, p);
    ncclResult_t end = ncclGroupEnd();
    if (r != ncclSuccess)
        return nccl_error(r, "ncclSend/ncclRecv", __FILE__, __LINE__);
    CMRS_NCCL(end);
    return CMRS_OK;
}

static cmrs_code nccl_post(cmrs_exchange *ex, int p, const void *x_p)
{
    nccl_impl *ni = NCCL_OF(ex);
    const cmrs_halo_part *hp = &ex->halo->part[p];
    nccl_part *np = &ni->part[p];
    CMRS_ENSURE(p == ni->posted, CMRS_E_INTERNAL, "nccl exchange: part %d "
                "posted out of order (expected %d)", p, ni->posted);
    CMRS_CUDA(cudaSetDevice(np->device));
    CMRS_CHECK(cmrs_dev_gather_values(x_p, np->send_idx_d,
                                      hp->send_start[hp->nsend], ni->prec,
                                      np->sendbuf_d, NULL, np->stream));
    np->x_d = (void *)(uintptr_t)x_p; /* its ghost tail is scratch */
    if (++ni->posted < ni->nparts) return CMRS_OK;
    ni->posted = 0;
    return issue_group(ex);
}

/* Stream order does the waiting. */
static cmrs_code nccl_wait(cmrs_exchange *ex, int p, void *x_p)
{
    (void)ex, (void)p, (void)x_p;
    return CMRS_OK;
}

/* Every part's in-place sum in one group (one process drives every
 * rank: NCCL needs their calls grouped). Ring or tree, each element is
 * reduced once and broadcast, so every part holds the same bits. */
static cmrs_code nccl_allreduce_d(cmrs_exchange *ex, double *const *buf_d,
                                  int count)
{
    const nccl_impl *ni = NCCL_OF(ex);
    ncclResult_t r = ncclSuccess;
    CMRS_NCCL(ncclGroupStart());
    for (int p = 0; p < ni->nparts && r == ncclSuccess; ++p)
        r = ncclAllReduce(buf_d[p], buf_d[p], (size_t)count, ncclFloat64,
                          ncclSum, ni->comm[p], ni->part[p].stream);
    ncclResult_t end = ncclGroupEnd();
    if (r != ncclSuccess)
        return nccl_error(r, "ncclAllReduce", __FILE__, __LINE__);
    CMRS_NCCL(end);
    return CMRS_OK;
}

static void nccl_destroy(cmrs_exchange *ex)
{
    nccl_impl *ni = NCCL_OF(ex);
    for (int p = 0; ni && ni->part && p < ni->nparts; ++p) {
        nccl_part *np = &ni->part[p];
        if (cudaSetDevice(np->device) != cudaSuccess) continue;
        if (np->stream) (void)cudaStreamSynchronize(np->stream);
        cudaFree(np->send_idx_d);
        cudaFree(np->sendbuf_d);
    }
    for (int p = 0; ni && ni->comm && p < ni->nparts; ++p)
        if (ni->comm[p]) (void)ncclCommDestroy(ni->comm[p]);
    if (ni) {
        free(ni->comm);
        free(ni->part);
    }
    free(ni);
    free(ex);
}

static const cmrs_exchange_ops k_nccl_ops = {
    .name = "nccl", .post = nccl_post, .wait = nccl_wait,
    .sum = cmrs_exchange_sum_host, .destroy = nccl_destroy,
    .allreduce_d = nccl_allreduce_d};

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

static cmrs_code build(cmrs_exchange *ex, const int *devices,
                       cmrs_backend *const *inner)
{
    nccl_impl *ni = NCCL_OF(ex);
    int P = ni->nparts;
    ni->part = calloc((size_t)P, sizeof *ni->part);
    ni->comm = calloc((size_t)P, sizeof *ni->comm);
    CMRS_ENSURE(ni->part && ni->comm, CMRS_E_NOMEM, "cannot allocate the "
                "NCCL exchange of %d parts", P);
    for (int p = 0; p < P; ++p) {
        ni->part[p].device = devices[p];
        ni->part[p].stream = cmrs_backend_gpu_stream(inner[p]);
        CMRS_ENSURE(ni->part[p].stream, CMRS_E_INTERNAL, "nccl exchange: "
                    "part %d is not on the GPU back end", p);
        CMRS_CHECK(make_part(&ex->halo->part[p], ni->elem, &ni->part[p]));
    }
    CMRS_NCCL(ncclCommInitAll(ni->comm, P, devices));
    return CMRS_OK;
}

cmrs_code cmrs_exchange_nccl_create(const cmrs_halo *h, const int *devices,
                                    cmrs_backend *const *inner,
                                    cmrs_exchange **out)
{
    *out = NULL;
    cmrs_prec prec = inner[0]->prec;
    cmrs_exchange *ex = calloc(1, sizeof *ex);
    nccl_impl *ni = calloc(1, sizeof *ni);
    CMRS_CHECK(cmrs_alloc_both(ex, ni, "the NCCL exchange"));
    *ni = (nccl_impl){.nparts = h->nparts, .prec = prec,
                      .elem = cmrs_prec_value_bytes(prec),
                      .type = prec == CMRS_PREC_SINGLE ? ncclFloat32
                                                       : ncclFloat64};
    *ex = (cmrs_exchange){.ops = &k_nccl_ops, .halo = h, .impl = ni};
    cmrs_code rc = build(ex, devices, inner);
    if (rc != CMRS_OK) {
        nccl_destroy(ex);
        return rc;
    }
    *out = ex;
    return CMRS_OK;
}
#else
typedef int cmrs_no_nccl; /* ISO C: a translation unit declares something */
#endif
