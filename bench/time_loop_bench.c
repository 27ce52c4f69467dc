/* A time loop through the library (scripts/bench-loop.sh): one setup on a
 * system file, then S steps of new values (a slow drift of the file's
 * values, bench/loop_drift.h: off-diagonals times 1 + eps sin(0.2 k +
 * pi (i + j) / n), the diagonal moved so that A stays SPD), a values-only
 * update (from host or device values) and a solve from x = 0. Per step:
 * the update's and the solve's wall times (around the API calls, which
 * return synchronised), iterations, the true relative residual, and the
 * CUDA graphs its solve captured (graph_captures: 0 where the update kept
 * the graph/fused engine's graphs; the cublas engine has none). Making
 * each step's values (and copying them to the GPU for --values device) is
 * not timed: the caller's code would have them already.
 *
 *   time_loop_bench FILE [--device cpu|gpu] [--precond jacobi|amg]
 *       [--amg-update full|frozen] [--values host|device] [--steps S]
 *       [--drift EPS] [--rtol R] [--out FILE.json]
 *
 * Prints one JSON object (per-step arrays and their medians) on stdout or
 * into --out. Exit 1 on a library error, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api_ok.h"
#include "base/device.h"
#include "loop_drift.h"
#include "base/timer.h"
#include "solver/backend/backend.h"

typedef struct loop_opts {
    const char *file, *device, *precond, *update, *values, *rtol, *out;
    int steps;
    double drift;
} loop_opts;

typedef struct loop {
    loop_opts o;
    cmrs_context *ctx;
    cmrs_matrix *M;
    cmrs_solver *s;
    cmrs_csr A0;       /* the file's matrix (values kept: the drift's base) */
    double *b, *x, *v; /* rows, rows, nnz */
    double *sn, *cs;   /* nnz: the drift's spatial part (loop_basis) */
    void *v_d;         /* nnz doubles on the GPU (--values device) */
    int conservative;  /* loop_drift's kind */
    double t_setup;
    int64_t base_iterations;
    double *t_update, *t_solve, *true_rel; /* per step */
    double *t_phase;   /* per step: the solve phase (info.t_solve) */
    double base_phase, base_wall; /* a second solve after setup (its graphs
                                     captured by the first): the reference
                                     a step is held to */
    int64_t *iterations;
    int *converged;
    double *captures;  /* per step: CUDA graphs captured by its solve (0:
                          the update kept the graph/fused engine's graphs) */
} loop;

#define OK(call) BENCH_API_OK("time_loop_bench", L->ctx, call, #call)

#define GPU_OK(call)                                                        \
    do {                                                                    \
        if ((call) != CMRS_OK)                                              \
            bench_fail("time_loop_bench", #call, cmrs_error_message());     \
    } while (0)

static const char *k_usage =
    "usage: time_loop_bench FILE [--device cpu|gpu] [--precond jacobi|amg]\n"
    "       [--amg-update full|frozen] [--values host|device] [--steps S]\n"
    "       [--drift EPS] [--rtol R] [--out FILE.json]\n";

static int one_of(const char *v, const char *a, const char *b)
{
    return !strcmp(v, a) || !strcmp(v, b);
}

static int bad(const char *what)
{
    fprintf(stderr, "time_loop_bench: %s\n%s", what, k_usage);
    return 2;
}

static int parse(int argc, char **argv, loop_opts *o)
{
    *o = (loop_opts){NULL, "gpu", "amg", "full", "host", "1e-8", NULL, 20,
                     0.05};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (a[0] != '-') { o->file = a; continue; }
        if (i + 1 == argc) return bad(a);
        const char *v = argv[++i];
        if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--precond")) o->precond = v;
        else if (!strcmp(a, "--amg-update")) o->update = v;
        else if (!strcmp(a, "--values")) o->values = v;
        else if (!strcmp(a, "--steps")) o->steps = atoi(v);
        else if (!strcmp(a, "--drift")) o->drift = atof(v);
        else if (!strcmp(a, "--rtol")) o->rtol = v;
        else if (!strcmp(a, "--out")) o->out = v;
        else return bad(a);
    }
    if (!o->file) return bad("no system file");
    if (!one_of(o->device, "cpu", "gpu") ||
        !one_of(o->precond, "jacobi", "amg") ||
        !one_of(o->update, "full", "frozen") ||
        !one_of(o->values, "host", "device") || o->steps < 1 ||
        o->steps > 100000 || !(o->drift >= 0 && o->drift < 1))
        return bad("bad value");
    if (!strcmp(o->values, "device") && !strcmp(o->device, "cpu"))
        return bad("--values device needs --device gpu");
    return 0;
}

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "time_loop_bench: out of memory\n");
        exit(1);
    }
    return p;
}

