/* The GPU setup's diagonal, found on the device during the conversion
 * (spmv/diag_tap.cu) instead of host scans, against the host reference:
 *   - the format's diagonal (cmrs_spmv_create_diag): positions as
 *     cmrs_csr_lookup finds them, values, the first row without a positive
 *     diagonal, for cmrs in CSR order and reordered, double and single,
 *     and cusparse in double; none for formats that do not find it;
 *   - the back end's D^-1 (own_dinv, through cmrs_pc_inverse_diagonal and
 *     the Jacobi setup) bitwise equal to the host's (1/d in double, then
 *     rounded), into arrays poisoned with NaN first; the device update's
 *     positions equal to the host's;
 *   - Jacobi's refusals (no diagonal entry, negative, zero, NaN; the first
 *     bad row of several) with the host's message, word for word, and in
 *     single precision an inverse beyond a float with arr_set's;
 *   - own_dinv declines (host path) after a values update and for another
 *     matrix; an empty row is refused by the solver before Jacobi;
 * on random matrices and edge cases: n = 1, a long row, rows not a
 * multiple of the strip height. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "trng.h"
#include "solver/backend/gpu/backend_gpu.h"
#include "solver/krylov/krylov.h"
#include "solver/solver.h"
#include "solver/pc/precond.h"
#include "spmv/device.h"
#include "systems.h"

static uint64_t g_rng = 88172645463325252ull;
static uint64_t rnd(void) { return trng_next(&g_rng); }
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

/* A random n x n matrix, sorted columns, `extra` off-diagonal entries per
 * row at most, a diagonal of 1 + row sum (awkward values: 1/d is rarely
 * exact, and rounding to float differs from the float of d). Row `long_row`
 * (or -1) holds every column. */
static void random_matrix(cmrs_csr *A, int64_t n, int extra, int64_t long_row)
{
    int64_t cap = n * (extra + 1) + (long_row >= 0 ? n : 0);
    cmrs_csr_alloc(A, n, n, cap);
    uint8_t *mark = calloc((size_t)n, 1);
    int64_t k = 0;
    A->indptr[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t start = k;
        double sum = 0;
        if (i == long_row) {
            for (int64_t j = 0; j < n; ++j) mark[j] = 1;
        } else {
            mark[i] = 1;
            for (int e = 0; e < extra; ++e) mark[rnd() % (uint64_t)n] = 1;
        }
        for (int64_t j = 0; j < n; ++j) {
            if (!mark[j]) continue;
            mark[j] = 0;
            A->indices[k] = (int32_t)j;
            A->values[k] = j == i ? 0.0 : -urand() / 3.0;
            sum -= A->values[k++];
        }
        for (int64_t q = start; q < k; ++q)
            if (A->indices[q] == i) A->values[q] = 1.0 + sum + urand() / 7.0;
        A->indptr[i + 1] = k;
    }
    A->nnz = k;
    free(mark);
}

/* The host's positions (cmrs_csr_lookup's lower bound), values, first bad
 * row. */
