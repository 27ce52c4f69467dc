/* `mpirun -np N cmrs solve ...`: MPI started only when a launcher started
 * us (its environment says so), so a plain run never pays MPI_Init. Rank
 * 0 prints and writes the outputs; the others stay silent. A failure on
 * any rank ends every rank (MPI_Abort): none waits forever in a
 * collective for a rank that is gone. */
#ifndef CMRS_APP_MPI_LAUNCH_H
#define CMRS_APP_MPI_LAUNCH_H

#include <stdint.h>

#include "base/status.h"

/* MPI_Init where launched by mpirun/srun (and built with MPI); ranks > 0
 * get stdout on /dev/null. */
void app_mpi_start(int *argc, char ***argv);
int app_mpi_rank(void);  /* 0 without MPI */
int app_mpi_size(void);  /* 1 without MPI */
/* CPU cores this process may run on (its affinity mask; mpirun binds a
 * rank to one core by default), 0 where unknown. */
int app_mpi_cores(void);
/* Rank r's rows start[r] .. start[r + 1] - 1 (mine: its values) into
 * all[0 .. start[ranks]) on rank 0 (all unused elsewhere): a solution
 * solved by rows, written by rank 0. */
cmrs_code app_mpi_gather_rows(const double *mine, const int64_t *start,
                              double *all);
/* Ends MPI: MPI_Finalize after success, MPI_Abort(exit_code) after a
 * failure on a run of several ranks. No-op without MPI. */
void app_mpi_end(int failed, int exit_code);

#endif
