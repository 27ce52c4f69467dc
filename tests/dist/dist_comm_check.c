/* Run by test_dist_comm.sh under `mpirun -np 4`: the library's parts over a
 * communicator other than MPI_COMM_WORLD (cmrs_solver_set_comm,
 * include/cmrs_mpi.h). The world is split in two halves of two ranks; the
 * first half solves the committed vessel, the second the contrast Poisson,
 * at the same time, each over its own communicator, and each rank checks
 * its result against the same solve over two parts simulated in its own
 * process (option parts 2: the same sums in the same order, so the same
 * iterations and x bit for bit) and its true residual. Also: the
 * communicator set after setup is refused, MPI_COMM_NULL is refused at
 * setup. Each rank prints its "N passed, M failed"; the exit status is
 * nonzero on any failure (mpirun then fails). Without MPI in the build:
 * 77. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmrs.h"

#ifndef CMRS_HAVE_MPI
int main(void)
{
    puts("built without MPI: skipped");
    return 77;
}
#else
#include "cmrs_mpi.h"

typedef struct result {
    int64_t iterations;
    double true_rel;
    double *x;
} result;

/* One solve of A, b over comm (MPI_COMM_NULL: two simulated parts in
 * this process instead). */
static result solve(cmrs_context *ctx, cmrs_matrix *A, const double *b,
                    MPI_Comm comm, int use_comm)
{
    result r = {0, 0, NULL};
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    int64_t n = cmrs_matrix_rows(A);
    r.x = calloc((size_t)n, sizeof *r.x);
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS, "create");
    CHECK(cmrs_solver_set_option(s, "partition", "rcm") == CMRS_SUCCESS,
          "partition: %s", cmrs_last_error(ctx));
    if (use_comm)
        CHECK(cmrs_solver_set_comm(s, comm) == CMRS_SUCCESS, "set_comm: %s",
              cmrs_last_error(ctx));
    else
        CHECK(cmrs_solver_set_option(s, "parts", "2") == CMRS_SUCCESS,
              "parts: %s", cmrs_last_error(ctx));
    CHECK(cmrs_solver_setup(s, A) == CMRS_SUCCESS, "setup: %s",
          cmrs_last_error(ctx));
    CHECK(cmrs_solver_set_comm(s, comm) == CMRS_ERROR_USAGE,
          "set_comm after setup accepted");
    CHECK(cmrs_solver_solve(s, b, r.x) == CMRS_SUCCESS, "solve: %s",
          cmrs_last_error(ctx));
    CHECK(cmrs_solver_get_info(s, &info) == CMRS_SUCCESS, "info");
    r.iterations = info.iterations;
    r.true_rel = info.true_relative_residual;
    cmrs_solver_destroy(s);
    return r;
}

/* MPI_COMM_NULL is refused at setup, with a message. */
static void null_comm(cmrs_context *ctx, cmrs_matrix *A)
{
    cmrs_solver *s = NULL;
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS, "create");
    CHECK(cmrs_solver_set_comm(s, MPI_COMM_NULL) == CMRS_SUCCESS,
          "set_comm(NULL) before setup");
    CHECK(cmrs_solver_setup(s, A) == CMRS_ERROR_USAGE &&
              strstr(cmrs_last_error(ctx), "MPI_COMM_NULL"),
          "setup over MPI_COMM_NULL: %s", cmrs_last_error(ctx));
    cmrs_solver_destroy(s);
}

int main(int argc, char **argv)
{
    int world = 0, rank = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *src = getenv("CMRS_SOURCE_DIR");
    if (world != 4 || !src) {
        fprintf(stderr, "run under mpirun -np 4 with CMRS_SOURCE_DIR\n");
        MPI_Finalize();
        return 2;
    }
    int half = rank / 2; /* ranks 0, 1 and 2, 3 */
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, half, rank, &comm);
    char path[4096];
    snprintf(path, sizeof path, "%s/cases/data/%s", src,
             half ? "poisson27_10_contrast3.h5" : "vessel_3k.h5");
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    CHECK(cmrs_context_create(CMRS_DEVICE_CPU, &ctx) == CMRS_SUCCESS, "ctx");
    CHECK(cmrs_matrix_read(ctx, path, NULL, &A) == CMRS_SUCCESS, "%s: %s",
          path, cmrs_last_error(ctx));
    if (A) {
        int64_t n = cmrs_matrix_rows(A);
        double *b = malloc((size_t)n * sizeof *b);
        CHECK(cmrs_matrix_file_vector(A, CMRS_FILE_RHS, b, NULL) ==
                  CMRS_SUCCESS, "b");
        result one = solve(ctx, A, b, comm, 0);
        result mpi = solve(ctx, A, b, comm, 1);
        CHECK(mpi.iterations == one.iterations && mpi.iterations > 0,
              "rank %d: %lld iterations over the communicator, %lld on "
              "simulated parts", rank, (long long)mpi.iterations,
              (long long)one.iterations);
        CHECK(memcmp(mpi.x, one.x, (size_t)n * sizeof *b) == 0,
              "rank %d: x differs from the simulated parts'", rank);
        CHECK(mpi.true_rel < 1e-7, "rank %d: true residual %.2e", rank,
              mpi.true_rel);
        printf("rank %d (%s): %lld iterations, true residual %.2e\n", rank,
               half ? "poisson" : "vessel", (long long)mpi.iterations,
               mpi.true_rel);
        null_comm(ctx, A);
        free(one.x);
        free(mpi.x);
        free(b);
    }
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    MPI_Comm_free(&comm);
    int rc = check_summary();
    MPI_Finalize();
    return rc;
}
#endif
