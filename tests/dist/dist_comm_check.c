/* Run by test_dist_comm.sh under `mpirun -np 4`: the library's parts over a
 * communicator other than MPI_COMM_WORLD (cmrs_solver_set_comm,
 * include/cmrs_mpi.h). The world is split in two halves of two ranks; the
 * first half solves the committed vessel, the second the contrast Poisson,
 * at the same time, each over its own communicator, and each rank checks
 * its result against the same solve over two parts simulated in its own
 * process (option parts 2: the same sums in the same order, so the same
 * iterations and x bit for bit) and its true residual. Also: the
 * communicator set after setup is refused, MPI_COMM_NULL is refused at
 * setup. Matrices of rows (each rank passing only its rows): read from the
 * file by block (cmrs_matrix_read_rows) against --partition block over
 * two simulated parts, bit for bit on the rank's rows; made from arrays
 * (cmrs_matrix_create_csr_rows, an uneven split of a 1-D Laplacian)
 * against the whole matrix on one process, then new values of the same
 * pattern (cmrs_solver_update_values with the rank's rows' values) against
 * the whole matrix's update; ranks whose rows do not tile the matrix, a
 * matrix of rows without a communicator and float arrays refused. Each rank prints its "N passed, M failed"; the exit status is
 * nonzero on any failure (mpirun then fails). Without MPI in the build:
 * 77. */
#include <math.h>
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

static const char *g_partition = "rcm"; /* solve()'s */

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
    CHECK(cmrs_solver_set_option(s, "partition", g_partition) ==
              CMRS_SUCCESS, "partition: %s", cmrs_last_error(ctx));
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

/* The rank's rows of the file against the whole matrix's block partition
 * on two simulated parts: the same parts, so the same sums: iterations
 * equal, x equal bit for bit on the rank's rows. */
static void rows_read(cmrs_context *ctx, const char *path, cmrs_matrix *A,
                      const double *b, MPI_Comm comm, int crank)
{
    cmrs_matrix *R = NULL;
    int64_t row0 = -1, rows = 0, n = 0;
    g_partition = "block";
    result one = solve(ctx, A, b, comm, 0);
    CHECK(cmrs_matrix_read_rows(ctx, path, NULL, crank, 2, &R) ==
              CMRS_SUCCESS && cmrs_matrix_row_range(R, &row0, &rows, &n) ==
              CMRS_SUCCESS, "read rows: %s", cmrs_last_error(ctx));
    if (R) {
        double *br = malloc((size_t)rows * sizeof *br);
        CHECK(cmrs_matrix_file_vector(R, CMRS_FILE_RHS, br, NULL) ==
                  CMRS_SUCCESS && memcmp(br, b + row0, (size_t)rows * 8) == 0,
              "b's rows");
        result mine = solve(ctx, R, br, comm, 1);
        CHECK(mine.iterations == one.iterations && n == cmrs_matrix_rows(A),
              "rows: %lld iterations, %lld on simulated parts",
              (long long)mine.iterations, (long long)one.iterations);
        CHECK(memcmp(mine.x, one.x + row0, (size_t)rows * 8) == 0,
              "rows: x differs from the simulated parts' on rows %lld..",
              (long long)row0);
        printf("rank %d: rows %lld + %lld of %lld read, %lld iterations\n",
               crank, (long long)row0, (long long)rows, (long long)n,
               (long long)mine.iterations);
        free(mine.x);
        free(br);
    }
    free(one.x);
    cmrs_matrix_destroy(R);
    g_partition = "rcm";
}

