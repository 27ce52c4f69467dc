/* The preconditioners on the CPU reference back end: Chebyshev and AMG
 * PCG converge (true residual), in fewer iterations than Jacobi; the AMG
 * V-cycle and the Chebyshev polynomial are symmetric positive operators;
 * a values-only update equals a fresh setup; bad input gives a clear
 * error; the hierarchy is reported, and the profile's byte floor matches a
 * count by hand; rho folded into the smoothers' diagonals gives the same
 * polynomials. */
#include <math.h>

#include "solver/amg/amg.h"
#include "solver/pc/pc_start.h"
#include "tprecond.h"

static void test_converges(const char *name, const cmrs_system *sys)
{
    cmrs_ksp_opts jo = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-8);
    cmrs_ksp_opts co = opts_of(CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV, 1e-8);
    outcome j = solve_cpu(&sys->A, sys->b, NULL, &jo);
    outcome c = solve_cpu(&sys->A, sys->b, NULL, &co);
    expect_converged(name, &sys->A, sys->b, NULL, &j, 1e-8, 2.0);
    expect_converged(name, &sys->A, sys->b, NULL, &c, 1e-8, 2.0);
    /* Degree 3: about a third of Jacobi's count, at most a half. */
    CHECK(c.r.iterations * 2 < j.r.iterations, "%s: chebyshev %lld its, "
          "jacobi %lld", name, (long long)c.r.iterations,
          (long long)j.r.iterations);
    for (int v = 0; v < AMG_VARIANTS; ++v) {
        cmrs_ksp_opts ao = amg_opts(v, 1e-8);
        outcome a = solve_cpu(&sys->A, sys->b, NULL, &ao);
        expect_converged(amg_variant_name(v), &sys->A, sys->b, NULL, &a,
                         1e-8, 2.0);
        /* With one Jacobi sweep a side (the default) or Chebyshev of
         * degree 2: smoothed aggregation (0, 2, 4) a quarter of Jacobi's
         * count at least (a fifth here); plain aggregation, the weaker
         * (docs/AMG.md), a third; handshake plain, weaker on uniform
         * Poisson grids, a half. */
        int64_t part = v == 1 ? 3 : v == 3 ? 2 : 4;
        CHECK(a.r.iterations * part < j.r.iterations,
              "%s, %s: %lld its (jacobi %lld)", name, amg_variant_name(v),
              (long long)a.r.iterations, (long long)j.r.iterations);
        /* The default's own bound: goal 1 of issue 12 is <= 40 at any
         * size; these small cases take 24 and 12 with one sweep a side
         * (2026-11-28; 15 and 9 with two). */
        CHECK(v != 0 || a.r.iterations <= 30, "%s, default amg: %lld its "
              "(> 30)", name, (long long)a.r.iterations);
        printf("%s: jacobi %lld, chebyshev %lld, amg %s %lld iterations\n",
               name, (long long)j.r.iterations, (long long)c.r.iterations,
               amg_variant_name(v), (long long)a.r.iterations);
        outcome_free(&a);
    }
    outcome_free(&j);
    outcome_free(&c);
}

/* M symmetric and positive, for every preconditioner kind. */
static void test_symmetric(const cmrs_system *sys)
{
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_backend_cpu_create(&sys->A, CMRS_PREC_DOUBLE, &be));
    for (int v = 0; be && v <= AMG_VARIANTS; ++v) {
        cmrs_ksp_opts o = v < AMG_VARIANTS ? amg_opts(v, 1e-8)
                                  : opts_of(CMRS_METHOD_CG,
                                            CMRS_PC_CHEBYSHEV, 1e-8);
        cmrs_precond *pc = NULL;
        double asym = 1, xmx = -1;
        CHECK_OK(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "sym", &pc));
        if (pc) CHECK_OK(pc_symmetry(be, pc, &asym, &xmx));
        CHECK(asym < 1e-10 && xmx > 0, "variant %d: asymmetry %.2e, x'Mx "
              "%g", v, asym, xmx);
        if (v == 0 && pc) {
            CHECK(pc->info.levels >= 3, "amg levels %d", pc->info.levels);
            CHECK(pc->info.op_complexity > 1 &&
                      pc->info.op_complexity < 2.5,
                  "operator complexity %g", pc->info.op_complexity);
            for (int l = 1; l < pc->info.levels; ++l)
                CHECK(pc->info.level[l].rows < pc->info.level[l - 1].rows,
                      "level %d does not coarsen", l);
        }
        cmrs_precond_destroy(pc);
    }
    cmrs_backend_destroy(be);
}

