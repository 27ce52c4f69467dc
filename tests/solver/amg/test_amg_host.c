/* Host side of the aggregation AMG (solver/amg/amg_host.h): aggregates (every
 * row in one, connected in the strength graph, real coarsening), the
 * tentative and smoothed prolongators against an independent computation,
 * the sparse product against dense products, the Galerkin operator
 * (symmetry, a dense reference, row sums of the plain-aggregation one),
 * determinism under last-bit perturbations, refused inputs, and a printed
 * (not checked) timing of the whole setup on a 100^3 Poisson matrix. */
#include <math.h>
#include <string.h>

#include "cases/cases.h"
#include "cases/rng.h"
#include "check.h"
#include "base/timer.h"
#include "solver/amg/amg_host.h"
#include "solver/systems.h"
#include "tamg.h"

/* ---- test matrices ------------------------------------------------------ */

/* CSR of a dense m x n matrix; mask (NULL: the nonzeros) says which entries
 * are stored, so explicit zeros can be stored too. */
static void from_dense(const double *D, const unsigned char *mask, int64_t m,
                       int64_t n, cmrs_csr *A)
{
    int64_t nnz = 0;
    for (int64_t k = 0; k < m * n; ++k) nnz += mask ? mask[k] != 0 : D[k] != 0;
    cmrs_csr_alloc(A, m, n, nnz);
    int64_t z = 0;
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            int64_t k = i * n + j;
            if (mask ? !mask[k] : D[k] == 0) continue;
            A->indices[z] = (int32_t)j;
            A->values[z++] = D[k];
        }
        A->indptr[i + 1] = z;
    }
}

static void poisson3d(cmrs_csr *A, int64_t n)
{
    cmrs_poisson_opts o = {n, 7, 0.0, 1};
    cmrs_system sys;
    CHECK_OK(cmrs_gen_poisson3d(&o, &sys));
    *A = sys.A;
    memset(&sys.A, 0, sizeof sys.A);
    cmrs_system_free(&sys);
}

/* Symmetric M-matrix on a random graph: each node links to a few random
 * others with weights over two decades (some links weak), the diagonal a bit
 * more than the sum of its row's magnitudes (SPD). A fraction `positive` of
 * the links get a positive sign (no longer an M-matrix: such links are never
 * strong). */
static void random_spd(cmrs_csr *A, int64_t n, double positive, uint64_t seed)
{
    cmrs_rng r = cmrs_rng_make(seed);
    double *D = calloc((size_t)(n * n), sizeof *D);
    for (int64_t i = 0; i < n; ++i) {
        for (int e = 0; e < 3; ++e) {
            int64_t j = (int64_t)cmrs_rng_below(&r, (uint64_t)n);
            if (j == i) continue;
            double w = -pow(10.0, -2.0 * cmrs_rng_uniform(&r));
            if (cmrs_rng_uniform(&r) < positive) w = -w;
            D[i * n + j] = D[j * n + i] = w;
        }
    }
    for (int64_t i = 0; i < n; ++i) {
        double s = 0;
        for (int64_t j = 0; j < n; ++j) s += fabs(D[i * n + j]);
        D[i * n + i] = s + 0.01 + 0.5 * cmrs_rng_uniform(&r);
    }
    from_dense(D, NULL, n, n, A);
    free(D);
}

static void random_mmatrix(cmrs_csr *A, int64_t n, uint64_t seed)
{
    random_spd(A, n, 0.0, seed);
}

/* The 2-D Laplacian with edits: row/column `iso` left with its diagonal
 * only, the diagonal of row `zero` stored as 0, that of row `gone` not
 * stored (negative: no such edit). */
static void lap2d_edited(cmrs_csr *A, int64_t m, int64_t iso, int64_t zero,
                         int64_t gone)
{
    cmrs_csr L;
    lap2d(&L, m);
    int64_t n = L.rows;
    double *D = csr_to_dense(&L);
    unsigned char *mask = calloc((size_t)(n * n), 1);
    for (int64_t k = 0; k < n * n; ++k) mask[k] = D[k] != 0;
    for (int64_t j = 0; iso >= 0 && j < n; ++j)
        if (j != iso) mask[iso * n + j] = mask[j * n + iso] = 0;
    if (zero >= 0) D[zero * n + zero] = 0.0;
    if (gone >= 0) mask[gone * n + gone] = 0;
    from_dense(D, mask, n, n, A);
    free(D);
    free(mask);
    cmrs_csr_free(&L);
}

/* The 2-D Laplacian made one-way in places: some links positive in one
 * direction only (strong one way), some lower entries not stored (an
 * unsymmetric pattern), so the strength graph must be symmetrised. */
