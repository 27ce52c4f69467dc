/* The distributed back end on two GPUs (--gpus 2: a GPU back end per part,
 * NCCL halos), against the CPU reference and one GPU:
 *   - y = A x with y poisoned first: every method, both precisions, on a
 *     2-D Laplacian of odd size (uneven parts), a pattern whose halo goes
 *     one way only (lower bidiagonal) and two disconnected blocks (no halo
 *     at all in block order);
 *   - CG and BiCGStab with Jacobi, none and Chebyshev: iterations within
 *     2 of one GPU (BiCGStab: 10%), the same true residual, x close; CG
 *     with jacobi/none on the fused loop (the default: kernels per GPU,
 *     NCCL all-reduces on the devices) and on the reference loop; the
 *     fused loop in single precision, stopped by maxiter (the same
 *     history as one GPU's) and by a breakdown;
 *   - the fused loop's halo of z beside the r'z sum (p's ghosts formed
 *     by xp) against p's halo before every SpMV, and its thread per part
 *     against one thread: the same bits;
 *   - CG with amg over all rows: one GPU's iterations (+-1) and x; a
 *     hierarchy per GPU: converged, x close; new values for both;
 *   - new values (A doubled): x halves;
 *   - the library API with option gpus 2 against gpus 1; device arrays
 *     refused there;
 *   - on 3 and 4 GPUs where the machine has them: the products, and CG +
 *     Jacobi on both loops against one GPU, the fused solves by a thread
 *     per part, the merged halo and the threads against their =0 ways
 *     (iterations equal, x within 1e-12) (the messages say "2 GPUs"
 *     for any count; the "== N GPUs" line before them says which).
 * Skipped (77) with fewer than two GPUs or without NCCL at run time. */
#include <math.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "cmrs.h"
#include "dist/gpu/dist_fused.h"
#include "dist/dist_gpu.h"
#include "dist/dist_impl.h"
#include "solver/pc/precond.h"
#include "solver/tsolve.h"
#include "base/gpu/cuda_check.h"
#include "solver/backend/gpu/backend_gpu.h"
#include "spmv/ref.h"
#include "spmv/verify.h"
#include "tdist.h"

/* The GPUs (= parts) of make(): 2, then 3 and 4 where the machine has
 * them (more_gpus). */
static int g_ngpus = 2;

static cmrs_code make(const cmrs_csr *A, cmrs_part_method m, cmrs_prec prec,
                      cmrs_backend **be)
{
    cmrs_dist_gpu_params prm = {.ngpus = g_ngpus, .method = m, .format = "cmrs",
                                .prec = prec};
    return cmrs_backend_dist_gpu_create(A, &prm, be);
}

/* Two blocks with no entry between them: the block cut sends nothing. */
static void two_blocks(cmrs_csr *A, int64_t m)
{
    tbuild t;
    int64_t n = 2 * m;
    tb_init(&t, A, n, 3 * n);
    for (int64_t i = 0; i < n; ++i) {
        int64_t lo = i < m ? 0 : m, hi = lo + m;
        if (i > lo) tb_put(&t, i - 1, -1.0);
        tb_put(&t, i, 2.5 + 0.01 * (double)(i % 3));
        if (i + 1 < hi) tb_put(&t, i + 1, -1.0);
        tb_end_row(&t, i);
    }
    tb_done(&t);
}

static void spmv_case(const cmrs_csr *A, cmrs_part_method m, cmrs_prec prec,
                      const char *name)
{
    int64_t n = A->rows;
    double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8),
           *ref = malloc((size_t)n * 8), *nan = malloc((size_t)n * 8);
    fill_x(n, x);
    /* Poison: NaN, or in single a huge float (NaN does not fit). */
    for (int64_t i = 0; i < n; ++i)
        nan[i] = prec == CMRS_PREC_SINGLE ? 1e30 : NAN;
    cmrs_csr_spmv(A, 1.0, x, 0.0, ref);
    cmrs_backend *be = NULL;
    cmrs_vec *xv = NULL, *yv = NULL;
    CHECK_OK(make(A, m, prec, &be));
    if (!be) goto out;
    /* Every part's local matrix (owned columns, then ghosts: rows <=
     * cols) offers the x'y epilogue, which the fused loop takes for p'q
     * instead of a pass over p and q of its own. */
    FOR_MY_PARTS(DIST(be), p) {
        /* (the part's device current: verify allocates there) */
        cmrs_spmv *s = GPU(dist_inner(DIST(be), p))->spmv;
        const cmrs_csr *L = &DIST(be)->halo.part[p].A;
        cmrs_spmv_check k = {0};
        CHECK(s->dot_parts > 0, "%s %s %s: part %d's product has no x'y "
              "epilogue", name, cmrs_part_method_name(m),
              cmrs_prec_name(prec), p);
        double *xl = malloc((size_t)L->cols * sizeof *xl);
        cmrs_random_vector(xl, L->cols, 31 + (uint64_t)p);
        if (s->dot_parts > 0) CHECK_OK(cmrs_spmv_verify_dot(s, L, xl, &k));
        CHECK(s->dot_parts <= 0 || k.ok, "%s %s %s: part %d's x'y: y rel "
              "err %g (bound %g), x'y rel err %g (bound %g)", name,
              cmrs_part_method_name(m), cmrs_prec_name(prec), p, k.rel_err,
              k.tol, k.dot_rel_err, k.dot_tol);
        free(xl);
    }
    dist_home(DIST(be));
    CHECK_OK(be->ops->vec_create(be, &xv));
    CHECK_OK(be->ops->vec_create(be, &yv));
    CHECK_OK(be->ops->vec_set(be, xv, x));
    CHECK_OK(be->ops->vec_set(be, yv, nan)); /* poisoned */
    CHECK_OK(be->ops->spmv(be, 1.0, xv, 0.0, yv));
    CHECK_OK(be->ops->vec_get(be, yv, y));
    double err = cmrs_ref_rel_err(n, y, ref);
    double tol = prec == CMRS_PREC_SINGLE ? 1e-5 : 1e-13;
    CHECK(err <= tol, "%s %s %s: y = A x off by %g", name,
          cmrs_part_method_name(m), cmrs_prec_name(prec), err);
    /* beta = 1: y + A x = 2 A x. */
    CHECK_OK(be->ops->spmv(be, 1.0, xv, 1.0, yv));
    CHECK_OK(be->ops->vec_get(be, yv, y));
    for (int64_t i = 0; i < n; ++i) y[i] *= 0.5;
    err = cmrs_ref_rel_err(n, y, ref);
    CHECK(err <= tol, "%s %s %s: y + A x off by %g", name,
          cmrs_part_method_name(m), cmrs_prec_name(prec), err);
