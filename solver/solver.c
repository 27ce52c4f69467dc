/* The solver object: setup (all allocation), solve (dispatch to the loop,
 * history, x back to the host, true residual), names and defaults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "base/profile.h"
#include "base/timer.h"
#include "spmv/ref.h"
#include "solver/engine/engines.h"
#include "solver.h"

/* Whether the fused engine's kernels can carry the preconditioner: they
 * apply Jacobi inline, element by element; a V-cycle or a polynomial is a
 * sequence of SpMVs that the graph engine runs between its steps. */
static int fusable(cmrs_pc pc)
{
    return pc == CMRS_PC_JACOBI || pc == CMRS_PC_NONE;
}

/* Whether the back end runs this solve's loop itself (cg_loop: the
 * distributed back end on GPUs runs the fused engine's CG per part, with
 * Jacobi inline or any other preconditioner applied between its steps). */
static int backend_loop(const cmrs_ksp *s)
{
    return s->be->ops->cg_loop && s->o.method == CMRS_METHOD_CG;
}

/* auto: the measured default on the GPU (graph for preconditioners the
 * fused kernels cannot carry), fused where the back end runs CG itself
 * (backend_loop) with jacobi or none, else the reference loop; graph
 * exists only on one GPU. On GPU parts amg runs either loop on request,
 * the reference loop by default: the fused one measured no faster there
 * (2x H100, vessel 50M: 11.11-11.19 against 10.91-10.97 ms an iteration;
 * 5M 1.60 against 1.57-1.61; docs/DISTRIBUTED.md). An explicit fused
 * request with such a preconditioner on one GPU runs on graph, BiCGStab
 * on parts on the reference loop, with a notice. */
static cmrs_code resolve_engine(cmrs_ksp *s)
{
    cmrs_engine *e = &s->o.engine;
    int gpu = strcmp(s->be->ops->name, "gpu") == 0;
    int own = s->be->ops->cg_loop != NULL;
    if (*e == CMRS_ENGINE_AUTO)
        *e = gpu ? (fusable(s->o.pc) ? CMRS_ENGINE_GPU_DEFAULT
                                     : CMRS_ENGINE_GRAPH)
             : backend_loop(s) && fusable(s->o.pc) ? CMRS_ENGINE_FUSED
                                                   : CMRS_ENGINE_CUBLAS;
    if (own && *e == CMRS_ENGINE_FUSED && !backend_loop(s)) {
        *e = CMRS_ENGINE_CUBLAS;
        snprintf(s->notice, sizeof s->notice, "the fused engine on several "
                 "GPUs runs cg: %s runs on the cublas loop",
                 cmrs_method_name(s->o.method));
    }
    CMRS_ENSURE(gpu || *e == CMRS_ENGINE_CUBLAS ||
                    (own && *e == CMRS_ENGINE_FUSED),
                CMRS_E_USAGE, "engine %s runs on the GPU only (one GPU's "
                "back end, and fused also on --gpus N; the CPU and the "
                "simulated parts have one loop: --engine cublas or auto)",
                cmrs_engine_name(*e));
    if (*e == CMRS_ENGINE_FUSED && !own && !fusable(s->o.pc)) {
        *e = CMRS_ENGINE_GRAPH;
        snprintf(s->notice, sizeof s->notice, "the fused engine applies "
                 "only jacobi or none inline: --precond %s runs on the "
                 "graph engine", cmrs_pc_name(s->o.pc));
    }
    return CMRS_OK;
}

/* auto: the preconditioner in single where it applies A (amg,
 * chebyshev); with jacobi or none, double all through, with a notice:
 * refinement measured slower on the pressure systems, whose condition
 * times float's epsilon is near 1 (docs/SOLVER.md "Mixed precision").
 * precond with jacobi or none is refused (nothing to keep in single
 * precision: they are one pass). */