static void lap2d_oneway(cmrs_csr *A, int64_t m)
{
    cmrs_csr L;
    lap2d(&L, m);
    int64_t n = L.rows;
    double *D = csr_to_dense(&L);
    for (int64_t i = 0; i + m < n; ++i) {
        if (i % 7 == 0) D[i * n + i + 1] = 0.5;
        if (i % 5 == 0) D[(i + m) * n + i] = 0.0;
    }
    from_dense(D, NULL, n, n, A);
    free(D);
    cmrs_csr_free(&L);
}

/* Every value times 1 + 1e-15 h, h in [-1, 1] a hash of the unordered pair
 * {i, j} so that symmetry is kept. Returns how many values changed. */
static int64_t perturb(const cmrs_csr *A, cmrs_csr *B)
{
    cmrs_csr_copy(B, A);
    int64_t changed = 0;
    for (int64_t i = 0; i < B->rows; ++i) {
        for (int64_t k = B->indptr[i]; k < B->indptr[i + 1]; ++k) {
            uint64_t lo = (uint64_t)(i < B->indices[k] ? i : B->indices[k]);
            uint64_t hi = (uint64_t)(i < B->indices[k] ? B->indices[k] : i);
            cmrs_rng r = cmrs_rng_make(lo * 0x100000001b3ull + hi);
            double h = 2.0 * cmrs_rng_uniform(&r) - 1.0;
            double v = B->values[k] * (1.0 + 1e-15 * h);
            changed += v != B->values[k];
            B->values[k] = v;
        }
    }
    return changed;
}

/* ---- independent strength graph and aggregate checks ------------------- */

static int strong_dir(const cmrs_csr *A, int64_t i, int64_t j, double theta)
{
    int f, fi, fj;
    double aij = cmrs_csr_lookup(A, i, (int32_t)j, &f);
    double aii = cmrs_csr_lookup(A, i, (int32_t)i, &fi);
    double ajj = cmrs_csr_lookup(A, j, (int32_t)j, &fj);
    if (!f || i == j || aii == 0 || ajj == 0 || aij * aii >= 0) return 0;
    return fabs(aij) >= theta * sqrt(fabs(aii * ajj));
}

static int strong(const cmrs_csr *A, int64_t i, int64_t j, double theta)
{
    return strong_dir(A, i, j, theta) || strong_dir(A, j, i, theta);
}

static int64_t strong_edges(const cmrs_csr *A, double theta)
{
    int64_t e = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            e += strong(A, i, A->indices[k], theta);
    return e;
}

/* Aggregates that are not connected through strong edges inside them: BFS
 * from each aggregate's first member over A's and A^T's pattern. */
static int64_t disconnected(const cmrs_csr *A, const int32_t *agg,
                            int64_t naggs, double theta)
{
    cmrs_csr T;
    cmrs_csr_transpose(A, &T);
    int64_t n = A->rows, bad = 0;
    int64_t *size = calloc((size_t)naggs, sizeof *size);
    int64_t *reached = calloc((size_t)naggs, sizeof *reached);
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    char *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < n; ++i) ++size[agg[i]];
    for (int64_t s = 0; s < n; ++s) {
        if (reached[agg[s]]) continue; /* not the first member */
        int64_t head = 0, tail = 0;
        queue[tail++] = s;
        seen[s] = 1;
        while (head < tail) {
            int64_t i = queue[head++];
            const cmrs_csr *M[2] = {A, &T};
            for (int t = 0; t < 2; ++t) {
                for (int64_t k = M[t]->indptr[i]; k < M[t]->indptr[i + 1];
                     ++k) {
                    int64_t j = M[t]->indices[k];
                    if (seen[j] || agg[j] != agg[s] || !strong(A, i, j, theta))
                        continue;
                    seen[j] = 1;
                    queue[tail++] = j;
                }
            }
        }
        reached[agg[s]] = tail;
        bad += tail != size[agg[s]];
    }
    free(size);
    free(reached);
    free(queue);
    free(seen);
    cmrs_csr_free(&T);
    return bad;
}

static const char *method_name(const cmrs_amg_params *p)
{
    static char buf[32];
    if (p->agg == CMRS_AMG_AGG_GREEDY) return "greedy";
    if (p->agg == CMRS_AMG_AGG_MIS2) return "mis2";
    snprintf(buf, sizeof buf, "%s-%d", p->agg == CMRS_AMG_AGG_HANDSHAKE ?
             "handshake" : "pairwise", p->agg_size);
    return buf;
}


/* Aggregates A and checks the contract; returns agg (caller frees) and the
 * number of aggregates. */