out:
    if (be) {
        be->ops->vec_destroy(be, xv);
        be->ops->vec_destroy(be, yv);
    }
    cmrs_backend_destroy(be);
    free(x), free(y), free(ref), free(nan);
}

static void products(void)
{
    cmrs_csr L = {0}, B = {0}, T = {0};
    lap2d(&L, 37);         /* 1369 rows: the parts differ in size */
    lower_bidiag(&B, 1001);
    two_blocks(&T, 500);
    for (int m = 0; m < method_count(); ++m)
        for (int pr = 0; pr < 2; ++pr) {
            cmrs_prec prec = pr ? CMRS_PREC_SINGLE : CMRS_PREC_DOUBLE;
            spmv_case(&L, (cmrs_part_method)m, prec, "lap2d 37");
            spmv_case(&B, (cmrs_part_method)m, prec, "lower bidiagonal");
            spmv_case(&T, (cmrs_part_method)m, prec, "two blocks");
        }
    cmrs_backend *be = NULL;
    CHECK_OK(make(&T, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be));
    const cmrs_partition *pt = cmrs_backend_dist_partition(be);
    CHECK(pt && pt->halo == 0 && pt->edge_cut == 0, "two blocks by block: "
          "halo %lld", pt ? (long long)pt->halo : -1LL);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&L), cmrs_csr_free(&B), cmrs_csr_free(&T);
}

/* Setup + solve on 2 GPUs cut by m in prec (the back end made and freed
 * here). */
static outcome solve_two(const cmrs_csr *A, cmrs_part_method m,
                         cmrs_prec prec, const double *b,
                         const cmrs_ksp_opts *op)
{
    cmrs_backend *be = NULL;
    cmrs_code rc = make(A, m, prec, &be);
    return solve_fresh(rc, be, A, b, NULL, op);
}

/* The loop a 2-GPU solve must have run: the fused engine (every part's
 * kernels, NCCL all-reduces on the devices; Jacobi inline, another
 * preconditioner between the kernels) for CG asked for it, and by
 * default for CG with jacobi or none; else the reference loop. */
static cmrs_engine expected_engine(const cmrs_ksp_opts *op)
{
    int cg = op->method == CMRS_METHOD_CG;
    int inline_pc = op->pc == CMRS_PC_JACOBI || op->pc == CMRS_PC_NONE;
    if (cg && op->engine == CMRS_ENGINE_FUSED) return CMRS_ENGINE_FUSED;
    return cg && inline_pc && op->engine == CMRS_ENGINE_AUTO
               ? CMRS_ENGINE_FUSED
               : CMRS_ENGINE_CUBLAS;
}

/* o (2 GPUs) against ref (one GPU) of the same request: the engine, the
 * monitor called once per history entry, entry 0 as one GPU's, the last
 * entry as the result says. */
static void check_loop(const char *name, const cmrs_ksp_opts *op,
                       const outcome *o, const outcome *ref)
{
    CHECK(o->r.engine == expected_engine(op), "%s: engine %s on 2 GPUs",
          name, cmrs_engine_name(o->r.engine));
    CHECK(o->monitor_calls == o->r.iterations + 1 &&
              o->last_k == o->r.iterations,
          "%s: monitor called %d times, last k %lld, for %lld iterations",
          name, o->monitor_calls, (long long)o->last_k,
          (long long)o->r.iterations);
    CHECK(fabs(o->hist[0] - ref->hist[0]) <= 1e-6 * ref->hist[0],
          "%s: first residual %.17g on 2 GPUs, %.17g on one", name,
          o->hist[0], ref->hist[0]);
    double last = o->hist[o->r.iterations]; /* single: stored as float */
    CHECK(fabs(last - o->r.res_rel) <= 1e-6 * o->r.res_rel, "%s: last "
          "history entry %.17g, result %.17g", name, last, o->r.res_rel);
}