static cmrs_code resolve_mixed(cmrs_ksp *s)
{
    cmrs_mixed *m = &s->o.mixed;
    if (*m == CMRS_MIXED_OFF) return CMRS_OK;
    CMRS_ENSURE(s->be->prec == CMRS_PREC_DOUBLE, CMRS_E_USAGE, "--precision "
                "mixed runs a double loop; this back end is %s",
                cmrs_prec_name(s->be->prec));
    CMRS_ENSURE(s->be->ops->twin_create && s->be->ops->arr_cast,
                CMRS_E_USAGE, "--precision mixed: the %s back end computes "
                "in double only (mixed precision runs on the GPU)",
                s->be->ops->name);
    if (*m == CMRS_MIXED_AUTO && !cmrs_pc_mixes(s->o.pc)) {
        *m = CMRS_MIXED_OFF;
        snprintf(s->notice, sizeof s->notice, "--precision mixed: --precond "
                 "%s runs in double (float refinement measured slower; "
                 "--mixed refine forces it)", cmrs_pc_name(s->o.pc));
        return CMRS_OK;
    }
    if (*m == CMRS_MIXED_AUTO) *m = CMRS_MIXED_PRECOND;
    CMRS_ENSURE(*m != CMRS_MIXED_PRECOND || cmrs_pc_mixes(s->o.pc),
                CMRS_E_USAGE, "--mixed precond: --precond %s is one vector "
                "pass, nothing to keep in single precision (use --mixed "
                "refine)", cmrs_pc_name(s->o.pc));
    s->o.pco.mixed = *m == CMRS_MIXED_PRECOND;
    return CMRS_OK;
}

const char *cmrs_ksp_notice(const cmrs_ksp *s)
{
    return s->notice[0] ? s->notice : NULL;
}

cmrs_precond *cmrs_ksp_precond(const cmrs_ksp *s) { return s->pc; }

cmrs_mixed cmrs_ksp_mixed(const cmrs_ksp *s) { return s->o.mixed; }

/* ||b - A x|| with work (n doubles) as scratch. */
static double residual_norm(const cmrs_csr *A, const double *b,
                            const double *x, double *work)
{
    cmrs_ref_copy(A->rows, b, work);
    cmrs_ref_spmv(A, -1.0, x, 1.0, work);
    return cmrs_ref_nrm2(A->rows, work);
}

cmrs_code cmrs_true_residual(const cmrs_csr *A, const double *b,
                             const double *x, double *norm)
{
    double *work = cmrs_malloc_array((size_t)A->rows, sizeof *work);
    CMRS_ENSURE(work, CMRS_E_NOMEM, "cannot allocate %lld doubles for the "
                "true residual", (long long)A->rows);
    *norm = residual_norm(A, b, x, work);
    free(work);
    return CMRS_OK;
}

/* One pass over indptr: the Jacobi check would only say "no diagonal
 * entry". */
cmrs_code cmrs_check_no_empty_row(const cmrs_csr *A, int64_t row0,
                                  const char *what)
{
    for (int64_t i = 0; i < A->rows; ++i)
        CMRS_ENSURE(A->indptr[i + 1] > A->indptr[i], CMRS_E_INPUT, "%s: row "
                    "%lld has no entries: the matrix is singular", what,
                    (long long)(row0 + i));
    return CMRS_OK;
}

static cmrs_code check_request(cmrs_backend *be, const cmrs_csr *A,
                               const cmrs_ksp_opts *o, const char *what)
{
    /* a back end of one rank's rows: A is those rows of the whole */
    int64_t cols = be->n_total ? be->n_total : A->rows;
    CMRS_ENSURE(A->cols == cols, CMRS_E_INPUT, "%s: the matrix is %lld x "
                "%lld: a solve needs a square matrix", what,
                (long long)A->rows, (long long)A->cols);
    CMRS_ENSURE(A->rows > 0, CMRS_E_INPUT, "%s: the matrix has no rows", what);
    /* the host's pass over indptr took 6-7 ms at 5M rows (H100 machine),
     * a third of the Jacobi setup: skipped where the back end knows */
    if (!(be->ops->rows_nonempty && be->ops->rows_nonempty(be)))
        CMRS_CHECK(cmrs_check_no_empty_row(A, be->row0, what));
    CMRS_ENSURE(be->n == A->rows, CMRS_E_INTERNAL, "%s: back end built for "
                "%lld rows, matrix has %lld", what, (long long)be->n,
                (long long)A->rows);
    CMRS_ENSURE(o->rtol >= 0 && o->atol >= 0 && isfinite(o->rtol) &&
                    isfinite(o->atol), CMRS_E_USAGE,
                "rtol and atol must be finite and >= 0 (got %g, %g)", o->rtol,
                o->atol);
    CMRS_ENSURE(o->check_every >= 0 && o->check_every <= 4096, CMRS_E_USAGE,
                "check_every %d is out of range [0, 4096] (0: by preconditioner)", o->check_every);
    CMRS_ENSURE(o->maxiter >= 0 && o->maxiter <= CMRS_MAXITER_LIMIT,
                CMRS_E_USAGE, "maxiter %lld is out of range [1, %d]",
                (long long)o->maxiter, CMRS_MAXITER_LIMIT);
    return CMRS_OK;
}