static int64_t host_diag(const cmrs_csr *A, int32_t *pos, double *val)
{
    int64_t bad = -1;
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t lo = A->indptr[i], hi = A->indptr[i + 1], end = hi;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (A->indices[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        int found = lo < end && A->indices[lo] == i;
        pos[i] = found ? (int32_t)lo : -1;
        val[i] = found ? A->values[lo] : 0.0;
        if (bad < 0 && !(val[i] > 0)) bad = i;
    }
    return bad;
}

/* Fills the free device memory's next allocations with 0xff where CUDA
 * reuses them: the arrays setup allocates are poisoned before it runs. */
static void poison_device(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return;
    cudaMemset(p, 0xff, bytes);
    cudaDeviceSynchronize();
    cudaFree(p);
}

static void check_format_diag(const char *label, const cmrs_csr *A,
                              const char *format, cmrs_prec prec,
                              const char *variant, int want)
{
    int64_t n = A->rows;
    int32_t *pos = malloc((size_t)n * 4), *pos_d = malloc((size_t)n * 4);
    double *val = malloc((size_t)n * 8), *val_d = malloc((size_t)n * 8);
    unsigned long long bad_d = 0;
    int64_t bad = host_diag(A, pos, val);
    cmrs_spmv *s = NULL;
    if (variant) setenv("CMRS_CMRS_VARIANT", variant, 1);
    poison_device((size_t)64 << 20);
    CHECK_OK(cmrs_spmv_create_diag(format, A, prec, NULL, 0, &s));
    unsetenv("CMRS_CMRS_VARIANT");
    if (!s) goto done;
    CHECK((s->diag.pos_d != NULL) == want, "%s %s %s: diagonal %s", label,
          format, cmrs_prec_name(prec), want ? "not found" : "found");
    if (!s->diag.pos_d) goto done;
    CHECK(cudaMemcpy(pos_d, s->diag.pos_d, (size_t)n * 4,
                     cudaMemcpyDeviceToHost) == cudaSuccess, "copy pos");
    CHECK(cudaMemcpy(val_d, s->diag.value_d, (size_t)n * 8,
                     cudaMemcpyDeviceToHost) == cudaSuccess, "copy val");
    CHECK(cudaMemcpy(&bad_d, s->diag.bad_d, 8, cudaMemcpyDeviceToHost) ==
              cudaSuccess, "copy bad");
    CHECK(memcmp(pos, pos_d, (size_t)n * 4) == 0, "%s %s %s: positions",
          label, format, cmrs_prec_name(prec));
    CHECK(memcmp(val, val_d, (size_t)n * 8) == 0, "%s %s %s: values", label,
          format, cmrs_prec_name(prec));
    CHECK((bad < 0 && bad_d == ~0ull) || (int64_t)bad_d == bad,
          "%s %s %s: bad row %lld, host %lld", label, format,
          cmrs_prec_name(prec), (long long)bad_d, (long long)bad);
done:
    cmrs_spmv_destroy(s);
    free(pos);
    free(pos_d);
    free(val);
    free(val_d);
}

/* D^-1 through the back end against the host's, bitwise, in arrays
 * poisoned with NaN; want_own: whether own_dinv should find its
 * diagonal (else the host path, through cmrs_pc_inverse_diagonal). */
static void check_dinv(const char *label, const cmrs_csr *A,
                       const char *format, cmrs_prec prec, int want_own)
{
    int64_t n = A->rows;
    cmrs_backend *be = NULL;
    void *dinv = NULL;
    double *ref = malloc((size_t)n * 8), *got = malloc((size_t)n * 8);
    int32_t *pos = malloc((size_t)n * 4), *pos_d = malloc((size_t)n * 4);
    double *val = malloc((size_t)n * 8);
    int done = 0;
    CHECK_OK(cmrs_jacobi_inverse_diagonal(A, "ref", ref));
    for (int64_t i = 0; i < n && prec == CMRS_PREC_SINGLE; ++i)
        ref[i] = (double)(float)ref[i];
    poison_device((size_t)64 << 20);
    CHECK_OK(cmrs_backend_gpu_create(A, format, prec, NULL, &be));
    if (!be) goto out;
    CHECK_OK(be->ops->arr_create(be, n, &dinv));
    /* Poisoned: all-ones words are NaN in float and double alike (arr_set
     * refuses NaN in single precision). */
    CHECK(dinv && cudaMemset(dinv, 0xff, (size_t)n * cmrs_prec_value_bytes(
                                             prec)) == cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess, "poison D^-1");
    CHECK_OK(be->ops->own_dinv(be, A, "t", &dinv, &done));
    CHECK(done == want_own, "%s %s %s: own_dinv done %d", label, format,
          cmrs_prec_name(prec), done);
    if (!done) CHECK_OK(cmrs_pc_inverse_diagonal(be, A, "t", &dinv));
    CHECK_OK(be->ops->arr_get(be, n, dinv, got));
    CHECK(memcmp(ref, got, (size_t)n * 8) == 0, "%s %s %s: D^-1 differs",
          label, format, cmrs_prec_name(prec));
    /* The device update's positions, however found. */
    if (GPU(be)->diag_d) {
        host_diag(A, pos, val);
        CHECK(cudaMemcpy(pos_d, GPU(be)->diag_d, (size_t)n * 4,
                         cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
        CHECK(memcmp(pos, pos_d, (size_t)n * 4) == 0, "%s %s: update's "
              "positions", label, format);
    }
    /* After new values the creation's diagonal is old: the host path. */
    if (want_own) {
        int in_place = 0;
        CHECK_OK(be->ops->update_values(be, A, &in_place));
        CHECK_OK(be->ops->own_dinv(be, A, "t", &dinv, &done));
        CHECK(done == 0, "%s: own_dinv after an update", label);
    }
out:
    if (be) be->ops->arr_destroy(be, dinv);
    cmrs_backend_destroy(be);
    free(ref);
    free(got);
    free(pos);
    free(pos_d);
    free(val);
}

/* Another matrix than the back end's (same counts): declined. */
static void check_other_matrix(const cmrs_csr *A)
{
    cmrs_csr B;
    cmrs_backend *be = NULL;
    void *dinv = NULL;
    int done = 1;
    CHECK_OK(cmrs_csr_copy(&B, A));
    CHECK_OK(cmrs_backend_gpu_create(A, "cmrs", CMRS_PREC_DOUBLE, NULL, &be));
    if (be) {
        CHECK_OK(be->ops->own_dinv(be, &B, "t", &dinv, &done));
        CHECK(done == 0 && dinv == NULL, "own_dinv for another matrix");
    }
    cmrs_backend_destroy(be);
    cmrs_csr_free(&B);
}

/* The host message of the Jacobi setup for A (CPU back end), then the
 * GPU's for each format and precision: the same code and text. */
static void check_refusal(const char *label, const cmrs_csr *A, int has_nan)
{
    char want[1024];
    cmrs_backend *cpu = NULL;
    cmrs_precond *pc = NULL;
    cmrs_pc_opts o;
    cmrs_pc_opts_default(&o);
    CHECK_OK(cmrs_backend_cpu_create(A, CMRS_PREC_DOUBLE, &cpu));
    cmrs_code rc = cmrs_precond_create(cpu, A, CMRS_PC_JACOBI, &o, "m", &pc);
    CHECK(rc == CMRS_E_INPUT, "%s: cpu rc %d", label, rc);
    snprintf(want, sizeof want, "%s", cmrs_error_message());
    cmrs_precond_destroy(pc);
    cmrs_backend_destroy(cpu);
    static const char *const formats[] = {"cmrs", "cusparse", "csr-scalar"};
    for (int f = 0; f < 3; ++f)
        for (int p = 0; p < 2; ++p) {
            cmrs_backend *be = NULL;
            pc = NULL;
            cmrs_error_clear();
            rc = cmrs_backend_gpu_create(A, formats[f], (cmrs_prec)p, NULL,
                                         &be);
            if (p == CMRS_PREC_SINGLE && has_nan) {
                /* Refused before Jacobi, in single: the values' range. */
                CHECK(rc == CMRS_E_INPUT && strstr(cmrs_error_message(),
                                                   "single precision range"),
                      "%s %s single: rc %d '%s'", label, formats[f], rc,
                      cmrs_error_message());
                cmrs_backend_destroy(be);
                continue;
            }
            CHECK(rc == CMRS_OK, "%s %s %d: %s", label, formats[f], p,
                  cmrs_error_message());
            if (!be) continue;
            cmrs_error_clear();
            rc = cmrs_precond_create(be, A, CMRS_PC_JACOBI, &o, "m", &pc);
            CHECK(rc == CMRS_E_INPUT && strcmp(cmrs_error_message(), want) == 0,
                  "%s %s %d: '%s', want '%s'", label, formats[f], p,
                  cmrs_error_message(), want);
            cmrs_precond_destroy(pc);
            cmrs_backend_destroy(be);
        }
}

/* n x n tridiagonal (diagonal 4, off -1), with row r's diagonal entry
 * missing where miss >= 0. */
static void tridiagonal(cmrs_csr *A, int64_t n, int64_t miss)
{
    cmrs_csr_alloc(A, n, n, 3 * n);
    int64_t k = 0;
    A->indptr[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i - 1; j <= i + 1; ++j) {
            if (j < 0 || j >= n || (j == i && i == miss)) continue;
            A->indices[k] = (int32_t)j;
            A->values[k++] = j == i ? 4.0 + 1.0 / (double)(i + 3) : -1.0;
        }
        A->indptr[i + 1] = k;
    }
    A->nnz = k;
}

static void refusals(void)
{
    /* Row 11's diagonal, one at a time (a NaN is refused before Jacobi in
     * single precision: check_refusal's has_nan). */
    static const struct {
        const char *label;
        double value;
        int has_nan;
    } bad[] = {{"negative diagonal", -2.5, 0},
               {"zero diagonal", 0.0, 0},
               {"NaN diagonal", NAN, 1}};
    cmrs_csr A;
    tridiagonal(&A, 37, 20);
    check_refusal("missing diagonal", &A, 0);
    cmrs_csr_free(&A);
    tridiagonal(&A, 37, -1);
    for (int i = 0; i < 3; ++i) {
        set_diagonal(&A, 11, bad[i].value);
        check_refusal(bad[i].label, &A, bad[i].has_nan);
    }
    set_diagonal(&A, 11, 4.0);
    set_diagonal(&A, 30, -1.0);
    set_diagonal(&A, 5, 0.0); /* the first bad row is reported: 5 */
    check_refusal("two bad rows", &A, 0);
    cmrs_csr_free(&A);
    tridiagonal(&A, 2, 1); /* n = 2, the last row without its diagonal */
    check_refusal("2x2, no a_11", &A, 0);
    cmrs_csr_free(&A);
}

/* Single precision, cmrs: the values' range checked on the device where
 * the diagonal is found (stage_single_tapped), with the host check's
 * message (cmrs_spmv_create checks on the host). */
static void range_check(void)
{
    cmrs_csr A;
    char want[1024] = "";
    cmrs_spmv *s = NULL;
    tridiagonal(&A, 50, -1);
    A.values[33] = -1e300;
    A.values[70] = 1e300; /* the smallest index is named: 33 */
    cmrs_error_clear();
    CHECK(cmrs_spmv_create("cmrs", &A, CMRS_PREC_SINGLE, NULL, 0, &s) ==
              CMRS_E_INPUT, "host range check");
    snprintf(want, sizeof want, "%s", cmrs_error_message());
    CHECK(strstr(want, "index 33") != NULL, "host check: '%s'", want);
    cmrs_spmv_destroy(s);
    s = NULL;
    cmrs_error_clear();
    CHECK(cmrs_spmv_create_diag("cmrs", &A, CMRS_PREC_SINGLE, NULL, 0, &s) ==
              CMRS_E_INPUT && strcmp(cmrs_error_message(), want) == 0,
          "device range check: '%s', want '%s'", cmrs_error_message(), want);
    cmrs_spmv_destroy(s);
    cmrs_csr_free(&A);
}

/* Single precision: 1/d beyond a float fails as arr_set fails on the host
 * (csr-scalar: the host path) with the same message. */
static void float_overflow(void)
{
    cmrs_csr A;
    char want[1024] = "";
    cmrs_pc_opts o;
    cmrs_pc_opts_default(&o);
    tridiagonal(&A, 40, -1);
    set_diagonal(&A, 17, 1e-40); /* a float (denormal); 1e40 is not */
    const char *formats[] = {"csr-scalar", "cmrs"};
    for (int f = 0; f < 2; ++f) {
        cmrs_backend *be = NULL;
        cmrs_precond *pc = NULL;
        CHECK_OK(cmrs_backend_gpu_create(&A, formats[f], CMRS_PREC_SINGLE,
                                         NULL, &be));
        if (!be) continue;
        cmrs_error_clear();
        cmrs_code rc = cmrs_precond_create(be, &A, CMRS_PC_JACOBI, &o, "m",
                                           &pc);
        CHECK(rc == CMRS_E_INPUT && strstr(cmrs_error_message(),
                                           "does not fit in single"),
              "%s: overflow rc %d '%s'", formats[f], rc, cmrs_error_message());
        if (f == 0) snprintf(want, sizeof want, "%s", cmrs_error_message());
        else CHECK(strcmp(want, cmrs_error_message()) == 0, "cmrs '%s' vs "
                   "host '%s'", cmrs_error_message(), want);
        cmrs_precond_destroy(pc);
        cmrs_backend_destroy(be);
    }
    cmrs_csr_free(&A);
}

/* An empty row: the back end is made (its diagonal flags the row), the
 * solver refuses the matrix before Jacobi. */
static void empty_row(void)
{
    cmrs_csr A;
    cmrs_backend *be = NULL;
    cmrs_ksp *s = NULL;
    cmrs_ksp_opts o;
    tridiagonal(&A, 20, -1);
    /* Row 7 emptied: its entries dropped, later rows shifted. */
    int64_t b = A.indptr[7], e = A.indptr[8], len = e - b;
    memmove(A.indices + b, A.indices + e, (size_t)(A.nnz - e) * 4);
    memmove(A.values + b, A.values + e, (size_t)(A.nnz - e) * 8);
    for (int64_t i = 8; i <= A.rows; ++i) A.indptr[i] -= len;
    A.nnz -= len;
    cmrs_ksp_opts_default(&o);
    CHECK_OK(cmrs_backend_gpu_create(&A, "cmrs", CMRS_PREC_DOUBLE, NULL, &be));
    if (be)
        CHECK_FAILS(cmrs_ksp_create(be, &A, &o, "m", &s), CMRS_E_INPUT,
                    "row 7 has no entries");
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&A);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    static const struct {
        const char *label;
        int64_t n;
        int extra;
        int64_t long_row;
    } cases[] = {{"n=1", 1, 0, -1},        {"n=37", 37, 4, -1},
                 {"n=1001", 1001, 6, -1},  {"long row", 3000, 3, 1234},
                 {"n=20011", 20011, 6, -1}};
    /* the host build in one pass (unset) and by chunks of rows (3
     * entries: a chunk a row or two; 1000), double */
    static const char *const chunks[] = {NULL, "3", "1000"};
    for (size_t q = 0; q < 3 * (sizeof cases / sizeof *cases); ++q) {
        const size_t c = q % (sizeof cases / sizeof *cases);
        const char *chunk = chunks[q / (sizeof cases / sizeof *cases)];
        if (chunk) setenv("CMRS_CONVERT_CHUNK_ENTRIES", chunk, 1);
        else unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
        if (chunk && strcmp(chunk, "3") == 0 && cases[c].n > 5000) continue;
        cmrs_csr A;
        random_matrix(&A, cases[c].n, cases[c].extra, cases[c].long_row);
        char L[64];
        snprintf(L, sizeof L, "%s, chunks %s", cases[c].label,
                 chunk ? chunk : "default");
        for (int p = 0; p < 2; ++p) {
            cmrs_prec prec = (cmrs_prec)p;
            check_format_diag(L, &A, "cmrs", prec, NULL, 1);
            check_format_diag(L, &A, "cmrs", prec, "reorder", 1);
            check_format_diag(L, &A, "cusparse", prec, NULL,
                              prec == CMRS_PREC_DOUBLE);
            check_format_diag(L, &A, "csr-scalar", prec, NULL, 0);
            check_format_diag(L, &A, "cmrs", prec, "sl", 0);
            /* strips of one width: by chunks, the diagonal read from the
             * chunk's stage */
            check_format_diag(L, &A, "cmrs", prec, "su", 1);
            check_dinv(L, &A, "cmrs", prec, 1);
            check_dinv(L, &A, "cusparse", prec, prec == CMRS_PREC_DOUBLE);
            check_dinv(L, &A, "csr-scalar", prec, 0);
        }
        if (c == 1) check_other_matrix(&A);
        cmrs_csr_free(&A);
    }
    unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
    refusals();
    setenv("CMRS_CONVERT_CHUNK_ENTRIES", "3", 1); /* the first bad row of */
    refusals();                                   /* all chunks' */
    unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
    range_check();
    float_overflow();
    empty_row();
    return check_summary();
}
