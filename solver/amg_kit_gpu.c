/* The GPU back end's AMG setup ops (backend.h's optional dense_inverse,
 * aggregate and sa_level): thin adapters from the kit to amg_dense_gpu.c,
 * amg_handshake_gpu.cu, amg_mis2_gpu.cu and amg_sa_gpu.c on the back end's
 * stream. */
#include "amg_dense_gpu.h"
#include "amg_handshake_gpu.h"
#include "amg_mis2_gpu.h"
#include "amg_sa_gpu.h"
#include "backend_gpu.h"

#include <string.h>

cmrs_code cmrs_gpu_kit_dense_inverse(cmrs_backend *be, const cmrs_csr *A,
                                     double *inv, int *spd)
{
    CMRS_CHECK(cmrs_gpu_dense_inverse(GPU(be)->stream, A, inv, spd));
    return CMRS_OK;
}

/* Handshake and MIS-2 aggregation run on the device; handshake with the
 * tentative P forms Q^T A Q there too, MIS-2 with the smoothed P forms P,
 * R and A_c from the same upload (cmrs_gpu_sa_coarsen). The sequential
 * methods (pairwise, greedy) have no parallel form and stay on the host. */
cmrs_code cmrs_gpu_kit_aggregate(cmrs_backend *be, const cmrs_csr *A,
                                 const cmrs_amg_params *p, int32_t *agg,
                                 int64_t *naggs, cmrs_csr *P, cmrs_csr *R,
                                 cmrs_csr *Ac)
{
    cudaStream_t st = GPU(be)->stream;
    int done = 0;
    if (P) memset(P, 0, sizeof *P);
    if (R) memset(R, 0, sizeof *R);
    if (Ac) memset(Ac, 0, sizeof *Ac);
    if (p->agg == CMRS_AMG_AGG_HANDSHAKE)
        CMRS_CHECK(cmrs_gpu_handshake(st, A, p, agg, naggs,
                                      p->smooth_p ? NULL : Ac));
    else if (p->agg == CMRS_AMG_AGG_MIS2 && p->smooth_p && P && R && Ac)
        CMRS_CHECK(cmrs_gpu_sa_coarsen(st, A, p->theta, p->p_omega, agg,
                                       naggs, P, R, Ac, &done));
    else if (p->agg == CMRS_AMG_AGG_MIS2)
        CMRS_CHECK(cmrs_gpu_mis2(st, A, p, agg, naggs));
    else
        CMRS_CHECK(cmrs_amg_aggregate(A, p, agg, naggs));
    return CMRS_OK;
}

/* Smoothed aggregation's P, R and A_c formed on the device. */
cmrs_code cmrs_gpu_kit_sa_level(cmrs_backend *be, const cmrs_csr *A,
                                const int32_t *agg, int64_t naggs,
                                const cmrs_amg_params *p, cmrs_csr *P,
                                cmrs_csr *R, cmrs_csr *Ac, int *done)
{
    CMRS_CHECK(cmrs_gpu_sa_level(GPU(be)->stream, A, agg, naggs, p->p_omega,
                                 P, R, Ac, done));
    return CMRS_OK;
}