/* Every vector and host buffer the solve will touch. */
static cmrs_code allocate(cmrs_ksp *s)
{
    cmrs_backend *be = s->be;
    size_t n = (size_t)be->n, hist = (size_t)s->o.maxiter + 1;
    s->nwork = s->o.method == CMRS_METHOD_BICGSTAB
                   ? cmrs_bicgstab_work_count(s->o.pc)
                   : cmrs_cg_work_count(s->o.pc);
    CMRS_CHECK(be->ops->vec_create(be, &s->x));
    CMRS_CHECK(be->ops->vec_create(be, &s->b));
    CMRS_CHECK(be->ops->vec_create(be, &s->x0));
    for (int i = 0; i < s->nwork; ++i)
        CMRS_CHECK(be->ops->vec_create(be, &s->w[i]));
    CMRS_CHECK(be->ops->history_reserve(be, (int64_t)hist));
    s->x_h = cmrs_malloc_array(n, sizeof(double));
    s->b_h = cmrs_malloc_array(n, sizeof(double));
    s->resid_h = cmrs_malloc_array(n, sizeof(double));
    s->history_h = cmrs_malloc_array(hist, sizeof(double));
    CMRS_ENSURE(s->x_h && s->b_h && s->resid_h && s->history_h, CMRS_E_NOMEM,
                "cannot allocate the solver's host buffers (%zu rows)", n);
    return CMRS_OK;
}

cmrs_code cmrs_ksp_create(cmrs_backend *be, const cmrs_csr *A,
                          const cmrs_ksp_opts *o, const char *what,
                          cmrs_ksp **out)
{
    cmrs_code rc = CMRS_OK;
    *out = NULL;
    CMRS_CHECK(check_request(be, A, o, what));
    cmrs_ksp *s = calloc(1, sizeof *s);
    CMRS_ENSURE(s, CMRS_E_NOMEM, "cannot allocate a solver");
    s->be = be;
    s->A = A;
    s->what = what;
    s->o = *o;
    if (s->o.maxiter == 0)
        s->o.maxiter = cmrs_default_maxiter(be->n_total ? be->n_total
                                                        : A->rows);
    s->maxiter_made = s->o.maxiter;
    CMRS_TRY(resolve_engine(s));
    CMRS_TRY(resolve_mixed(s));
    cmrs_phase_push(CMRS_PHASE_ALLOCATION);
    rc = allocate(s);
    cmrs_phase_pop();
    CMRS_TRY(rc);
    cmrs_phase_push(CMRS_PHASE_PRECOND); /* its uploads: transfer */
    rc = cmrs_precond_create(be, A, s->o.pc, &s->o.pco, what, &s->pc);
    if (rc == CMRS_OK && (s->o.mixed == CMRS_MIXED_REFINE ||
                          s->o.mixed == CMRS_MIXED_VALUES))
        rc = cmrs_refine_create(s);
    cmrs_phase_pop();
    CMRS_TRY(rc);
    *out = s;
done:
    if (rc != CMRS_OK) cmrs_ksp_destroy(s);
    return rc;
}

/* b = 0: the solution is x = 0, at once. */
static cmrs_code zero_rhs(cmrs_ksp *s, cmrs_ksp_result *res)
{
    CMRS_CHECK(s->be->ops->vec_set(s->be, s->x, NULL));
    res->reason = CMRS_CONVERGED_ATOL;
    res->iterations = 0;
    res->res_norm = 0.0;
    return CMRS_OK;
}

/* ||b - A x||2 recomputed in double from b and the solution, not from the
 * method's recurrence. A double back end computes it where x is (on the
 * GPU: its SpMV, which the tests hold to the CPU reference, and cuBLAS):
 * the host's single-threaded product over nnz cost 50 ms a solve at 5M
 * rows, more than the solve of a time-loop step. A single-precision back
 * end cannot: the host does it with the double values of A from x_h (the
 * solution finish downloaded, or, for a solve kept on the device, scratch
 * it is downloaded into here). */