static int32_t *check_aggregates(const cmrs_csr *A, const cmrs_amg_params *p,
                                 const char *what, int64_t *naggs_out)
{
    int32_t *agg = malloc((size_t)A->rows * sizeof *agg + 1);
    int64_t naggs = -1;
    CHECK_OK(cmrs_amg_aggregate(A, p, agg, &naggs));
    const char *m = method_name(p);
    int in_range = naggs >= 0 && naggs <= A->rows;
    for (int64_t i = 0; in_range && i < A->rows; ++i)
        in_range = agg[i] >= 0 && agg[i] < naggs;
    CHECK(in_range, "%s %s: aggregate index out of [0, %lld)", what, m,
          (long long)naggs);
    *naggs_out = naggs;
    if (!in_range) return agg;
    int64_t *size = calloc((size_t)naggs + 1, sizeof *size), empty = 0,
            largest = 0;
    for (int64_t i = 0; i < A->rows; ++i) ++size[agg[i]];
    for (int64_t a = 0; a < naggs; ++a) {
        empty += size[a] == 0;
        if (size[a] > largest) largest = size[a];
    }
    CHECK(empty == 0, "%s %s: %lld empty aggregates", what, m,
          (long long)empty);
    if (strong_edges(A, p->theta) > 0)
        CHECK(naggs < A->rows, "%s %s: no coarsening (%lld aggregates of %lld "
              "rows)", what, m, (long long)naggs, (long long)A->rows);
    int64_t bad = disconnected(A, agg, naggs, p->theta);
    CHECK(bad == 0, "%s %s: %lld aggregates not connected in the strength "
          "graph", what, m, (long long)bad);
    if (p->agg == CMRS_AMG_AGG_PAIRWISE) {
        int64_t cap = 1;
        for (int s = p->agg_size; s > 1; s /= 2) cap *= 3;
        CHECK(largest <= cap, "%s %s: an aggregate of %lld rows (at most "
              "%lld expected)", what, m, (long long)largest, (long long)cap);
    }
    printf("%-24s %-12s rows %6lld aggregates %6lld ratio %5.2f largest "
           "%lld\n", what, m, (long long)A->rows, (long long)naggs,
           naggs ? (double)A->rows / (double)naggs : 0.0, (long long)largest);
    free(size);
    return agg;
}

/* ---- prolongator -------------------------------------------------------- */

static double ref_rho(const cmrs_csr *A)
{
    double rho = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int f;
        double d = fabs(cmrs_csr_lookup(A, i, (int32_t)i, &f)), s = 0;
        if (d == 0) continue;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            s += fabs(A->values[k]);
        rho = fmax(rho, s / d);
    }
    return rho;
}

static void check_tentative(const cmrs_csr *A, const int32_t *agg,
                            int64_t naggs, const char *what)
{
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 8);
    cmrs_csr P;
    CHECK_OK(cmrs_amg_prolongator(A, agg, naggs, &p, &P));
    CHECK_OK(cmrs_csr_validate(&P, "tentative P"));
    int64_t bad = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t b = P.indptr[i];
        bad += P.indptr[i + 1] - b != 1 || P.indices[b] != agg[i] ||
               P.values[b] != 1.0;
    }
    CHECK(P.rows == A->rows && P.cols == naggs && P.nnz == A->rows &&
              bad == 0,
          "%s: tentative P %lld x %lld, nnz %lld, %lld bad rows", what,
          (long long)P.rows, (long long)P.cols, (long long)P.nnz,
          (long long)bad);
    cmrs_csr_free(&P);
}

/* Smoothed P row by row against (I - w D^-1 A) P_tent computed here; its
 * pattern must be that of A P_tent (rows with a diagonal) or the tentative
 * row (zero or missing diagonal). */
static void check_smoothed(const cmrs_csr *A, const int32_t *agg,
                           int64_t naggs, const char *what)
{
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 8);
    p.smooth_p = 1;
    cmrs_csr P;
    CHECK_OK(cmrs_amg_prolongator(A, agg, naggs, &p, &P));
    CHECK_OK(cmrs_csr_validate(&P, "smoothed P"));
    double w = p.p_omega / ref_rho(A);
    double *want = calloc((size_t)naggs + 1, sizeof *want);
    char *in = calloc((size_t)naggs + 1, 1);
    int32_t *cols = malloc(((size_t)A->nnz + 1) * sizeof *cols);
    int64_t bad_pattern = 0, tentative_rows = 0;
    double err = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int f;
        double d = cmrs_csr_lookup(A, i, (int32_t)i, &f);
        int64_t nc = 0;
        if (d == 0) {
            cols[nc++] = agg[i];
            in[agg[i]] = 1;
            want[agg[i]] = 1.0;
            ++tentative_rows;
        } else {
            for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
                int32_t c = agg[A->indices[k]];
                if (!in[c]) cols[nc++] = c;
                in[c] = 1;
                want[c] += (A->indices[k] == i) - w / d * A->values[k];
            }
        }
        int64_t len = P.indptr[i + 1] - P.indptr[i];
        bad_pattern += len != nc;
        for (int64_t k = P.indptr[i]; k < P.indptr[i + 1]; ++k) {
            int32_t c = P.indices[k];
            if (!in[c]) {
                ++bad_pattern;
                continue;
            }
            err = fmax(err, fabs(P.values[k] - want[c]));
        }
        for (int64_t q = 0; q < nc; ++q) want[cols[q]] = 0, in[cols[q]] = 0;
    }
    CHECK(P.rows == A->rows && P.cols == naggs && bad_pattern == 0 &&
              err < 1e-13,
          "%s: smoothed P: %lld pattern mismatches, max error %g (%lld "
          "tentative rows)", what, (long long)bad_pattern, err,
          (long long)tentative_rows);
    free(want);
    free(in);
    free(cols);
    cmrs_csr_free(&P);
}

