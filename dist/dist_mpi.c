/* cmrs_backend_dist_mpi_create (dist.h): a part per rank of a
 * communicator (MPI_COMM_WORLD unless the caller names one), CPU parts,
 * the MPI exchange. */
#ifdef CMRS_HAVE_MPI
#include <mpi.h>
#include <stdlib.h>
#endif

#include "dist_impl.h"
#include "halo_rows.h"

#ifdef CMRS_HAVE_MPI
/* The exchange of this rank's part over the communicator `user` holds
 * (an MPI_Comm the back end owns: freed with it). */
static cmrs_code mpi_exchange(void *user, const cmrs_halo *h,
                              cmrs_backend *const *inner,
                              cmrs_exchange **out)
{
    MPI_Comm comm = *(MPI_Comm *)user;
    int rank = 0;
    (void)inner;
    MPI_Comm_rank(comm, &rank);
    return cmrs_exchange_mpi_create(h, comm, rank, out);
}

/* Rows mode's partition and halo over the same communicator. */
static cmrs_code mpi_rows_halo(void *user, const cmrs_csr *A_rows,
                               int64_t row0, cmrs_partition *pt,
                               cmrs_halo *h)
{
    return cmrs_halo_build_rows(A_rows, row0, *(MPI_Comm *)user, pt, h);
}

cmrs_code cmrs_dist_mpi_comm(const int64_t *comm_f, MPI_Comm *comm)
{
    int init = 0;
    MPI_Initialized(&init);
    CMRS_ENSURE(init, CMRS_E_USAGE, "option mpi: MPI is not initialised "
                "(run under mpirun; the caller calls MPI_Init)");
    *comm = comm_f ? MPI_Comm_f2c((MPI_Fint)*comm_f) : MPI_COMM_WORLD;
    CMRS_ENSURE(*comm != MPI_COMM_NULL, CMRS_E_USAGE, "option mpi: the "
                "communicator given (Fortran handle %lld) is MPI_COMM_NULL",
                (long long)(comm_f ? *comm_f : 0));
    return CMRS_OK;
}
#endif

cmrs_code cmrs_backend_dist_mpi_create(const cmrs_csr *A, int nparts,
                                       cmrs_part_method method,
                                       const int64_t *comm_f,
                                       const int64_t *row0,
                                       cmrs_backend **out)
{
    *out = NULL;
#ifndef CMRS_HAVE_MPI
    (void)A, (void)nparts, (void)method, (void)comm_f, (void)row0;
    CMRS_FAIL(CMRS_E_USAGE, "this build has no MPI (mpi.h was not found "
              "when it was configured): one process only (--parts N "
              "simulates the parts)");
#else
    int rank = 0, size = 1;
    MPI_Comm *comm = malloc(sizeof *comm);
    CMRS_ENSURE(comm, CMRS_E_NOMEM, "cannot allocate a communicator");
    cmrs_code rc = cmrs_dist_mpi_comm(comm_f, comm);
    if (rc != CMRS_OK) {
        free(comm);
        return rc;
    }
    MPI_Comm_rank(*comm, &rank);
    MPI_Comm_size(*comm, &size);
    if (nparts != 0 && nparts != size) {
        free(comm);
        CMRS_FAIL(CMRS_E_USAGE, "--parts %d under mpirun -np %d: one part "
                  "per rank", nparts, size);
    }
    cmrs_dist_params dp = {.nparts = size, .method = method, .rank = rank,
                           .nranks = size, .exchange_create = mpi_exchange,
                           .rows_halo = row0 ? mpi_rows_halo : NULL,
                           .row0 = row0 ? *row0 : 0,
                           .user = comm, .user_free = free};
    return cmrs_backend_dist_create(A, &dp, out);
#endif
}