/* z = M(A) r after update_values(2A) equals z of a fresh setup on 2A. */
static void test_update(const cmrs_system *sys, int variant)
{
    cmrs_csr A2 = {0};
    CHECK_OK(cmrs_csr_copy(&A2, &sys->A));
    for (int64_t k = 0; k < A2.nnz; ++k) A2.values[k] *= 2.0;
    cmrs_backend *be = NULL, *be2 = NULL;
    CHECK_OK(cmrs_backend_cpu_create(&sys->A, CMRS_PREC_DOUBLE, &be));
    CHECK_OK(cmrs_backend_cpu_create(&A2, CMRS_PREC_DOUBLE, &be2));
    cmrs_ksp_opts o = variant < AMG_VARIANTS ? amg_opts(variant, 1e-8)
                                    : opts_of(CMRS_METHOD_CG,
                                              CMRS_PC_CHEBYSHEV, 1e-8);
    cmrs_precond *pc = NULL, *fresh = NULL;
    CHECK_OK(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "upd", &pc));
    CHECK_OK(cmrs_precond_create(be2, &A2, o.pc, &o.pco, "fresh", &fresh));
    int64_t n = sys->A.rows;
    double *z1 = malloc((size_t)n * 8), *z2 = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; ++i) z1[i] = z2[i] = NAN; /* poisoned */
    /* The CPU back end's A is borrowed: it must see the new values too. */
    memcpy(sys->A.values, A2.values, (size_t)A2.nnz * sizeof *A2.values);
    if (pc && fresh) {
        CHECK_OK(cmrs_precond_update_values(pc, &sys->A, "upd"));
        CHECK_OK(cmrs_precond_apply(pc, sys->b, z1));
        CHECK_OK(cmrs_precond_apply(fresh, sys->b, z2));
        double err = cmrs_ref_rel_err(n, z1, z2);
        CHECK(err < 1e-12, "variant %d: update vs fresh setup: %.2e",
              variant, err);
    }
    for (int64_t k = 0; k < A2.nnz; ++k) sys->A.values[k] *= 0.5;
    free(z1);
    free(z2);
    cmrs_precond_destroy(pc);
    cmrs_precond_destroy(fresh);
    cmrs_backend_destroy(be);
    cmrs_backend_destroy(be2);
    cmrs_csr_free(&A2);
}

/* The operator-complexity guard: the default hierarchy reaches the
 * coarse size with no stop; a bound below it stops coarsening before the
 * level that crosses it, says so, keeps the bound, and PCG still
 * converges (on a weaker cycle); a bound below 1 is a usage error. */
static void test_guard(const cmrs_system *sys)
{
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_backend_cpu_create(&sys->A, CMRS_PREC_DOUBLE, &be));
    for (int k = 0; be && k < 2; ++k) {
        cmrs_ksp_opts o = amg_opts(0, 1e-8);
        if (k) o.pco.amg.max_op_complexity = 1.2;
        cmrs_precond *pc = NULL;
        CHECK_OK(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "g", &pc));
        if (pc && !k)
            CHECK(pc->info.stop[0] == 0 && pc->info.levels >= 3 &&
                      pc->info.op_complexity < 2.5,
                  "default: stop '%s', %d levels, complexity %g",
                  pc->info.stop, pc->info.levels, pc->info.op_complexity);
        if (pc && k)
            CHECK(strstr(pc->info.stop, "operator complexity") &&
                      pc->info.op_complexity <= 1.2 &&
                      pc->info.levels >= 1,
                  "bound 1.2: stop '%s', complexity %g", pc->info.stop,
                  pc->info.op_complexity);
        cmrs_precond_destroy(pc);
        outcome a = solve_cpu(&sys->A, sys->b, NULL, &o);
        expect_converged("guarded amg", &sys->A, sys->b, NULL, &a, 1e-8,
                         2.0);
        outcome_free(&a);
    }
    cmrs_backend_destroy(be);
    cmrs_pc_opts po;
    cmrs_pc_opts_default(&po);
    po.amg.max_op_complexity = 0.5;
    CHECK_FAILS(cmrs_pc_opts_check(&po), CMRS_E_USAGE, "complexity");
}