/* ---- Galerkin ----------------------------------------------------------- */

static cmrs_code galerkin(const cmrs_csr *A, const cmrs_csr *P, cmrs_csr *Ac)
{
    cmrs_csr R;
    CMRS_CHECK(cmrs_csr_transpose(P, &R));
    cmrs_code rc = cmrs_amg_galerkin_host(&R, A, P, Ac);
    cmrs_csr_free(&R);
    return rc;
}

static double max_abs(const cmrs_csr *A)
{
    double m = 0;
    for (int64_t k = 0; k < A->nnz; ++k) m = fmax(m, fabs(A->values[k]));
    return m;
}

/* A_c symmetric: the transposed entry stored and equal within 1e-12
 * relative (to the larger of the two, or of A_c's largest for entries that
 * cancel to near zero). */
static void check_symmetric(const cmrs_csr *Ac, const char *what)
{
    int64_t missing = 0, unequal = 0;
    double floor = 1e-14 * max_abs(Ac);
    for (int64_t i = 0; i < Ac->rows; ++i) {
        for (int64_t k = Ac->indptr[i]; k < Ac->indptr[i + 1]; ++k) {
            int f;
            double v = Ac->values[k];
            double t = cmrs_csr_lookup(Ac, Ac->indices[k], (int32_t)i, &f);
            missing += !f;
            unequal += fabs(v - t) > 1e-12 * fmax(fabs(v), fabs(t)) + floor;
        }
    }
    CHECK(Ac->rows == Ac->cols && missing == 0 && unequal == 0,
          "%s: A_c %lld x %lld not symmetric: %lld entries unmatched, %lld "
          "unequal", what, (long long)Ac->rows, (long long)Ac->cols,
          (long long)missing, (long long)unequal);
}

/* Plain aggregation: row I of A_c sums the entries of A's rows in I, and
 * (A_c)_II the entries of A inside I x I. */
static void check_rowsums(const cmrs_csr *A, const int32_t *agg,
                          const cmrs_csr *Ac, const char *what)
{
    int64_t nc = Ac->rows, bad = 0;
    double *rs = calloc((size_t)nc + 1, sizeof *rs);
    double *in = calloc((size_t)nc + 1, sizeof *in);
    double *mag = calloc((size_t)nc + 1, sizeof *mag);
    for (int64_t i = 0; i < A->rows; ++i) {
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            rs[agg[i]] += A->values[k];
            mag[agg[i]] += fabs(A->values[k]);
            if (agg[A->indices[k]] == agg[i]) in[agg[i]] += A->values[k];
        }
    }
    for (int64_t I = 0; I < nc; ++I) {
        double s = 0;
        for (int64_t k = Ac->indptr[I]; k < Ac->indptr[I + 1]; ++k)
            s += Ac->values[k];
        int f;
        double d = cmrs_csr_lookup(Ac, I, (int32_t)I, &f);
        bad += fabs(s - rs[I]) > 1e-12 * mag[I] ||
               fabs(d - in[I]) > 1e-12 * mag[I];
    }
    CHECK(bad == 0, "%s: %lld coarse rows whose sum or diagonal differs from "
          "the sums over their aggregate", what, (long long)bad);
    free(rs);
    free(in);
    free(mag);
}

