/* The system renumbered once (option renumber, api/renumber.c) on the GPU
 * (exits 77 without one): the GPU's B and maps equal the host's, bit for
 * bit, on random and edge-case matrices (isolated rows, several
 * components, a long row, two rows); solves with renumber on and off give
 * the same x in the caller's order from host and device arrays, double and
 * single, for each preconditioner and mixed precision; device and host
 * value updates equal a fresh setup on the new values; apply_precond from
 * device arrays; a non-finite device value and a bad diagonal are named in
 * the caller's numbering. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "base/device.h"
#include "tapi_gpu.h"
#include "tren.h"

static cmrs_context *g_gpu;
static cmrs_csr g_A; /* 60 x 70 grid + 5 isolated rows, random order */

/* The host's renumbering and the GPU's of A: equal arrays. */
static void check_build(const char *what, const cmrs_csr *A)
{
    cmrs_api_ren *h = NULL, *d = NULL;
    CHECK_OK(cmrs_api_ren_make(A, 0, &h));
    CHECK_OK(cmrs_api_ren_make(A, 1, &d));
    if (!h || !d) {
        cmrs_api_ren_free(h);
        cmrs_api_ren_free(d);
        return;
    }
    const cmrs_csr *Bh = cmrs_api_ren_matrix(h), *Bd = cmrs_api_ren_matrix(d);
    const size_t n = (size_t)A->rows, nnz = (size_t)A->nnz;
    const int32_t *eh = NULL, *ed = NULL;
    int64_t one = -1;
    /* the GPU's entry map comes down on demand: one entry first */
    if (nnz > 0) one = cmrs_api_ren_entry(d, (int64_t)nnz - 1);
    CHECK_OK(cmrs_api_ren_entries(h, &eh));
    CHECK_OK(cmrs_api_ren_entries(d, &ed));
    if (!eh || !ed) {
        cmrs_api_ren_free(h);
        cmrs_api_ren_free(d);
        return;
    }
    CHECK(nnz == 0 || one == eh[nnz - 1], "%s: one entry from the device "
          "(%lld) equals the host's", what, (long long)one);
    int same = Bh->rows == Bd->rows && Bh->nnz == Bd->nnz &&
               !memcmp(Bh->indptr, Bd->indptr, (n + 1) * 8) &&
               !memcmp(Bh->indices, Bd->indices, nnz * 4) &&
               !memcmp(Bh->values, Bd->values, nnz * 8) &&
               !memcmp(cmrs_api_ren_rows(h), cmrs_api_ren_rows(d), n * 4) &&
               !memcmp(eh, ed, nnz * 4);
    CHECK(same, "%s: the GPU's B and maps equal the host's", what);
    cmrs_api_ren_free(h);
    cmrs_api_ren_free(d);
}

/* A star: row 0 holds every column (a long row), the rest their diagonal
 * and column 0; numbered at random. */
static void star(int64_t n, cmrs_csr *A)
{
    int32_t *perm = tren_perm(n, 5);
    CHECK_OK(cmrs_csr_alloc(A, n, n, 3 * n - 2));
    A->indptr[0] = 0;
    /* rows in the new numbering: row perm[v] is node v */
    int64_t *len = calloc((size_t)n, sizeof *len);
    for (int64_t v = 0; v < n; ++v) len[perm[v]] = v == 0 ? n : 2;
    for (int64_t r = 0; r < n; ++r) A->indptr[r + 1] = A->indptr[r] + len[r];
    for (int64_t v = 0; v < n; ++v) {
        const int64_t r = perm[v], at = A->indptr[r];
        if (v == 0) {
            for (int64_t c = 0; c < n; ++c) {
                A->indices[at + c] = (int32_t)c;
                A->values[at + c] = c == r ? (double)n : -0.5;
            }
        } else {
            const int32_t c0 = perm[0];
            const int lo = c0 < r;
            A->indices[at + !lo] = (int32_t)r;
            A->values[at + !lo] = 2.0;
            A->indices[at + lo] = c0;
            A->values[at + lo] = -0.5;
        }
    }
    free(len);
    free(perm);
}

