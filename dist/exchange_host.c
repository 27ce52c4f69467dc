/* The host exchange (exchange.h): every part in this process, in host
 * memory. What NCCL or MPI would move between GPUs or ranks is copied
 * through a send buffer per part, so post and wait keep the same split as
 * a real network exchange (a part reads only what was posted to it). */
#include <stdlib.h>

#include "base/memory.h"
#include "exchange.h"

typedef struct host_impl {
    double **sendbuf; /* per part: its packed values for all receivers */
    /* per part p, per receive k: where p's block starts in the sender's
     * buffer (the lists are fixed: found once, not per SpMV) */
    const double ***recv_src;
} host_impl;

static cmrs_code host_post(cmrs_exchange *ex, int p, const void *x_p)
{
    const cmrs_halo_part *hp = &ex->halo->part[p];
    const double *x = x_p;
    double *buf = ((host_impl *)ex->impl)->sendbuf[p];
    for (int64_t k = 0; k < hp->send_start[hp->nsend]; ++k)
        buf[k] = x[hp->send_idx[k]];
    return CMRS_OK;
}

/* The position of receiver p's block in sender q's buffer. */
static int64_t send_offset(const cmrs_halo_part *hq, int p)
{
    for (int k = 0; k < hq->nsend; ++k)
        if (hq->send_to[k] == p) return hq->send_start[k];
    return -1;
}

static cmrs_code host_wait(cmrs_exchange *ex, int p, void *x_p)
{
    const cmrs_halo_part *hp = &ex->halo->part[p];
    double *ghost = (double *)x_p + hp->n_own;
    for (int k = 0; k < hp->nrecv; ++k) {
        const double *src = ((host_impl *)ex->impl)->recv_src[p][k];
        for (int64_t g = hp->recv_start[k]; g < hp->recv_start[k + 1]; ++g)
            ghost[g] = *src++;
    }
    return CMRS_OK;
}

cmrs_code cmrs_exchange_sum_host(cmrs_exchange *ex, const double *partial,
                                 int count, double *out)
{
    for (int c = 0; c < count; ++c) {
        double s = 0;
        for (int p = 0; p < ex->halo->nparts; ++p) s += partial[p * count + c];
        out[c] = s;
    }
    return CMRS_OK;
}

static void host_destroy(cmrs_exchange *ex)
{
    host_impl *h = ex->impl;
    for (int p = 0; h && p < ex->halo->nparts; ++p) {
        if (h->sendbuf) free(h->sendbuf[p]);
        if (h->recv_src) free(h->recv_src[p]);
    }
    if (h) {
        free(h->sendbuf);
        free(h->recv_src);
    }
    free(h);
    free(ex);
}

/* recv_src of every part, from the senders' lists and buffers. */
static cmrs_code find_sources(const cmrs_halo *h, host_impl *hi)
{
    for (int p = 0; p < h->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        hi->recv_src[p] = cmrs_malloc_array((size_t)hp->nrecv + 1,
                                            sizeof(const double *));
        CMRS_ENSURE(hi->recv_src[p], CMRS_E_NOMEM,
                    "cannot allocate the halo receive lists");
        for (int k = 0; k < hp->nrecv; ++k) {
            int q = hp->recv_from[k];
            int64_t at = send_offset(&h->part[q], p);
            CMRS_ENSURE(at >= 0, CMRS_E_INTERNAL, "halo: part %d receives "
                        "from part %d, which has no send list for it", p, q);
            hi->recv_src[p][k] = hi->sendbuf[q] + at;
        }
    }
    return CMRS_OK;
}

static cmrs_code host_relist(const cmrs_exchange *ex, const cmrs_halo *h,
                             cmrs_exchange **out)
{
    (void)ex;
    return cmrs_exchange_host_create(h, out);
}

static const cmrs_exchange_ops k_host_ops = {
    .name = "host", .post = host_post, .wait = host_wait,
    .sum = cmrs_exchange_sum_host, .destroy = host_destroy,
    .relist = host_relist};

cmrs_code cmrs_exchange_host_create(const cmrs_halo *h, cmrs_exchange **out)
{
    cmrs_exchange *ex = calloc(1, sizeof *ex);
    host_impl *hi = calloc(1, sizeof *hi);
    *out = NULL;
    CMRS_CHECK(cmrs_alloc_both(ex, hi, "the halo exchange"));
    *ex = (cmrs_exchange){.ops = &k_host_ops, .halo = h, .impl = hi};
    int ok = (hi->sendbuf = calloc((size_t)h->nparts, sizeof(double *))) != 0;
    for (int p = 0; ok && p < h->nparts; ++p) {
        const cmrs_halo_part *hp = &h->part[p];
        hi->sendbuf[p] = cmrs_malloc_array((size_t)hp->send_start[hp->nsend],
                                           sizeof(double));
        ok = hi->sendbuf[p] != NULL;
    }
    if (!ok) {
        host_destroy(ex);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the halo send buffers");
    }
    hi->recv_src = calloc((size_t)h->nparts, sizeof *hi->recv_src);
    cmrs_code rc = hi->recv_src ? find_sources(h, hi)
                                : cmrs_error_set(CMRS_E_NOMEM, __FILE__,
                                                 __LINE__, "cannot allocate "
                                                 "the halo receive lists");
    if (rc != CMRS_OK) {
        host_destroy(ex);
        return rc;
    }
    *out = ex;
    return CMRS_OK;
}

void cmrs_exchange_destroy(cmrs_exchange *ex)
{
    if (ex) ex->ops->destroy(ex);
}
