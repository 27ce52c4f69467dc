/* The vessel generator: size, row lengths (mu ~ 4.9), the finite-volume
 * coefficients row by row, symmetry, dominance, connectivity to the
 * outlets, the inflow in b, determinism, bad sizes, and a solve (SPD:
 * PCG converges and the pressure is positive, flux conserved). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "props.h"

/* Structure of one row of the tetrahedral FV matrix (see
 * cases/vessel_assemble.c): two -2h couplings inside the voxel, up to two
 * -2h/sqrt6 across voxel faces, diagonal = -sum(off) + m 6h/sqrt14 with m
 * outlet faces. Returns m, or -1 when the row does not have this shape. */
static int row_shape(const cmrs_csr *A, int64_t i, double h)
{
    int inner = 0, cube = 0;
    double off = 0, diag = 0;
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
        double v = A->values[k];
        if (A->indices[k] == i) { diag = v; continue; }
        off -= v;
        if (fabs(v + 2 * h) < 1e-12 * h) ++inner;
        else if (fabs(v + 2 * h / sqrt(6.0)) < 1e-12 * h) ++cube;
        else return -1;
    }
    double m = (diag - off) / (6 * h / sqrt(14.0));
    if (inner != 2 || cube > 2 || fabs(m - round(m)) > 1e-9 || m < -0.5 ||
        m > 2.5)
        return -1;
    return (int)round(m);
}

static double max_abs_offdiag(const cmrs_csr *A)
{
    double m = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] != i) m = fmax(m, fabs(A->values[k]));
    return m;
}

static void check_rows(const cmrs_system *s, int fine)
{
    const cmrs_csr *A = &s->A;
    double h = max_abs_offdiag(A) / 2;
    int64_t bad = 0, outlet_rows = 0, five = 0, five_bad = 0, neg_b = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int m = row_shape(A, i, h);
        int64_t len = A->indptr[i + 1] - A->indptr[i];
        if (m < 0) ++bad;
        if (m > 0) ++outlet_rows;
        if (len == 5) ++five;
        /* a row of 5 has all four faces inside: no boundary term at all */
        if (len == 5 && (m != 0 || s->b[i] != 0)) ++five_bad;
        if (s->b[i] < 0) ++neg_b;
    }
    CHECK(bad == 0, "%lld rows are not tetrahedral FV rows", (long long)bad);
    CHECK(outlet_rows > 0, "no Dirichlet (outlet) row");
    CHECK(!fine || five > A->rows * 3 / 4, "only %lld of %lld rows have 5 "
          "nonzeros", (long long)five, (long long)A->rows);
    CHECK(five_bad == 0, "%lld interior rows carry boundary terms",
          (long long)five_bad);
    CHECK(neg_b == 0, "%lld negative inflows", (long long)neg_b);
}

/* fine: at least ~10^4 cells, where mu must be in [4.5, 5]. */
static void check_vessel(int64_t target, int fine)
{
    cmrs_vessel_opts o = {target, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_vessel(&o, &s));
    if (!s.b) return;
    const cmrs_csr *A = &s.A;
    CHECK(fabs((double)A->rows / (double)target - 1) <= 0.10,
          "%lld cells for a target of %lld", (long long)A->rows,
          (long long)target);
    CHECK(A->rows % 6 == 0, "%lld cells: not 6 per voxel", (long long)A->rows);
    CHECK_OK(cmrs_csr_validate(A, "vessel"));
    cmrs_csr_stats st;
    cmrs_csr_stats_compute(A, &st);
    CHECK(st.symmetric, "vessel %lld not symmetric", (long long)target);
    CHECK(st.nonpositive_diagonal == 0, "nonpositive diagonal at row %lld",
          (long long)st.first_bad_diagonal);
    CHECK(st.dominant_rows == A->rows, "%lld rows not diagonally dominant",
          (long long)(A->rows - st.dominant_rows));
    CHECK(st.max_row == 5 && st.min_row >= 2, "row lengths %lld..%lld",
          (long long)st.min_row, (long long)st.max_row);
    if (fine)
        CHECK(st.mu >= 4.5 && st.mu <= 5.0, "mu %.3f at %lld cells", st.mu,
              (long long)A->rows);
    int64_t pos;
    CHECK(negative_row_sums(A, 1e-12, &pos) == 0 && pos > 0,
          "row sums: %lld positive", (long long)pos);
    CHECK(unreached_from_dirichlet(A) == 0, "cells not connected to an outlet");
    check_rows(&s, fine);
    double inflow = 0;
    for (int64_t i = 0; i < A->rows; ++i) inflow += s.b[i];
    /* Poiseuille inflow of mean 1 over a disc of radius 1: pi (staircase) */
    CHECK(fabs(inflow / 3.14159265358979 - 1) < 0.08, "inflow %g, expected "
          "~pi", inflow);
    CHECK(distance_from_A1(&s) > 0.5, "b is close to A*1");
    cmrs_system_free(&s);
}

/* SPD in practice: Jacobi-PCG converges; the pressure is positive (inflow
 * source, p = 0 at the outlets: maximum principle) and what flows out
 * through the outlets (sum of row sums times p) equals the inflow. */
static void check_solve(void)
{
    cmrs_vessel_opts o = {20000, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_vessel(&o, &s));
    if (!s.b) return;
    int64_t n = s.A.rows, iters = 0, nonpos = 0;
    double *p = calloc((size_t)n, sizeof *p), outflow = 0, inflow = 0;
    cmrs_ksp_reason r = solve_cpu(&s, CMRS_METHOD_CG, 1e-10, p, &iters);
    CHECK(r == CMRS_CONVERGED_RTOL, "PCG on the vessel: reason %s after %lld",
          cmrs_ksp_reason_name(r), (long long)iters);
    for (int64_t i = 0; i < n; ++i) {
        if (!(p[i] > 0)) ++nonpos;
        outflow += row_sum(&s.A, i) * p[i];
        inflow += s.b[i];
    }
    CHECK(nonpos == 0, "%lld cells with p <= 0", (long long)nonpos);
    CHECK(fabs(outflow / inflow - 1) < 1e-6, "outflow %.12g != inflow %.12g",
          outflow, inflow);
    free(p);
    cmrs_system_free(&s);
}

static void check_determinism_and_limits(void)
{
    cmrs_vessel_opts o = {3000, 7};
    cmrs_system a, b;
    CHECK_OK(cmrs_gen_vessel(&o, &a));
    CHECK_OK(cmrs_gen_vessel(&o, &b));
    CHECK(same_system(&a, &b), "two vessel runs differ");
    cmrs_system_free(&a);
    cmrs_system_free(&b);
    o.cells = 999;
    CHECK_FAILS(cmrs_gen_vessel(&o, &a), CMRS_E_USAGE, "--cells 999");
    CHECK(a.b == NULL && a.A.indptr == NULL, "failed generator left arrays");
    o.cells = 1500000001LL;
    CHECK_FAILS(cmrs_gen_vessel(&o, &a), CMRS_E_USAGE, "out of range");
    o.cells = -5;
    CHECK_FAILS(cmrs_gen_vessel(&o, &a), CMRS_E_USAGE, "out of range");
}

int main(void)
{
    check_vessel(1000, 0); /* the smallest size still works */
    check_vessel(20000, 1);
    check_vessel(200000, 1);
    check_solve();
    check_determinism_and_limits();
    return check_summary();
}
