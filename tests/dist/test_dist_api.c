/* The public API (include/cmrs.h) with the options parts, partition and
 * gpus: a CPU context solves over parts as over one back end, new values
 * reach the parts, bad values fail with their status and one message. */
#include <string.h>

#include "api/api_internal.h"
#include "check.h"
#include "tdist.h"

/* A solver on A with the given options (pairs, NULL-terminated). */
static cmrs_solver *solver_with(cmrs_context *ctx, cmrs_matrix *M,
                                const char *const *opts)
{
    cmrs_solver *s = NULL;
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS, "create");
    for (int i = 0; s && opts[i]; i += 2)
        CHECK(cmrs_solver_set_option(s, opts[i], opts[i + 1]) ==
                  CMRS_SUCCESS, "%s=%s: %s", opts[i], opts[i + 1],
              cmrs_last_error(ctx));
    CHECK(s && cmrs_solver_setup(s, M) == CMRS_SUCCESS, "setup: %s",
          cmrs_last_error(ctx));
    return s;
}

static void solve(cmrs_solver *s, int64_t n, const double *b, double *x,
                  cmrs_solve_info *info)
{
    memset(x, 0, (size_t)n * sizeof *x);
    CHECK(cmrs_solver_solve(s, b, x) == CMRS_SUCCESS, "solve");
    CHECK(cmrs_solver_get_info(s, info) == CMRS_SUCCESS, "info");
}

static void against_one(cmrs_context *ctx, cmrs_matrix *M, const double *b,
                        int64_t n)
{
    static const char *const one[] = {"rtol", "1e-10", NULL};
    static const char *const parts[] = {"rtol", "1e-10", "parts", "4",
                                        "partition", "rcm", NULL};
    double *x1 = malloc((size_t)n * 8), *x4 = malloc((size_t)n * 8);
    cmrs_solve_info i1, i4;
    cmrs_solver *s1 = solver_with(ctx, M, one), *s4 = solver_with(ctx, M,
                                                                  parts);
    solve(s1, n, b, x1, &i1);
    solve(s4, n, b, x4, &i4);
    CHECK(i4.converged && i4.iterations >= i1.iterations - 2 &&
              i4.iterations <= i1.iterations + 2,
          "4 parts: %lld iterations, one %lld", (long long)i4.iterations,
          (long long)i1.iterations);
    CHECK(cmrs_ref_rel_err(n, x4, x1) < 1e-8, "x on parts");
    const cmrs_partition *pt =
        cmrs_backend_dist_partition(cmrs_solver_backend(s4));
    CHECK(pt && pt->nparts == 4 && pt->method == CMRS_PART_RCM,
          "the solver's back end is 4 rcm parts");
    cmrs_solver_destroy(s1);
    cmrs_solver_destroy(s4);
    free(x1), free(x4);
}

static void bad_options(cmrs_context *ctx, cmrs_matrix *M)
{
    cmrs_solver *s = NULL;
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS, "create");
    CHECK(cmrs_solver_set_option(s, "parts", "0") == CMRS_ERROR_USAGE,
          "parts 0");
    CHECK(cmrs_solver_set_option(s, "partition", "x") == CMRS_ERROR_USAGE,
          "partition x");
    CHECK(cmrs_solver_set_option(s, "gpus", "0") == CMRS_ERROR_USAGE,
          "gpus 0");
    CHECK(cmrs_solver_set_option(s, "gpus", "1") == CMRS_SUCCESS, "gpus 1");
    /* Several GPUs asked of a CPU context: refused at setup, one line. */
    CHECK(cmrs_solver_set_option(s, "gpus", "2") == CMRS_SUCCESS, "gpus 2");
    CHECK(cmrs_solver_setup(s, M) == CMRS_ERROR_NODEVICE &&
              strstr(cmrs_last_error(ctx), "--gpus 2 needs GPUs"),
          "gpus 2 on the CPU: %s", cmrs_last_error(ctx));
    CHECK(cmrs_solver_set_option(s, "parts", "2") == CMRS_SUCCESS, "parts");
    CHECK(cmrs_solver_setup(s, M) == CMRS_ERROR_USAGE &&
              strstr(cmrs_last_error(ctx), "give one of them"),
          "gpus with parts: %s", cmrs_last_error(ctx));
    cmrs_solver_destroy(s);
}

int main(void)
{
    cmrs_csr A = {0};
    cmrs_context *ctx = NULL;
    cmrs_matrix *M = NULL;
    lap2d(&A, 30);
    int64_t n = A.rows;
    double *b = malloc((size_t)n * 8);
    fill_x(n, b);
    CHECK(cmrs_context_create(CMRS_DEVICE_CPU, &ctx) == CMRS_SUCCESS, "ctx");
    int64_t *cols = malloc((size_t)A.nnz * sizeof *cols); /* one index type */
    for (int64_t k = 0; k < A.nnz; ++k) cols[k] = A.indices[k];
    CHECK(cmrs_matrix_create_csr(ctx, n, n, A.nnz, A.indptr, cols,
                                 CMRS_INDEX_INT64, A.values,
                                 CMRS_VALUE_FLOAT64, &M) == CMRS_SUCCESS,
          "matrix: %s", cmrs_last_error(ctx));
    against_one(ctx, M, b, n);
    bad_options(ctx, M);
    cmrs_matrix_destroy(M);
    cmrs_context_destroy(ctx);
    cmrs_csr_free(&A);
    free(b), free(cols);
    return check_summary();
}
