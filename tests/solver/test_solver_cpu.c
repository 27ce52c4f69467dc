/* The solvers on the CPU reference back end: convergence checked on the
 * TRUE residual (recomputed here), history and monitor, and the converged
 * reasons (maxits, atol, breakdown, singular, NaN). */
#include <stdlib.h>

#include "tsolve.h"

static void test_converge(void)
{
    cmrs_csr L, U;
    lap2d(&L, 24);
    upwind2d(&U, 24, 2.0);
    double *xl, *xu, *bl = rhs_for(&L, &xl), *bu = rhs_for(&U, &xu);
    /* Golden iteration counts (hypre-style regression values, +-2): a
     * loop that still converges but less well (a wrong alpha, a stale
     * direction) changes them. */
    struct { const char *name; cmrs_csr *A; double *b, *xs; cmrs_method m;
             cmrs_pc pc; int64_t golden; } c[] = {
        {"cg jacobi", &L, bl, xl, CMRS_METHOD_CG, CMRS_PC_JACOBI, 81},
        {"cg none", &L, bl, xl, CMRS_METHOD_CG, CMRS_PC_NONE, 81},
        {"bicgstab jacobi lap", &L, bl, xl, CMRS_METHOD_BICGSTAB,
         CMRS_PC_JACOBI, 64},
        {"bicgstab jacobi upwind", &U, bu, xu, CMRS_METHOD_BICGSTAB,
         CMRS_PC_JACOBI, 39},
        {"bicgstab none upwind", &U, bu, xu, CMRS_METHOD_BICGSTAB,
         CMRS_PC_NONE, 39},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; ++i) {
        cmrs_ksp_opts op = opts_of(c[i].m, c[i].pc, 1e-10);
        outcome o = solve_cpu(c[i].A, c[i].b, NULL, &op);
        expect_converged(c[i].name, c[i].A, c[i].b, c[i].xs, &o, 1e-10,
                         2.0);
        CHECK(llabs(o.r.iterations - c[i].golden) <= 2, "%s: %lld "
              "iterations, golden %lld", c[i].name,
              (long long)o.r.iterations, (long long)c[i].golden);
        outcome_free(&o);
    }
    free(bl); free(bu); free(xl); free(xu);
    cmrs_csr_free(&L);
    cmrs_csr_free(&U);
}

static void test_maxits_and_atol(void)
{
    cmrs_csr L;
    lap2d(&L, 16);
    double *b = rhs_for(&L, NULL);
    for (int m = 0; m < 2; ++m) {
        cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-12);
        op.maxiter = 5;
        outcome o = solve_cpu(&L, b, NULL, &op);
        CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_MAXITS &&
                  o.r.iterations == 5 && o.monitor_calls == 6,
              "%s maxiter 5: %s, %lld its", cmrs_method_name(op.method),
              cmrs_ksp_reason_name(o.r.reason), (long long)o.r.iterations);
        CHECK(cmrs_ksp_reason_exit_code(o.r.reason) == CMRS_EXIT_NOT_CONVERGED,
              "maxits exit code");
        outcome_free(&o);
        op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 0.0);
        op.atol = 1e-6 * cmrs_ref_nrm2(L.rows, b);
        o = solve_cpu(&L, b, NULL, &op);
        CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_CONVERGED_ATOL &&
                  o.r.res_norm <= op.atol,
              "atol: %s, ||r|| %g", cmrs_ksp_reason_name(o.r.reason),
              o.r.res_norm);
        outcome_free(&o);
    }
    free(b);
    cmrs_csr_free(&L);
}

/* diag(1, -1, 1, -1, ...) + off-diagonals 0.1: symmetric indefinite. */
static void test_breakdown(void)
{
    enum { n = 40 };
    double d[n];
    for (int i = 0; i < n; ++i) d[i] = i % 2 ? -1.0 : 1.0;
    cmrs_csr A;
    tridiag(&A, n, d, 0.1);
    double *b = rhs_for(&A, NULL);
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
    outcome o = solve_cpu(&A, b, NULL, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_BREAKDOWN,
          "indefinite CG: %s after %lld its", cmrs_ksp_reason_name(o.r.reason),
          (long long)o.r.iterations);
    CHECK(cmrs_ksp_reason_exit_code(o.r.reason) == CMRS_EXIT_BREAKDOWN,
          "breakdown exit code");
    CHECK(o.monitor_calls == o.r.iterations + 1, "history after breakdown");
    outcome_free(&o);
    /* BiCGStab handles symmetric indefinite systems: it must converge. */
    op = opts_of(CMRS_METHOD_BICGSTAB, CMRS_PC_NONE, 1e-10);
    o = solve_cpu(&A, b, NULL, &op);
    expect_converged("bicgstab indefinite", &A, b, NULL, &o, 1e-10, 2.0);
    outcome_free(&o);
    free(b);
    cmrs_csr_free(&A);
}

/* Neumann Laplacian with b outside its range: no solution. Must stop
 * with a non-converged reason, never hang. */
static void test_singular(void)
{
    cmrs_csr A;
    neumann1d(&A, 50);
    double b[50] = {0};
    b[0] = 1.0;
    for (int m = 0; m < 2; ++m) {
        for (int pc = 0; pc < 2; ++pc) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, (cmrs_pc)pc, 1e-10);
            outcome o = solve_cpu(&A, b, NULL, &op);
            CHECK(o.rc == CMRS_OK && !cmrs_ksp_reason_converged(o.r.reason) &&
                      o.r.iterations <= cmrs_default_maxiter(50),
                  "singular %s/%s: %s after %lld its", cmrs_method_name(m),
                  cmrs_pc_name(pc), cmrs_ksp_reason_name(o.r.reason),
                  (long long)o.r.iterations);
            outcome_free(&o);
        }
    }
    cmrs_csr_free(&A);
}

static void test_nan(void)
{
    cmrs_csr L;
    lap2d(&L, 6);
    double *b = rhs_for(&L, NULL);
    b[7] = NAN;
    for (int m = 0; m < 2; ++m) {
        cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-8);
        outcome o = solve_cpu(&L, b, NULL, &op);
        CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_NANORINF &&
                  o.r.iterations == 0,
              "NaN in b: %s after %lld its", cmrs_ksp_reason_name(o.r.reason),
              (long long)o.r.iterations);
        CHECK(cmrs_ksp_reason_exit_code(o.r.reason) == CMRS_EXIT_BREAKDOWN,
              "NaN exit code");
        outcome_free(&o);
    }
    free(b);
    cmrs_csr_free(&L);
}

int main(void)
{
    test_converge();
    test_maxits_and_atol();
    test_breakdown();
    test_singular();
    test_nan();
    return check_summary();
}