/* A level that cannot be formed for want of memory (CMRS_AMG_FAIL_LEVEL):
 * level 2's, before its aggregates or after its P and R, makes level 1
 * the coarsest, says so, and PCG converges on the shorter hierarchy;
 * level 1's is the setup's error (AMG would be Jacobi alone), and so is
 * level 2's in amg-parts global's builds (fine_own_op: every part must
 * build the same hierarchy). Without the stop the first setups fail. */
static void test_level_nomem(const cmrs_system *sys)
{
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_backend_cpu_create(&sys->A, CMRS_PREC_DOUBLE, &be));
    if (!be) return;
    cmrs_ksp_opts o = amg_opts(0, 1e-8);
    cmrs_precond *pc = NULL;
    static const char *const where[] = {"2", "2@galerkin"};
    for (int k = 0; k < 2; ++k) {
        setenv("CMRS_AMG_FAIL_LEVEL", where[k], 1);
        pc = NULL;
        CHECK_OK(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "n", &pc));
        if (pc)
            CHECK(strstr(pc->info.stop, "level 2") &&
                      strstr(pc->info.stop, "could not be formed") &&
                      pc->info.levels == 2,
                  "%s out of memory: stop '%s', %d levels", where[k],
                  pc->info.stop, pc->info.levels);
        cmrs_precond_destroy(pc);
        outcome a = solve_cpu(&sys->A, sys->b, NULL, &o);
        expect_converged(where[k], &sys->A, sys->b, NULL, &a, 1e-8, 2.0);
        outcome_free(&a);
    }
    cmrs_pc_opts po = o.pco;
    po.fine_own_op = 1;
    pc = NULL;
    CHECK_FAILS(cmrs_precond_create(be, &sys->A, o.pc, &po, "n", &pc),
                CMRS_E_NOMEM, "CMRS_AMG_FAIL_LEVEL");
    cmrs_precond_destroy(pc);
    pc = NULL;
    setenv("CMRS_AMG_FAIL_LEVEL", "1", 1);
    CHECK_FAILS(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "n", &pc),
                CMRS_E_NOMEM, "CMRS_AMG_FAIL_LEVEL");
    cmrs_precond_destroy(pc);
    unsetenv("CMRS_AMG_FAIL_LEVEL");
    cmrs_backend_destroy(be);
}

/* A zero diagonal, a 1x1 system, options out of range. */
/* The rho folding the graphs rely on (pc_chebyshev.c, amg_cycle.c): the
 * Chebyshev polynomial of D^-1 A over [a rho, b rho] equals that of
 * (D^-1 / rho) A over [a, b], and weighted Jacobi's w D^-1 r equals 1 *
 * (w D^-1) r, to rounding, from x = 0 and from a start x. */
static void test_rho_folding(const cmrs_system *sys)
{
    const cmrs_csr *A = &sys->A;
    int64_t n = A->rows;
    cmrs_backend *be = NULL;
    void *dinv = NULL, *s = NULL;
    double rho = 0;
    CHECK_OK(cmrs_backend_cpu_create(A, CMRS_PREC_DOUBLE, &be));
    if (!be) return;
    CHECK_OK(cmrs_pc_inverse_diagonal(be, A, "fold", &dinv));
    CHECK_OK(cmrs_pc_inverse_diagonal(be, A, "fold", &s));
    CHECK_OK(cmrs_pc_power_rho(be, NULL, n, dinv, 10, &rho));
    CHECK_OK(cmrs_pc_scale_array(be, n, 1.0 / rho, s));
    double *x1 = calloc((size_t)n, sizeof *x1), *x2 = calloc((size_t)n, 8);
    double *r = malloc((size_t)n * 8), *d = malloc((size_t)n * 8);
    for (int start = 0; start < 2; ++start) {
        for (int64_t i = 0; i < n; ++i) x1[i] = x2[i] = start ? 0.01 * i : 0;
        CHECK_OK(cmrs_pc_chebyshev_run(be, NULL, n, dinv, 4, 0.3 * rho,
                                       1.1 * rho, sys->b, x1, !start, r, d));
        CHECK_OK(cmrs_pc_chebyshev_run(be, NULL, n, s, 4, 0.3, 1.1, sys->b,
                                       x2, !start, r, d));
        double e = cmrs_ref_rel_err(n, x2, x1);
        CHECK(e < 1e-13, "chebyshev on D^-1/rho over [0.3, 1.1] vs D^-1 "
              "over [0.3 rho, 1.1 rho] (start %d): %g", start, e);
    }
    double w = 4.0 / (3.0 * rho);
    CHECK_OK(be->ops->dxpby(be, n, w, dinv, sys->b, 0.0, x1));
    CHECK_OK(cmrs_pc_scale_array(be, n, w * rho, s)); /* now w D^-1 */
    CHECK_OK(be->ops->dxpby(be, n, 1.0, s, sys->b, 0.0, x2));
    double e = cmrs_ref_rel_err(n, x2, x1);
    CHECK(e < 1e-14, "weighted Jacobi folded: %g", e);
    free(x1), free(x2), free(r), free(d);
    be->ops->arr_destroy(be, dinv);
    be->ops->arr_destroy(be, s);
    cmrs_backend_destroy(be);
}

