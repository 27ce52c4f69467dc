/* The Krylov loops, unchanged, over the distributed back end: CG and
 * BiCGStab with Jacobi on generated and committed systems, P = 1, 2, 3, 4,
 * 7 parts by every method of this build. Jacobi is pointwise, so the only
 * arithmetic that differs from the single-part solve is the order of the
 * dot products' sums: CG within 2 iterations, x within the tolerance. One
 * part in block order is the single-part solve exactly (bitwise).
 * BiCGStab's residual is not monotone and magnifies rounding: on the
 * vessel it moves by up to ~7% even on ONE part renumbered by RCM (the
 * sums reordered, nothing else), so its bound is 10% (at least 2). */
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "io/system.h"
#include "solver/tsolve.h"
#include "tdist.h"

static cmrs_code dist_backend(const cmrs_csr *A, int P, int m,
                              cmrs_backend **be)
{
    cmrs_dist_params prm = {.nparts = P, .method = (cmrs_part_method)m};
    return cmrs_backend_dist_create(A, &prm, be);
}

static outcome solve_dist(const cmrs_csr *A, int P, int m, const double *b,
                          const cmrs_ksp_opts *op)
{
    cmrs_backend *be = NULL;
    cmrs_code rc = dist_backend(A, P, m, &be);
    return solve_fresh(rc, be, A, b, NULL, op);
}

/* One distributed solve against the single-part one. */
static void compare(const cmrs_csr *A, const double *b,
                    const cmrs_ksp_opts *op, const outcome *ref, int P,
                    int m, const char *name)
{
    outcome o = solve_dist(A, P, m, b, op);
    const char *mn = cmrs_part_method_name(m);
    CHECK(o.rc == CMRS_OK, "%s %s P=%d: %s", name, mn, P,
          cmrs_error_message());
    if (o.rc != CMRS_OK) return;
    int64_t di = o.r.iterations - ref->r.iterations, slack = 2;
    if (op->method == CMRS_METHOD_BICGSTAB && ref->r.iterations / 10 > slack)
        slack = ref->r.iterations / 10;
    CHECK(cmrs_ksp_reason_converged(o.r.reason) && di >= -slack &&
              di <= slack,
          "%s %s P=%d: %s in %lld iterations, single part %lld", name, mn, P,
          cmrs_ksp_reason_name(o.r.reason), (long long)o.r.iterations,
          (long long)ref->r.iterations);
    double err = cmrs_ref_rel_err(A->rows, o.x, ref->x);
    CHECK(err <= 100 * op->rtol, "%s %s P=%d: x differs by %g", name, mn, P,
          err);
    CHECK(o.r.true_rel <= 10 * op->rtol, "%s %s P=%d: true residual %g",
          name, mn, P, o.r.true_rel);
    if (P == 1 && m == CMRS_PART_BLOCK)
        CHECK(o.r.iterations == ref->r.iterations &&
              memcmp(o.x, ref->x, (size_t)A->rows * 8) == 0,
              "%s: one block part is not bitwise the single-part solve",
              name);
    outcome_free(&o);
}

static void sweep(const cmrs_csr *A, const double *b, cmrs_method method,
                  cmrs_pc pc, const char *name)
{
    cmrs_ksp_opts op = opts_of(method, pc, 1e-10);
    outcome ref = solve_cpu(A, b, NULL, &op);
    CHECK(ref.rc == CMRS_OK && cmrs_ksp_reason_converged(ref.r.reason),
          "%s: the single-part solve failed", name);
    for (int m = 0; m < method_count() && ref.rc == CMRS_OK; ++m)
        for (int c = 0; c < N_PARTS_CASES; ++c)
            compare(A, b, &op, &ref, k_parts[c], m, name);
    printf("%s: %lld iterations on one part\n", name,
           (long long)ref.r.iterations);
    outcome_free(&ref);
}

static void generated(void)
{
    cmrs_system sys;
    cmrs_vessel_opts vo = {.cells = 4000};
    cmrs_poisson_opts po = {.n = 12, .stencil = 7};
    cmrs_convdiff_opts co = {.n = 9, .peclet = 10};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    sweep(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_JACOBI, "vessel 4k cg");
    sweep(&sys.A, sys.b, CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI,
          "vessel 4k bicgstab");
    cmrs_system_free(&sys);
    CHECK_OK(cmrs_gen_poisson3d(&po, &sys));
    sweep(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_JACOBI, "poisson 12^3 cg");
    sweep(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_NONE, "poisson 12^3 none");
    sweep(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV,
          "poisson 12^3 chebyshev");
    cmrs_system_free(&sys);
    CHECK_OK(cmrs_gen_convdiff(&co, &sys));
    sweep(&sys.A, sys.b, CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI,
          "convdiff 9^3 bicgstab");
    cmrs_system_free(&sys);
}

/* The committed cases (cases/data), as `cmrs solve` reads them. */
static void committed(void)
{
    static const char *const files[] = {"vessel_3k.h5",
                                        "poisson27_10_contrast3.h5",
                                        "convdiff_12.h5"};
    const char *src = getenv("CMRS_SOURCE_DIR");
    char path[1024];
    CHECK(src != NULL, "CMRS_SOURCE_DIR is not set");
    for (int f = 0; f < 3 && src; ++f) {
        cmrs_system sys;
        cmrs_read_opts ro = {.require_square = 1};
        snprintf(path, sizeof path, "%s/cases/data/%s", src, files[f]);
        CHECK_OK(cmrs_system_read(path, &ro, &sys));
        sweep(&sys.A, sys.b, f == 2 ? CMRS_METHOD_BICGSTAB : CMRS_METHOD_CG,
              CMRS_PC_JACOBI, files[f]);
        cmrs_system_free(&sys);
    }
}

int main(void)
{
    generated();
    committed();
    return check_summary();
}