static void test_build(void)
{
    cmrs_csr A;
    check_build("grid with isolated rows", &g_A);
    tren_grid(1, 2, 0, 0.0, 3, &A); /* two rows */
    check_build("two rows", &A);
    cmrs_csr_free(&A);
    tren_grid(7, 9, 40, 0.0, 4, &A); /* more isolated rows than a search */
    check_build("mostly isolated rows", &A);
    cmrs_csr_free(&A);
    star(3000, &A);
    check_build("a long row", &A);
    cmrs_csr_free(&A);
}

/* One solve: b (and x0 = 0) of type t where `dev`, with renumber ren. */
static void solve(const char *ren, const char *const *opts, const double *b,
                  double *x, cmrs_value_type t, int dev,
                  cmrs_solve_info *info)
{
    const int64_t n = g_A.rows;
    const size_t vb = tapi_vbytes(t);
    cmrs_matrix *M = NULL;
    cmrs_solver *s = tren_solver(g_gpu, &g_A, ren, opts, &M);
    double *zero = calloc((size_t)n, 8);
    void *bh = tapi_typed(t, b, n), *xh = tapi_typed(t, zero, n);
    if (dev) {
        void *bd = tapi_to_device(t, b, n), *xd = tapi_to_device(t, zero, n);
        API_OK(g_gpu, cmrs_solver_solve_ex(s, bd, xd, t, CMRS_MEMORY_DEVICE));
        CHECK(cudaMemcpy(xh, xd, (size_t)n * vb, cudaMemcpyDeviceToHost) ==
                  cudaSuccess, "x copied back");
        cudaFree(bd);
        cudaFree(xd);
    } else {
        API_OK(g_gpu, cmrs_solver_solve_ex(s, bh, xh, t, CMRS_MEMORY_HOST));
    }
    for (int64_t i = 0; i < n; ++i)
        x[i] = t == CMRS_VALUE_FLOAT32 ? ((float *)xh)[i]
                                       : ((double *)xh)[i];
    API_OK(g_gpu, cmrs_solver_get_info(s, info));
    CHECK((cmrs_solver_renumbered(s) >= 0) == (strcmp(ren, "on") == 0),
          "renumbered as asked (%s)", ren);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    CMRS_FREE_ALL(zero, bh, xh);
}

static void test_solves(void)
{
    static const char *const pcs[] = {"jacobi", "none", "chebyshev", "amg"};
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n), *x_on = malloc((size_t)n * 8),
           *x_off = malloc((size_t)n * 8);
    for (int single = 0; single < 2; ++single)
        for (int dev = 0; dev < 2; ++dev)
            for (size_t p = 0; p < sizeof pcs / sizeof *pcs; ++p) {
                const char *opts[] = {"precond", pcs[p], "precision",
                                      single ? "single" : "double", "rtol",
                                      single ? "1e-5" : "1e-10", NULL};
                const cmrs_value_type t = single ? CMRS_VALUE_FLOAT32
                                                 : CMRS_VALUE_FLOAT64;
                cmrs_solve_info on, off;
                solve("on", opts, b, x_on, t, dev, &on);
                solve("off", opts, b, x_off, t, dev, &off);
                const double d = tren_diff(x_on, x_off, n);
                CHECK(on.converged && off.converged &&
                          d < (single ? 1e-3 : 1e-8) &&
                          llabs(on.iterations - off.iterations) <=
                              1 + off.iterations / 20,
                      "%s, %s arrays, %s: x off by %.2e, iterations %lld / "
                      "%lld", single ? "single" : "double",
                      dev ? "device" : "host", pcs[p], d,
                      (long long)on.iterations, (long long)off.iterations);
            }
    const char *mixed[] = {"precond", "amg", "precision", "mixed", "rtol",
                           "1e-10", NULL};
    cmrs_solve_info on, off;
    solve("on", mixed, b, x_on, CMRS_VALUE_FLOAT64, 1, &on);
    solve("off", mixed, b, x_off, CMRS_VALUE_FLOAT64, 1, &off);
    CHECK(on.converged && tren_diff(x_on, x_off, n) < 1e-8,
          "mixed amg: x off by %.2e", tren_diff(x_on, x_off, n));
    CMRS_FREE_ALL(b, x_on, x_off);
}