/* rho(D^-1 A) by the plain power method, normalised every step, from
 * the start vector of pc_start.h: the reference for cmrs_pc_power_rho. */
static double power_ref(const cmrs_csr *A, int steps)
{
    int64_t n = A->rows;
    double *v = malloc((size_t)n * 8), *u = malloc((size_t)n * 8);
    double vv = 0, rho = 0;
    for (int64_t i = 0; i < n; ++i) {
        v[i] = cmrs_pc_start_value(i);
        vv += v[i] * v[i];
    }
    for (int k = 0; k < steps; ++k) {
        double uu = 0;
        for (int64_t i = 0; i < n; ++i) {
            double s = 0, d = 0;
            for (int64_t p = A->indptr[i]; p < A->indptr[i + 1]; ++p) {
                s += A->values[p] * v[A->indices[p]];
                if (A->indices[p] == i) d = A->values[p];
            }
            u[i] = s / d;
            uu += u[i] * u[i];
        }
        rho = sqrt(uu / vv);
        for (int64_t i = 0; i < n; ++i) v[i] = u[i] / sqrt(uu);
        vv = 1.0;
    }
    free(v), free(u);
    return rho;
}

/* The power steps, rescaled only every few steps (pc_chebyshev.c), give
 * the plain method's estimate to rounding for every step count around the
 * rescaling points; where that overflows they run again rescaled every
 * step (rho 1e31); a D^-1 A too large for double even so (1e200) is an
 * error, not a crash. */
/* rho(D^-1 A) after `steps` power steps on the CPU back end; the power
 * steps' status (its error recorded as they left it). */
static cmrs_code power_rho_of(const cmrs_csr *A, int steps, double *rho)
{
    cmrs_backend *be = NULL;
    void *dinv = NULL;
    *rho = -1;
    CHECK_OK(cmrs_backend_cpu_create(A, CMRS_PREC_DOUBLE, &be));
    if (!be) return CMRS_E_INTERNAL;
    CHECK_OK(cmrs_pc_inverse_diagonal(be, A, "rho", &dinv));
    cmrs_code rc = cmrs_pc_power_rho(be, NULL, A->rows, dinv, steps, rho);
    be->ops->arr_destroy(be, dinv);
    cmrs_backend_destroy(be);
    return rc;
}

static void test_power_rho(const char *name, const cmrs_system *sys)
{
    static const int steps[] = {1, 2, 3, 4, 5, 6, 7, 10, 11, 16};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; ++i) {
        double rho = -1, ref = power_ref(&sys->A, steps[i]);
        CHECK_OK(power_rho_of(&sys->A, steps[i], &rho));
        CHECK(fabs(rho - ref) <= 1e-12 * ref && ref > 0, "%s: rho after "
              "%d power steps %.17g, plain method %.17g", name, steps[i],
              rho, ref);
    }
}

/* rho(D^-1 A) = 1 + 1e31: 5 steps between rescalings overflow double,
 * and the steps run again rescaled every step give the plain method's
 * estimate. */