static void solve_case_on(const cmrs_csr *A, const double *b,
                          cmrs_method me, cmrs_pc pc, cmrs_engine eng,
                          cmrs_part_method m, const char *name)
{
    cmrs_ksp_opts op = opts_of(me, pc, 1e-10);
    op.engine = eng;
    outcome ref = solve_gpu("cmrs", CMRS_PREC_DOUBLE, A, b, NULL, &op);
    outcome o = solve_two(A, m, CMRS_PREC_DOUBLE, b, &op);
    CHECK(ref.rc == CMRS_OK && o.rc == CMRS_OK, "%s %s: %s", name,
          cmrs_part_method_name(m), cmrs_error_message());
    if (ref.rc == CMRS_OK && o.rc == CMRS_OK) {
        check_loop(name, &op, &o, &ref);
        int64_t slack = me == CMRS_METHOD_BICGSTAB && ref.r.iterations > 20
                            ? ref.r.iterations / 10 : 2;
        int64_t d = o.r.iterations - ref.r.iterations;
        CHECK(cmrs_ksp_reason_converged(o.r.reason) && d >= -slack &&
                  d <= slack,
              "%s %s: %lld iterations on 2 GPUs, %lld on one", name,
              cmrs_part_method_name(m), (long long)o.r.iterations,
              (long long)ref.r.iterations);
        CHECK(o.r.true_rel <= 10 * op.rtol, "%s %s: true residual %g",
              name, cmrs_part_method_name(m), o.r.true_rel);
        double err = cmrs_ref_rel_err(A->rows, o.x, ref.x);
        CHECK(err <= 100 * op.rtol, "%s %s: x differs from one GPU's by %g",
              name, cmrs_part_method_name(m), err);
        printf("%s %s %s: %lld iterations (one GPU %lld), true residual "
               "%.2e\n", name, cmrs_part_method_name(m),
               cmrs_engine_name(o.r.engine), (long long)o.r.iterations,
               (long long)ref.r.iterations, o.r.true_rel);
    }
    outcome_free(&o), outcome_free(&ref);
}

/* The default engine, and for CG the reference loop asked for too. */
static void solve_case(const cmrs_csr *A, const double *b, cmrs_method me,
                       cmrs_pc pc, cmrs_part_method m, const char *name)
{
    solve_case_on(A, b, me, pc, CMRS_ENGINE_AUTO, m, name);
    if (me == CMRS_METHOD_CG)
        solve_case_on(A, b, me, pc, CMRS_ENGINE_CUBLAS, m, name);
}

/* The fused loop in single precision (rtol 1e-5): iterations within 10% +
 * 2 of one GPU's, a true residual as one GPU's, x close. */
static void single_case(const cmrs_csr *A, const double *b)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-5);
    outcome ref = solve_gpu("cmrs", CMRS_PREC_SINGLE, A, b, NULL, &op);
    outcome o = solve_two(A, CMRS_PART_RCM, CMRS_PREC_SINGLE, b, &op);
    CHECK(ref.rc == CMRS_OK && o.rc == CMRS_OK, "single: %s",
          cmrs_error_message());
    if (ref.rc == CMRS_OK && o.rc == CMRS_OK) {
        check_loop("single", &op, &o, &ref);
        CHECK(cmrs_ksp_reason_converged(o.r.reason) &&
                  close_its(o.r.iterations, ref.r.iterations, 2, 10),
              "single: %lld iterations on 2 GPUs, %lld on one",
              (long long)o.r.iterations, (long long)ref.r.iterations);
        /* float's recursive residual drifts from the true one: as far
         * as one GPU's */
        CHECK(o.r.true_rel <= 10 * op.rtol + 3 * ref.r.true_rel,
              "single: true residual %g on 2 GPUs, %g on one", o.r.true_rel,
              ref.r.true_rel);
        printf("single: %lld iterations (one GPU %lld), true residual %.2e "
               "(one GPU %.2e)\n", (long long)o.r.iterations,
               (long long)ref.r.iterations, o.r.true_rel, ref.r.true_rel);
        CHECK(cmrs_ref_rel_err(A->rows, o.x, ref.x) <= 1e-3, "single: x "
              "differs from one GPU's by %g",
              cmrs_ref_rel_err(A->rows, o.x, ref.x));
    }
    outcome_free(&o), outcome_free(&ref);
}

/* maxiter 7 on the fused loop with pc cut by m: exactly 7 iterations,
 * the history as one GPU's within tol (relative to entry 0). */
static void maxiter_case(const cmrs_csr *A, const double *b, cmrs_pc pc,
                         cmrs_part_method m, double tol, const char *name)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, pc, 1e-14);
    op.maxiter = 7;
    op.engine = CMRS_ENGINE_FUSED;
    outcome ref = solve_gpu("cmrs", CMRS_PREC_DOUBLE, A, b, NULL, &op);
    outcome o = solve_two(A, m, CMRS_PREC_DOUBLE, b, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_MAXITS &&
              o.r.iterations == 7 && o.r.engine == CMRS_ENGINE_FUSED &&
              ref.rc == CMRS_OK && ref.r.reason == CMRS_DIVERGED_MAXITS,
          "%s on 2 GPUs: %s, %lld iterations", name, outcome_why(&o),
          (long long)o.r.iterations);
    if (o.rc == CMRS_OK && ref.rc == CMRS_OK) {
        check_loop(name, &op, &o, &ref);
        for (int64_t k = 0; k <= 7; ++k)
            CHECK(fabs(o.hist[k] - ref.hist[k]) <= tol * ref.hist[0],
                  "%s: entry %lld %.17g on 2 GPUs, %.17g on one", name,
                  (long long)k, o.hist[k], ref.hist[k]);
        /* x of the stop's iteration: updated once, as one GPU's */
        double err = cmrs_ref_rel_err(A->rows, o.x, ref.x);
        CHECK(err <= 100 * tol, "%s: x differs from one GPU's by %g", name,
              err);
    }
    outcome_free(&o), outcome_free(&ref);
}

