/* The level matrices of the AMG hierarchy (amg_builder.h): a host copy, a
 * copy the back end's builder keeps (dev), or both. */
#include <string.h>

#include "amg_builder.h"

int cmrs_lmat_has(const cmrs_lmat *M)
{
    return M->h.indptr != NULL || M->dev != NULL;
}

void cmrs_lmat_wrap(cmrs_lmat *M, cmrs_csr *h)
{
    M->rows = h->rows;
    M->cols = h->cols;
    M->nnz = h->nnz;
    M->h = *h;
    M->dev = NULL;
    memset(h, 0, sizeof *h);
}

cmrs_code cmrs_lmat_host(cmrs_backend *be, cmrs_lmat *M)
{
    const cmrs_amg_builder_ops *b = be->ops->amg_builder;
    if (M->h.indptr) return CMRS_OK;
    CMRS_ENSURE(M->dev && b && b->lmat_download, CMRS_E_INTERNAL,
                "a level matrix (%lld x %lld) has neither copy",
                (long long)M->rows, (long long)M->cols);
    CMRS_CHECK(b->lmat_download(be, M));
    return CMRS_OK;
}

void cmrs_lmat_free(cmrs_backend *be, cmrs_lmat *M)
{
    const cmrs_amg_builder_ops *b = be->ops->amg_builder;
    if (M->dev && b && b->lmat_free_dev) b->lmat_free_dev(be, M->dev);
    cmrs_csr_free(&M->h);
    memset(M, 0, sizeof *M);
}