static void test_power_huge_rho(void)
{
    double d[2] = {1.0, 1.0}, rho = 0;
    cmrs_csr T;
    tridiag(&T, 2, d, 1e31);
    double ref = power_ref(&T, 10);
    CHECK_OK(power_rho_of(&T, 10, &rho));
    CHECK(fabs(rho - ref) <= 1e-12 * ref && ref > 1e30, "rho 1e31: %.17g, "
          "plain method %.17g", rho, ref);
    cmrs_csr_free(&T);
}

static void test_power_overflow(void)
{
    double d[2] = {1e-200, 1e-200}, rho = 0;
    cmrs_csr T;
    tridiag(&T, 2, d, 1.0);
    CHECK_FAILS(power_rho_of(&T, 10, &rho), CMRS_E_INPUT, "overflowed");
    cmrs_csr_free(&T);
}

static void test_bad_input(void)
{
    double d[3] = {2.0, 0.0, 2.0}, one = 4.0, b1 = 2.0;
    cmrs_csr T, S;
    tridiag(&T, 3, d, -1.0);
    tridiag(&S, 1, &one, 0.0);
    double b[3] = {1, 1, 1};
    for (int pc = CMRS_PC_CHEBYSHEV; pc <= CMRS_PC_AMG; ++pc) {
        cmrs_ksp_opts o = opts_of(CMRS_METHOD_CG, (cmrs_pc)pc, 1e-8);
        outcome z = solve_cpu(&T, b, NULL, &o);
        CHECK(z.rc == CMRS_E_INPUT && strstr(cmrs_error_message(),
                                             "zero diagonal"),
              "%s on a zero diagonal: %s", cmrs_pc_name((cmrs_pc)pc),
              cmrs_error_message());
        outcome_free(&z);
        outcome s = solve_cpu(&S, &b1, NULL, &o);
        CHECK(s.rc == CMRS_OK && s.r.reason == CMRS_CONVERGED_RTOL &&
                  s.r.iterations == 1 && fabs(s.x[0] - 0.5) < 1e-14,
              "%s 1x1: rc %d, %lld its", cmrs_pc_name((cmrs_pc)pc), s.rc,
              (long long)s.r.iterations);
        outcome_free(&s);
    }
    cmrs_pc_opts po;
    cmrs_pc_opts_default(&po);
    po.amg.agg_size = 3;
    CHECK_FAILS(cmrs_pc_opts_check(&po), CMRS_E_USAGE, "agg-size");
    cmrs_pc_opts_default(&po);
    po.cheb_degree = 0;
    CHECK_FAILS(cmrs_pc_opts_check(&po), CMRS_E_USAGE, "cheb-degree");
    cmrs_csr_free(&T);
    cmrs_csr_free(&S);
}

/* The profile's floor (amg_bytes.c) against a count by hand: the dense
 * coarsest level moves its n^2 values and column indices and x and y
 * once; level 0 of a Jacobi cycle with s sweeps a side (the default's 1,
 * or 2) moves its 2 s smoothing steps (the first from x = 0), the
 * residual, R r and P x (each SpMV its values and columns, x and y, y
 * twice when read; each vector pass its arrays). */