/* Rows row0 .. row0 + rows of the 1-D Laplacian (2, -1) of n rows. */
static cmrs_matrix *lap1d_rows(cmrs_context *ctx, int64_t n, int64_t row0,
                               int64_t rows)
{
    int64_t *ptr = malloc((size_t)(rows + 1) * 8), nnz = 0;
    int64_t *col = malloc((size_t)rows * 3 * 8);
    double *val = malloc((size_t)rows * 3 * 8);
    ptr[0] = 0;
    for (int64_t i = row0; i < row0 + rows; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j) {
            if (j < 0 || j >= n) continue;
            col[nnz] = j;
            val[nnz++] = j == i ? 2.0 + 1e-3 * (double)(i % 5) : -1.0;
        }
        ptr[i - row0 + 1] = nnz;
    }
    cmrs_matrix *M = NULL;
    cmrs_status st = rows == n
        ? cmrs_matrix_create_csr(ctx, n, n, nnz, ptr, col, CMRS_INDEX_INT64,
                                 val, CMRS_VALUE_FLOAT64, &M)
        : cmrs_matrix_create_csr_rows(ctx, n, row0, rows, nnz, ptr, col,
                                      CMRS_INDEX_INT64, val,
                                      CMRS_VALUE_FLOAT64, &M);
    CHECK(st == CMRS_SUCCESS, "lap1d rows %lld: %s", (long long)row0,
          cmrs_last_error(ctx));
    free(ptr), free(col), free(val);
    return M;
}

/* New values of lap1d_rows' pattern for its rows row0 .. row0 + rows: a
 * larger, varying diagonal and off-diagonals of -1 - 1e-3 (i % 3). */
static void lap1d_new_values(int64_t n, int64_t row0, int64_t rows,
                             double *val)
{
    int64_t nnz = 0;
    for (int64_t i = row0; i < row0 + rows; ++i)
        for (int64_t j = i - 1; j <= i + 1; ++j) {
            if (j < 0 || j >= n) continue;
            int64_t lo = i < j ? i : j; /* symmetric: by the pair */
            val[nnz++] = j == i ? 2.5 + 1e-2 * (double)(i % 3)
                                : -1.0 - 1e-3 * (double)(lo % 3);
        }
}

/* A solver over comm set up on M: its status. */
static cmrs_status setup_on(cmrs_context *ctx, cmrs_matrix *M, MPI_Comm comm,
                            int use_comm, cmrs_solver **s)
{
    CHECK(cmrs_solver_create(ctx, s) == CMRS_SUCCESS, "create");
    if (use_comm)
        CHECK(cmrs_solver_set_comm(*s, comm) == CMRS_SUCCESS, "set_comm");
    return cmrs_solver_setup(*s, M);
}

/* max |a_i - b_i| (b NULL: max |a_i|) over n entries. */
static double max_diff(const double *a, const double *b, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - (b ? b[i] : 0)));
    return m;
}

/* A solve of s and its report; 1 when both succeed. */
static int solved(cmrs_solver *s, const double *b, double *x,
                  cmrs_solve_info *info)
{
    return cmrs_solver_solve(s, b, x) == CMRS_SUCCESS &&
           cmrs_solver_get_info(s, info) == CMRS_SUCCESS;
}

/* A setup on R refused with CMRS_E_USAGE naming `needle`. */
static void refused(cmrs_context *ctx, cmrs_matrix *R, MPI_Comm comm,
                    int use_comm, const char *needle, const char *what)
{
    cmrs_solver *s = NULL;
    CHECK(setup_on(ctx, R, comm, use_comm, &s) == CMRS_ERROR_USAGE &&
              strstr(cmrs_last_error(ctx), needle),
          "%s: %s", what, cmrs_last_error(ctx));
    cmrs_solver_destroy(s);
}

/* An uneven split (rank 0: 300 rows of 1000) against the whole matrix in
 * one process: iterations within 2, x close, before and after new values;
 * the refusals. */
