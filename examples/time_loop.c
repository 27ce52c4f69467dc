/* A time loop the way a CFD code drives a pressure solver: the matrix
 * pattern is fixed for the whole run, its values change every K steps, the
 * right-hand side every step. The physics is an implicit heat equation on
 * the unit square with zero-flux walls and a conductivity that varies in
 * space and time:
 *
 *   (u' - u) / dt = div(k(x, y, t) grad u')
 *
 * Cell-centred finite volumes on an n x n grid give (I/dt + L) u' = u/dt,
 * L symmetric with rows summing to zero. Setup happens once; when k changes
 * only the values are handed over (cmrs_solver_update_values); each step
 * solves once, starting from the previous u. --recreate builds a new matrix
 * and solver every step instead, the cost that reuse saves.
 *
 * --check verifies what must hold whatever the solver does inside:
 *   - heat is conserved: 1'L = 0, so |sum u' - sum u| <= dt sqrt(N) ||r||
 *     with r = b - A u' (the library's true residual);
 *   - after each update, a fresh solver on the same system gives the same
 *     answer: ||u'_reuse - u'_fresh|| <= dt (||r_reuse|| + ||r_fresh||),
 *     since A >= I/dt; the iteration counts of both are printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmrs.h"

typedef struct {
    int device;          /* CMRS_DEVICE_CPU, CMRS_DEVICE_AUTO or a GPU index */
    int n, steps, every; /* grid n x n, time steps, values change every K */
    int recreate, check;
    const char *precond, *rtol;
} options;

/* The discrete system in CSR arrays (assemble() fills them; the pattern
 * comes out the same every time, only the values change). */
typedef struct {
    int n;
    int64_t rows, nnz;
    double h, dt;
    int32_t *indptr, *indices;
    double *values;
} heat;

static const char *usage =
    "usage: time_loop [--device cpu|gpu|auto|N] [--n CELLS_PER_SIDE] [--steps S]\n"
    "                 [--every K] [--precond P] [--rtol R] [--recreate] [--check]\n";

#define BAD_DEVICE (-100)

static int parse_device(const char *s) {
    if (!strcmp(s, "cpu")) return CMRS_DEVICE_CPU;
    if (!strcmp(s, "auto")) return CMRS_DEVICE_AUTO;
    if (!strcmp(s, "gpu")) return 0;
    char *end;
    long d = strtol(s, &end, 10);
    return *s && !*end && d >= 0 && d < 64 ? (int)d : BAD_DEVICE;
}

static int bad_usage(const char *near) {
    if (near) fprintf(stderr, "time_loop: unknown option or missing value: %s\n", near);
    else fputs("time_loop: bad value (device cpu|gpu|auto|N, 2 <= n <= 4096, steps >= 1, "
               "every >= 1)\n", stderr);
    fputs(usage, stderr);
    return 2;
}

/* 0 on success; a message and 2 (the usage exit code) otherwise. */
static int parse_args(int argc, char **argv, options *o) {
    *o = (options){CMRS_DEVICE_AUTO, 64, 20, 5, 0, 0, "jacobi", "1e-10"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--recreate")) { o->recreate = 1; continue; }
        if (!strcmp(a, "--check")) { o->check = 1; continue; }
        if (i + 1 == argc) return bad_usage(a);
        const char *v = argv[++i];
        if (!strcmp(a, "--device")) o->device = parse_device(v);
        else if (!strcmp(a, "--n")) o->n = atoi(v);
        else if (!strcmp(a, "--steps")) o->steps = atoi(v);
        else if (!strcmp(a, "--every")) o->every = atoi(v);
        else if (!strcmp(a, "--precond")) o->precond = v;
        else if (!strcmp(a, "--rtol")) o->rtol = v;
        else return bad_usage(a);
    }
    if (o->n < 2 || o->n > 4096 || o->steps < 1 || o->every < 1 || o->device == BAD_DEVICE)
        return bad_usage(NULL);
    return 0;
}

static const double PI = 3.14159265358979323846;

/* A smooth conductivity >= 0.1 whose pattern drifts in time: the material
 * changes, the grid does not. */
static double conductivity(double x, double y, double t) {
    return 1.0 + 0.9 * sin(2 * PI * (x + t)) * cos(2 * PI * y);
}

static int heat_init(heat *H, int n) {
    H->n = n;
    H->rows = (int64_t)n * n;
    H->h = 1.0 / n;
    H->dt = 0.25 / n; /* dt k / h^2 ~ n/4: a few tens of Jacobi-CG iterations */
    H->indptr = calloc((size_t)H->rows + 1, sizeof *H->indptr);
    H->indices = malloc(5 * (size_t)H->rows * sizeof *H->indices);
    H->values = malloc(5 * (size_t)H->rows * sizeof *H->values);
    return H->indptr && H->indices && H->values;
}

static void heat_free(heat *H) {
    free(H->indptr);
    free(H->indices);
    free(H->values);
}

