/* What a Krylov solve is described and answered by: the method, the engine,
 * the options, the converged reason and the result, with their names and
 * defaults (ksp.c). Below the solver object (solver.h) so that the loops
 * (krylov/, engine/) can use them without depending on the object that
 * calls them. */
#ifndef CMRS_SOLVER_KSP_H
#define CMRS_SOLVER_KSP_H

#include <stdint.h>

#include "solver/backend/backend.h"
#include "solver/pc/precond.h"

typedef enum cmrs_method {
    CMRS_METHOD_CG = 0,
    CMRS_METHOD_BICGSTAB = 1
} cmrs_method;

/* How the iterations run (docs/SOLVER.md "Engines"). cublas is the loop of
 * cg.c / bicgstab.c over the back-end ops, host-synchronised, and the only
 * engine of the CPU back end; graph and fused keep the scalars on the GPU
 * and replay blocks of iterations as CUDA graphs (devloop.h). */
typedef enum cmrs_engine {
    CMRS_ENGINE_AUTO = 0, /* GPU: CMRS_ENGINE_GPU_DEFAULT; CPU: cublas */
    CMRS_ENGINE_CUBLAS,   /* the reference loop */
    CMRS_ENGINE_GRAPH,    /* cuBLAS in device pointer mode + CUDA graphs */
    CMRS_ENGINE_FUSED     /* our fused vector kernels + CUDA graphs */
} cmrs_engine;

/* The GPU's default engine, chosen by measurement (docs/BENCHMARKS.md
 * "Engines"). */
#define CMRS_ENGINE_GPU_DEFAULT CMRS_ENGINE_FUSED

const char *cmrs_engine_name(cmrs_engine e); /* "auto", "cublas", ... */
/* The engine as reports show it: "reference" for the cublas loop off one
 * GPU (the CPU back end's, the distributed back end's: cg.c's code over
 * the back end's ops), else its name (fused also on --gpus N). */
const char *cmrs_engine_label(cmrs_engine e, const cmrs_backend *be);
/* Parses an engine name; CMRS_E_USAGE naming the known ones. */
cmrs_code cmrs_engine_parse(const char *text, cmrs_engine *e);

typedef enum cmrs_ksp_reason {
    CMRS_ITERATING = 0,
    CMRS_CONVERGED_RTOL,     /* ||r|| <= rtol * ||b|| */
    CMRS_CONVERGED_ATOL,     /* ||r|| <= atol (also b = 0: x = 0) */
    CMRS_DIVERGED_MAXITS,    /* maxiter iterations without convergence */
    CMRS_DIVERGED_BREAKDOWN, /* CG: p'Ap <= 0; BiCGStab: rho, omega ~ 0 */
    CMRS_DIVERGED_NANORINF   /* a NaN or Inf appeared in the iteration */
} cmrs_ksp_reason;

const char *cmrs_ksp_reason_name(cmrs_ksp_reason r); /* "CONVERGED_RTOL", ... */
const char *cmrs_method_name(cmrs_method m); /* "cg", "bicgstab" */
int cmrs_ksp_reason_converged(cmrs_ksp_reason r);
/* Process exit code of a finished solve: 0 converged, 1 maxits, 3
 * breakdown or NaN/Inf (CMRS_EXIT_*). */
int cmrs_ksp_reason_exit_code(cmrs_ksp_reason r);

/* Called after every iteration with the relative recursive residual (k = 0:
 * the initial residual). Used for --monitor and the progress line. */
typedef void (*cmrs_monitor_fn)(void *ctx, int64_t k, double rel_res);

/* Upper bound on maxiter: the history takes 8 bytes per iteration on the
 * host and on the device. */
#define CMRS_MAXITER_LIMIT 10000000

/* --precision mixed: where single precision goes (docs/SOLVER.md "Mixed
 * precision"). */
typedef enum cmrs_mixed {
    CMRS_MIXED_OFF = 0,  /* everything in the back end's precision */
    CMRS_MIXED_AUTO,     /* precond for amg and chebyshev; jacobi and
                            none stay double (measured; a notice) */
    CMRS_MIXED_REFINE,   /* single-precision solves inside double
                            iterative refinement */
    CMRS_MIXED_PRECOND,  /* the preconditioner in single precision inside
                            the double loop (amg, chebyshev) */
    CMRS_MIXED_VALUES    /* solves in double over A's values stored in
                            float (row sums kept: cmrs_spmv_opts.values32)
                            inside double iterative refinement */
} cmrs_mixed;

const char *cmrs_mixed_name(cmrs_mixed m); /* "off", "auto", ... */
/* "mixed" when m is not off, else the precision's name. */
const char *cmrs_precision_label(cmrs_prec prec, cmrs_mixed m);

typedef struct cmrs_ksp_opts {
    cmrs_method method;
    cmrs_pc pc;         /* default jacobi */
    cmrs_pc_opts pco;   /* the preconditioner's parameters */
    double rtol;     /* default 1e-8 */
    double atol;     /* default 0 */
    int64_t maxiter; /* 0: cmrs_default_maxiter(n) */
    cmrs_engine engine; /* default auto */
    int check_every;    /* graph/fused: iterations between status reads,
                           each block one CUDA graph (0: 32; amg 2,
                           chebyshev 8: cmrs_ksp_check_every) */
    cmrs_mixed mixed;   /* off (default); needs a double back end */
    cmrs_monitor_fn monitor; /* NULL: none */
    void *monitor_ctx;
} cmrs_ksp_opts;

void cmrs_ksp_opts_default(cmrs_ksp_opts *o);
/* Iterations between status reads of a loop on the devices (the graph
 * and fused engines, the fused loop on parts): o->check_every, or when
 * 0 the measured default for o->pc (ksp.c). */
int cmrs_ksp_check_every(const cmrs_ksp_opts *o);
/* 10 * n, at most 100000: enough for CG on any well-posed pressure system
 * that Jacobi can handle, yet a bad case stops in bounded time. */
int64_t cmrs_default_maxiter(int64_t n);

typedef struct cmrs_ksp_result {
    cmrs_ksp_reason reason;
    int64_t iterations;
    double bnorm;       /* ||b||2 */
    double res_norm;    /* final recursive residual ||r||2 */
    double res_rel;     /* res_norm / ||b|| (0 when b = 0) */
    double true_norm;   /* ||b - A x||2 recomputed in double from x (not the
                           recurrence): by a double back end where x is,
                           by the host for a single-precision one */
    double true_rel;
    double t_solve;     /* seconds: x = x0 through the last iteration */
    cmrs_engine engine; /* the engine that ran (auto resolved) */
    cmrs_mixed mixed;   /* the mixed-precision mode that ran (auto
                           resolved; off: none) */
    int64_t cycles;     /* refine: refinement cycles (single-precision
                           solves), else 0 */
    int64_t reliable;   /* values: residual replacements of its CG
                           (reliable updates, devloop.c) */
    const double *x;        /* n values; owned by the solver; NULL after a
                               solve from cmrs_ksp_set_rhs_vec (x stays
                               in cmrs_ksp_x) */
    const double *history;  /* iterations + 1 relative residuals; owned by
                               the solver, valid until the next solve */
} cmrs_ksp_result;

typedef struct cmrs_ksp cmrs_ksp;

#endif
