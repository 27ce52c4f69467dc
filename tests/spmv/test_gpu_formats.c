/* Every SpMV format of the registry (so a new format is tested the moment
 * it is registered) x precision x its tuning parameters x matrices chosen
 * for the edge cases of strip/warp-based kernels, against the CPU
 * reference with the precision-aware bound of spmv/verify.h. Per run: y
 * poisoned with NaN and beta = 0 (y must not be read, every entry must be
 * written), then y random with alpha = -1.5, beta = 0.75. Once per format
 * and precision the apply is also captured in a CUDA graph (no allocation
 * or synchronisation inside apply). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "base/gpu/cuda_check.h"
#include "spmv/spmv.h"
#include "spmv/verify.h"
#include "spmv/cmrs/test_cmrs_matrices.h"

#define MAX_MATRICES 24
#define MAX_PARAMS 96
#define PRINT_PER_FORMAT 25 /* failure lines printed per format, then counted */

/* Random matrices (test_cmrs_matrices.h): row lengths of mean mu (fixed,
 * uniform in [mu/2, 3mu/2), or exponential = skewed with sigma = mu), a
 * fraction of empty rows, optionally one long row; columns in a window near
 * the diagonal, like a mesh numbering. */
#define SPEC(name, rows, cols, kind, mu, empty, long_row, long_len)         \
    {name, rows, cols, mu, 0, empty, long_row, long_len, 0, TEST_LEN_##kind}
static const test_spec k_specs[] = {
    SPEC("rand mu=1 uniform", 2000, 2000, UNIFORM, 1, 0, -1, 0),
    SPEC("rand mu=5 uniform", 3000, 3000, UNIFORM, 5, 0, -1, 0),
    SPEC("rand mu=7 skewed", 3000, 3000, SKEWED, 7, 0, -1, 0),
    SPEC("rand mu=16 skewed", 2000, 2000, SKEWED, 16, 0, -1, 0),
    SPEC("rand mu=27 uniform", 2000, 2000, UNIFORM, 27, 0, -1, 0),
    SPEC("rand mu=33 uniform", 1500, 1500, UNIFORM, 33, 0, -1, 0),
    SPEC("rand mu=60 skewed", 1500, 1500, SKEWED, 60, 0, -1, 0),
    SPEC("rand mu=60 uniform", 1000, 1000, UNIFORM, 60, 0, -1, 0),
    SPEC("30% empty rows mu=4", 2000, 2000, UNIFORM, 4, 0.3, -1, 0),
    SPEC("all rows empty", 500, 500, FIXED, 0, 1.0, -1, 0),
    SPEC("one row of 11000 among mu=3", 12000, 12000, UNIFORM, 3, 0, 6001,
         11000),
    SPEC("rows=1001 mu=6 skewed", 1001, 1001, SKEWED, 6, 0, -1, 0),
    SPEC("rows=17 mu=3", 17, 17, UNIFORM, 3, 0, -1, 0),
    SPEC("n=1", 1, 1, FIXED, 1, 0, -1, 0),
    SPEC("wide 700x1900 mu=9", 700, 1900, UNIFORM, 9, 0, -1, 0),
    SPEC("tall 1900x300 mu=4 skewed", 1900, 300, SKEWED, 4, 0, -1, 0),
};
#define N_SPECS (int)(sizeof k_specs / sizeof k_specs[0])

typedef struct test_matrix {
    char name[64];
    cmrs_csr A;
} test_matrix;

/* Takes A out of a generated system (the rest is not needed). */
static void add_case(test_matrix *m, int *n, const char *name, cmrs_code rc,
                     cmrs_system *sys)
{
    CHECK(rc == CMRS_OK, "generating %s: %s", name, cmrs_error_message());
    if (rc != CMRS_OK) {
        cmrs_system_free(sys);
        return;
    }
    snprintf(m[*n].name, sizeof m[*n].name, "%s", name);
    m[(*n)++].A = sys->A;
    memset(&sys->A, 0, sizeof sys->A);
    cmrs_system_free(sys);
}

static int make_matrices(test_matrix *m)
{
    int n = 0;
    for (int i = 0; i < N_SPECS; ++i) {
        cmrs_system sys;
        memset(&sys, 0, sizeof sys);
        add_case(m, &n, k_specs[i].name,
                 test_random_csr(&k_specs[i], 1000 + (uint64_t)i, &sys.A),
                 &sys);
    }
    cmrs_system sys;
    cmrs_vessel_opts vo = {5000, 7};
    cmrs_poisson_opts p7 = {12, 7, 0, 1}, p27 = {12, 27, 0, 1};
    memset(&sys, 0, sizeof sys);
    add_case(m, &n, "vessel ~5000 cells", cmrs_gen_vessel(&vo, &sys), &sys);
    memset(&sys, 0, sizeof sys);
    add_case(m, &n, "poisson 12^3 7-point", cmrs_gen_poisson3d(&p7, &sys), &sys);
    memset(&sys, 0, sizeof sys);
    add_case(m, &n, "poisson 12^3 27-point", cmrs_gen_poisson3d(&p27, &sys),
             &sys);
    return n;
}

static cmrs_spmv_opts opt(int h, int block, int modulo, int sorted, int alg)
{
    cmrs_spmv_opts o = {h, block, modulo, sorted, alg, 0, 0, 0, 0, 0};
    return o;
}

/* The parameters each format is exercised with; 0 = the format's default. */
static int param_sets(const char *name, cmrs_spmv_opts *out)
{
    int n = 0;
    if (!strcmp(name, "cmrs")) {
        for (int h = 1; h <= 16; ++h)
            for (int sorted = -1; sorted <= 1; sorted += 2)
                for (int b = 128; b <= 256; b += 128)
                    out[n++] = opt(h, b, 0, sorted, 0);
        out[n++] = opt(4, 64, 0, -1, 0);
        out[n++] = opt(16, 64, 0, 1, 0);
        out[n++] = opt(1, 512, 0, -1, 0);
        out[n++] = opt(11, 512, 0, 1, 0);
    } else if (!strcmp(name, "cmrs-mod")) {
        static const int hs[] = {0, 1, 7, 16};
        for (int m = 2; m <= 32; m *= 2)
            for (int i = 0; i < 4; ++i) out[n++] = opt(hs[i], 0, m, 0, 0);
    } else if (!strcmp(name, "cusparse")) {
        out[n++] = opt(0, 0, 0, 0, 1);
        out[n++] = opt(0, 0, 0, 0, 2);
    } else if (!strncmp(name, "csr-", 4)) {
        out[n++] = opt(0, 0, 0, 0, 0);
        out[n++] = opt(0, 64, 0, 0, 0);
        out[n++] = opt(0, 512, 0, 0, 0);
    } else {
        out[n++] = opt(0, 0, 0, 0, 0);
    }
    return n;
}

typedef struct run_ctx {
    const char *format;
    cmrs_prec prec;
    const cmrs_spmv_opts *opts;
    const test_matrix *m;
    cudaStream_t stream;
    int failures; /* of this format, to limit the output */
} run_ctx;

static void describe(const run_ctx *c, char *buf, size_t n)
{
    const cmrs_spmv_opts *o = c->opts;
    snprintf(buf, n, "format=%s prec=%s h=%d block=%d modulo=%d sorted=%d "
             "alg=%d matrix='%s'", c->format, cmrs_prec_name(c->prec),
             o->height, o->block_size, o->modulo, o->sorted, o->cusparse_alg,
             c->m->name);
}

static void report(run_ctx *c, int ok, const char *step, const char *what)
{
    char desc[256];
    if (ok) {
        ++g_checks_passed;
        return;
    }
    if (++c->failures > PRINT_PER_FORMAT) {
        ++g_checks_failed; /* counted, not printed */
        return;
    }
    describe(c, desc, sizeof desc);
    CHECK(0, "%s: %s: %s", desc, step, what);
}

static void report_check(run_ctx *c, cmrs_code rc, const cmrs_spmv_check *k,
                         const char *step)
{
    char what[256];
    if (rc != CMRS_OK)
        snprintf(what, sizeof what, "%s", cmrs_error_message());
    else
        snprintf(what, sizeof what, "rel error %.3g (bound %.3g), %lld "
                 "non-finite entries", k->rel_err, k->tol,
                 (long long)k->nonfinite);
    report(c, rc == CMRS_OK && k->ok, step, what);
}

/* The two products of one run (and the graph capture when asked). */
static void check_products(run_ctx *c, cmrs_spmv *s, int graph)
{
    const cmrs_csr *A = &c->m->A;
    double *x = cmrs_malloc_array((size_t)A->cols, sizeof *x);
    double *y0 = cmrs_malloc_array((size_t)A->rows, sizeof *y0);
    cmrs_spmv_check k;
    cmrs_random_vector(x, A->cols, 11);
    cmrs_random_vector(y0, A->rows, 12);
    cmrs_code rc = cmrs_spmv_verify(s, A, 1.0, x, 0.0, NULL, &k);
    report_check(c, rc, &k, "alpha=1 beta=0, y poisoned");
    rc = cmrs_spmv_verify(s, A, -1.5, x, 0.75, y0, &k);
    report_check(c, rc, &k, "alpha=-1.5 beta=0.75");
    if (graph) {
        rc = cmrs_spmv_verify_graph(s, A, -1.5, x, 0.75, y0, &k);
        report_check(c, rc, &k, "apply captured in a CUDA graph");
    }
    free(x);
    free(y0);
}

/* 1 when storing every row as long as the longest would exceed the
 * padding limit of spmv.h: the most any padded format can need. */
static int ell_padding_exceeds_limit(const cmrs_csr *A)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (A->indptr[i + 1] - A->indptr[i] > longest)
            longest = A->indptr[i + 1] - A->indptr[i];
    return (double)A->rows * (double)longest >
           CMRS_MAX_PADDING_RATIO * (double)A->nnz + 1024.0;
}