/* A_c against P^T A P formed densely (small cases only). */
static void check_dense_galerkin(const cmrs_csr *A, const cmrs_csr *P,
                                 const cmrs_csr *Ac, const char *what)
{
    int64_t n = A->rows, nc = P->cols;
    double *Ad = csr_to_dense(A), *Pd = csr_to_dense(P);
    double *Cd = csr_to_dense(Ac);
    double *AP = calloc((size_t)(n * nc) + 1, sizeof *AP), err = 0, amax = 0;
    int64_t unstored = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k)
            for (int64_t J = 0; J < nc; ++J)
                AP[i * nc + J] += Ad[i * n + k] * Pd[k * nc + J];
    for (int64_t I = 0; I < nc; ++I) {
        for (int64_t J = 0; J < nc; ++J) {
            double r = 0;
            for (int64_t i = 0; i < n; ++i)
                r += Pd[i * nc + I] * AP[i * nc + J];
            int f;
            cmrs_csr_lookup(Ac, I, (int32_t)J, &f);
            unstored += r != 0 && !f;
            err = fmax(err, fabs(r - Cd[I * nc + J]));
            amax = fmax(amax, fabs(r));
        }
    }
    CHECK(Ac->rows == nc && Ac->cols == nc && unstored == 0 &&
              err <= 1e-12 * amax,
          "%s: A_c vs dense P^T A P: error %g (max %g), %lld nonzeros not "
          "stored", what, err, amax, (long long)unstored);
    free(Ad);
    free(Pd);
    free(Cd);
    free(AP);
}

/* P (tentative and smoothed) and A_c for one aggregation; dense reference
 * when the matrix is small. */
static void check_levels(const cmrs_csr *A, const int32_t *agg, int64_t naggs,
                         int symmetric, const char *what)
{
    check_tentative(A, agg, naggs, what);
    check_smoothed(A, agg, naggs, what);
    for (int smooth = 0; smooth < 2; ++smooth) {
        cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 8);
        p.smooth_p = smooth;
        cmrs_csr P, Ac;
        CHECK_OK(cmrs_amg_prolongator(A, agg, naggs, &p, &P));
        CHECK_OK(galerkin(A, &P, &Ac));
        CHECK_OK(cmrs_csr_validate(&Ac, "A_c"));
        if (symmetric) check_symmetric(&Ac, what);
        if (!smooth) check_rowsums(A, agg, &Ac, what);
        if (A->rows <= 400) check_dense_galerkin(A, &P, &Ac, what);
        cmrs_csr_free(&P);
        cmrs_csr_free(&Ac);
    }
}

/* ---- determinism -------------------------------------------------------- */

static int same_aggregates(const cmrs_csr *A, const cmrs_csr *B,
                           const cmrs_amg_params *p)
{
    int32_t *a = malloc((size_t)A->rows * sizeof *a + 1);
    int32_t *b = malloc((size_t)A->rows * sizeof *b + 1);
    int64_t na = -1, nb = -2;
    CHECK_OK(cmrs_amg_aggregate(A, p, a, &na));
    CHECK_OK(cmrs_amg_aggregate(B, p, b, &nb));
    int same = na == nb;
    for (int64_t i = 0; same && i < A->rows; ++i) same = a[i] == b[i];
    free(a);
    free(b);
    return same;
}

static void check_perturbed(const cmrs_csr *A, const cmrs_amg_params *p,
                            const char *what)
{
    cmrs_csr B;
    int64_t changed = perturb(A, &B);
    CHECK(changed > A->nnz / 2, "%s: the perturbation changed only %lld of "
          "%lld values", what, (long long)changed, (long long)A->nnz);
    CHECK(same_aggregates(A, &B, p), "%s %s: aggregates change when A is "
          "perturbed by 1e-15", what, method_name(p));
    cmrs_csr_free(&B);
}

/* The strength graph is symmetrised, so A and A^T aggregate alike. */
static void check_transposed(const cmrs_csr *A, const cmrs_amg_params *p,
                             const char *what)
{
    cmrs_csr T;
    CHECK_OK(cmrs_csr_transpose(A, &T));
    CHECK(same_aggregates(A, &T, p), "%s %s: A and A^T aggregate "
          "differently", what, method_name(p));
    cmrs_csr_free(&T);
}

/* A coarse operator summed in two orders, (R A) P and R (A P), as the GPU
 * and the host do: the next level must aggregate the same way. */
