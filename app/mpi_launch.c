/* app/mpi_launch.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "mpi_launch.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef CMRS_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_started = 0;

/* Open MPI, MPICH/Hydra and PMIx launchers set these in every rank. */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "PMIX_RANK", NULL};
    for (int i = 0; vars[i]; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

void app_mpi_start(int *argc, char ***argv)
{
#ifdef CMRS_HAVE_MPI
    if (!launched() || MPI_Init(argc, argv) != MPI_SUCCESS) return;
    g_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_rank > 0 && !freopen("/dev/null", "w", stdout))
        fclose(stdout);
#else
    (void)argc, (void)argv;
    (void)launched;
#endif
}

int app_mpi_rank(void) { return g_rank; }
int app_mpi_size(void) { return g_size; }

int app_mpi_cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

void app_mpi_end(int failed, int exit_code)
{
#ifdef CMRS_HAVE_MPI
    if (!g_started) return;
    fflush(stdout);
    fflush(stderr);
    if (failed && g_size > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
    MPI_Finalize();
#else
    (void)failed, (void)exit_code;
    (void)g_started;
#endif
}
