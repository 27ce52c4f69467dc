/* amg-update frozen on the GPU (exits 77 without one), vessel_3k, double:
 * an update from device values gives what an update from host values of
 * the same values gives (same D^-1 arithmetic, same power steps on the
 * same format values: iterations equal, x within rounding), every engine's
 * graph captured first by a solve (rho changes: a stale graph would show)
 * and replayed after the update (no new capture: rho lives in the scaled
 * diagonal, not in the graph); and the device path makes no host round
 * trip: the matrix object's host values are still the old ones right after
 * the update (full mode takes the device path too, not the staging), read
 * back only before the solve. A bad diagonal in device values fails the
 * update naming it. */
#include <cuda_runtime_api.h>
#include <math.h>

#include "api/api_internal.h"
#include "base/gpu/cuda_check.h"
#include "../../bench/loop_drift.h"
#include "tapi_case.h"
#include "tapi_gpu.h"

static cmrs_context *g_gpu;
static cmrs_system g_sys;
static char g_file[1024];

static cmrs_solver *amg_solver(cmrs_matrix *M, const char *update,
                               const char *engine)
{
    cmrs_solver *s = NULL;
    API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
    API_OK(g_gpu, cmrs_solver_set_option(s, "precond", "amg"));
    API_OK(g_gpu, cmrs_solver_set_option(s, "amg-coarse", "100"));
    API_OK(g_gpu, cmrs_solver_set_option(s, "amg-update", update));
    API_OK(g_gpu, cmrs_solver_set_option(s, "engine", engine));
    API_OK(g_gpu, cmrs_solver_setup(s, M));
    return s;
}

static cmrs_matrix *matrix_of_file(void) { return tapi_read(g_gpu, g_file); }

static cmrs_solve_info solve(cmrs_solver *s, double *x)
{
    return tapi_solve(g_gpu, s, g_sys.b, g_sys.A.rows, x);
}

/* Whether M's host values are the file's (k: an entry the drift moved). */
static int host_values_old(cmrs_matrix *M, int64_t k)
{
    return cmrs_matrix_system(M)->A.values[k] == g_sys.A.values[k];
}

static int64_t moved_entry(const double *v)
{
    for (int64_t k = 0; k < g_sys.A.nnz; ++k)
        if (v[k] != g_sys.A.values[k]) return k;
    return -1;
}

static void device_equals_host(const char *engine, const double *v,
                               const void *v_d)
{
    int64_t n = g_sys.A.rows, k = moved_entry(v);
    double *xh = malloc((size_t)n * sizeof *xh);
    double *xd = malloc((size_t)n * sizeof *xd);
    cmrs_matrix *Mh = matrix_of_file(), *Md = matrix_of_file();
    cmrs_matrix *Mf = matrix_of_file();
    cmrs_solver *h = amg_solver(Mh, "frozen", engine);
    cmrs_solver *d = amg_solver(Md, "frozen", engine);
    cmrs_solver *f = amg_solver(Mf, "full", engine);
    solve(h, xh), solve(d, xd), solve(f, xd); /* graphs captured */
    API_OK(g_gpu, cmrs_solver_update_values(h, v, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST));
    API_OK(g_gpu, cmrs_solver_update_values(d, v_d, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_DEVICE));
    API_OK(g_gpu, cmrs_solver_update_values(f, v_d, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_DEVICE));
    CHECK(k >= 0 && host_values_old(Md, k) && d->host_stale,
          "%s: frozen device update went through the host", engine);
    /* full: the device path too (not staged: that clears host_stale);
     * it may read level 0 back where the format has no device CSR */
    CHECK(f->host_stale, "%s: full device update staged through the host",
          engine);
    int64_t c0 = cmrs_ksp_graph_captures(d->ksp);
    cmrs_solve_info a = solve(h, xh), b = solve(d, xd);
    CHECK(cmrs_ksp_graph_captures(d->ksp) == c0 &&
              (strcmp(engine, "cublas") == 0) == (c0 == 0),
          "%s: frozen device update: graphs captured %lld times before, "
          "%lld after", engine, (long long)c0,
          (long long)cmrs_ksp_graph_captures(d->ksp));
    double dx = 0, m = 0;
    for (int64_t i = 0; i < n; ++i) {
        dx = fmax(dx, fabs(xh[i] - xd[i]));
        m = fmax(m, fabs(xh[i]));
    }
    CHECK(a.converged && b.converged && a.iterations == b.iterations &&
              dx <= 1e-12 * m, "%s: frozen host update %lld iterations, "
          "device %lld, max |dx| / max |x| %g", engine,
          (long long)a.iterations, (long long)b.iterations, m ? dx / m : dx);
    /* A double solve takes its true residual on the device: the host
     * values stay stale through it, and are read back when the solver
     * goes (the matrix outlives it with the values it last had). */
    CHECK(host_values_old(Md, k) && d->host_stale, "%s: a double solve "
          "read the host values back", engine);
    printf("%s: frozen, host and device values: %lld / %lld iterations, "
           "max |dx| / max |x| %g\n", engine, (long long)a.iterations,
           (long long)b.iterations, m ? dx / m : dx);
    cmrs_solver_destroy(h), cmrs_solver_destroy(d), cmrs_solver_destroy(f);
    CHECK(host_values_old(Md, k) == 0, "%s: host values not read back "
          "when the solver went", engine);
    cmrs_matrix_destroy(Mh), cmrs_matrix_destroy(Md), cmrs_matrix_destroy(Mf);
    free(xh), free(xd);
}

/* A non-positive diagonal in device values: refused by the D^-1 kernel. */
static void bad_diagonal(const double *v)
{
    int64_t r = g_sys.A.rows / 2, d = -1;
    for (int64_t k = g_sys.A.indptr[r]; k < g_sys.A.indptr[r + 1]; ++k)
        if (g_sys.A.indices[k] == r) d = k;
    CHECK(d >= 0, "row %lld has no diagonal", (long long)r);
    if (d < 0) return;
    double *w = malloc((size_t)g_sys.A.nnz * sizeof *w);
    memcpy(w, v, (size_t)g_sys.A.nnz * sizeof *w);
    w[d] = -1.0;
    void *w_d = tapi_to_device(CMRS_VALUE_FLOAT64, w, g_sys.A.nnz);
    cmrs_matrix *M = matrix_of_file();
    cmrs_solver *s = amg_solver(M, "frozen", "auto");
    API_FAILS(g_gpu, cmrs_solver_update_values(s, w_d, CMRS_VALUE_FLOAT64,
              CMRS_MEMORY_DEVICE), CMRS_ERROR_INPUT, "diagonal");
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    CHECK(cudaFree(w_d) == cudaSuccess, "cudaFree");
    free(w);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    if (!tapi_gpu_start(g_file, sizeof g_file, &g_sys, &g_gpu))
        return check_summary();
    double *v = malloc((size_t)g_sys.A.nnz * sizeof *v);
    loop_drift(&g_sys.A, 0.05, 0.4, v);
    void *v_d = tapi_to_device(CMRS_VALUE_FLOAT64, v, g_sys.A.nnz);
    static const char *const engines[] = {"cublas", "graph", "fused"};
    for (int e = 0; e < 3; ++e) device_equals_host(engines[e], v, v_d);
    bad_diagonal(v);
    CHECK(cudaFree(v_d) == cudaSuccess, "cudaFree");
    free(v);
    cmrs_system_free(&g_sys);
    cmrs_context_destroy(g_gpu);
    return check_summary();
}
