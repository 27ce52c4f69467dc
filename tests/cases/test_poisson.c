/* poisson3d: sizes and row counts of the 7- and 27-point stencils, the
 * homogeneous values, b = A x_true, symmetry and dominance, the contrast
 * field's span and its determinism, bad options. */
#include <math.h>
#include <string.h>

#include "cases/grid3d.h"
#include "check.h"
#include "props.h"

static void check_common(const cmrs_system *s, const char *what)
{
    const cmrs_csr *A = &s->A;
    cmrs_csr_stats st;
    CHECK_OK(cmrs_csr_validate(A, what));
    cmrs_csr_stats_compute(A, &st);
    CHECK(st.symmetric, "%s: not symmetric", what);
    CHECK(st.nonpositive_diagonal == 0, "%s: diagonal <= 0 at row %lld", what,
          (long long)st.first_bad_diagonal);
    CHECK(st.dominant_rows == A->rows, "%s: %lld rows not dominant", what,
          (long long)(A->rows - st.dominant_rows));
    CHECK(st.strictly_dominant_rows > 0, "%s: no strictly dominant row", what);
    CHECK(positive_offdiag(A) == 0, "%s: positive off-diagonal", what);
    CHECK(unreached_from_dirichlet(A) == 0, "%s: reducible", what);
    CHECK(distance_from_A1(s) > 0.01, "%s: b is A*1", what);
}

/* b must be A x_true with x_true the documented smooth field. */
static void check_rhs(const cmrs_system *s, int64_t n, const char *what)
{
    double *x = malloc((size_t)(n * n * n) * sizeof *x);
    double *ax = malloc((size_t)(n * n * n) * sizeof *ax);
    for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                x[i + n * (j + n * k)] = grid_x_true(n, i, j, k);
    cmrs_ref_spmv(&s->A, 1.0, x, 0.0, ax);
    CHECK(cmrs_ref_rel_err(n * n * n, s->b, ax) < 1e-14, "%s: b != A x_true",
          what);
    free(x);
    free(ax);
}

/* The row of the centre node of an odd n: the homogeneous stencil. */
static void check_centre_row(const cmrs_csr *A, int64_t n, int points)
{
    int64_t c = n / 2, row = c + n * (c + n * c);
    int64_t len = A->indptr[row + 1] - A->indptr[row];
    int bad = 0;
    for (int64_t k = A->indptr[row]; k < A->indptr[row + 1]; ++k) {
        double want = A->indices[k] == row ? points - 1.0 : -1.0;
        if (A->values[k] != want) ++bad;
    }
    CHECK(len == points && bad == 0, "%d-point centre row: %lld entries, %d "
          "unexpected values", points, (long long)len, bad);
}

static void check_homogeneous(int points, int64_t n, int64_t want_nnz)
{
    cmrs_poisson_opts o = {n, points, 0.0, 1};
    cmrs_system s;
    CHECK_OK(cmrs_gen_poisson3d(&o, &s));
    if (!s.b) return;
    CHECK(s.A.rows == n * n * n && s.A.nnz == want_nnz, "%d-point n=%lld: "
          "%lld rows, %lld nnz, want %lld", points, (long long)n,
          (long long)s.A.rows, (long long)s.A.nnz, (long long)want_nnz);
    check_common(&s, points == 7 ? "poisson 7" : "poisson 27");
    check_rhs(&s, n, "poisson");
    if (n >= 3) check_centre_row(&s.A, n, points);
    cmrs_system_free(&s);
}

/* log10 of max |a_ij| / min |a_ij| over off-diagonals. */
static double offdiag_span(const cmrs_csr *A)
{
    double lo = INFINITY, hi = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] != i) {
                lo = fmin(lo, fabs(A->values[k]));
                hi = fmax(hi, fabs(A->values[k]));
            }
    return log10(hi / lo);
}

static void check_contrast(int points)
{
    cmrs_poisson_opts o = {14, points, 5.0, 3};
    cmrs_system a, b, c;
    CHECK_OK(cmrs_gen_poisson3d(&o, &a));
    CHECK_OK(cmrs_gen_poisson3d(&o, &b));
    o.seed = 4;
    CHECK_OK(cmrs_gen_poisson3d(&o, &c));
    if (!a.b || !b.b || !c.b) return;
    check_common(&a, "poisson contrast");
    check_rhs(&a, o.n, "poisson contrast");
    double span = offdiag_span(&a.A);
    /* harmonic means of a field spanning exactly 5 decades, smooth enough
     * that neighbours at the extremes are close to the extremes */
    CHECK(span > 4.0 && span <= 5.0 + 1e-9, "contrast 5: span %.2f decades",
          span);
    CHECK(same_system(&a, &b), "contrast field not deterministic");
    CHECK(!same_csr(&a.A, &c.A), "seeds 3 and 4 give the same field");
    cmrs_system_free(&a);
    cmrs_system_free(&b);
    cmrs_system_free(&c);
}

/* Options the generator refuses with a usage error naming `want`. */
static void expect_refused(cmrs_poisson_opts o, const char *want,
                           cmrs_system *s)
{
    CHECK_FAILS(cmrs_gen_poisson3d(&o, s), CMRS_E_USAGE, want);
}

static void check_bad_options(void)
{
    cmrs_system s;
    expect_refused((cmrs_poisson_opts){0, 7, 0.0, 1}, "--n 0", &s);
    expect_refused((cmrs_poisson_opts){CMRS_GRID_MAX_N + 1, 7, 0.0, 1},
                   "out of range", &s);
    expect_refused((cmrs_poisson_opts){4, 9, 0.0, 1}, "--stencil 9", &s);
    expect_refused((cmrs_poisson_opts){4, 27, -1, 1}, "--contrast", &s);
    expect_refused((cmrs_poisson_opts){4, 27, NAN, 1}, "--contrast", &s);
    expect_refused((cmrs_poisson_opts){4, 27, 13, 1}, "--contrast", &s);
    CHECK(s.b == NULL && s.A.values == NULL, "failed generator left arrays");
}

int main(void)
{
    check_homogeneous(7, 5, 7 * 125 - 6 * 25);
    check_homogeneous(27, 5, 13 * 13 * 13); /* (3n-2)^3 */
    check_homogeneous(7, 1, 1);
    check_homogeneous(27, 2, 64);
    check_contrast(7);
    check_contrast(27);
    check_bad_options();
    return check_summary();
}