static void check_coarse_orders(const cmrs_csr *A, const char *what)
{
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 4);
    p.smooth_p = 1;
    int32_t *agg = malloc((size_t)A->rows * sizeof *agg);
    int64_t naggs, diff = 0;
    cmrs_csr P, R, RA, C1, C2;
    CHECK_OK(cmrs_amg_aggregate(A, &p, agg, &naggs));
    CHECK_OK(cmrs_amg_prolongator(A, agg, naggs, &p, &P));
    CHECK_OK(cmrs_csr_transpose(&P, &R));
    CHECK_OK(cmrs_amg_galerkin_host(&R, A, &P, &C1));
    CHECK_OK(cmrs_csr_multiply(&R, A, &RA));
    CHECK_OK(cmrs_csr_multiply(&RA, &P, &C2));
    CHECK(C1.nnz == C2.nnz, "%s: (RA)P and R(AP) have %lld and %lld nonzeros",
          what, (long long)C1.nnz, (long long)C2.nnz);
    for (int64_t k = 0; C1.nnz == C2.nnz && k < C1.nnz; ++k)
        diff += C1.values[k] != C2.values[k];
    printf("%s: (RA)P and R(AP) differ in %lld of %lld values\n", what,
           (long long)diff, (long long)C1.nnz);
    for (int m = 0; m < 2; ++m) {
        cmrs_amg_params q = amg_plain_params(m ? CMRS_AMG_AGG_GREEDY :
                                          CMRS_AMG_AGG_PAIRWISE, 8);
        CHECK(same_aggregates(&C1, &C2, &q), "%s %s: the coarse operator "
              "aggregates differently when summed in another order", what,
              method_name(&q));
    }
    free(agg);
    cmrs_csr_free(&P);
    cmrs_csr_free(&R);
    cmrs_csr_free(&RA);
    cmrs_csr_free(&C1);
    cmrs_csr_free(&C2);
}

/* ---- the matrices ------------------------------------------------------- */

static void run_matrix(const cmrs_csr *A, const char *what, int symmetric,
                       double want_ratio_p8)
{
    CHECK_OK(cmrs_csr_validate(A, what));
    static const int sizes[] = {2, 4, 8};
    for (int m = 0; m < 8; ++m) {
        cmrs_amg_params p = m < 3   ? amg_plain_params(CMRS_AMG_AGG_PAIRWISE, sizes[m])
                            : m < 4 ? amg_plain_params(CMRS_AMG_AGG_GREEDY, 8)
                            : m < 7 ? amg_plain_params(CMRS_AMG_AGG_HANDSHAKE,
                                                sizes[m - 4])
                                    : amg_plain_params(CMRS_AMG_AGG_MIS2, 8);
        int64_t naggs;
        int32_t *agg = check_aggregates(A, &p, what, &naggs);
        if (p.agg == CMRS_AMG_AGG_PAIRWISE && p.agg_size == 8 &&
            want_ratio_p8 > 0)
            CHECK((double)A->rows > want_ratio_p8 * (double)naggs,
                  "%s pairwise-8: coarsening ratio %.2f, want > %g", what,
                  (double)A->rows / (double)naggs, want_ratio_p8);
        check_levels(A, agg, naggs, symmetric, what);
        if (A->rows > 1) check_perturbed(A, &p, what);
        check_transposed(A, &p, what);
        free(agg);
    }
}

static void test_matrices(void)
{
    cmrs_csr A;
    poisson3d(&A, 20);
    run_matrix(&A, "poisson3d 20^3", 1, 4.0);
    check_coarse_orders(&A, "poisson3d 20^3");
    cmrs_csr_free(&A);

    poisson3d(&A, 7); /* small: the dense Galerkin reference */
    run_matrix(&A, "poisson3d 7^3", 1, 0);
    cmrs_csr_free(&A);

    lap2d(&A, 40);
    run_matrix(&A, "lap2d 40^2", 1, 3.0);
    cmrs_csr_free(&A);

    lap2d(&A, 13); /* odd size: leftovers at the ends of the lines */
    run_matrix(&A, "lap2d 13^2", 1, 0);
    cmrs_csr_free(&A);

    random_mmatrix(&A, 300, 7);
    run_matrix(&A, "random M-matrix 300", 1, 0);
    check_coarse_orders(&A, "random M-matrix 300");
    cmrs_csr_free(&A);

    random_mmatrix(&A, 2000, 11);
    run_matrix(&A, "random M-matrix 2000", 1, 0);
    cmrs_csr_free(&A);

    random_spd(&A, 1000, 0.4, 13);
    run_matrix(&A, "random mixed signs 1000", 1, 0);
    cmrs_csr_free(&A);

    lap2d_edited(&A, 9, 40, -1, -1);
    run_matrix(&A, "lap2d 9^2 isolated row", 1, 0);
    cmrs_csr_free(&A);

    lap2d_edited(&A, 9, -1, 13, 57);
    run_matrix(&A, "lap2d 9^2 zero diagonals", 1, 0);
    cmrs_csr_free(&A);

    lap2d_oneway(&A, 12);
    run_matrix(&A, "lap2d 12^2 one-way", 0, 0);
    cmrs_csr_free(&A);

    upwind2d(&A, 12, 2.0); /* nonsymmetric values */
    run_matrix(&A, "upwind2d 12^2", 0, 0);
    cmrs_csr_free(&A);

    double d[1] = {4.0};
    tridiag(&A, 1, d, 0.0);
    run_matrix(&A, "1x1", 1, 0);
    cmrs_csr_free(&A);
}

/* The isolated row must be a singleton; a row with a zero or missing
 * diagonal has no strong neighbour, so it is a singleton too (nothing
 * joins it: the graph is symmetrised). */