static void test_profile_bytes(const cmrs_system *sys, int sweeps)
{
    cmrs_backend *be = NULL;
    cmrs_precond *pc = NULL;
    cmrs_ksp_opts o = amg_opts(0, 1e-8);
    o.pco.sweeps = sweeps; /* 0: the default */
    const double s = sweeps ? sweeps : 1;
    CHECK_OK(cmrs_backend_cpu_create(&sys->A, CMRS_PREC_DOUBLE, &be));
    if (be) CHECK_OK(cmrs_precond_create(be, &sys->A, o.pc, &o.pco, "b", &pc));
    if (pc) CHECK_OK(cmrs_precond_profile(pc, 2));
    if (!pc || pc->info.levels < 3) {
        CHECK(0, "profile bytes: no hierarchy");
        cmrs_precond_destroy(pc);
        cmrs_backend_destroy(be);
        return;
    }
    const cmrs_pc_info *in = &pc->info;
    int c = in->levels - 1;
    double nc = (double)in->level[c].rows, sv = 8.0;
    double want_c = (sv + 4) * nc * nc + 2 * sv * nc;
    CHECK(!strcmp(in->level[c].format, "dense-inverse") &&
              in->level[c].bytes == want_c,
          "coarsest level: %.0f bytes, by hand %.0f", in->level[c].bytes,
          want_c);
    double n = (double)in->level[0].rows, nz = (double)in->level[0].nnz;
    double n1 = (double)in->level[1].rows;
    double a = (sv + 4) * nz + 3 * sv * n;  /* A x into a y also read */
    double res = 2 * sv * n + a;            /* copy b, then the SpMV */
    double step = res + 4 * sv * n;         /* + x += w D^-1 r */
    amg_impl *m = pc->impl;
    double r = (sv + 4) * (double)m->lev[0].Rm.nnz + sv * (n + n1);
    double p = (sv + 4) * (double)m->lev[0].Pm.nnz + sv * (n1 + 2 * n);
    double want0 = 3 * sv * n + (s - 1) * step + res + r + p + s * step;
    CHECK(fabs(in->level[0].bytes - want0) <= 1e-12 * want0,
          "level 0, %g sweeps: %.0f bytes, by hand %.0f", s,
          in->level[0].bytes, want0);
    /* A level's time is the cycle from it minus the cycle from the next
     * (clamped at 0: on a loaded machine the difference can be noise);
     * their sum is the whole cycle's time. */
    double cycle = 0;
    for (int l = 0; l < in->levels; ++l) {
        CHECK(in->level[l].t_apply >= 0, "level %d time %g", l,
              in->level[l].t_apply);
        cycle += in->level[l].t_apply;
    }
    CHECK(in->copy_bw > 0 && cycle > 0, "profile: copy bandwidth %g, cycle "
          "%g s", in->copy_bw, cycle);
    cmrs_precond_destroy(pc);
    cmrs_backend_destroy(be);
}

/* --amg-sweeps auto (the default, 0): one Jacobi sweep a side, Chebyshev
 * of degree 2; a number given is kept, and 17 refused; a coarsest level
 * without its dense inverse takes 8 steps a sweep, at least 16. */
static void test_default_sweeps(void)
{
    cmrs_pc_opts o;
    cmrs_pc_opts_default(&o);
    CHECK(o.sweeps == 0 && cmrs_pc_amg_sweeps(&o) == 1,
          "default: %d, resolved %d", o.sweeps, cmrs_pc_amg_sweeps(&o));
    CHECK(cmrs_pc_amg_coarse_steps(&o) == 16, "a coarsest level without "
          "its inverse: %d steps, not 16", cmrs_pc_amg_coarse_steps(&o));
    o.smoother = CMRS_SMOOTH_CHEBYSHEV;
    CHECK(cmrs_pc_amg_sweeps(&o) == 2, "chebyshev by default: degree %d",
          cmrs_pc_amg_sweeps(&o));
    o.sweeps = 3;
    CHECK(cmrs_pc_amg_sweeps(&o) == 3 && cmrs_pc_opts_check(&o) == CMRS_OK &&
              cmrs_pc_amg_coarse_steps(&o) == 24,
          "3 given: %d sweeps, %d coarse steps", cmrs_pc_amg_sweeps(&o),
          cmrs_pc_amg_coarse_steps(&o));
    o.sweeps = 17;
    CHECK(cmrs_pc_opts_check(&o) == CMRS_E_USAGE, "17 refused");
    cmrs_error_clear();
}

int main(void)
{
    cmrs_system vessel, poisson;
    pc_cases(&vessel, &poisson);
    test_converges("vessel 20k", &vessel);
    test_converges("poisson 16^3", &poisson);
    test_symmetric(&vessel);
    test_profile_bytes(&vessel, 0);
    test_profile_bytes(&vessel, 2);
    test_default_sweeps();
    test_guard(&vessel);
    test_level_nomem(&vessel);
    for (int v = 0; v <= AMG_VARIANTS; ++v) test_update(&vessel, v);
    test_bad_input();
    test_rho_folding(&vessel);
    test_rho_folding(&poisson);
    test_power_rho("vessel 20k", &vessel);
    test_power_rho("poisson 16^3", &poisson);
    test_power_huge_rho();
    test_power_overflow();
    cmrs_system_free(&vessel);
    cmrs_system_free(&poisson);
    return check_summary();
}
