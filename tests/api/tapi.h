/* Checks for the public API's tests: statuses, messages, a small SPD
 * system as CSR arrays (1-D Laplacian, 2 on the diagonal). */
#ifndef CMRS_TEST_TAPI_H
#define CMRS_TEST_TAPI_H

#include <string.h>

#include "check.h"
#include "cmrs.h"

/* expr returns CMRS_SUCCESS (else the context's message is shown). */
#define API_OK(ctx, expr)                                                   \
    do {                                                                    \
        cmrs_status api_s_ = (expr);                                        \
        CHECK(api_s_ == CMRS_SUCCESS, "%s -> %s: %s", #expr,                \
              cmrs_status_name(api_s_), cmrs_last_error(ctx));              \
    } while (0)

/* expr fails with status want_s, leaving a one-line message in ctx (NULL:
 * the thread's) that contains want (NULL: any non-empty message). */
#define API_FAILS(ctx, expr, want_s, want)                                  \
    do {                                                                    \
        cmrs_status api_s_ = (expr);                                        \
        const char *api_m_ = cmrs_last_error(ctx);                          \
        const char *api_w_ = (want);                                        \
        CHECK(api_s_ == (want_s) && api_m_[0] && !strchr(api_m_, '\n') &&   \
                  (!api_w_ || strstr(api_m_, api_w_)),                      \
              "%s -> %s '%s', expected %s containing '%s'", #expr,          \
              cmrs_status_name(api_s_), api_m_, cmrs_status_name(want_s),   \
              api_w_ ? api_w_ : "");                                        \
    } while (0)

/* A matrix of its own read from `file` (an update writes the matrix's
 * values, so each solver under test gets one). */
static inline cmrs_matrix *tapi_read(cmrs_context *ctx, const char *file)
{
    cmrs_matrix *M = NULL;
    API_OK(ctx, cmrs_matrix_read(ctx, file, NULL, &M));
    return M;
}

/* One solve of n rows from x = 0 with b; the info. */
static inline cmrs_solve_info tapi_solve(cmrs_context *ctx, cmrs_solver *s,
                                         const double *b, int64_t n, double *x)
{
    cmrs_solve_info info;
    memset(x, 0, (size_t)n * sizeof *x);
    API_OK(ctx, cmrs_solver_solve(s, b, x));
    API_OK(ctx, cmrs_solver_get_info(s, &info));
    return info;
}

#define TAPI_N 50
#define TAPI_NNZ (3 * TAPI_N - 2)

/* The 1-D Laplacian tridiag(-1, 2, -1) of TAPI_N rows as int32 CSR. */
static inline void tapi_laplacian(int32_t *indptr, int32_t *indices,
                                  double *values)
{
    int32_t k = 0;
    indptr[0] = 0;
    for (int32_t i = 0; i < TAPI_N; ++i) {
        for (int32_t j = i - 1; j <= i + 1; ++j) {
            if (j < 0 || j >= TAPI_N) continue;
            indices[k] = j;
            values[k++] = j == i ? 2.0 : -1.0;
        }
        indptr[i + 1] = k;
    }
}

#endif