/* Rows of I/dt + L at time t. Cell p = j n + i talks to its neighbours S, W,
 * E, N (columns p - n, p - 1, p + 1, p + n, kept in increasing order with the
 * diagonal in the middle) through face coefficients T = k(face) / h^2 (face
 * length h, distance h, per cell area h^2). A wall has no neighbour: zero
 * flux. The pattern comes out the same at every call. */
static void assemble(heat *H, double t) {
    static const int di[5] = {0, -1, 0, 1, 0}, dj[5] = {-1, 0, 0, 0, 1};
    const int n = H->n;
    const double s = 1.0 / (H->h * H->h);
    int32_t nz = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int32_t diag = 0;
            double sum = 0;
            for (int k = 0; k < 5; k++) {
                int ii = i + di[k], jj = j + dj[k];
                if (ii < 0 || ii >= n || jj < 0 || jj >= n) continue;
                H->indices[nz] = jj * n + ii;
                if (k == 2) { diag = nz++; continue; }
                double T = s * conductivity((i + ii + 1) * 0.5 * H->h,
                                            (j + jj + 1) * 0.5 * H->h, t);
                H->values[nz++] = -T;
                sum += T;
            }
            H->values[diag] = 1.0 / H->dt + sum;
            H->indptr[j * n + i + 1] = nz;
        }
    H->nnz = nz;
}

/* A hot spot on a uniform background. */
static void initial(const heat *H, double *u) {
    for (int j = 0; j < H->n; j++)
        for (int i = 0; i < H->n; i++) {
            double x = (i + 0.5) * H->h - 0.3, y = (j + 0.5) * H->h - 0.6;
            u[j * H->n + i] = 1.0 + exp(-(x * x + y * y) / 0.01);
        }
}

static double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sum(const double *v, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    return s;
}

/* Prints the failed call with the library's message; returns nonzero then. */
static int failed(cmrs_status st, const cmrs_context *ctx, const char *call) {
    if (st != CMRS_SUCCESS)
        fprintf(stderr, "time_loop: %s: %s: %s\n", call, cmrs_status_name(st),
                cmrs_last_error(ctx));
    return st != CMRS_SUCCESS;
}

/* A solver set up for the current values of H. The matrix handle is
 * released at once: the solver holds its own reference. */
static int make_solver(cmrs_context *ctx, const heat *H, const options *o,
                       cmrs_solver **s) {
    cmrs_matrix *A = NULL;
    int bad = failed(cmrs_matrix_create_csr(ctx, H->rows, H->rows, H->nnz, H->indptr,
                                            H->indices, CMRS_INDEX_INT32, H->values,
                                            CMRS_VALUE_FLOAT64, &A), ctx, "matrix_create_csr") ||
        failed(cmrs_solver_create(ctx, s), ctx, "solver_create") ||
        failed(cmrs_solver_set_option(*s, "solver", "cg"), ctx, "set_option solver") ||
        failed(cmrs_solver_set_option(*s, "precond", o->precond), ctx, "set_option precond") ||
        failed(cmrs_solver_set_option(*s, "rtol", o->rtol), ctx, "set_option rtol") ||
        failed(cmrs_solver_setup(*s, A), ctx, "setup");
    cmrs_matrix_destroy(A);
    if (bad) {
        cmrs_solver_destroy(*s);
        *s = NULL;
    }
    return bad;
}

/* What the loop carries from step to step. */
typedef struct {
    cmrs_context *ctx;
    cmrs_solver *s;
    double *u, *b, *x0;          /* solution, right-hand side, start of the step */
    double t_update, t_solve;    /* sums over the steps */
    int64_t iterations;          /* sum over the steps */
    double worst_drift;          /* largest heat drift / its bound */
    int failed_checks;
} loop;

/* Heat conservation over one step (see the top of the file). */
static void check_heat(loop *L, const heat *H, double before, const cmrs_solve_info *in) {
    double after = sum(L->u, H->rows);
    double bound = H->dt * sqrt((double)H->rows) * in->true_residual +
                   4.0 * (double)H->rows * 2.2e-16 * fabs(after);
    double drift = fabs(after - before);
    if (drift / bound > L->worst_drift) L->worst_drift = drift / bound;
    if (drift > bound) {
        printf("check: heat not conserved: %.15e -> %.15e (drift %.2e > bound %.2e)\n",
               before, after, drift, bound);
        L->failed_checks++;
    }
}

/* The same step from a fresh solver on the current values: the update must
 * give what a new setup gives (see the top of the file). */
static int check_fresh(loop *L, const heat *H, const options *o, int step,
                       const cmrs_solve_info *reused) {
    cmrs_solver *f = NULL;
    cmrs_solve_info in;
    if (make_solver(L->ctx, H, o, &f) || failed(cmrs_solver_solve(f, L->b, L->x0), L->ctx,
                                                "solve (fresh)") ||
        failed(cmrs_solver_get_info(f, &in), L->ctx, "get_info (fresh)")) {
        cmrs_solver_destroy(f);
        return 1;
    }
    cmrs_solver_destroy(f);
    double d2 = 0; /* x0 now holds the fresh solution */
    for (int64_t i = 0; i < H->rows; i++) d2 += (L->u[i] - L->x0[i]) * (L->u[i] - L->x0[i]);
    double bound = H->dt * (reused->true_residual + in.true_residual) * (1 + 1e-6) + 1e-300;
    int ok = sqrt(d2) <= bound && in.converged;
    printf("check: step %d fresh solver %lld iterations (reused %lld), "
           "||x - x_fresh|| %.2e <= %.2e %s\n", step, (long long)in.iterations,
           (long long)reused->iterations, sqrt(d2), bound, ok ? "ok" : "FAILED");
    L->failed_checks += !ok;
    return 0;
}

