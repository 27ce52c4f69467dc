/* A committed case (cases/data) for the API's tests, and what the two
 * other paths make of it: the internal solver (cmrs_ksp on the CPU back
 * end) and the command line (`cmrs solve --json -`). */
#ifndef CMRS_TEST_TAPI_CASE_H
#define CMRS_TEST_TAPI_CASE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/system.h"
#include "solver/solver.h"
#include "spmv/ref.h"
#include "tapi.h"

typedef struct outcome {
    int64_t iterations;
    double res_rel, true_rel;
    double *x; /* n, malloc'd (NULL for the CLI) */
} outcome;

/* $CMRS_SOURCE_DIR/cases/data/name into buf. */
static inline const char *case_path(const char *name, char *buf, size_t n)
{
    const char *src = getenv("CMRS_SOURCE_DIR");
    snprintf(buf, n, "%s/cases/data/%s", src ? src : ".", name);
    return buf;
}

/* The internal path: CPU back end, cmrs_ksp with its default options. */
static inline outcome internal_solve(const cmrs_csr *A, const double *b,
                                     const double *x0)
{
    outcome o = {-1, 0, 0, NULL};
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    cmrs_ksp_opts opts;
    cmrs_ksp_result r;
    cmrs_ksp_opts_default(&opts);
    if (cmrs_backend_cpu_create(A, CMRS_PREC_DOUBLE, &be) == CMRS_OK &&
        cmrs_ksp_create(be, A, &opts, "internal", &s) == CMRS_OK &&
        cmrs_ksp_set_rhs(s, b, x0) == CMRS_OK &&
        cmrs_ksp_solve(s, &r) == CMRS_OK) {
        o = (outcome){r.iterations, r.res_rel, r.true_rel,
                      malloc((size_t)A->rows * sizeof(double))};
        memcpy(o.x, r.x, (size_t)A->rows * sizeof(double));
    }
    CHECK(o.x != NULL, "internal solve: %s", cmrs_error_message());
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
    return o;
}

/* The number after "key": in a JSON text, or NAN. */
static inline double json_number(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The command line on the CPU ($CMRS_BIN solve FILE --json -). */
static inline outcome cli_solve(const char *file)
{
    outcome o = {-1, NAN, NAN, NULL};
    char cmd[2200], text[1 << 16];
    const char *bin = getenv("CMRS_BIN");
    snprintf(cmd, sizeof cmd, "'%s' solve '%s' --device cpu --json - "
             "2>/dev/null", bin ? bin : "cmrs", file);
    FILE *p = popen(cmd, "r");
    size_t len = p ? fread(text, 1, sizeof text - 1, p) : 0;
    text[len] = '\0';
    if (p) pclose(p);
    o.iterations = (int64_t)json_number(text, "iterations");
    o.res_rel = json_number(text, "residual_recursive");
    o.true_rel = json_number(text, "residual_true");
    CHECK(len > 0 && o.iterations > 0, "cli: no report from '%s'", cmd);
    return o;
}

/* Same iterations, residuals equal to 1e-12 (relative). */
static inline void expect_same(const char *what, outcome a, outcome b)
{
    CHECK(a.iterations == b.iterations &&
              fabs(a.true_rel - b.true_rel) <= 1e-12 * fabs(b.true_rel) &&
              fabs(a.res_rel - b.res_rel) <= 1e-12 * fabs(b.res_rel),
          "%s: %lld its, true %.17g, recursive %.17g; expected %lld, %.17g, "
          "%.17g", what, (long long)a.iterations, a.true_rel, a.res_rel,
          (long long)b.iterations, b.true_rel, b.res_rel);
}

/* A fresh solver on A with options (name, value, ..., NULL), one solve
 * from x0 (NULL: zero); *s_out keeps the solver when not NULL. */
static inline outcome api_solve(cmrs_context *ctx, cmrs_matrix *A,
                                const char *const *opts,
                                const double *b, const double *x0,
                                cmrs_solver **s_out)
{
    int64_t n = cmrs_matrix_rows(A);
    outcome o = {-1, 0, 0, calloc((size_t)n, sizeof(double))};
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    if (x0) memcpy(o.x, x0, (size_t)n * sizeof(double));
    API_OK(ctx, cmrs_solver_create(ctx, &s));
    for (int i = 0; opts && opts[i]; i += 2)
        API_OK(ctx, cmrs_solver_set_option(s, opts[i], opts[i + 1]));
    API_OK(ctx, cmrs_solver_setup(s, A));
    API_OK(ctx, cmrs_solver_solve(s, b, o.x));
    API_OK(ctx, cmrs_solver_get_info(s, &info));
    o.iterations = info.iterations;
    o.res_rel = info.relative_residual;
    o.true_rel = info.true_relative_residual;
    if (s_out) *s_out = s;
    else cmrs_solver_destroy(s);
    return o;
}

#endif
