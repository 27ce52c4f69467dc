/* A consumer of the installed libcmrs: solves the 1-D Laplacian (n = 100,
 * b = 1) on the CPU back end with CG + Jacobi; exit 0 when it converged. */
#include <stdio.h>
#include <string.h>

#include <cmrs.h>

#define N 100

int main(void)
{
    int32_t ptr[N + 1], idx[3 * N];
    double val[3 * N], b[N], x[N] = {0};
    int32_t k = 0;
    for (int32_t i = 0; i < N; ++i) {
        for (int32_t j = i - 1; j <= i + 1; ++j)
            if (j >= 0 && j < N) {
                idx[k] = j;
                val[k++] = j == i ? 2.0 : -1.0;
            }
        ptr[i + 1] = k;
        b[i] = 1.0;
    }
    ptr[0] = 0;
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    if (cmrs_context_create(CMRS_DEVICE_CPU, &ctx) ||
        cmrs_matrix_create_csr(ctx, N, N, k, ptr, idx, CMRS_INDEX_INT32, val,
                               CMRS_VALUE_FLOAT64, &A) ||
        cmrs_solver_create(ctx, &s) || cmrs_solver_setup(s, A) ||
        cmrs_solver_solve(s, b, x) || cmrs_solver_get_info(s, &info)) {
        fprintf(stderr, "consumer: %s\n", cmrs_last_error(ctx));
        return 1;
    }
    printf("cmrs %s: %s after %lld iterations, x[%d] = %.6f\n",
           cmrs_version(), cmrs_reason_name(info.reason),
           (long long)info.iterations, N / 2, x[N / 2]);
    int ok = info.converged && strcmp(cmrs_version(), "0.2.0") == 0;
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    return ok ? 0 : 1;
}
