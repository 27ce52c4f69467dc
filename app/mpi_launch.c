/* app/mpi_launch.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "mpi_launch.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

cmrs_code app_mpi_gather_rows(const double *mine, const int64_t *start,
                              double *all)
{
#ifdef CMRS_HAVE_MPI
    if (g_started && g_size > 1) {
        /* counts and places fit int: columns are 32-bit (base/csr.h) */
        int *count = calloc((size_t)g_size, sizeof(int));
        int *at = calloc((size_t)g_size, sizeof(int));
        for (int r = 0; count && at && r < g_size; ++r) {
            count[r] = (int)(start[r + 1] - start[r]);
            at[r] = (int)start[r];
        }
        /* a rank that could not allocate fails here; the others, waiting
         * in the gather, end with it (app_mpi_end's MPI_Abort) */
        int e = count && at
                    ? MPI_Gatherv(mine, count[g_rank], MPI_DOUBLE, all,
                                  count, at, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                    : MPI_SUCCESS;
        int ok = count && at;
        free(count), free(at);
        CMRS_ENSURE(ok, CMRS_E_NOMEM, "cannot allocate %d ranks' counts",
                    g_size);
        CMRS_ENSURE(e == MPI_SUCCESS, CMRS_E_IO, "mpirun: gathering x "
                    "failed (MPI error %d)", e);
        return CMRS_OK;
    }
#endif
    memcpy(all, mine, (size_t)(start[1] - start[0]) * sizeof *all);
    return CMRS_OK;
}
