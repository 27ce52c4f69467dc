/* The smallest complete use of libcmrs: -u'' = 1 on N points with u = 0 at
 * both ends ([-1 2 -1] rows, b = 1) from CSR arrays, then a check against
 * the exact solution u_i = i (N + 1 - i) / 2. Usage: minimal [cpu|gpu|auto] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmrs.h"

#define N 100

static int failed(cmrs_status st, const cmrs_context *ctx, const char *call) {
    if (st != CMRS_SUCCESS)
        fprintf(stderr, "minimal: %s: %s: %s\n", call, cmrs_status_name(st),
                cmrs_last_error(ctx));
    return st != CMRS_SUCCESS;
}

int main(int argc, char **argv) {
    static int32_t indptr[N + 1], indices[3 * N];
    static double values[3 * N], b[N], x[N]; /* x = 0: the initial guess */
    int32_t nnz = 0;
    for (int i = 0; i < N; i++) { /* row i: -1 2 -1, columns increasing */
        for (int j = i - 1; j <= i + 1; j++) {
            if (j < 0 || j >= N) continue;
            indices[nnz] = j;
            values[nnz++] = j == i ? 2.0 : -1.0;
        }
        indptr[i + 1] = nnz;
        b[i] = 1.0;
    }

    const char *dev = argc > 1 ? argv[1] : "auto";
    int device = !strcmp(dev, "cpu") ? CMRS_DEVICE_CPU
                 : !strcmp(dev, "gpu") ? 0 : CMRS_DEVICE_AUTO;
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL;
    cmrs_solve_info info = {0};
    int bad = failed(cmrs_context_create(device, &ctx), NULL, "context_create") ||
        failed(cmrs_matrix_create_csr(ctx, N, N, nnz, indptr, indices, CMRS_INDEX_INT32,
                                      values, CMRS_VALUE_FLOAT64, &A), ctx, "matrix_create_csr") ||
        failed(cmrs_solver_create(ctx, &s), ctx, "solver_create") ||
        failed(cmrs_solver_set_option(s, "rtol", "1e-10"), ctx, "set_option") ||
        failed(cmrs_solver_setup(s, A), ctx, "setup") ||
        failed(cmrs_solver_solve(s, b, x), ctx, "solve") ||
        failed(cmrs_solver_get_info(s, &info), ctx, "get_info");
    double err = 0; /* relative to max u = (N + 1)^2 / 8 */
    for (int i = 0; i < N && !bad; i++)
        err = fmax(err, fabs(x[i] - (i + 1.0) * (N - i) / 2) / ((N + 1.0) * (N + 1) / 8));
    if (!bad)
        printf("%s, %s + %s on %s: %s after %lld iterations, relative residual %.2e, "
               "max error %.2e\n", cmrs_version(), info.method, info.precond, info.device,
               cmrs_reason_name(info.reason), (long long)info.iterations,
               info.true_relative_residual, err);
    cmrs_solver_destroy(s); /* objects before their context */
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    /* The error may reach cond(A) ~ 4e3 times rtol: 1e-6 leaves a margin. */
    if (!bad && (!info.converged || err > 1e-6)) fputs("minimal: wrong answer\n", stderr);
    return bad || !info.converged || err > 1e-6;
}
