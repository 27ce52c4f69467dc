/* The solver engines (cublas, graph, fused) against the CPU reference: for
 * every engine x method x SpMV format, the reason, the iteration count
 * (within a few) and x agree with the CPU solve; convergence in the middle
 * of a graph block, b = 0, a 1x1 system, maxiter (also mid-block),
 * breakdown; the no-op iterations after the stop change nothing (x is
 * bitwise the same for every --check-every); fused and graph are bitwise
 * repeatable run to run. Fused CG over cmrs takes p'q from the SpMV
 * (rows and tile kernels both run here); CMRS_SPMV_DOT=0 (a pq kernel)
 * agrees with it. */
#include "cases/cases.h"
#include "base/gpu/cuda_check.h"
#include "tsolve.h"

static const cmrs_engine k_engines[] = {CMRS_ENGINE_CUBLAS, CMRS_ENGINE_GRAPH,
                                        CMRS_ENGINE_FUSED};
#define NENGINES 3

/* One engine, format and precision against the CPU outcome `ref`. */
static void agree_one(const char *what, const cmrs_csr *A, const double *b,
                      const cmrs_ksp_opts *op, const char *fmt,
                      cmrs_prec prec, const outcome *ref)
{
    double slack = prec == CMRS_PREC_SINGLE ? 10.0 : 2.0;
    outcome o = solve_gpu(fmt, prec, A, b, NULL, op);
    if (float_bicgstab_stop(what, A, b, &o, op->method, prec, op->rtol)) {
        outcome_free(&o);
        return;
    }
    expect_converged(what, A, b, NULL, &o, op->rtol, slack);
    if (o.rc == CMRS_OK) {
        CHECK(o.r.engine == op->engine, "%s: ran engine %s", what,
              cmrs_engine_name(o.r.engine));
        /* Single-precision BiCGStab at rtol 1e-5 runs near float's limit:
         * a summation order changed by atomics (hyb's COO part, run to
         * run) moved it from 26 to 31 iterations on lap2d (H200). */
        const int64_t part =
            prec == CMRS_PREC_SINGLE && op->method == CMRS_METHOD_BICGSTAB ? 5
                                                                          : 20;
        CHECK(close_its(o.r.iterations, ref->r.iterations, 3, part),
              "%s: %lld iterations, CPU %lld", what,
              (long long)o.r.iterations, (long long)ref->r.iterations);
        double err = cmrs_ref_rel_err(A->rows, o.x, ref->x);
        CHECK(err < 1e3 * op->rtol, "%s: x differs from the CPU's by %g",
              what, err);
    }
    outcome_free(&o);
}

/* Every engine and format (double; single too when `single`). */
static void agree(const char *name, const cmrs_csr *A, const double *b,
                  cmrs_method m, cmrs_pc pc, int single)
{
    for (int p = 0; p < 1 + single; ++p) {
        cmrs_prec prec = (cmrs_prec)p;
        cmrs_ksp_opts op =
            opts_of(m, pc, prec == CMRS_PREC_SINGLE ? 1e-5 : 1e-9);
        outcome ref = solve_cpu(A, b, NULL, &op);
        for (int e = 0; e < NENGINES; ++e)
            for (size_t i = 0; i < cmrs_spmv_format_count(); ++i) {
                const char *fmt = cmrs_spmv_format_at(i)->name;
                char what[160];
                op.engine = k_engines[e];
                snprintf(what, sizeof what, "%s %s+%s %s %s %s", name,
                         cmrs_method_name(m), cmrs_pc_name(pc), fmt,
                         cmrs_prec_name(prec), cmrs_engine_name(op.engine));
                agree_one(what, A, b, &op, fmt, prec, &ref);
            }
        outcome_free(&ref);
    }
}

