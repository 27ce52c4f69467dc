/* cmrs_backend_dist_mpi_create (dist.h): a part per rank of
 * MPI_COMM_WORLD, CPU parts, the MPI exchange. */
#ifdef CMRS_HAVE_MPI
#include <mpi.h>
#endif

#include "dist.h"

#ifdef CMRS_HAVE_MPI
/* This rank's part: its rank of MPI_COMM_WORLD (MPI keeps it). */
static cmrs_code mpi_exchange(void *user, const cmrs_halo *h,
                              cmrs_backend *const *inner,
                              cmrs_exchange **out)
{
    int rank = 0;
    (void)user, (void)inner;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return cmrs_exchange_mpi_create(h, rank, out);
}
#endif

cmrs_code cmrs_backend_dist_mpi_create(const cmrs_csr *A, int nparts,
                                       cmrs_part_method method,
                                       cmrs_backend **out)
{
    *out = NULL;
#ifndef CMRS_HAVE_MPI
    (void)A, (void)nparts, (void)method;
    CMRS_FAIL(CMRS_E_USAGE, "this build has no MPI (mpi.h was not found "
              "when it was configured): one process only (--parts N "
              "simulates the parts)");
#else
    int init = 0, rank = 0, size = 1;
    MPI_Initialized(&init);
    CMRS_ENSURE(init, CMRS_E_USAGE, "option mpi: MPI is not initialised "
                "(run under mpirun; the caller calls MPI_Init)");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CMRS_ENSURE(nparts == 0 || nparts == size, CMRS_E_USAGE, "--parts %d "
                "under mpirun -np %d: one part per rank", nparts, size);
    cmrs_dist_params dp = {.nparts = size, .method = method, .rank = rank,
                           .nranks = size, .exchange_create = mpi_exchange};
    return cmrs_backend_dist_create(A, &dp, out);
#endif
}