/* The fused loop's stops other than convergence, as one GPU's: maxiter
 * (exactly that many iterations; with amg between the kernels, 2
 * iterations a block, the stop at 7 falls inside one, and the sums in
 * another order) and a curvature breakdown at once (A negative definite:
 * p'Ap < 0 in the first iteration). */
static void stop_cases(cmrs_csr *A, const double *b)
{
    maxiter_case(A, b, CMRS_PC_JACOBI, CMRS_PART_BLOCK, 1e-9, "maxiter 7");
    maxiter_case(A, b, CMRS_PC_AMG, CMRS_PART_RCM, 1e-7, "amg maxiter 7");
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] = -A->values[k];
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_NONE, 1e-10);
    outcome o = solve_two(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, b, &op);
    CHECK(o.rc == CMRS_OK && o.r.reason == CMRS_DIVERGED_BREAKDOWN &&
              o.r.iterations == 0 && o.r.engine == CMRS_ENGINE_FUSED,
          "-A on 2 GPUs: %s after %lld iterations", outcome_why(&o),
          (long long)o.r.iterations);
    outcome_free(&o);
    for (int64_t k = 0; k < A->nnz; ++k) A->values[k] = -A->values[k];
}

/* amg over all rows (the default): one GPU's iterations (+-1: the same
 * V-cycle, sums in another order) and x, on the reference loop (the
 * default) and the fused loop; one hierarchy per GPU (amg-parts block)
 * converges to the same true residual in more iterations (printed: the
 * growth is measured, not bounded here); new values rebuild both. */
static void amg_case(cmrs_csr *A, const double *b)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_AMG, 1e-10);
    outcome ref = solve_gpu("cmrs", CMRS_PREC_DOUBLE, A, b, NULL, &op);
    for (int block = 0; block <= 2; ++block)
        for (int m = 0; m < method_count(); ++m) {
            const char *how = block == 1 ? "block" : block ? "global fused"
                                                           : "global";
            cmrs_ksp_opts o2 = op;
            o2.pco.amg_parts = block == 1 ? CMRS_AMG_PARTS_BLOCK
                                          : CMRS_AMG_PARTS_GLOBAL;
            if (block == 2) o2.engine = CMRS_ENGINE_FUSED;
            outcome o = solve_two(A, (cmrs_part_method)m, CMRS_PREC_DOUBLE,
                                  b, &o2);
            int64_t it = o.r.iterations, it1 = ref.r.iterations;
            CHECK(o.rc == CMRS_OK && cmrs_ksp_reason_converged(o.r.reason) &&
                      o.r.true_rel <= 10 * op.rtol &&
                      o.r.engine == expected_engine(&o2),
                  "amg %s on 2 GPUs %s: %s, true residual %g, engine %s",
                  how, cmrs_part_method_name(m), cmrs_error_message(),
                  o.r.true_rel, cmrs_engine_name(o.r.engine));
            if (o.rc == CMRS_OK && ref.rc == CMRS_OK)
                check_loop(how, &o2, &o, &ref);
            if (block != 1)
                CHECK(it >= it1 - 1 && it <= it1 + 1, "amg %s on 2 GPUs "
                      "%s: %lld iterations, one GPU %lld", how,
                      cmrs_part_method_name(m), (long long)it,
                      (long long)it1);
            if (o.rc == CMRS_OK && ref.rc == CMRS_OK)
                CHECK(cmrs_ref_rel_err(A->rows, o.x, ref.x) <=
                          (block == 1 ? 1e-7 : 1e-8),
                      "amg %s on 2 GPUs %s: x differs from one GPU's by %g",
                      how, cmrs_part_method_name(m),
                      cmrs_ref_rel_err(A->rows, o.x, ref.x));
            printf("amg %s %s: %lld iterations on 2 GPUs, %lld on one\n",
                   how, cmrs_part_method_name(m), (long long)it,
                   (long long)it1);
            outcome_free(&o);
        }
    cmrs_backend *be = NULL;
    CHECK_OK(make(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be));
    if (be) check_doubled(be, A, &op, b, 1e-7, "amg global on 2 GPUs");
    cmrs_backend_destroy(be);
    be = NULL;
    cmrs_ksp_opts ob = op;
    ob.pco.amg_parts = CMRS_AMG_PARTS_BLOCK;
    CHECK_OK(make(A, CMRS_PART_RCM, CMRS_PREC_DOUBLE, &be));
    if (be) check_doubled(be, A, &ob, b, 1e-7, "amg block on 2 GPUs");
    cmrs_backend_destroy(be);
    outcome_free(&ref);
}