/* New values every K steps: handed to the reused solver, or (--recreate) a
 * new matrix and solver built from scratch. Timed by the caller. */
static int change_system(loop *L, heat *H, const options *o, int changed) {
    if (o->recreate) {
        cmrs_solver_destroy(L->s);
        L->s = NULL;
        return make_solver(L->ctx, H, o, &L->s);
    }
    if (!changed) return 0;
    return failed(cmrs_solver_update_values(L->s, H->values, CMRS_VALUE_FLOAT64,
                                            CMRS_MEMORY_HOST), L->ctx, "update_values");
}

/* One implicit step: u/dt on the right, the previous u as initial guess. */
static int step_once(loop *L, heat *H, const options *o, int step) {
    int changed = step % o->every == 0;
    if (changed) assemble(H, step * H->dt);
    for (int64_t i = 0; i < H->rows; i++) {
        L->b[i] = L->u[i] / H->dt;
        L->x0[i] = L->u[i];
    }
    double before = sum(L->u, H->rows), t0 = now();
    if (change_system(L, H, o, changed)) return 1;
    double t1 = now();
    cmrs_solve_info in;
    if (failed(cmrs_solver_solve(L->s, L->b, L->u), L->ctx, "solve") ||
        failed(cmrs_solver_get_info(L->s, &in), L->ctx, "get_info"))
        return 1;
    double t2 = now();
    L->t_update += t1 - t0;
    L->t_solve += t2 - t1;
    L->iterations += in.iterations;
    printf("step %4d  %s %10.6f s  solve %10.6f s  %4lld iterations  residual %.2e  %s%s\n",
           step, o->recreate ? "setup " : "update", t1 - t0, t2 - t1,
           (long long)in.iterations, in.true_relative_residual, cmrs_reason_name(in.reason),
           changed ? "  (new values)" : "");
    if (!in.converged) L->failed_checks++;
    if (o->check) check_heat(L, H, before, &in);
    if (o->check && changed && !o->recreate) return check_fresh(L, H, o, step, &in);
    return 0;
}

static void report(const loop *L, const heat *H, const options *o, double t_setup) {
    int S = o->steps;
    if (!o->recreate) printf("setup once: %.6f s\n", t_setup);
    printf("per step (mean of %d): %s %.6f s, solve %.6f s, %.1f iterations\n", S,
           o->recreate ? "new matrix + setup" : "update", L->t_update / S, L->t_solve / S,
           (double)L->iterations / S);
    double umax = L->u[0];
    for (int64_t i = 1; i < H->rows; i++) umax = fmax(umax, L->u[i]);
    printf("final: heat %.12e  max u %.12e\n", sum(L->u, H->rows) * H->h * H->h, umax);
    if (o->check)
        printf("checks: %s (heat drift at most %.2f of its bound)\n",
               L->failed_checks ? "FAILED" : "passed", L->worst_drift);
}

/* The loop itself: set up once (unless --recreate), then step. */
static int run(loop *L, heat *H, const options *o) {
    initial(H, L->u);
    assemble(H, 0.0);
    printf("heat equation %d x %d (%lld rows, %lld nonzeros) on %s, %s, values change "
           "every %d steps, %s\n", H->n, H->n, (long long)H->rows, (long long)H->nnz,
           cmrs_context_device_name(L->ctx), o->precond, o->every,
           o->recreate ? "new solver every step" : "setup reused");
    double t0 = now();
    if (!o->recreate && make_solver(L->ctx, H, o, &L->s)) return 1;
    double t_setup = now() - t0;
    for (int step = 1; step <= o->steps; step++)
        if (step_once(L, H, o, step)) return 1;
    report(L, H, o, t_setup);
    return L->failed_checks > 0;
}

int main(int argc, char **argv) {
    options o;
    if (parse_args(argc, argv, &o)) return 2;
    heat H = {0};
    loop L = {0};
    int rc = 1;
    if (!heat_init(&H, o.n) || !(L.u = malloc(H.rows * sizeof *L.u)) ||
        !(L.b = malloc(H.rows * sizeof *L.b)) || !(L.x0 = malloc(H.rows * sizeof *L.x0)))
        fputs("time_loop: out of memory\n", stderr);
    else if (!failed(cmrs_context_create(o.device, &L.ctx), NULL, "context_create"))
        rc = run(&L, &H, &o);
    cmrs_solver_destroy(L.s);
    cmrs_context_destroy(L.ctx);
    free(L.u);
    free(L.b);
    free(L.x0);
    heat_free(&H);
    return rc;
}