/* The default (auto) on a GPU context, its floor lowered by
 * CMRS_RENUMBER_MIN_ROWS: this poorly numbered system at the floor is
 * renumbered, one row below it is not, and both solves give off's x. */
static void test_default(void)
{
    const int64_t n = g_A.rows;
    double *b = tren_rhs(n), *x = malloc((size_t)n * 8),
           *x_off = malloc((size_t)n * 8);
    static const char *const rtol[] = {"rtol", "1e-10", NULL};
    cmrs_solve_info off;
    solve("off", rtol, b, x_off, CMRS_VALUE_FLOAT64, 0, &off);
    for (int k = 0; k < 2; ++k) {
        const long long at = (long long)(n + k);
        tren_set_floor(at);
        cmrs_matrix *M = tren_matrix(g_gpu, &g_A);
        cmrs_solver *s = NULL;
        API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
        API_OK(g_gpu, cmrs_solver_set_option(s, "rtol", "1e-10"));
        API_OK(g_gpu, cmrs_solver_setup(s, M));
        CHECK((cmrs_solver_renumbered(s) >= 0) == (k == 0), "default, "
              "floor %lld, %lld rows: renumbered %d", at, (long long)n,
              cmrs_solver_renumbered(s) >= 0);
        cmrs_solve_info info = tapi_solve(g_gpu, s, b, n, x);
        CHECK(info.converged && off.converged && tren_diff(x, x_off, n) <
                  1e-8, "default, floor %lld: x off by %.2e", at,
              tren_diff(x, x_off, n));
        cmrs_solver_destroy(s);
        cmrs_matrix_destroy(M);
    }
    tren_set_floor(0);
    CMRS_FREE_ALL(b, x, x_off);
}

/* New values from the device and from the host on renumbered solvers
 * equal a fresh setup's solve (not renumbered) on those values. */
static void test_updates(void)
{
    static const char *const pcs[] = {"jacobi", "amg"};
    const int64_t n = g_A.rows;
    double *v = tapi_diag_scaled(&g_A, 1.5), *b = tren_rhs(n);
    double *x = calloc((size_t)n, 8);
    void *vd = tapi_to_device(CMRS_VALUE_FLOAT64, v, g_A.nnz);
    char what[64];
    for (size_t p = 0; p < 2; ++p)
        for (int dev = 0; dev < 2; ++dev) {
            const char *opts[] = {"precond", pcs[p], "rtol", "1e-10", NULL};
            cmrs_matrix *M = NULL;
            cmrs_solver *s = tren_solver(g_gpu, &g_A, "on", opts, &M);
            snprintf(what, sizeof what, "%s, %s update", pcs[p],
                     dev ? "device" : "host");
            memset(x, 0, (size_t)n * 8);
            API_OK(g_gpu, cmrs_solver_solve(s, b, x)); /* graphs made */
            API_OK(g_gpu, cmrs_solver_update_values(
                              s, dev ? vd : (void *)v, CMRS_VALUE_FLOAT64,
                              dev ? CMRS_MEMORY_DEVICE : CMRS_MEMORY_HOST));
            memset(x, 0, (size_t)n * 8);
            API_OK(g_gpu, cmrs_solver_solve(s, b, x));
            tren_against_fresh(g_gpu, &g_A, v, opts, b, x, what);
            cmrs_solver_destroy(s); /* leaves its values in M: the caller's */
            tren_holds(M, v, what);
            cmrs_matrix_destroy(M);
        }
    cudaFree(vd);
    CMRS_FREE_ALL(v, b, x);
}

/* Jacobi's z = D^-1 r from device arrays: bit for bit either way. */
static void test_apply_device(void)
{
    const int64_t n = g_A.rows;
    double *r = tren_rhs(n), *z[2];
    const char *opts[] = {"precond", "jacobi", NULL};
    for (int k = 0; k < 2; ++k) {
        cmrs_matrix *M = NULL;
        cmrs_solver *s = tren_solver(g_gpu, &g_A, k ? "on" : "off", opts,
                                     &M);
        void *rd = tapi_to_device(CMRS_VALUE_FLOAT64, r, n),
             *zd = tapi_to_device(CMRS_VALUE_FLOAT64, r, n);
        z[k] = malloc((size_t)n * 8);
        API_OK(g_gpu, cmrs_solver_apply_precond(s, rd, zd, CMRS_VALUE_FLOAT64,
                                                CMRS_MEMORY_DEVICE));
        CHECK(cudaMemcpy(z[k], zd, (size_t)n * 8, cudaMemcpyDeviceToHost) ==
                  cudaSuccess, "z copied back");
        cudaFree(rd);
        cudaFree(zd);
        cmrs_solver_destroy(s);
        cmrs_matrix_destroy(M);
    }
    CHECK(tren_diff(z[1], z[0], n) == 0, "device apply_precond: z off by "
          "%.2e", tren_diff(z[1], z[0], n));
    CMRS_FREE_ALL(r, z[0], z[1]);
}

