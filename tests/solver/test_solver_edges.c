/* Edge cases of the solvers on the CPU back end: b = 0, a 1x1 system, an
 * exact initial guess, repeated solves, timing-only solves with their
 * iteration limit changed between solves, Jacobi on bad diagonals,
 * refused requests, and the generated cases of cases/. */
#include "cases/cases.h"
#include "tsolve.h"

static void test_zero_rhs(void)
{
    cmrs_csr L;
    lap2d(&L, 5);
    double b[25] = {0}, x0[25];
    for (int i = 0; i < 25; ++i) x0[i] = 3.0 + i; /* must be ignored */
    for (int m = 0; m < 2; ++m) {
        cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-8);
        outcome o = solve_cpu(&L, b, x0, &op);
        int zero = o.x != NULL;
        for (int i = 0; zero && i < 25; ++i) zero = o.x[i] == 0.0;
        CHECK(o.rc == CMRS_OK && cmrs_ksp_reason_converged(o.r.reason) &&
                  o.r.iterations == 0 && zero && o.hist[0] == 0.0 &&
                  o.r.true_norm == 0.0,
              "b = 0 (%s): %s, %lld its, x zero %d",
              cmrs_method_name(op.method), cmrs_ksp_reason_name(o.r.reason),
              (long long)o.r.iterations, zero);
        outcome_free(&o);
    }
    cmrs_csr_free(&L);
}

static void test_one_by_one(void)
{
    double d[1] = {4.0}, b[1] = {2.0};
    cmrs_csr A;
    tridiag(&A, 1, d, 0.0);
    for (int m = 0; m < 2; ++m) {
        for (int pc = 0; pc < 2; ++pc) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, (cmrs_pc)pc, 1e-12);
            outcome o = solve_cpu(&A, b, NULL, &op);
            CHECK(o.rc == CMRS_OK && cmrs_ksp_reason_converged(o.r.reason) &&
                      o.r.iterations == 1 && fabs(o.x[0] - 0.5) < 1e-15,
                  "1x1 %s/%s: %s, %lld its, x = %g", cmrs_method_name(m),
                  cmrs_pc_name(pc), cmrs_ksp_reason_name(o.r.reason),
                  (long long)o.r.iterations, o.x ? o.x[0] : NAN);
            outcome_free(&o);
        }
    }
    cmrs_csr_free(&A);
}

/* x0 = the solution: 0 iterations. x0 near it: fewer iterations. */
static void test_initial_guess(void)
{
    cmrs_csr L;
    lap2d(&L, 12);
    double *xs, *b = rhs_for(&L, &xs);
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-6);
    outcome exact = solve_cpu(&L, b, xs, &op);
    CHECK(exact.rc == CMRS_OK && exact.r.iterations == 0 &&
              exact.r.reason == CMRS_CONVERGED_RTOL,
          "x0 exact: %lld its", (long long)exact.r.iterations);
    outcome cold = solve_cpu(&L, b, NULL, &op);
    for (int64_t i = 0; i < L.rows; ++i) xs[i] *= 1.0 + 1e-4;
    outcome warm = solve_cpu(&L, b, xs, &op);
    CHECK(warm.rc == CMRS_OK && cold.rc == CMRS_OK &&
              warm.r.iterations < cold.r.iterations,
          "warm start %lld its, cold %lld", (long long)warm.r.iterations,
          (long long)cold.r.iterations);
    outcome_free(&exact);
    outcome_free(&cold);
    outcome_free(&warm);
    free(xs);
    free(b);
    cmrs_csr_free(&L);
}

/* A solver with options op on the CPU back end for the 10x10 Laplacian,
 * and b from rhs_for (set_rhs left to the test). */
typedef struct cpu_solver {
    cmrs_csr L;
    double *b;
    cmrs_backend *be;
    cmrs_ksp *s;
} cpu_solver;

static void cpu_solver_make(cpu_solver *c, const cmrs_ksp_opts *op)
{
    memset(c, 0, sizeof *c);
    lap2d(&c->L, 10);
    c->b = rhs_for(&c->L, NULL);
    CHECK_OK(cmrs_backend_cpu_create(&c->L, CMRS_PREC_DOUBLE, &c->be));
    CHECK_OK(cmrs_ksp_create(c->be, &c->L, op, "t", &c->s));
}

static void cpu_solver_free(cpu_solver *c)
{
    cmrs_ksp_destroy(c->s);
    cmrs_backend_destroy(c->be);
    free(c->b);
    cmrs_csr_free(&c->L);
}