static cmrs_code true_residual(cmrs_ksp *s, double *x_h, double *norm)
{
    cmrs_backend *be = s->be;
    if (be->prec == CMRS_PREC_DOUBLE) {
        cmrs_vec *r = s->w[0]; /* the method's work is done */
        CMRS_CHECK(cmrs_krylov_residual(s, r));
        CMRS_CHECK(be->ops->nrm2(be, r, norm));
        return CMRS_OK;
    }
    if (!s->x_to_host) CMRS_CHECK(be->ops->vec_get(be, s->x, x_h));
    *norm = residual_norm(s->A, s->b_h, x_h, s->resid_h);
    return CMRS_OK;
}

/* History (relative), x (where the caller wants it on the host) and the
 * true residual, after the loop. */
static cmrs_code finish(cmrs_ksp *s, cmrs_ksp_result *res)
{
    cmrs_backend *be = s->be;
    int64_t count = res->iterations + 1;
    if (s->bnorm > 0) {
        if (!s->refine) /* refinement filled it on the host */
            CMRS_CHECK(be->ops->history_get(be, count, s->history_h));
        for (int64_t i = 0; i < count; ++i) s->history_h[i] /= s->bnorm;
    } else {
        s->history_h[0] = 0.0;
    }
    double *x_h = s->x_out ? s->x_out : s->x_h;
    const int x_back = s->x_to_host && !s->x_stays;
    if (x_back) CMRS_CHECK(be->ops->vec_get(be, s->x, x_h));
    double scale = s->bnorm > 0 ? s->bnorm : 1.0;
    res->res_rel = res->res_norm / scale;
    if (s->no_true) res->true_norm = NAN;
    else CMRS_CHECK(true_residual(s, x_h, &res->true_norm));
    res->true_rel = res->true_norm / scale;
    res->x = x_back ? x_h : NULL;
    res->history = s->history_h;
    return CMRS_OK;
}

cmrs_code cmrs_ksp_loop(cmrs_ksp *s, cmrs_ksp_result *res)
{
    if (s->o.engine == CMRS_ENGINE_FUSED && backend_loop(s))
        CMRS_CHECK(cmrs_cg_backend_loop(s, res));
    else if (s->o.engine != CMRS_ENGINE_CUBLAS)
        CMRS_CHECK(cmrs_devloop_solve(s, res));
    else if (s->o.method == CMRS_METHOD_BICGSTAB)
        CMRS_CHECK(cmrs_bicgstab_iterate(s, res));
    else
        CMRS_CHECK(cmrs_cg_iterate(s, res));
    return CMRS_OK;
}

cmrs_code cmrs_ksp_solve(cmrs_ksp *s, cmrs_ksp_result *res)
{
    memset(res, 0, sizeof *res);
    CMRS_ENSURE(s->have_rhs, CMRS_E_USAGE, "%s: a solve needs a right-hand "
                "side first (cmrs_ksp_set_rhs)", s->what);
    res->bnorm = s->bnorm;
    res->engine = s->o.engine;
    res->mixed = s->o.mixed;
    double t0 = cmrs_wtime();
    if (s->bnorm == 0)
        CMRS_CHECK(zero_rhs(s, res));
    else if (s->refine)
        CMRS_CHECK(cmrs_refine_solve(s, res));
    else
        CMRS_CHECK(cmrs_ksp_loop(s, res));
    CMRS_CHECK(s->be->ops->sync(s->be));
    res->t_solve = cmrs_wtime() - t0;
    CMRS_CHECK(finish(s, res));
    return CMRS_OK;
}

void cmrs_ksp_destroy(cmrs_ksp *s)
{
    if (!s) return;
    cmrs_backend *be = s->be;
    cmrs_refine_free(s); /* its twin shares be's stream: first */
    cmrs_devloop_free(s->dev);
    cmrs_precond_destroy(s->pc);
    be->ops->vec_destroy(be, s->x);
    be->ops->vec_destroy(be, s->b);
    be->ops->vec_destroy(be, s->x0);
    for (int i = 0; i < CMRS_MAX_WORK; ++i) be->ops->vec_destroy(be, s->w[i]);
    CMRS_FREE_ALL(s->x_h, s->b_h, s->resid_h, s->history_h, s);
}
