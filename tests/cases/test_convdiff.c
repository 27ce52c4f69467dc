/* convdiff: nonsymmetric M-matrix (positive diagonal, nonpositive
 * off-diagonals, weak row dominance, strict next to the boundary), upwind
 * values, Pe = 0 reduces to the 7-point Poisson, BiCGStab solves it to
 * x_true, bad options. */
#include <math.h>
#include <string.h>

#include "cases/grid3d.h"
#include "check.h"
#include "props.h"

static void check_mmatrix(double peclet)
{
    cmrs_convdiff_opts o = {9, peclet, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_convdiff(&o, &s));
    if (!s.b) return;
    const cmrs_csr *A = &s.A;
    cmrs_csr_stats st;
    CHECK_OK(cmrs_csr_validate(A, "convdiff"));
    cmrs_csr_stats_compute(A, &st);
    CHECK(A->rows == 729 && A->nnz == 7 * 729 - 6 * 81, "%lld rows %lld nnz",
          (long long)A->rows, (long long)A->nnz);
    CHECK(st.structurally_symmetric && !st.symmetric,
          "Pe %g: want a nonsymmetric matrix with a symmetric pattern", peclet);
    CHECK(st.nonpositive_diagonal == 0, "diagonal <= 0 at row %lld",
          (long long)st.first_bad_diagonal);
    CHECK(st.dominant_rows == A->rows, "%lld rows not dominant",
          (long long)(A->rows - st.dominant_rows));
    CHECK(positive_offdiag(A) == 0, "positive off-diagonal");
    int64_t pos;
    CHECK(negative_row_sums(A, 1e-12, &pos) == 0 && pos > 0, "row sums");
    CHECK(unreached_from_dirichlet(A) == 0, "reducible");
    CHECK(distance_from_A1(&s) > 0.01, "b is A*1");
    double *x = calloc((size_t)A->rows, sizeof *x);
    double *xt = malloc((size_t)A->rows * sizeof *xt);
    int64_t iters = 0;
    for (int64_t q = 0; q < A->rows; ++q)
        xt[q] = grid_x_true(9, q % 9, q / 9 % 9, q / 81);
    cmrs_ksp_reason r = solve_cpu(&s, CMRS_METHOD_BICGSTAB, 1e-12, x, &iters);
    CHECK(r == CMRS_CONVERGED_RTOL, "BiCGStab: %s", cmrs_ksp_reason_name(r));
    CHECK(cmrs_ref_rel_err(A->rows, x, xt) < 1e-8, "solution != x_true: %g",
          cmrs_ref_rel_err(A->rows, x, xt));
    free(x);
    free(xt);
    cmrs_system_free(&s);
}

/* Centre node of a 9^3 grid with Pe = 100: h = 0.1, v = (0, 0, 1/3) there,
 * so p_z = 10/3: the node below (upwind) gets -(1 + 10/3), the rest -1. */
static void check_upwind_values(void)
{
    cmrs_convdiff_opts o = {9, 100.0, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_convdiff(&o, &s));
    if (!s.b) return;
    int64_t row = 4 + 9 * (4 + 9 * 4), below = row - 81, k0 = s.A.indptr[row];
    double pz = 100.0 * 0.1 / 3.0;
    CHECK(s.A.indices[k0] == below && fabs(s.A.values[k0] + 1 + pz) < 1e-12,
          "upwind entry %g, want %g", s.A.values[k0], -(1 + pz));
    CHECK(fabs(s.A.values[k0 + 3] - (6 + pz)) < 1e-12, "diagonal %g, want %g",
          s.A.values[k0 + 3], 6 + pz);
    CHECK(s.A.values[k0 + 6] == -1.0, "downwind entry %g", s.A.values[k0 + 6]);
    cmrs_system_free(&s);
}

static void check_pe0_is_poisson(void)
{
    cmrs_convdiff_opts o = {6, 0.0, 1};
    cmrs_poisson_opts p = {6, 7, 0.0, 1};
    cmrs_system c, q;
    CHECK_OK(cmrs_gen_convdiff(&o, &c));
    CHECK_OK(cmrs_gen_poisson3d(&p, &q));
    if (c.b && q.b) CHECK(same_system(&c, &q), "Pe 0 differs from Poisson");
    cmrs_system_free(&c);
    cmrs_system_free(&q);
}

/* Options the generator refuses with a usage error naming `want`. */
static void expect_refused(cmrs_convdiff_opts o, const char *want)
{
    cmrs_system s;
    CHECK_FAILS(cmrs_gen_convdiff(&o, &s), CMRS_E_USAGE, want);
}

static void check_bad_options(void)
{
    expect_refused((cmrs_convdiff_opts){-3, 10.0, 1}, "--n -3");
    expect_refused((cmrs_convdiff_opts){4, -1, 1}, "--peclet");
    expect_refused((cmrs_convdiff_opts){4, INFINITY, 1}, "--peclet");
}

int main(void)
{
    check_mmatrix(50.0);
    check_mmatrix(5000.0);
    check_upwind_values();
    check_pe0_is_poisson();
    check_bad_options();
    return check_summary();
}
