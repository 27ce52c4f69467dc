/* The library API's costs on one system file (scripts/bench-api.sh):
 * setup, a solve with the setup reused, a step that re-creates the solver,
 * values-only updates from host and from device values, a solve right
 * after a device update (it reads the values back for the true residual),
 * and one SpMV (the back end's own timing). Wall times around API calls
 * that return with the GPU synchronised; medians of --reps.
 *
 *   bench_api FILE [--device cpu|gpu] [--reps N]
 *
 * Prints one JSON object on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api_ok.h"
#include "base/device.h"
#include "base/timer.h"
#include "solver/backend/backend.h"

typedef struct bench {
    cmrs_context *ctx;
    cmrs_matrix *M;
    const double *b;   /* the file's b, or ones */
    double *x, *v;     /* n solution, nnz values (the matrix's, a copy) */
    void *v_d;         /* the values on the GPU (NULL on the CPU) */
    int64_t n, nnz;
    int reps;
} bench;

#define OK(call) BENCH_API_OK("bench_api", B->ctx, call, #call)

static cmrs_solver *make(bench *B)
{
    cmrs_solver *s = NULL;
    OK(cmrs_solver_create(B->ctx, &s));
    OK(cmrs_solver_setup(s, B->M));
    return s;
}

static double solve_once(bench *B, cmrs_solver *s)
{
    memset(B->x, 0, (size_t)B->n * sizeof *B->x);
    double t0 = cmrs_wtime();
    OK(cmrs_solver_solve(s, B->b, B->x));
    return cmrs_wtime() - t0;
}

/* The medians, in seconds. */
typedef struct figures {
    double setup, solve_reuse, solve_inner, step_recreate;
    double update_host, update_device, solve_after_update_device, spmv;
    int64_t iterations;
} figures;

static void time_setup(bench *B, figures *f)
{
    double *t = calloc((size_t)B->reps, sizeof *t);
    double *r = calloc((size_t)B->reps, sizeof *r);
    for (int i = 0; i < B->reps; ++i) {
        double t0 = cmrs_wtime();
        cmrs_solver *s = make(B);
        t[i] = cmrs_wtime() - t0;
        r[i] = t[i] + solve_once(B, s);
        cmrs_solver_destroy(s);
    }
    f->setup = cmrs_median(t, B->reps);
    f->step_recreate = cmrs_median(r, B->reps);
    free(t);
    free(r);
}

static void time_solves(bench *B, cmrs_solver *s, figures *f)
{
    double *t = calloc((size_t)B->reps, sizeof *t);
    double *in = calloc((size_t)B->reps, sizeof *in);
    cmrs_solve_info info;
    for (int i = 0; i < B->reps; ++i) {
        t[i] = solve_once(B, s);
        OK(cmrs_solver_get_info(s, &info));
        in[i] = info.t_solve;
    }
    f->iterations = info.iterations;
    f->solve_reuse = cmrs_median(t, B->reps);
    f->solve_inner = cmrs_median(in, B->reps);
    free(t);
    free(in);
}

/* Same values each time: the update's cost does not depend on them. */
static double time_update(bench *B, cmrs_solver *s, const void *v,
                          cmrs_memory where, double *after_solve)
{
    double *t = calloc((size_t)B->reps, sizeof *t);
    double *a = calloc((size_t)B->reps, sizeof *a);
    for (int i = 0; i < B->reps; ++i) {
        double t0 = cmrs_wtime();
        OK(cmrs_solver_update_values(s, v, CMRS_VALUE_FLOAT64, where));
        t[i] = cmrs_wtime() - t0;
        if (after_solve) a[i] = solve_once(B, s);
    }
    double m = cmrs_median(t, B->reps);
    if (after_solve) *after_solve = cmrs_median(a, B->reps);
    free(t);
    free(a);
    return m;
}

/* The back end's own SpMV timing (events on the GPU), median of 50; -1
 * when it fails. */
static double time_spmv(bench *B, cmrs_solver *s)
{
    double m = -1;
    if (cmrs_backend_time_spmv_of(cmrs_solver_backend(s), B->b, 50, &m) !=
        CMRS_OK)
        m = -1;
    return m;
}

static void measure(bench *B, figures *f)
{
    time_setup(B, f);
    cmrs_solver *s = make(B);
    time_solves(B, s, f);
    f->update_host = time_update(B, s, B->v, CMRS_MEMORY_HOST, NULL);
    f->update_device = f->solve_after_update_device = -1;
    if (B->v_d)
        f->update_device = time_update(B, s, B->v_d, CMRS_MEMORY_DEVICE,
                                       &f->solve_after_update_device);
    f->spmv = time_spmv(B, s);
    cmrs_solver_destroy(s);
}

static void print_json(const bench *B, const figures *f, const char *file,
                       const char *device)
{
    printf("{\"file\": \"%s\", \"device\": \"%s\", \"rows\": %lld, "
           "\"nnz\": %lld, \"reps\": %d, \"iterations\": %lld, "
           "\"setup_s\": %.9g, \"solve_reuse_s\": %.9g, "
           "\"solve_inner_s\": %.9g, \"step_recreate_s\": %.9g, "
           "\"update_host_s\": %.9g, \"update_device_s\": %.9g, "
           "\"solve_after_update_device_s\": %.9g, \"spmv_s\": %.9g}\n",
           file, device, (long long)B->n, (long long)B->nnz, B->reps,
           (long long)f->iterations, f->setup, f->solve_reuse,
           f->solve_inner, f->step_recreate, f->update_host,
           f->update_device, f->solve_after_update_device, f->spmv);
}

static void load(bench *B, const char *file)
{
    OK(cmrs_matrix_read(B->ctx, file, NULL, &B->M));
    cmrs_system *sys = cmrs_matrix_system(B->M);
    B->n = sys->A.rows;
    B->nnz = sys->A.nnz;
    B->x = calloc((size_t)B->n, sizeof *B->x);
    B->v = malloc((size_t)B->nnz * sizeof *B->v);
    memcpy(B->v, sys->A.values, (size_t)B->nnz * sizeof *B->v);
    B->b = sys->b; /* never NULL after a read (A*1 when the file had none) */
}

static void upload_values(bench *B)
{
    size_t bytes = (size_t)B->nnz * sizeof(double);
    if (cmrs_gpu_malloc(&B->v_d, bytes) != CMRS_OK ||
        cmrs_gpu_h2d(B->v_d, B->v, bytes, "values") != CMRS_OK) {
        fprintf(stderr, "bench_api: cannot upload the values\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    bench B0 = {.reps = 10}, *B = &B0;
    const char *file = NULL, *device = "gpu";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            B->reps = atoi(argv[++i]);
        else file = argv[i];
    }
    if (!file || B->reps < 1) {
        fprintf(stderr, "usage: bench_api FILE [--device cpu|gpu] "
                "[--reps N]\n");
        return 2;
    }
    int gpu = strcmp(device, "cpu") != 0;
    OK(cmrs_context_create(gpu ? 0 : CMRS_DEVICE_CPU, &B->ctx));
    load(B, file);
    if (gpu) upload_values(B);
    figures f;
    measure(B, &f);
    print_json(B, &f, file, device);
    cmrs_gpu_free(B->v_d);
    cmrs_matrix_destroy(B->M);
    cmrs_context_destroy(B->ctx);
    return 0;
}