static void test_singletons(void)
{
    cmrs_csr A;
    lap2d_edited(&A, 9, 40, 13, 57);
    int64_t rows[3] = {40, 13, 57};
    static const cmrs_amg_agg methods[] = {CMRS_AMG_AGG_PAIRWISE,
                                           CMRS_AMG_AGG_GREEDY,
                                           CMRS_AMG_AGG_MIS2};
    for (int m = 0; m < 3; ++m) {
        cmrs_amg_params p = amg_plain_params(methods[m], 8);
        int32_t agg[81];
        int64_t naggs;
        CHECK_OK(cmrs_amg_aggregate(&A, &p, agg, &naggs));
        for (int r = 0; r < 3; ++r) {
            int64_t others = 0;
            for (int64_t i = 0; i < A.rows; ++i)
                others += i != rows[r] && agg[i] == agg[rows[r]];
            CHECK(others == 0, "%s: row %lld shares its aggregate with %lld "
                  "rows", method_name(&p), (long long)rows[r],
                  (long long)others);
        }
    }
    cmrs_csr_free(&A);
}

/* ---- sparse product ----------------------------------------------------- */

static void random_sparse(cmrs_csr *A, int64_t m, int64_t n, double density,
                          cmrs_rng *r)
{
    double *D = calloc((size_t)(m * n) + 1, sizeof *D);
    for (int64_t i = 0; i < m; ++i) {
        if (i % 4 == 1) continue; /* empty rows */
        for (int64_t j = 0; j < n; ++j)
            if (cmrs_rng_uniform(r) < density)
                D[i * n + j] = 2.0 * cmrs_rng_uniform(r) - 1.0 + 1e-3;
    }
    from_dense(D, NULL, m, n, A);
    free(D);
}

static void check_product(int64_t m, int64_t k, int64_t n, double density,
                          uint64_t seed)
{
    cmrs_rng r = cmrs_rng_make(seed);
    cmrs_csr A, B, C;
    random_sparse(&A, m, k, density, &r);
    random_sparse(&B, k, n, density, &r);
    CHECK_OK(cmrs_csr_multiply(&A, &B, &C));
    CHECK_OK(cmrs_csr_validate(&C, "C = A B"));
    double *Ad = csr_to_dense(&A), *Bd = csr_to_dense(&B);
    double *Cd = csr_to_dense(&C);
    double err = 0, amax = 0;
    int64_t pattern_bad = 0;
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            int structural = 0;
            for (int64_t q = 0; q < k; ++q) {
                s += Ad[i * k + q] * Bd[q * n + j];
                structural |= Ad[i * k + q] != 0 && Bd[q * n + j] != 0;
            }
            int f;
            cmrs_csr_lookup(&C, i, (int32_t)j, &f);
            pattern_bad += f != structural;
            err = fmax(err, fabs(s - Cd[i * n + j]));
            amax = fmax(amax, fabs(s));
        }
    }
    CHECK(C.rows == m && C.cols == n && pattern_bad == 0 &&
              err <= 1e-14 * fmax(amax, 1.0),
          "C = A B (%lld x %lld x %lld, density %g): %lld pattern errors, "
          "error %g", (long long)m, (long long)k, (long long)n, density,
          (long long)pattern_bad, err);
    free(Ad);
    free(Bd);
    free(Cd);
    cmrs_csr_free(&A);
    cmrs_csr_free(&B);
    cmrs_csr_free(&C);
}

static void test_multiply(void)
{
    check_product(1, 1, 1, 1.0, 1);
    check_product(7, 3, 5, 0.5, 2);
    check_product(20, 30, 10, 0.2, 3);
    check_product(30, 1, 30, 0.9, 4); /* outer product */
    check_product(1, 40, 1, 0.5, 5);  /* inner product */
    check_product(60, 50, 70, 0.08, 6);
    check_product(50, 50, 50, 0.6, 7); /* long rows: the qsort path */
    check_product(5, 0, 4, 0.5, 8);
    check_product(0, 3, 4, 0.5, 9);

    /* [1 1] [1; -1] = [0]: the entry stays, stored as an explicit zero. */
    double a[2] = {1, 1}, b[2] = {1, -1};
    cmrs_csr A, B, C;
    from_dense(a, NULL, 1, 2, &A);
    from_dense(b, NULL, 2, 1, &B);
    CHECK_OK(cmrs_csr_multiply(&A, &B, &C));
    CHECK(C.nnz == 1 && C.values[0] == 0.0, "cancellation: nnz %lld",
          (long long)C.nnz);
    cmrs_csr_free(&C);
    CHECK_FAILS(cmrs_csr_multiply(&A, &A, &C), CMRS_E_INPUT, "do not match");
    CHECK(C.indptr == NULL, "a failed product holds nothing");
    cmrs_csr_free(&A);
    cmrs_csr_free(&B);
}