/* The AMG's phases timed by CUDA events (CMRS_DIST_AMG_PHASES=events, a
 * profile): the same solves, also after new values (a new hierarchy
 * makes new marks). */
static void amg_events_case(cmrs_csr *A, const double *b)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_AMG, 1e-10);
    cmrs_backend *be = NULL;
    setenv("CMRS_DIST_AMG_PHASES", "events", 1);
    CHECK_OK(make(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be));
    if (be) check_doubled(be, A, &op, b, 1e-7, "amg with events");
    cmrs_backend_destroy(be);
    unsetenv("CMRS_DIST_AMG_PHASES");
}

/* Level 1 on the GPUs too (amg-parts-levels 2, a hierarchy of 3 levels
 * or more): one GPU's iterations (+-1) and x, by every method; new
 * values rebuild it. */
static void amg_level1_case(cmrs_csr *A, const double *b)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_AMG, 1e-10);
    op.pco.amg.coarse_rows = 50;
    outcome ref = solve_gpu("cmrs", CMRS_PREC_DOUBLE, A, b, NULL, &op);
    op.pco.amg_parts_levels = 2;
    for (int m = 0; m < method_count(); ++m) {
        outcome o = solve_two(A, (cmrs_part_method)m, CMRS_PREC_DOUBLE, b,
                              &op);
        int64_t it = o.r.iterations, it1 = ref.r.iterations;
        CHECK(o.rc == CMRS_OK && it >= it1 - 1 && it <= it1 + 1 &&
                  o.parts_levels == 2,
              "amg levels 0-1 on 2 GPUs %s: %s, %lld iterations (one GPU "
              "%lld), %d levels on the parts", cmrs_part_method_name(m),
              cmrs_error_message(), (long long)it, (long long)it1,
              o.parts_levels);
        if (o.rc == CMRS_OK && ref.rc == CMRS_OK)
            CHECK(cmrs_ref_rel_err(A->rows, o.x, ref.x) <= 1e-8, "amg levels "
                  "0-1 on 2 GPUs %s: x differs from one GPU's by %g",
                  cmrs_part_method_name(m),
                  cmrs_ref_rel_err(A->rows, o.x, ref.x));
        printf("amg levels 0-1 %s: %lld iterations on 2 GPUs, %lld on one\n",
               cmrs_part_method_name(m), (long long)it, (long long)it1);
        outcome_free(&o);
    }
    cmrs_backend *be = NULL;
    CHECK_OK(make(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be));
    if (be) check_doubled(be, A, &op, b, 1e-7, "amg levels 0-1 on 2 GPUs");
    cmrs_backend_destroy(be);
    outcome_free(&ref);
}

/* The parts' rows of P0 and P1 cut on each GPU from its own hierarchy
 * (block parts, the default; CMRS_TEST_DIST_DEVICE_ROWS makes a fallback
 * to the host's cut an error) against the host's cut of the downloaded P
 * (CMRS_DIST_AMG_HOST_ROWS=1): the same operators, so the same
 * iterations and x bit for bit, with levels 0-1 on the parts. */
static void amg_rows_case(cmrs_csr *A, const double *b)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_AMG, 1e-10);
    op.pco.amg.coarse_rows = 50;
    op.pco.amg_parts_levels = 2;
    setenv("CMRS_TEST_DIST_DEVICE_ROWS", "1", 1); /* no quiet fallback */
    outcome dev = solve_two(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, b, &op);
    unsetenv("CMRS_TEST_DIST_DEVICE_ROWS");
    setenv("CMRS_DIST_AMG_HOST_ROWS", "1", 1);
    outcome host = solve_two(A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, b, &op);
    unsetenv("CMRS_DIST_AMG_HOST_ROWS");
    CHECK(dev.rc == CMRS_OK && host.rc == CMRS_OK && dev.parts_levels == 2 &&
              dev.r.iterations == host.r.iterations &&
              memcmp(dev.x, host.x, (size_t)A->rows * sizeof *dev.x) == 0,
          "amg rows of P on the GPUs: %lld iterations against the host "
          "cut's %lld, x %s", (long long)dev.r.iterations,
          (long long)host.r.iterations,
          dev.x && host.x &&
                  memcmp(dev.x, host.x, (size_t)A->rows * sizeof *dev.x) == 0
              ? "the same" : "differs");
    printf("amg rows of P cut on the GPUs: %lld iterations, the host "
           "cut's %lld\n", (long long)dev.r.iterations,
           (long long)host.r.iterations);
    outcome_free(&dev);
    outcome_free(&host);
}

/* D^-1 from the GPU parts' own diagonals (the back end's own_dinv) bit
 * for bit the host's of the whole A, by block and rcm; a negative
 * diagonal in the second part: own_dinv declines with no error left
 * (done 0), and the host path's message names the global row, as
 * cmrs_jacobi_inverse_diagonal's on the whole A does. */