static void rows_made(cmrs_context *ctx, MPI_Comm comm, int crank)
{
    const int64_t n = 1000, cut = 300;
    int64_t row0 = crank ? cut : 0, rows = crank ? n - cut : cut;
    cmrs_matrix *W = lap1d_rows(ctx, n, 0, n);
    cmrs_matrix *R = lap1d_rows(ctx, n, row0, rows);
    double *b = malloc((size_t)n * 8), *xw = calloc((size_t)n, 8);
    double *xr = calloc((size_t)rows, 8);
    for (int64_t i = 0; i < n; ++i) b[i] = 1.0 + (double)(i % 7);
    cmrs_solver *sw = NULL, *sr = NULL;
    cmrs_solve_info iw, ir;
    CHECK(setup_on(ctx, W, comm, 0, &sw) == CMRS_SUCCESS &&
              solved(sw, b, xw, &iw), "whole: %s", cmrs_last_error(ctx));
    CHECK(setup_on(ctx, R, comm, 1, &sr) == CMRS_SUCCESS &&
              solved(sr, b + row0, xr, &ir), "rows: %s",
          cmrs_last_error(ctx));
    double err = max_diff(xr, xw + row0, rows), ref = max_diff(xw + row0,
                                                               NULL, rows);
    CHECK(llabs(ir.iterations - iw.iterations) <= 2 && err <= 1e-6 * ref &&
              ir.true_relative_residual < 1e-7,
          "made rows: %lld iterations (whole %lld), x off by %g of %g, true "
          "residual %g", (long long)ir.iterations, (long long)iw.iterations,
          err, ref, ir.true_relative_residual);
    /* new values: the rank's rows' against the whole matrix's update */
    double *vw = malloc((size_t)n * 3 * 8), *vr = malloc((size_t)rows * 3 * 8);
    double *xr_old = malloc((size_t)rows * 8);
    memcpy(xr_old, xr, (size_t)rows * 8);
    lap1d_new_values(n, 0, n, vw);
    lap1d_new_values(n, row0, rows, vr);
    CHECK(cmrs_solver_update_values(sw, vw, CMRS_VALUE_FLOAT64,
                                    CMRS_MEMORY_HOST) == CMRS_SUCCESS &&
              solved(sw, b, xw, &iw),
          "whole, new values: %s", cmrs_last_error(ctx));
    CHECK(cmrs_solver_update_values(sr, vr, CMRS_VALUE_FLOAT64,
                                    CMRS_MEMORY_HOST) == CMRS_SUCCESS &&
              solved(sr, b + row0, xr, &ir),
          "rows, new values: %s", cmrs_last_error(ctx));
    double moved = max_diff(xr, xr_old, rows);
    err = max_diff(xr, xw + row0, rows);
    ref = max_diff(xw + row0, NULL, rows);
    CHECK(llabs(ir.iterations - iw.iterations) <= 2 && err <= 1e-6 * ref &&
              ir.true_relative_residual < 1e-7 && moved > 1e-3 * ref,
          "rows after new values: %lld iterations (whole %lld), x off by %g "
          "of %g, moved by %g, true residual %g", (long long)ir.iterations,
          (long long)iw.iterations, err, ref, moved,
          ir.true_relative_residual);
    free(vw), free(vr), free(xr_old);
    float xf[1] = {0};
    CHECK(cmrs_solver_solve_ex(sr, b, xf, CMRS_VALUE_FLOAT32,
                               CMRS_MEMORY_HOST) == CMRS_ERROR_USAGE,
          "float arrays for a matrix of rows accepted");
    cmrs_solver_destroy(sw);
    cmrs_solver_destroy(sr);
    /* no communicator: refused in one line */
    refused(ctx, R, comm, 0, "under MPI", "a matrix of rows without MPI");
    cmrs_matrix_destroy(R);
    /* both ranks claim rows from 0: they do not tile (every rank says so) */
    R = lap1d_rows(ctx, n, 0, crank ? n - cut : cut);
    refused(ctx, R, comm, 1, "do not tile", "rows that do not tile");
    cmrs_matrix_destroy(R);
    cmrs_matrix_destroy(W);
    free(b), free(xw), free(xr);
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
        int crank = 0;
        MPI_Comm_rank(comm, &crank);
        rows_read(ctx, path, A, b, comm, crank);
        rows_made(ctx, comm, crank);
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
