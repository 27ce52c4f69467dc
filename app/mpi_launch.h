/* `mpirun -np N cmrs solve ...`: MPI started only when a launcher started
 * us (its environment says so), so a plain run never pays MPI_Init. Rank
 * 0 prints and writes the outputs; the others stay silent. A failure on
 * any rank ends every rank (MPI_Abort): none waits forever in a
 * collective for a rank that is gone. */
#ifndef CMRS_APP_MPI_LAUNCH_H
#define CMRS_APP_MPI_LAUNCH_H

/* MPI_Init where launched by mpirun/srun (and built with MPI); ranks > 0
 * get stdout on /dev/null. */
void app_mpi_start(int *argc, char ***argv);
int app_mpi_rank(void);  /* 0 without MPI */
int app_mpi_size(void);  /* 1 without MPI */
/* CPU cores this process may run on (its affinity mask; mpirun binds a
 * rank to one core by default), 0 where unknown. */
int app_mpi_cores(void);
/* Ends MPI: MPI_Finalize after success, MPI_Abort(exit_code) after a
 * failure on a run of several ranks. No-op without MPI. */
void app_mpi_end(int failed, int exit_code);

#endif