static void dinv_case(const cmrs_csr *A)
{
    int64_t n = A->rows;
    double *ref = malloc((size_t)n * sizeof *ref);
    double *got = malloc((size_t)n * sizeof *got);
    CHECK_OK(cmrs_jacobi_inverse_diagonal(A, "A", ref));
    for (int m = 0; m < 2; ++m) {
        cmrs_backend *be = NULL;
        void *x = NULL;
        int done = 0;
        CHECK_OK(make(A, m ? CMRS_PART_RCM : CMRS_PART_BLOCK,
                      CMRS_PREC_DOUBLE, &be));
        if (!be) continue;
        CHECK_OK(be->ops->own_dinv(be, A, "A", &x, &done));
        for (int64_t i = 0; i < n; ++i) got[i] = NAN;
        if (done) CHECK_OK(be->ops->arr_get(be, n, x, got));
        CHECK(done && memcmp(got, ref, (size_t)n * sizeof *ref) == 0,
              "D^-1 from the parts (%s): done %d, not the host's bits",
              m ? "rcm" : "block", done);
        be->ops->arr_destroy(be, x);
        cmrs_backend_destroy(be);
    }
    cmrs_csr B = {0};
    CHECK_OK(cmrs_csr_copy(&B, A));
    int64_t row = 3 * n / 4, k = B.indptr[row];
    while (B.indices[k] != row) ++k;
    B.values[k] = -B.values[k];
    char want[512] = "";
    if (cmrs_jacobi_inverse_diagonal(&B, "A", ref) != CMRS_OK)
        snprintf(want, sizeof want, "%s", cmrs_error_message());
    cmrs_error_clear();
    cmrs_backend *be = NULL;
    CHECK_OK(make(&B, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be));
    if (be) {
        void *x = NULL;
        int done = 1;
        CHECK_OK(be->ops->own_dinv(be, &B, "A", &x, &done));
        CHECK(!done && !x && cmrs_error_code() == CMRS_OK,
              "a negative diagonal: own_dinv done %d", done);
        CHECK(cmrs_pc_inverse_diagonal(be, &B, "A", &x) == CMRS_E_INPUT &&
                  want[0] && strstr(cmrs_error_message(), want),
              "a negative diagonal: '%s', want '%s'", cmrs_error_message(),
              want);
        cmrs_error_clear();
        be->ops->arr_destroy(be, x);
        cmrs_backend_destroy(be);
    }
    cmrs_csr_free(&B);
    free(ref);
    free(got);
    printf("D^-1 from the GPU parts: the host's bits\n");
}

/* The fused loop's ways against each other on 2 GPUs (a sum of two is
 * the same whichever way NCCL adds it), the same iterations, history and
 * x bit for bit: by default against `env`=0 (CMRS_DIST_MERGED_HALO: p's
 * halo before every SpMV instead of xp forming p's ghosts from z's, whose
 * halo goes with the r'z sum; CMRS_DIST_THREADS: every part's steps
 * queued by this thread instead of a thread per part). ways[0] / ways[1]:
 * the ways each run must have taken, a bit each (WAY_MERGED,
 * WAY_THREADS), counted by the loop. */
enum { WAY_MERGED = 1, WAY_THREADS = 2 };

/* The ways the solve took (the loop's counters around it). */
static outcome solve_ways(const cmrs_csr *A, cmrs_part_method m,
                          cmrs_prec prec, const double *b,
                          const cmrs_ksp_opts *op, int *ways)
{
    long merged = cmrs_dist_fused_merged_solves(),
         threaded = cmrs_dist_fused_threaded_solves();
    outcome o = solve_two(A, m, prec, b, op);
    *ways = (cmrs_dist_fused_merged_solves() > merged ? WAY_MERGED : 0) |
            (cmrs_dist_fused_threaded_solves() > threaded ? WAY_THREADS : 0);
    return o;
}

static void same_bits(const cmrs_csr *A, const double *b, cmrs_pc pc,
                      cmrs_prec prec, cmrs_part_method m, const char *env,
                      const int ways[2], const char *name)
{
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, pc, prec == CMRS_PREC_SINGLE
                                                       ? 1e-5 : 1e-10);
    op.engine = CMRS_ENGINE_FUSED;
    int took[2];
    outcome o = solve_ways(A, m, prec, b, &op, &took[0]);
    setenv(env, "0", 1);
    outcome ref = solve_ways(A, m, prec, b, &op, &took[1]);
    unsetenv(env);
    CHECK(o.rc == CMRS_OK && ref.rc == CMRS_OK, "%s %s: %s", name,
          cmrs_part_method_name(m), cmrs_error_message());
    CHECK(took[0] == ways[0] && took[1] == ways[1], "%s %s: the runs took "
          "ways %d and %d (merged 1, threads 2), %d and %d expected", name,
          cmrs_part_method_name(m), took[0], took[1], ways[0], ways[1]);
    if (o.rc == CMRS_OK && ref.rc == CMRS_OK) {
        int64_t its = o.r.iterations;
        size_t xb = (size_t)A->rows * sizeof(double);
        /* more parts: NCCL may add three or four in another order */
        const int exact = g_ngpus == 2;
        const double err = cmrs_ref_rel_err(A->rows, o.x, ref.x);
        CHECK(cmrs_ksp_reason_converged(o.r.reason) &&
                  its == ref.r.iterations &&
                  (exact ? memcmp(o.hist, ref.hist, (size_t)(its + 1) *
                                                        sizeof(double)) == 0 &&
                               memcmp(o.x, ref.x, xb) == 0
                         : err <= 1e-12),
              "%s %s: %lld iterations by default, %lld with %s=0 "
              "(history or x not the same bits; x differs by %g)", name,
              cmrs_part_method_name(m), (long long)its,
              (long long)ref.r.iterations, env, err);
        printf("%s %s: %lld iterations, x %s %s=0's\n", name,
               cmrs_part_method_name(m), (long long)its,
               exact ? "bit for bit" : "within 1e-12 of", env);
    }
    outcome_free(&o), outcome_free(&ref);
}

