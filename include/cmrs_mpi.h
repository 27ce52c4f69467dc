/* The cmrs library with an MPI communicator (include/cmrs.h,
 * cmrs_solver_set_mpi_comm): for C callers that include <mpi.h>. The
 * library takes the communicator's Fortran handle, which every MPI
 * implementation defines as an integer, so that cmrs.h needs no MPI header
 * and one libcmrs serves callers built against the same MPI. */
#ifndef CMRS_MPI_H
#define CMRS_MPI_H

#include <mpi.h>

#include "cmrs.h"

/* One part of A per rank of comm (cmrs_solver_set_mpi_comm). */
static inline cmrs_status cmrs_solver_set_comm(cmrs_solver *s, MPI_Comm comm)
{
    return cmrs_solver_set_mpi_comm(s, (int64_t)MPI_Comm_c2f(comm));
}

#endif
