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
    agree_systems s;
    agree_systems_make(&s);
    agree("lap2d", &s.L, s.bl, CMRS_METHOD_CG, 1);
    agree("lap2d", &s.L, s.bl, CMRS_METHOD_BICGSTAB, 1);
    agree("upwind2d", &s.U, s.bu, CMRS_METHOD_BICGSTAB, 1);
    if (s.vessel.b)
        agree("vessel", &s.vessel.A, s.vessel.b, CMRS_METHOD_CG, 0);
    agree_systems_free(&s);
}

/* b = 0 (with a nonzero x0 that must not survive) and 1x1, with every
 * format. */
static void test_small(void)
{
    small_systems s;
    small_systems_make(&s);
    for (size_t i = 0; i < cmrs_spmv_format_count(); ++i) {
        const char *fmt = cmrs_spmv_format_at(i)->name;
        for (int m = 0; m < 2; ++m) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-10);
            expect_small_solves(&s, fmt, fmt, fmt, CMRS_PREC_SINGLE, &op);
        }
    }
    small_systems_free(&s);
}

static void test_reasons(void)
{
    double d[40];
    for (int i = 0; i < 40; ++i) d[i] = i % 2 ? -1.0 : 1.0;
    reason_systems s;
    reason_systems_make(&s, d, 16);
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
    outcome o = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &s.A, s.b, NULL, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_BREAKDOWN,
          "GPU CG on an indefinite matrix: %s", o.rc ? cmrs_error_message()
          : cmrs_ksp_reason_name(o.r.reason));
    outcome_free(&o);
    op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-12);
    op.maxiter = 4;
    o = solve_gpu("cusparse", CMRS_PREC_DOUBLE, &s.L, s.bl, NULL, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_MAXITS &&
              o.r.iterations == 4 && o.monitor_calls == 5 && o.hist[4] < 1.0,
          "GPU maxits: %s", o.rc ? cmrs_error_message()
          : cmrs_ksp_reason_name(o.r.reason));
    outcome_free(&o);
    reason_systems_free(&s);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    return CHECK_RUN(test_agreement, test_small, test_reasons);
}