/* Two solves with one solver: the same iterates (compare relies on it). */
static void test_repeat(void)
{
    cpu_solver c;
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1e-9);
    cmrs_ksp_result r1, r2;
    cpu_solver_make(&c, &op);
    CHECK_OK(cmrs_ksp_set_rhs(c.s, c.b, NULL));
    CHECK_OK(cmrs_ksp_solve(c.s, &r1));
    double x1 = r1.x[17];
    CHECK_OK(cmrs_ksp_solve(c.s, &r2));
    CHECK(r1.iterations == r2.iterations && x1 == r2.x[17] &&
              r2.reason == CMRS_CONVERGED_RTOL,
          "repeat: %lld vs %lld its", (long long)r1.iterations,
          (long long)r2.iterations);
    cpu_solver_free(&c);
}

/* The kernel choice's solves (api/kernel_choice.c): timing only (no true
 * residual, x not copied back) and the limit set per solve, within the
 * one the solver was made with (others ignored); the iterates those of
 * a plain solve of as many iterations. */
static void test_timing_only(void)
{
    cpu_solver c;
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 0.0);
    op.maxiter = 20;
    cmrs_ksp_result r;
    cpu_solver_make(&c, &op);
    cmrs_ksp_set_timing_only(c.s);
    CHECK_OK(cmrs_ksp_set_rhs(c.s, c.b, NULL));
    /* above the solver's 20, 0 and negative: ignored (not clamped) */
    const int64_t limits[] = {5, 50, 0, -3, 20}, want[] = {5, 5, 5, 5, 20};
    for (int i = 0; i < 5; ++i) {
        cmrs_ksp_set_maxiter(c.s, limits[i]);
        memset(&r, 0, sizeof r);
        CHECK_OK(cmrs_ksp_solve(c.s, &r));
        CHECK(r.iterations == want[i] && r.reason == CMRS_DIVERGED_MAXITS &&
                  isnan(r.true_norm) && r.x == NULL && r.res_norm > 0,
              "timing only, limit %lld: %lld its (%s), true %g, x %p",
              (long long)limits[i], (long long)r.iterations,
              cmrs_ksp_reason_name(r.reason), r.true_norm, (void *)r.x);
    }
    /* the same recursive residual as a plain solve of 20 iterations */
    outcome plain = solve_cpu(&c.L, c.b, NULL, &op);
    CHECK(plain.rc == CMRS_OK && plain.r.iterations == 20 &&
              plain.r.res_norm == r.res_norm && isfinite(plain.r.true_norm),
          "plain: %lld its, residual %g against %g", (long long)plain.r.iterations,
          plain.r.res_norm, r.res_norm);
    outcome_free(&plain);
    cpu_solver_free(&c);
}

/* The one check of test_jacobi_errors' cases: the solve fails with
 * CMRS_E_INPUT, its message naming `row` and `why`. */
static void expect_refused(const char *name, const cmrs_csr *A,
                           const double *b, const cmrs_ksp_opts *op,
                           const char *row, const char *why)
{
    outcome o = solve_cpu(A, b, NULL, op);
    const char *msg = cmrs_error_message();
    CHECK(o.rc == CMRS_E_INPUT && strstr(msg, row) && strstr(msg, why),
          "%s: %s", name, msg);
    outcome_free(&o);
}

/* Jacobi on a zero, negative or missing diagonal: CMRS_E_INPUT naming the
 * row; `none` works on the same matrix where it can. */
static void test_jacobi_errors(void)
{
    double d[4] = {2, 0, 2, 2}, b[4] = {1, 1, 1, 1};
    cmrs_csr A;
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1e-8);
    tridiag(&A, 4, d, 1.0);
    expect_refused("zero diagonal", &A, b, &op, "row 1", "zero diagonal");
    A.values[A.indptr[2] + 1] = -2.0; /* row 2's diagonal */
    A.values[A.indptr[1] + 1] = 2.0;
    expect_refused("negative diagonal", &A, b, &op, "row 2", "solve -A");
    cmrs_csr_free(&A);
    cmrs_csr_alloc(&A, 2, 2, 2); /* [1 0; 1 (none)]: row 1 has no a_11 */
    A.indptr[1] = 1; A.indptr[2] = 2;
    A.indices[0] = 0; A.indices[1] = 0;
    A.values[0] = 1; A.values[1] = 1;
    expect_refused("missing diagonal", &A, b, &op, "row 1", "no diagonal");
    cmrs_csr_free(&A);
}

/* D^-1 by threads (CMRS_HOST_THREADS=4 on 1.2M rows: 4 chunks): the
 * serial loop's values, and with bad rows in two chunks the first one
 * named (its message, as the serial loop gave it). */