static void loop_ways_case(const cmrs_csr *A, const double *b)
{
    const char *merged = "CMRS_DIST_MERGED_HALO", *th = "CMRS_DIST_THREADS";
    const int both = WAY_MERGED | WAY_THREADS;
    const int halo[2] = {both, WAY_THREADS}, threads[2] = {both, WAY_MERGED},
              amg[2] = {WAY_MERGED, 0}, own[2] = {WAY_THREADS, 0};
    for (int m = 0; m < method_count(); ++m)
        same_bits(A, b, CMRS_PC_JACOBI, CMRS_PREC_DOUBLE, (cmrs_part_method)m,
                  merged, halo, "jacobi, z's halo");
    same_bits(A, b, CMRS_PC_JACOBI, CMRS_PREC_DOUBLE, CMRS_PART_BLOCK, th,
              threads, "jacobi, threads");
    if (g_ngpus != 2) return; /* 3 and 4 GPUs: the two above */
    same_bits(A, b, CMRS_PC_NONE, CMRS_PREC_DOUBLE, CMRS_PART_RCM, merged,
              halo, "none, z's halo");
    /* amg's apply spans the parts: one thread */
    same_bits(A, b, CMRS_PC_AMG, CMRS_PREC_DOUBLE, CMRS_PART_BLOCK, merged,
              amg, "amg, z's halo");
    same_bits(A, b, CMRS_PC_JACOBI, CMRS_PREC_SINGLE, CMRS_PART_RCM, merged,
              halo, "single, z's halo");
    same_bits(A, b, CMRS_PC_JACOBI, CMRS_PREC_SINGLE, CMRS_PART_RCM, th,
              threads, "single, threads");
    setenv(merged, "0", 1); /* a thread per part, p's halo its own */
    same_bits(A, b, CMRS_PC_NONE, CMRS_PREC_DOUBLE, CMRS_PART_RCM, th, own,
              "none, p's halo, threads");
    unsetenv(merged);
}

static void solves(void)
{
    cmrs_system sys;
    cmrs_vessel_opts vo = {.cells = 20000};
    cmrs_convdiff_opts co = {.n = 16, .peclet = 10};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    for (int m = 0; m < method_count(); ++m)
        solve_case(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_JACOBI,
                   (cmrs_part_method)m, "vessel 20k cg jacobi");
    solve_case(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_NONE, CMRS_PART_RCM,
               "vessel 20k cg none");
    /* p'q by a pass of its own (the formats without the x'y epilogue) */
    setenv("CMRS_SPMV_DOT", "0", 1);
    solve_case_on(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_JACOBI,
                  CMRS_ENGINE_AUTO, CMRS_PART_BLOCK,
                  "vessel 20k cg jacobi, p'q pass");
    unsetenv("CMRS_SPMV_DOT");
    loop_ways_case(&sys.A, sys.b);
    solve_case(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV,
               CMRS_PART_BLOCK, "vessel 20k cg chebyshev");
    solve_case_on(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV,
                  CMRS_ENGINE_FUSED, CMRS_PART_RCM,
                  "vessel 20k cg chebyshev fused");
    amg_case(&sys.A, sys.b);
    amg_events_case(&sys.A, sys.b);
    amg_level1_case(&sys.A, sys.b);
    amg_rows_case(&sys.A, sys.b);
    dinv_case(&sys.A);
    single_case(&sys.A, sys.b);
    stop_cases(&sys.A, sys.b);
    cmrs_system_free(&sys);
    CHECK_OK(cmrs_gen_convdiff(&co, &sys));
    solve_case(&sys.A, sys.b, CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI,
               CMRS_PART_BLOCK, "convdiff 16^3 bicgstab");
    cmrs_system_free(&sys);
}

/* A doubled through update_values: the solve's x halves. */
static void new_values(void)
{
    cmrs_system sys;
    cmrs_vessel_opts vo = {.cells = 8000};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    cmrs_ksp_opts op = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-10);
    cmrs_backend *be = NULL;
    CHECK_OK(make(&sys.A, CMRS_PART_RCM, CMRS_PREC_DOUBLE, &be));
    if (be) check_doubled(be, &sys.A, &op, sys.b, 1e-7, "jacobi on 2 GPUs");
    cmrs_backend_destroy(be);
    cmrs_system_free(&sys);
}

/* One solve through the public API with option gpus. */
static double *api_solve(cmrs_context *ctx, cmrs_matrix *M, const double *b,
                         int64_t n, const char *gpus, int64_t *its)
{
    cmrs_solver *s = NULL;
    double *x = calloc((size_t)n, 8);
    cmrs_solve_info info = {0};
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS, "solver");
    CHECK(cmrs_solver_set_option(s, "gpus", gpus) == CMRS_SUCCESS &&
              cmrs_solver_set_option(s, "partition", "rcm") == CMRS_SUCCESS,
          "options");
    CHECK(cmrs_solver_setup(s, M) == CMRS_SUCCESS &&
              cmrs_solver_solve(s, b, x) == CMRS_SUCCESS &&
              cmrs_solver_get_info(s, &info) == CMRS_SUCCESS &&
              info.converged,
          "gpus %s: %s", gpus, cmrs_last_error(ctx));
    *its = info.iterations;
    cmrs_solver_destroy(s);
    return x;
}

