/* AmgX's whole setup timed as cmrs times its own (scripts/bench-amgx.sh).
 *
 * AmgX's amgx_capi reports its solver setup and solve, but not the upload
 * of the matrix, which cmrs's setup includes. This driver reads an AmgX
 * system file, keeps A and b on the host in page-locked memory (as `cmrs
 * compare` keeps its copy), and then R times: uploads A into a fresh AmgX
 * matrix and b, x = 0 (AMGX_matrix_upload_all, AMGX_vector_upload), sets up
 * and solves, each phase timed by the wall clock around a device sync.
 *
 * Not part of the CMake build (AmgX is not a dependency of cmrs). Built on
 * the GPU machine against AmgX's build tree by scripts/bench-amgx.sh when it
 * is given AMGX_INCLUDE:
 *   cc -O2 -I AMGX/include -I CUDA/include bench/amgx_timed.c \
 *      -L BUILD -lamgxsh -L CUDA/lib64 -lcudart
 * Usage: amgx_timed SYSTEM.amgx CONFIG.json [R]
 * Prints per repeat: "upload: S s", "setup: S s", "solve: S s",
 * "iterations: N", "status: converged|failed". Exit 1 on any AmgX error. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "amgx_c.h"

#define CHECK(call)                                                        \
  do {                                                                     \
    AMGX_RC rc_ = (call);                                                  \
    if (rc_ != AMGX_RC_OK) {                                               \
      char msg_[512];                                                      \
      AMGX_get_error_string(rc_, msg_, sizeof msg_);                       \
      fprintf(stderr, "amgx_timed: %s:%d: %s: %s\n", __FILE__, __LINE__,   \
              #call, msg_);                                                \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static double now_after_sync(void)
{
  struct timespec t;
  if (cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "amgx_timed: cudaDeviceSynchronize failed\n");
    exit(1);
  }
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void quiet(const char *msg, int len) { (void)msg; (void)len; }

static void *pinned(size_t bytes)
{
  void *p = NULL;
  if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
    fprintf(stderr, "amgx_timed: cannot page-lock %zu bytes\n", bytes);
    exit(1);
  }
  return p;
}

/* The system as AmgX's reader leaves it, brought back to page-locked host
 * arrays (the reader uploads as it reads, so it is not what is timed). */
typedef struct {
  int n, nnz;
  int *rows_h, *cols_h;
  double *vals_h, *b_h, *zero_h;
} host_system;

static host_system read_system(AMGX_resources_handle res, const char *path)
{
  host_system s;
  AMGX_matrix_handle A;
  AMGX_vector_handle b, x;
  int bx, by;
  CHECK(AMGX_matrix_create(&A, res, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&b, res, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&x, res, AMGX_mode_dDDI));
  CHECK(AMGX_read_system(A, b, x, path));
  CHECK(AMGX_matrix_get_size(A, &s.n, &bx, &by));
  CHECK(AMGX_matrix_get_nnz(A, &s.nnz));
  if (bx != 1 || by != 1) {
    fprintf(stderr, "amgx_timed: %s: block size %dx%d, want 1x1\n", path, bx, by);
    exit(1);
  }
  s.rows_h = pinned(sizeof(int) * ((size_t)s.n + 1));
  s.cols_h = pinned(sizeof(int) * (size_t)s.nnz);
  s.vals_h = pinned(sizeof(double) * (size_t)s.nnz);
  s.b_h = pinned(sizeof(double) * (size_t)s.n);
  s.zero_h = pinned(sizeof(double) * (size_t)s.n);
  void *diag = NULL;
  CHECK(AMGX_matrix_download_all(A, s.rows_h, s.cols_h, s.vals_h, &diag));
  if (diag) { /* an external diagonal: the upload below would drop it */
    fprintf(stderr, "amgx_timed: %s: a separately stored diagonal is not "
            "supported\n", path);
    exit(1);
  }
  CHECK(AMGX_vector_download(b, s.b_h));
  for (int i = 0; i < s.n; i++)
    s.zero_h[i] = 0.0;
  CHECK(AMGX_vector_destroy(x));
  CHECK(AMGX_vector_destroy(b));
  CHECK(AMGX_matrix_destroy(A));
  return s;
}

/* One fresh upload, setup and solve, as `cmrs compare` runs one. */
static void run_once(AMGX_resources_handle res, AMGX_config_handle cfg,
                     const host_system *s)
{
  AMGX_matrix_handle A;
  AMGX_vector_handle b, x;
  AMGX_solver_handle solver;
  AMGX_SOLVE_STATUS status;
  int its = -1;
  CHECK(AMGX_matrix_create(&A, res, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&b, res, AMGX_mode_dDDI));
  CHECK(AMGX_vector_create(&x, res, AMGX_mode_dDDI));
  CHECK(AMGX_solver_create(&solver, res, AMGX_mode_dDDI, cfg));
  double t0 = now_after_sync();
  CHECK(AMGX_matrix_upload_all(A, s->n, s->nnz, 1, 1, s->rows_h, s->cols_h,
                               s->vals_h, NULL));
  CHECK(AMGX_vector_upload(b, s->n, 1, s->b_h));
  CHECK(AMGX_vector_upload(x, s->n, 1, s->zero_h));
  double t1 = now_after_sync();
  CHECK(AMGX_solver_setup(solver, A));
  double t2 = now_after_sync();
  CHECK(AMGX_solver_solve(solver, b, x));
  double t3 = now_after_sync();
  CHECK(AMGX_solver_get_iterations_number(solver, &its));
  CHECK(AMGX_solver_get_status(solver, &status));
  printf("upload: %.6f s\nsetup: %.6f s\nsolve: %.6f s\niterations: %d\n"
         "status: %s\n", t1 - t0, t2 - t1, t3 - t2, its,
         status == AMGX_SOLVE_SUCCESS ? "converged" : "failed");
  CHECK(AMGX_solver_destroy(solver));
  CHECK(AMGX_vector_destroy(x));
  CHECK(AMGX_vector_destroy(b));
  CHECK(AMGX_matrix_destroy(A));
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: amgx_timed SYSTEM.amgx CONFIG.json [REPEATS]\n");
    return 2;
  }
  int repeats = argc == 4 ? atoi(argv[3]) : 3;
  if (repeats < 1) {
    fprintf(stderr, "amgx_timed: REPEATS must be a positive integer\n");
    return 2;
  }
  AMGX_config_handle cfg;
  AMGX_resources_handle res;
  CHECK(AMGX_initialize());
  CHECK(AMGX_register_print_callback(quiet));
  CHECK(AMGX_config_create_from_file(&cfg, argv[2]));
  CHECK(AMGX_resources_create_simple(&res, cfg));
  host_system s = read_system(res, argv[1]);
  for (int r = 0; r < repeats; r++)
    run_once(res, cfg, &s);
  CHECK(AMGX_resources_destroy(res));
  CHECK(AMGX_config_destroy(cfg));
  CHECK(AMGX_finalize());
  return 0;
}