static void load(loop *L)
{
    OK(cmrs_matrix_read(L->ctx, L->o.file, NULL, &L->M));
    const cmrs_csr *A = &cmrs_matrix_system(L->M)->A;
    int64_t n = A->rows, nnz = A->nnz;
    L->A0 = *A;
    L->A0.values = alloc((size_t)nnz, sizeof(double));
    memcpy(L->A0.values, A->values, (size_t)nnz * sizeof(double));
    L->b = alloc((size_t)n, sizeof *L->b);
    OK(cmrs_matrix_file_vector(L->M, CMRS_FILE_RHS, L->b, NULL));
    L->x = alloc((size_t)n, sizeof *L->x);
    L->v = alloc((size_t)nnz, sizeof *L->v);
    L->sn = alloc((size_t)nnz, sizeof *L->sn);
    L->cs = alloc((size_t)nnz, sizeof *L->cs);
    loop_basis(&L->A0, L->sn, L->cs);
    L->conservative = loop_m_matrix(&L->A0);
    if (!strcmp(L->o.values, "device"))
        GPU_OK(cmrs_gpu_malloc(&L->v_d, (size_t)nnz * sizeof(double)));
    int S = L->o.steps;
    L->t_update = alloc((size_t)S, sizeof(double));
    L->t_solve = alloc((size_t)S, sizeof(double));
    L->t_phase = alloc((size_t)S, sizeof(double));
    L->true_rel = alloc((size_t)S, sizeof(double));
    L->iterations = alloc((size_t)S, sizeof(int64_t));
    L->converged = alloc((size_t)S, sizeof(int));
    L->captures = alloc((size_t)S, sizeof(double));
}

static void setup(loop *L)
{
    OK(cmrs_solver_create(L->ctx, &L->s));
    OK(cmrs_solver_set_option(L->s, "precond", L->o.precond));
    OK(cmrs_solver_set_option(L->s, "rtol", L->o.rtol));
    if (!strcmp(L->o.precond, "amg"))
        OK(cmrs_solver_set_option(L->s, "amg-update", L->o.update));
    double t0 = cmrs_wtime();
    OK(cmrs_solver_setup(L->s, L->M));
    L->t_setup = cmrs_wtime() - t0;
}

static cmrs_solve_info solve(loop *L, double *t)
{
    cmrs_solve_info info;
    memset(L->x, 0, (size_t)L->A0.rows * sizeof *L->x);
    double t0 = cmrs_wtime();
    OK(cmrs_solver_solve(L->s, L->b, L->x));
    *t = cmrs_wtime() - t0;
    OK(cmrs_solver_get_info(L->s, &info));
    return info;
}

/* Step k (1-based): new values, update, solve. */
static void step(loop *L, int k)
{
    loop_drift_basis(&L->A0, L->sn, L->cs, L->conservative, L->o.drift,
                     0.2 * k, L->v);
    const void *values = L->v;
    cmrs_memory where = CMRS_MEMORY_HOST;
    if (L->v_d) {
        GPU_OK(cmrs_gpu_h2d(L->v_d, L->v, (size_t)L->A0.nnz * sizeof(double),
                            "values"));
        /* landed before the clock starts: a pageable copy may return
         * with its DMA in flight, and the update waits for it */
        GPU_OK(cmrs_gpu_sync());
        values = L->v_d;
        where = CMRS_MEMORY_DEVICE;
    }
    int64_t c0 = cmrs_ksp_graph_captures(L->s->ksp);
    double t0 = cmrs_wtime();
    OK(cmrs_solver_update_values(L->s, values, CMRS_VALUE_FLOAT64, where));
    L->t_update[k - 1] = cmrs_wtime() - t0;
    cmrs_solve_info info = solve(L, &L->t_solve[k - 1]);
    L->iterations[k - 1] = info.iterations;
    L->t_phase[k - 1] = info.t_solve;
    L->true_rel[k - 1] = info.true_relative_residual;
    L->converged[k - 1] = info.converged;
    L->captures[k - 1] = (double)(cmrs_ksp_graph_captures(L->s->ksp) - c0);
}

