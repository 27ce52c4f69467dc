/* Internal to solver/: the solver object and the steps every Krylov loop
 * shares (start, record + test a residual). Not for use outside solver/. */
#ifndef CMRS_SOLVER_KRYLOV_H
#define CMRS_SOLVER_KRYLOV_H

#include "solver/ksp.h"

#define CMRS_MAX_WORK 6

struct cmrs_ksp {
    cmrs_backend *be;
    const cmrs_csr *A;  /* borrowed, for the true residual */
    const char *what;   /* borrowed: names the system in messages */
    const int32_t *row_of;  /* borrowed, or NULL: the caller's numbering
                           of rows and entries in messages
                           (cmrs_ksp_set_numbering) */
    int64_t (*entry_of)(void *ctx, int64_t j);
    void *entry_ctx;
    double *b_h;        /* n: b of the last set_rhs, for the true residual */
    int have_rhs;       /* set_rhs ran */
    cmrs_ksp_opts o;  /* maxiter resolved */
    int64_t maxiter_made; /* o.maxiter at create: the history's size - 1 */
    cmrs_vec *x, *b, *x0;
    cmrs_vec *w[CMRS_MAX_WORK]; /* the method's work vectors */
    int nwork;
    double bnorm;
    double *x_h;        /* n: the solution copied back */
    int x_to_host;      /* set_rhs (host b): the solution goes to x_h
                           (or x_out); set_rhs_vec: it stays in x (x_h is
                           scratch) */
    double *x_out;      /* NULL, or where the next solve's x goes instead
                           of x_h (cmrs_ksp_set_x_out; both set_rhs clear
                           it) */
    double *history_h;  /* maxiter + 1 relative residuals */
    double *resid_h;    /* n: workspace of the true residual */
    struct devloop *dev; /* graph/fused engines: devloop.c, made lazily */
    int64_t captures;    /* CUDA graphs captured so far (devloop.c): a
                            test sees whether an update kept them */
    cmrs_precond *pc;    /* the preconditioner object (precond.h) */
    char notice[160];    /* why the engine differs from the request, or "" */
    struct cmrs_refine *refine; /* --mixed refine: refine.c; else NULL */
    int no_true;         /* an inner solve of refinement: ||b|| taken on
                            the device, no true residual (its caller has
                            its own); also set by set_timing_only */
    int x_stays;         /* set_timing_only: x never copied to the host */
    cmrs_backend *true_be; /* --mixed values' inner solve (refine.c): the
                            back end holding A in double, whose product
                            replaces the recursive residual now and then
                            (devloop.c, CG on the graph and fused
                            engines); NULL otherwise */
    int64_t reliable;    /* replacements in the last solve */
};

/* The loop of s->o.engine from x = x0 to a reason (no refinement). */
cmrs_code cmrs_ksp_loop(cmrs_ksp *s, cmrs_ksp_result *res);

/* --mixed refine (refine.c): create makes s->refine (a single-precision
 * twin of s->be and a solver on it) for s, set up; solve runs the
 * refinement from x = x0 to a reason, filling the result as the loops do
 * and s->history_h with absolute norms; update_values refreshes the
 * twin's solver (s's own refreshed by the caller); free is NULL-safe. */
cmrs_code cmrs_refine_create(cmrs_ksp *s);
cmrs_code cmrs_refine_solve(cmrs_ksp *s, cmrs_ksp_result *res);
cmrs_code cmrs_refine_update_values(cmrs_ksp *s, const cmrs_csr *A);
void cmrs_refine_free(cmrs_ksp *s);

/* Work vectors each loop needs, with and without a preconditioner. */
int cmrs_cg_work_count(cmrs_pc pc);
int cmrs_bicgstab_work_count(cmrs_pc pc);

/* The loops: from x = x0 to a reason; fill reason, iterations, res_norm. */
cmrs_code cmrs_cg_iterate(cmrs_ksp *s, cmrs_ksp_result *res);
cmrs_code cmrs_bicgstab_iterate(cmrs_ksp *s, cmrs_ksp_result *res);
/* CG (any preconditioner) through the back end's cg_loop op, as above. */
cmrs_code cmrs_cg_backend_loop(cmrs_ksp *s, cmrs_ksp_result *res);

/* r = b - A x for the current x (queued; nothing recorded). */
cmrs_code cmrs_krylov_residual(cmrs_ksp *s, cmrs_vec *r);
/* x = x0, r = b - A x (queued; nothing recorded). */
cmrs_code cmrs_krylov_residual0(cmrs_ksp *s, cmrs_vec *r);
/* x = x0, r = b - A x, records ||r|| as entry 0 and tests it. */
cmrs_code cmrs_krylov_start(cmrs_ksp *s, cmrs_vec *r, double *rnorm,
                            cmrs_ksp_reason *reason);
/* Records ||r|| as entry k, calls the monitor, sets *reason to a
 * converged reason, DIVERGED_NANORINF or ITERATING. */
cmrs_code cmrs_krylov_record(cmrs_ksp *s, const cmrs_vec *r, int64_t k,
                             double *rnorm, cmrs_ksp_reason *reason);
/* The stopping test on a norm not recorded: converged reason, NANORINF
 * for a non-finite norm, else ITERATING. */
cmrs_ksp_reason cmrs_krylov_test(const cmrs_ksp *s, double rnorm);
/* NANORINF unless every value is finite, else ITERATING. */
cmrs_ksp_reason cmrs_krylov_finite(int count, const double *v);
/* z = M^-1 r; returns r itself when there is no preconditioner, so the
 * loops need no copy for --precond none. */
cmrs_code cmrs_krylov_precond(cmrs_ksp *s, cmrs_vec *r, cmrs_vec *z,
                              cmrs_vec **out);

#endif