static void test_jacobi_threads(void)
{
    int64_t n = 1200000;
    double *d = malloc((size_t)n * sizeof *d), *dinv = malloc((size_t)n * 8);
    cmrs_csr A;
    for (int64_t i = 0; i < n; ++i) d[i] = 1.0 + (double)(i % 7);
    tridiag(&A, n, d, -0.25);
    setenv("CMRS_HOST_THREADS", "4", 1);
    CHECK_OK(cmrs_jacobi_inverse_diagonal(&A, "t", dinv));
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += dinv[i] != 1.0 / d[i];
    CHECK(wrong == 0, "D^-1 by threads: %lld rows differ", (long long)wrong);
    A.values[A.indptr[1000000] + 1] = 0.0;  /* chunk 3 */
    A.values[A.indptr[700000] + 1] = -1.0;  /* chunk 2: the first */
    CHECK(cmrs_jacobi_inverse_diagonal(&A, "t", dinv) == CMRS_E_INPUT &&
              strstr(cmrs_error_message(), "row 700000 ") &&
              strstr(cmrs_error_message(), "negative diagonal"),
          "two bad rows by threads: %s", cmrs_error_message());
    unsetenv("CMRS_HOST_THREADS");
    cmrs_csr_free(&A);
    free(d);
    free(dinv);
}

static void test_refusals(void)
{
    cmrs_csr A;
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    lap2d(&A, 2);
    CHECK_FAILS(cmrs_backend_cpu_create(&A, CMRS_PREC_SINGLE, &be),
                CMRS_E_USAGE, "double only");
    CHECK_OK(cmrs_backend_cpu_create(&A, CMRS_PREC_DOUBLE, &be));
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, -1.0);
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "t", &s),
                CMRS_E_USAGE, "rtol");
    op.rtol = 1e-8;
    op.maxiter = CMRS_MAXITER_LIMIT + 1;
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "t", &s),
                CMRS_E_USAGE, "maxiter");
    A.cols = 5;
    op.maxiter = 0;
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "sys.h5", &s),
                CMRS_E_INPUT, "sys.h5: the matrix is 4 x 5");
    A.cols = 4;
    /* --precision mixed needs a back end with twins (the GPU): refused
     * here whichever mode, with the preconditioner that would use it */
    op.mixed = CMRS_MIXED_REFINE;
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "t", &s), CMRS_E_USAGE,
                "--precision mixed: the cpu back end computes in double");
    op.pc = CMRS_PC_AMG;
    op.mixed = CMRS_MIXED_AUTO;
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "t", &s), CMRS_E_USAGE,
                "mixed precision runs on the GPU");
    op.pc = CMRS_PC_JACOBI;
    CHECK_FAILS(cmrs_ksp_create(be, &A, &op, "t", &s), CMRS_E_USAGE,
                "the cpu back end computes in double only");
    op.mixed = CMRS_MIXED_OFF;
    CHECK(s == NULL, "no solver after a failure");
    CHECK(cmrs_default_maxiter(1) == 10 && cmrs_default_maxiter(5000) ==
              50000 && cmrs_default_maxiter(1 << 30) == 100000,
          "default maxiter");
    cmrs_backend_destroy(be);
    cmrs_csr_free(&A);
}

/* The project's generators: Poisson and the vessel with CG, the
 * convection-diffusion case with BiCGStab. */
static void solve_generated(const char *name, cmrs_code gen_rc,
                            cmrs_system *sys, cmrs_method m)
{
    CHECK(gen_rc == CMRS_OK, "%s: %s", name, cmrs_error_message());
    if (gen_rc != CMRS_OK) return;
    cmrs_ksp_opts op = opts_of(m, CMRS_PC_JACOBI, 1e-8);
    outcome o = solve_cpu(&sys->A, sys->b, NULL, &op);
    expect_converged(name, &sys->A, sys->b, NULL, &o, 1e-8, 2.0);
    outcome_free(&o);
    cmrs_system_free(sys);
}

static void test_generated(void)
{
    cmrs_system sys;
    cmrs_poisson_opts po = {.n = 12, .stencil = 7, .contrast = 0, .seed = 1};
    cmrs_poisson_opts pc = {.n = 10, .stencil = 27, .contrast = 3, .seed = 1};
    cmrs_vessel_opts vo = {.cells = 3000, .seed = 1};
    cmrs_convdiff_opts co = {.n = 10, .peclet = 5.0, .seed = 2};
    solve_generated("poisson3d cg", cmrs_gen_poisson3d(&po, &sys), &sys,
                    CMRS_METHOD_CG);
    solve_generated("poisson3d 27pt contrast cg",
                    cmrs_gen_poisson3d(&pc, &sys), &sys, CMRS_METHOD_CG);
    solve_generated("vessel cg", cmrs_gen_vessel(&vo, &sys), &sys,
                    CMRS_METHOD_CG);
    solve_generated("convdiff bicgstab", cmrs_gen_convdiff(&co, &sys), &sys,
                    CMRS_METHOD_BICGSTAB);
}

int main(void)
{
    test_zero_rhs();
    test_one_by_one();
    test_initial_guess();
    test_repeat();
    test_timing_only();
    test_jacobi_errors();
    test_jacobi_threads();
    test_refusals();
    test_generated();
    return check_summary();
}