/* A device update's bad value and bad diagonal, named in A's numbering. */
static void test_messages(void)
{
    const int64_t row = 1234, entry = g_A.indptr[row] + 1;
    char want[80];
    for (int k = 0; k < 2; ++k) {
        double *v = tapi_diag_scaled(&g_A, 1.0);
        if (k == 0) {
            v[entry] = NAN;
            snprintf(want, sizeof want, "new value %lld (device",
                     (long long)entry);
        } else {
            for (int64_t j = g_A.indptr[row]; j < g_A.indptr[row + 1]; ++j)
                if (g_A.indices[j] == row) v[j] = -1.0;
            snprintf(want, sizeof want, "row %lld (0-based)", (long long)row);
        }
        void *vd = tapi_to_device(CMRS_VALUE_FLOAT64, v, g_A.nnz);
        cmrs_matrix *M = NULL;
        cmrs_solver *s = tren_solver(g_gpu, &g_A, "on", NULL, &M);
        API_FAILS(g_gpu, cmrs_solver_update_values(s, vd, CMRS_VALUE_FLOAT64,
                                                   CMRS_MEMORY_DEVICE),
                  CMRS_ERROR_INPUT, want);
        cudaFree(vd);
        free(v);
        cmrs_solver_destroy(s);
        cmrs_matrix_destroy(M);
    }
}

/* A value outside the float range in single precision, at setup and in
 * a host update: named at its entry of A, as without renumbering (whose
 * message the test takes as the reference), where B holds it elsewhere. */
static void test_range_messages(void)
{
    const int64_t entry = g_A.indptr[1234] + 1;
    static const char *const single[] = {"precision", "single", NULL};
    char want[80];
    snprintf(want, sizeof want, "value 1e+39 at index %lld is outside",
             (long long)entry);
    double *v = tapi_diag_scaled(&g_A, 1.0);
    v[entry] = 1e39;
    cmrs_csr big = g_A;
    big.values = v;
    static const char *const rens[] = {"off", "on"};
    for (int r = 0; r < 2; ++r) {
        cmrs_matrix *M = tren_matrix(g_gpu, &big);
        cmrs_solver *s = NULL;
        API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
        API_OK(g_gpu, cmrs_solver_set_option(s, "renumber", rens[r]));
        API_OK(g_gpu, cmrs_solver_set_option(s, "precision", "single"));
        API_FAILS(g_gpu, cmrs_solver_setup(s, M), CMRS_ERROR_INPUT, want);
        cmrs_solver_destroy(s);
        cmrs_matrix_destroy(M);
    }
    cmrs_matrix *M = NULL;
    cmrs_solver *s = tren_solver(g_gpu, &g_A, "on", single, &M);
    CHECK(s->ren && cmrs_api_ren_entry(s->ren, entry) != entry, "entry "
          "%lld of A is B's too: the test cannot see a wrong numbering",
          (long long)entry);
    API_FAILS(g_gpu, cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64,
                                               CMRS_MEMORY_HOST),
              CMRS_ERROR_INPUT, want);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    free(v);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    API_OK(NULL, cmrs_context_create(0, &g_gpu));
    if (!g_gpu) return check_summary();
    tren_grid(60, 70, 5, 0.0, 2, &g_A);
    int rc = CHECK_RUN(test_build, test_solves, test_default, test_updates,
                       test_apply_device, test_messages,
                       test_range_messages);
    cmrs_csr_free(&g_A);
    cmrs_context_destroy(g_gpu);
    return rc;
}