static void test_agreement(void)
{
    agree_systems s;
    agree_systems_make(&s);
    const cmrs_system *v = &s.vessel;
    agree("lap2d", &s.L, s.bl, CMRS_METHOD_CG, CMRS_PC_JACOBI, 1);
    agree("lap2d", &s.L, s.bl, CMRS_METHOD_CG, CMRS_PC_NONE, 0);
    agree("lap2d", &s.L, s.bl, CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1);
    agree("upwind2d", &s.U, s.bu, CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, 1);
    agree("upwind2d", &s.U, s.bu, CMRS_METHOD_BICGSTAB, CMRS_PC_NONE, 0);
    if (v->b) agree("vessel", &v->A, v->b, CMRS_METHOD_CG, CMRS_PC_JACOBI, 0);
    /* The default picks the rows kernel below 1M rows: the tile kernel's
     * p'q epilogue in the fused loop too. */
    setenv("CMRS_CMRS_VARIANT", "tile", 1);
    agree("lap2d tile", &s.L, s.bl, CMRS_METHOD_CG, CMRS_PC_JACOBI, 1);
    if (v->b)
        agree("vessel tile", &v->A, v->b, CMRS_METHOD_CG, CMRS_PC_NONE, 0);
    /* Stored reordered (P A P^T): the gathers around every product and the
     * p'q epilogue over P x. */
    setenv("CMRS_CMRS_VARIANT", "reorder", 1);
    agree("lap2d reorder", &s.L, s.bl, CMRS_METHOD_CG, CMRS_PC_JACOBI, 1);
    agree("upwind2d reorder", &s.U, s.bu, CMRS_METHOD_BICGSTAB,
          CMRS_PC_JACOBI, 1);
    if (v->b)
        agree("vessel reorder", &v->A, v->b, CMRS_METHOD_CG, CMRS_PC_JACOBI, 0);
    unsetenv("CMRS_CMRS_VARIANT");
    agree_systems_free(&s);
}

static int same_bits(const double *a, const double *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Fused CG with the pq kernel (CMRS_SPMV_DOT=0) against the SpMV's p'q
 * epilogue (`with`): the same iterations within a few, x close. */
static void check_no_dot(const cmrs_system *sys, const cmrs_ksp_opts *op,
                         const outcome *with)
{
    setenv("CMRS_SPMV_DOT", "0", 1);
    outcome o = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &sys->A, sys->b, NULL, op);
    unsetenv("CMRS_SPMV_DOT");
    CHECK(o.rc == CMRS_OK && with->rc == CMRS_OK &&
              cmrs_ksp_reason_converged(o.r.reason) &&
              close_its(o.r.iterations, with->r.iterations, 3, 20) &&
              cmrs_ref_rel_err(sys->A.rows, o.x, with->x) < 1e-6,
          "fused CG without the SpMV's p'q: %s, %lld iterations against %lld",
          outcome_why(&o), (long long)o.r.iterations,
          (long long)with->r.iterations);
    outcome_free(&o);
}

/* x and the history bitwise equal for --check-every 1, 7, 32 (the no-op
 * iterations after the stop change nothing) and over two runs. */
static void test_blocks_and_repeats(void)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    cmrs_vessel_opts vo = {.cells = 20000, .seed = 5};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    if (!sys.b) return;
    int64_t n = sys.A.rows;
    static const int every[] = {32, 1, 7, 32};
    for (int e = 1; e < NENGINES; ++e)
        for (int m = 0; m < 2; ++m) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-9);
            op.engine = k_engines[e];
            outcome first;
            memset(&first, 0, sizeof first);
            for (int i = 0; i < 4; ++i) {
                op.check_every = every[i];
                outcome o = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &sys.A, sys.b,
                                      NULL, &op);
                CHECK(o.rc == CMRS_OK && cmrs_ksp_reason_converged(o.r.reason),
                      "%s %s every %d: %s", cmrs_engine_name(op.engine),
                      cmrs_method_name(op.method), every[i], outcome_why(&o));
                if (i == 0) { first = o; continue; }
                int same = o.rc == CMRS_OK && first.rc == CMRS_OK &&
                           o.r.iterations == first.r.iterations &&
                           same_bits(o.x, first.x, n) &&
                           same_bits(o.hist, first.hist, o.r.iterations + 1);
                CHECK(same, "%s %s: check-every %d (run %d) differs from 32 "
                      "(%lld vs %lld its)", cmrs_engine_name(op.engine),
                      cmrs_method_name(op.method), every[i], i,
                      (long long)o.r.iterations,
                      (long long)first.r.iterations);
                outcome_free(&o);
            }
            if (e == 2 && m == CMRS_METHOD_CG) check_no_dot(&sys, &op, &first);
            outcome_free(&first);
        }
    cmrs_system_free(&sys);
}