static void print_doubles(FILE *f, const char *name, const double *a, int n)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; ++i) fprintf(f, "%s%.6g", i ? ", " : "", a[i]);
    fprintf(f, "], ");
}

static double median_of(const double *a, int n)
{
    double *c = alloc((size_t)n, sizeof *c);
    memcpy(c, a, (size_t)n * sizeof *c);
    double m = cmrs_median(c, n);
    free(c);
    return m;
}

static double max_of(const double *a, int n)
{
    double m = a[0];
    for (int i = 1; i < n; ++i) m = a[i] > m ? a[i] : m;
    return m;
}

static void print_json(FILE *f, const loop *L)
{
    int S = L->o.steps, all = 1;
    double *it = alloc((size_t)S, sizeof *it);
    double *tot = alloc((size_t)S, sizeof *tot);
    for (int i = 0; i < S; ++i) {
        it[i] = (double)L->iterations[i];
        tot[i] = L->t_update[i] + L->t_solve[i];
        all &= L->converged[i];
    }
    fprintf(f, "{\"file\": \"%s\", \"device\": \"%s\", \"precond\": \"%s\", "
            "\"amg_update\": \"%s\", \"values\": \"%s\", \"rows\": %lld, "
            "\"nnz\": %lld, \"steps\": %d, \"drift\": %g, \"drift_kind\": "
            "\"%s\", \"rtol\": %s, \"setup_s\": %.6g, \"base_iterations\": "
            "%lld, ", L->o.file, L->o.device, L->o.precond,
            strcmp(L->o.precond, "amg") ? "-" : L->o.update, L->o.values,
            (long long)L->A0.rows, (long long)L->A0.nnz, S, L->o.drift,
            L->conservative ? "row-sum kept" : "diagonal grown", L->o.rtol,
            L->t_setup, (long long)L->base_iterations);
    print_doubles(f, "update_s", L->t_update, S);
    print_doubles(f, "solve_s", L->t_solve, S);
    print_doubles(f, "iterations", it, S);
    print_doubles(f, "true_rel_residual", L->true_rel, S);
    print_doubles(f, "graph_captures", L->captures, S);
    print_doubles(f, "solve_phase_s", L->t_phase, S);
    fprintf(f, "\"base_solve_phase_s\": %.6g, \"base_solve_s\": %.6g, "
            "\"solve_phase_s_median\": %.6g, ", L->base_phase, L->base_wall,
            median_of(L->t_phase, S));
    fprintf(f, "\"all_converged\": %s, \"update_s_median\": %.6g, "
            "\"solve_s_median\": %.6g, \"step_s_median\": %.6g, "
            "\"iterations_median\": %g, \"true_rel_residual_max\": %.3g}\n",
            all ? "true" : "false", median_of(L->t_update, S),
            median_of(L->t_solve, S), median_of(tot, S), median_of(it, S),
            max_of(L->true_rel, S));
    free(it);
    free(tot);
}

int main(int argc, char **argv)
{
    loop L0 = {0}, *L = &L0;
    int rc = parse(argc, argv, &L->o);
    if (rc) return rc;
    OK(cmrs_context_create(strcmp(L->o.device, "cpu") ? 0 : CMRS_DEVICE_CPU,
                           &L->ctx));
    load(L);
    setup(L);
    double t = 0;
    L->base_iterations = solve(L, &t).iterations;
    L->base_phase = solve(L, &L->base_wall).t_solve;
    for (int k = 1; k <= L->o.steps; ++k) step(L, k);
    FILE *f = L->o.out ? fopen(L->o.out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "time_loop_bench: cannot write %s\n", L->o.out);
        return 1;
    }
    print_json(f, L);
    if (f != stdout) fclose(f);
    cmrs_solver_destroy(L->s);
    cmrs_gpu_free(L->v_d);
    cmrs_matrix_destroy(L->M);
    cmrs_context_destroy(L->ctx);
    return 0;
}