/* ---- refusals ----------------------------------------------------------- */

static void test_refusals(void)
{
    cmrs_csr A, P, Ac;
    int32_t agg[16];
    int64_t naggs;
    cmrs_rng r = cmrs_rng_make(3);
    random_sparse(&A, 4, 5, 0.5, &r);
    cmrs_amg_params p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 8);
    CHECK_FAILS(cmrs_amg_aggregate(&A, &p, agg, &naggs), CMRS_E_INPUT,
                "non-square");
    cmrs_csr_free(&A);

    lap2d(&A, 4);
    p.agg_size = 3;
    CHECK_FAILS(cmrs_amg_aggregate(&A, &p, agg, &naggs), CMRS_E_USAGE,
                "aggregate size 3");
    p = amg_plain_params(CMRS_AMG_AGG_GREEDY, 3); /* greedy ignores the size */
    CHECK_OK(cmrs_amg_aggregate(&A, &p, agg, &naggs));
    p.theta = NAN;
    CHECK_FAILS(cmrs_amg_aggregate(&A, &p, agg, &naggs), CMRS_E_USAGE,
                "theta");
    p = amg_plain_params(CMRS_AMG_AGG_PAIRWISE, 2);
    CHECK_OK(cmrs_amg_aggregate(&A, &p, agg, &naggs));
    agg[5] = (int32_t)naggs;
    CHECK_FAILS(cmrs_amg_prolongator(&A, agg, naggs, &p, &P), CMRS_E_INPUT,
                "aggregate");
    agg[5] = 0;
    CHECK_OK(cmrs_amg_prolongator(&A, agg, naggs, &p, &P));
    CHECK_FAILS(cmrs_amg_galerkin_host(&P, &A, &P, &Ac), CMRS_E_INPUT,
                "do not match");
    cmrs_csr_free(&P);
    cmrs_csr_free(&A);

    cmrs_csr E = {0};
    CHECK_OK(cmrs_csr_alloc(&E, 0, 0, 0));
    CHECK_OK(cmrs_amg_aggregate(&E, &p, agg, &naggs));
    CHECK(naggs == 0, "0 x 0: %lld aggregates", (long long)naggs);
    cmrs_csr_free(&E);
}

/* ---- timing (printed, not checked) ------------------------------------- */

static void bench(int64_t n)
{
    cmrs_csr A;
    poisson3d(&A, n);
    int32_t *agg = malloc((size_t)A.rows * sizeof *agg);
    for (int m = 0; m < 2; ++m) {
        cmrs_amg_params p = amg_plain_params(m ? CMRS_AMG_AGG_GREEDY :
                                          CMRS_AMG_AGG_PAIRWISE, 8);
        int64_t naggs;
        double t0 = cmrs_wtime();
        CHECK_OK(cmrs_amg_aggregate(&A, &p, agg, &naggs));
        double t_agg = cmrs_wtime() - t0;
        for (int smooth = 0; smooth < 2; ++smooth) {
            p.smooth_p = smooth;
            cmrs_csr P, R, Ac;
            t0 = cmrs_wtime();
            CHECK_OK(cmrs_amg_prolongator(&A, agg, naggs, &p, &P));
            CHECK_OK(cmrs_csr_transpose(&P, &R));
            double t_p = cmrs_wtime() - t0;
            t0 = cmrs_wtime();
            CHECK_OK(cmrs_amg_galerkin_host(&R, &A, &P, &Ac));
            double t_g = cmrs_wtime() - t0;
            printf("bench poisson3d %lld^3 (%lld rows, %lld nnz) %-11s %-8s: "
                   "aggregate %.3f s, P+R %.3f s (nnz %lld), galerkin %.3f s "
                   "(%lld rows, nnz %lld), total %.3f s\n", (long long)n,
                   (long long)A.rows, (long long)A.nnz, method_name(&p),
                   smooth ? "smoothed" : "plain", t_agg, t_p,
                   (long long)P.nnz, t_g, (long long)Ac.rows,
                   (long long)Ac.nnz, t_agg + t_p + t_g);
            cmrs_csr_free(&P);
            cmrs_csr_free(&R);
            cmrs_csr_free(&Ac);
        }
    }
    free(agg);
    cmrs_csr_free(&A);
}

int main(void)
{
    test_multiply();
    test_matrices();
    test_singletons();
    test_refusals();
    const char *env = getenv("CMRS_AMG_BENCH_N"); /* 0: no bench */
    int64_t n = env ? atoll(env) : 100;
    if (n > 0) bench(n);
    return check_summary();
}