static void run_one(run_ctx *c, int graph)
{
    cmrs_spmv *s = NULL;
    cmrs_code rc = cmrs_spmv_create(c->format, &c->m->A, c->prec, c->opts,
                                    c->stream, &s);
    /* Padded formats must refuse (CMRS_E_LIMIT, "padding") a matrix whose
     * ELL padding (every row as long as the longest) would exceed the
     * documented limit, rather than exhaust memory; only such a matrix. */
    if (rc == CMRS_E_LIMIT && strstr(cmrs_error_message(), "padding")) {
        report(c, ell_padding_exceeds_limit(&c->m->A), "setup",
               "padding refusal of a matrix whose ELL padding is in bounds");
        return;
    }
    report(c, rc == CMRS_OK, "setup", cmrs_error_message());
    if (rc != CMRS_OK) return;
    report(c, s->strips >= 0 && s->stored_entries >= s->nnz &&
                  (s->device_bytes > 0 || s->nnz == 0),
           "setup", "strips, stored_entries or device_bytes not set");
    check_products(c, s, graph);
    cmrs_spmv_destroy(s);
}

static void test_format(const cmrs_spmv_ops *ops, const test_matrix *m,
                        int n_matrices, cudaStream_t stream)
{
    cmrs_spmv_opts params[MAX_PARAMS];
    int n_params = param_sets(ops->name, params);
    run_ctx c = {ops->name, CMRS_PREC_DOUBLE, NULL, NULL, stream, 0};
    for (int p = 0; p < 2; ++p) {
        c.prec = p ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
        for (int i = 0; i < n_params; ++i)
            for (int j = 0; j < n_matrices; ++j) {
                c.opts = &params[i];
                c.m = &m[j];
                run_one(&c, i == 0 && j == 2); /* graph: once per precision */
            }
    }
    printf("%-12s %d parameter sets x %d matrices x 2 precisions: %d failures\n",
           ops->name, n_params, n_matrices, c.failures);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    static test_matrix m[MAX_MATRICES];
    int n = make_matrices(m);
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) ==
              cudaSuccess, "cannot create a stream");
    for (size_t f = 0; f < cmrs_spmv_format_count(); ++f)
        test_format(cmrs_spmv_format_at(f), m, n, stream);
    cudaStreamDestroy(stream);
    for (int i = 0; i < n; ++i) cmrs_csr_free(&m[i].A);
    return check_summary();
}
