/* The host level builder (amg_builder.h): aggregation, the Galerkin
 * product and the coarsest level's inverse on host CSR copies
 * (amg_host.h). The CPU back end's builder, and the path amg.c takes where
 * another builder answers *done = 0 or leaves an optional op NULL. */
#include "amg.h"

/* The host copy of A aggregated by method m (the builder's level matrix
 * may live on the device only: downloaded first). Forms nothing else. */
static cmrs_code aggregate(cmrs_backend *be, const cmrs_amg_agg_method *m,
                           cmrs_lmat *A, const cmrs_amg_params *p,
                           int32_t *agg, int64_t *naggs, cmrs_lmat *P,
                           cmrs_lmat *R, cmrs_lmat *Ac, void **agg_dev)
{
    (void)P, (void)R, (void)Ac;
    if (agg_dev) *agg_dev = NULL;
    CMRS_CHECK(cmrs_lmat_host(be, A));
    CMRS_CHECK(cmrs_amg_aggregate_by(m, &A->h, p, agg, naggs));
    return CMRS_OK;
}

static cmrs_code galerkin(cmrs_backend *be, const cmrs_csr *R,
                          const cmrs_csr *A, const cmrs_csr *P, cmrs_csr *Ac)
{
    (void)be;
    CMRS_CHECK(cmrs_amg_galerkin_host(R, A, P, Ac));
    return CMRS_OK;
}

static cmrs_code dense_inverse(cmrs_backend *be, const cmrs_csr *A,
                               double *inv, int *spd)
{
    (void)be;
    *spd = cmrs_amg_dense_inverse(A, inv) == 0;
    return CMRS_OK;
}

const cmrs_amg_builder_ops cmrs_amg_builder_cpu = {
    .name = "cpu",
    .aggregate = aggregate,
    .galerkin = galerkin,
    .dense_inverse = dense_inverse,
};