/* Device arrays hold all rows on one GPU; a distributed solve's live per
 * part: refused in one line, nothing touched. */
static void device_arrays_refused(cmrs_context *ctx, cmrs_matrix *M,
                                  int64_t n)
{
    cmrs_solver *s = NULL;
    double *b_d = NULL, *x_d = NULL;
    CHECK(cudaMalloc((void **)&b_d, (size_t)n * 8) == cudaSuccess &&
              cudaMalloc((void **)&x_d, (size_t)n * 8) == cudaSuccess,
          "cudaMalloc");
    CHECK(cmrs_solver_create(ctx, &s) == CMRS_SUCCESS &&
              cmrs_solver_set_option(s, "gpus", "2") == CMRS_SUCCESS &&
              cmrs_solver_setup(s, M) == CMRS_SUCCESS,
          "gpus 2: %s", cmrs_last_error(ctx));
    CHECK(cmrs_solver_solve_ex(s, b_d, x_d, CMRS_VALUE_FLOAT64,
                               CMRS_MEMORY_DEVICE) == CMRS_ERROR_USAGE &&
              strstr(cmrs_last_error(ctx), "distributed solve"),
          "device arrays on 2 GPUs: %s", cmrs_last_error(ctx));
    cmrs_solver_destroy(s);
    cudaFree(b_d);
    cudaFree(x_d);
}

static void api(void)
{
    cmrs_system sys;
    cmrs_vessel_opts vo = {.cells = 12000};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    const cmrs_csr *A = &sys.A;
    cmrs_context *ctx = NULL;
    cmrs_matrix *M = NULL;
    CHECK(cmrs_context_create(0, &ctx) == CMRS_SUCCESS, "ctx");
    int64_t *cols = malloc((size_t)A->nnz * sizeof *cols);
    for (int64_t k = 0; k < A->nnz; ++k) cols[k] = A->indices[k];
    CHECK(cmrs_matrix_create_csr(ctx, A->rows, A->cols, A->nnz, A->indptr,
                                 cols, CMRS_INDEX_INT64, A->values,
                                 CMRS_VALUE_FLOAT64, &M) == CMRS_SUCCESS,
          "matrix: %s", cmrs_last_error(ctx));
    int64_t it1 = 0, it2 = 0;
    double *x1 = api_solve(ctx, M, sys.b, A->rows, "1", &it1);
    double *x2 = api_solve(ctx, M, sys.b, A->rows, "2", &it2);
    device_arrays_refused(ctx, M, A->rows);
    double err = cmrs_ref_rel_err(A->rows, x2, x1);
    CHECK(llabs(it2 - it1) <= 2 && err <= 1e-6, "api gpus 2: %lld "
          "iterations (gpus 1: %lld), x differs by %g", (long long)it2,
          (long long)it1, err);
    cmrs_matrix_destroy(M);
    cmrs_context_destroy(ctx);
    cmrs_system_free(&sys);
    free(cols), free(x1), free(x2);
}

/* 3 and 4 parts (each on its own GPU): interior parts with two
 * neighbours, the all-reduces over more than two devices. */
static void more_gpus(int count)
{
    cmrs_system sys;
    cmrs_vessel_opts vo = {.cells = 30000};
    CHECK_OK(cmrs_gen_vessel(&vo, &sys));
    cmrs_csr L = {0};
    lap2d(&L, 41);
    for (g_ngpus = 3; g_ngpus <= count && g_ngpus <= 4; ++g_ngpus) {
        printf("== %d GPUs\n", g_ngpus);
        long threaded = cmrs_dist_fused_threaded_solves();
        for (int m = 0; m < method_count(); ++m) {
            spmv_case(&L, (cmrs_part_method)m, CMRS_PREC_DOUBLE, "lap2d 41");
            solve_case(&sys.A, sys.b, CMRS_METHOD_CG, CMRS_PC_JACOBI,
                       (cmrs_part_method)m, "vessel 30k cg jacobi");
        }
        /* the fused solves (one per method) by a thread per part */
        CHECK(cmrs_dist_fused_threaded_solves() - threaded == method_count(),
              "%d GPUs: %ld solves by a thread per part, %d expected",
              g_ngpus, cmrs_dist_fused_threaded_solves() - threaded,
              method_count());
        loop_ways_case(&sys.A, sys.b);
        spmv_case(&L, CMRS_PART_BLOCK, CMRS_PREC_SINGLE, "lap2d 41");
    }
    g_ngpus = 2;
    cmrs_csr_free(&L);
    cmrs_system_free(&sys);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
        printf("%d GPU(s): two needed, skipped\n", count);
        return 77;
    }
    cmrs_csr A = {0};
    cmrs_backend *be = NULL;
    lap2d(&A, 4);
    cmrs_code rc = make(&A, CMRS_PART_BLOCK, CMRS_PREC_DOUBLE, &be);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&A);
    if (rc == CMRS_E_NODEVICE) { /* no NCCL in this build or machine */
        printf("skipped: %s\n", cmrs_error_message());
        return 77;
    }
    products();
    solves();
    new_values();
    api();
    more_gpus(count);
    return check_summary();
}