/* b = 0 and a 1x1 system, every engine and method. */
static void test_small(void)
{
    small_systems s;
    small_systems_make(&s);
    for (int e = 0; e < NENGINES; ++e)
        for (int m = 0; m < 2; ++m) {
            cmrs_ksp_opts op = opts_of((cmrs_method)m, CMRS_PC_JACOBI, 1e-10);
            op.engine = k_engines[e];
            expect_small_solves(&s, cmrs_engine_name(op.engine), "cmrs",
                                "cusparse", CMRS_PREC_DOUBLE, &op);
        }
    small_systems_free(&s);
}

/* Largest relative difference of histories a and b over entries 0..to. */
static double hist_diff(const double *a, const double *b, int64_t to)
{
    double worst = 0.0;
    for (int64_t k = 0; k <= to; ++k) {
        double d = fabs(a[k] - b[k]) / (fabs(b[k]) + 1e-300);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* maxiter stops exactly at maxit (also inside a graph block) with the
 * CPU's history: the first 10 entries to 1e-6, later ones to 1e-2 (BiCGStab
 * amplifies rounding differences from one iteration to the next). */
static void check_maxiter(cmrs_engine e, cmrs_method m, int64_t maxit,
                          const cmrs_csr *L, const double *bl, const char *fmt)
{
    cmrs_ksp_opts op = opts_of(m, CMRS_PC_JACOBI, 1e-14);
    op.engine = e;
    op.maxiter = maxit;
    outcome ref = solve_cpu(L, bl, NULL, &op);
    outcome o = solve_gpu(fmt, CMRS_PREC_DOUBLE, L, bl, NULL, &op);
    int ok = ref.rc == CMRS_OK && ref.r.iterations == maxit &&
             o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_MAXITS &&
             o.r.iterations == maxit && o.monitor_calls == maxit + 1;
    double early = ok ? hist_diff(o.hist, ref.hist, maxit < 10 ? maxit : 10)
                      : 1.0;
    double all = ok ? hist_diff(o.hist, ref.hist, maxit) : 1.0;
    CHECK(ok && early <= 1e-6 && all <= 1e-2, "%s %s %s maxiter %lld: %s after "
          "%lld (CPU %lld); history differs from the CPU's by %.2e (first "
          "10), %.2e (all)", fmt, cmrs_engine_name(e), cmrs_method_name(m),
          (long long)maxit, outcome_why(&o), (long long)o.r.iterations,
          (long long)ref.r.iterations, early, all);
    outcome_free(&o);
    outcome_free(&ref);
}

/* maxiter stops (check_maxiter); CG on a negative definite matrix breaks
 * down at once (p'Ap < 0 by a wide margin: rounding cannot move it). */
static void test_reasons(void)
{
    double d[40];
    for (int i = 0; i < 40; ++i) d[i] = -1.0;
    reason_systems s;
    reason_systems_make(&s, d, 24);
    for (int e = 1; e < NENGINES; ++e) {
        const char *en = cmrs_engine_name(k_engines[e]);
        cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
        op.engine = k_engines[e];
        outcome ref = solve_cpu(&s.A, s.b, NULL, &op);
        outcome o = solve_gpu("cmrs", CMRS_PREC_DOUBLE, &s.A, s.b, NULL, &op);
        CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_BREAKDOWN &&
                  o.r.iterations == ref.r.iterations,
              "%s CG, negative definite: %s after %lld (CPU %lld)", en,
              outcome_why(&o), (long long)o.r.iterations,
              (long long)ref.r.iterations);
        outcome_free(&o);
        outcome_free(&ref);
    }
    for (int e = 0; e < NENGINES; ++e)
        for (int m = 0; m < 2; ++m) {
            cmrs_engine en = k_engines[e];
            cmrs_method me = (cmrs_method)m;
            check_maxiter(en, me, 4, &s.L, s.bl, "cusparse");
            check_maxiter(en, me, 37, &s.L, s.bl, "cusparse");
            check_maxiter(en, me, 37, &s.L, s.bl, "cmrs");
        }
    reason_systems_free(&s);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    return CHECK_RUN(test_agreement, test_blocks_and_repeats, test_small,
                     test_reasons);
}
