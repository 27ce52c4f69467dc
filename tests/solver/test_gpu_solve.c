/* The GPU back end against the CPU reference: with every SpMV format of the
 * registry and both precisions, CG and BiCGStab agree with the CPU solve
 * (iterations within a few, true residual below the tolerance, x close),
 * plus b = 0, a 1x1 system, breakdown and maxits on the GPU. */
#include "cases/cases.h"
#include "base/gpu/cuda_check.h"
#include "tsolve.h"

/* One system, one method: the CPU reference, then every format in double
 * and, for well-conditioned systems (single = 1), in single (rtol 1e-5,
 * true residual checked to 1e-4: a float recursive residual drifts from
 * the true one by about eps_float * cond(A)). */
static void agree(const char *name, const cmrs_csr *A, const double *b,
                  cmrs_method m, int single)
{
    for (int p = 0; p < 1 + single; ++p) {
        cmrs_prec prec = (cmrs_prec)p;
        double rtol = prec == CMRS_PREC_SINGLE ? 1e-5 : 1e-9;
        double slack = prec == CMRS_PREC_SINGLE ? 10.0 : 2.0;
        cmrs_ksp_opts op = opts_of(m, CMRS_PC_JACOBI, rtol);
        outcome ref = solve_cpu(A, b, NULL, &op);
        for (size_t i = 0; i < cmrs_spmv_format_count(); ++i) {
            const char *fmt = cmrs_spmv_format_at(i)->name;
            char what[128];
            snprintf(what, sizeof what, "%s %s %s %s", name,
                     cmrs_method_name(m), fmt, cmrs_prec_name(prec));
            outcome o = solve_gpu(fmt, prec, A, b, NULL, &op);
            if (float_bicgstab_stop(what, A, b, &o, m, prec, rtol)) {
                outcome_free(&o);
                continue;
            }
            expect_converged(what, A, b, NULL, &o, rtol, slack);
            if (o.rc == CMRS_OK) {
                CHECK(close_its(o.r.iterations, ref.r.iterations, 3, 10),
                      "%s: %lld iterations, CPU %lld", what,
                      (long long)o.r.iterations, (long long)ref.r.iterations);
                double err = cmrs_ref_rel_err(A->rows, o.x, ref.x);
                CHECK(err < 1e3 * rtol, "%s: x differs from the CPU's by %g",
                      what, err);
            }
            outcome_free(&o);
        }
        outcome_free(&ref);
    }
}

static void test_agreement(void)
{
    cmrs_csr L, U;
    lap2d(&L, 16);
    upwind2d(&U, 16, 2.0);
    double *bl = rhs_for(&L, NULL), *bu = rhs_for(&U, NULL);
    agree("lap2d", &L, bl, CMRS_METHOD_CG, 1);
    agree("lap2d", &L, bl, CMRS_METHOD_BICGSTAB, 1);
    agree("upwind2d", &U, bu, CMRS_METHOD_BICGSTAB, 1);
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    cmrs_vessel_opts vo = {.cells = 5000, .seed = 3};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    if (sys.b) agree("vessel", &sys.A, sys.b, CMRS_METHOD_CG, 0);
    cmrs_system_free(&sys);
    free(bl);
    free(bu);
    cmrs_csr_free(&L);
    cmrs_csr_free(&U);
}

/* b = 0 (with a nonzero x0 that must not survive) and 1x1, with every
 * format. */
static void test_small(void)
{
    double d1[1] = {4.0}, b1[1] = {2.0};
    cmrs_csr A1, L;
    tridiag(&A1, 1, d1, 0.0);
    lap2d(&L, 5);
    double b0[25] = {0}, x0[25]; /* x0 must be ignored when b = 0 */
    for (int k = 0; k < 25; ++k) x0[k] = 1.0 + k;
    for (size_t i = 0; i < cmrs_spmv_format_count(); ++i) {
        const char *fmt = cmrs_spmv_format_at(i)->name;
        for (int m = 0; m < 2; ++m) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-10);
            outcome o = solve_gpu(fmt, CMRS_PREC_DOUBLE, &A1, b1, NULL, &op);
            CHECK(o.rc == CMRS_OK && cmrs_ksp_reason_converged(o.r.reason) &&
                      o.r.iterations == 1 && fabs(o.x[0] - 0.5) < 1e-14,
                  "1x1 %s %s: %s", fmt, cmrs_method_name(m),
                  o.rc ? cmrs_error_message() : cmrs_ksp_reason_name(o.r.reason));
            outcome_free(&o);
            o = solve_gpu(fmt, CMRS_PREC_SINGLE, &L, b0, x0, &op);
            int zero = o.rc == CMRS_OK;
            for (int k = 0; zero && k < 25; ++k) zero = o.x[k] == 0.0;
            CHECK(zero && o.r.iterations == 0, "b = 0 %s %s: %s", fmt,
                  cmrs_method_name(m), o.rc ? cmrs_error_message() : "x != 0");
            outcome_free(&o);
        }
    }
    cmrs_csr_free(&A1);
    cmrs_csr_free(&L);
}

static void test_reasons(void)
{
    enum { n = 40 };
    double d[n];
    for (int i = 0; i < n; ++i) d[i] = i % 2 ? -1.0 : 1.0;
    cmrs_csr A, L;
    tridiag(&A, n, d, 0.1);
    lap2d(&L, 16);
    double *b = rhs_for(&A, NULL), *bl = rhs_for(&L, NULL);
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
    outcome o = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &A, b, NULL, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_BREAKDOWN,
          "GPU CG on an indefinite matrix: %s", o.rc ? cmrs_error_message()
          : cmrs_ksp_reason_name(o.r.reason));
    outcome_free(&o);
    op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-12);
    op.maxiter = 4;
    o = solve_gpu("cusparse", CMRS_PREC_DOUBLE, &L, bl, NULL, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_MAXITS &&
              o.r.iterations == 4 && o.monitor_calls == 5 && o.hist[4] < 1.0,
          "GPU maxits: %s", o.rc ? cmrs_error_message()
          : cmrs_ksp_reason_name(o.r.reason));
    outcome_free(&o);
    free(b);
    free(bl);
    cmrs_csr_free(&A);
    cmrs_csr_free(&L);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    test_agreement();
    test_small();
    test_reasons();
    return check_summary();
}
