/* --kernel-choice measure on the GPU (api/kernel_choice.h): every
 * candidate timed, the winner's back end kept and solving as the rules'
 * does (iterations within a few: the same A, another summation order),
 * the choice remembered for the same pattern and not for another, a zero
 * budget keeping the rules' layout, the SpMV alone timed under AMG, and
 * single precision; and the search's tools on their own: each variant
 * (one width toggled, cmrs-mod) made from a back end's device copy, timed,
 * then kept while the back end it was made from is destroyed (it takes
 * that back end's stream): it still solves as the rules' back end does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/kernel_choice.h"
#include "../solver/tprecond.h"

/* The registry format of a candidate's name ("cmrs one-width on": cmrs). */
static int format_is(const cmrs_backend *be, const char *name)
{
    size_t n = strcspn(name, " ");
    return strlen(be->format) == n && strncmp(be->format, name, n) == 0;
}

/* A choice for sys with o, checked; the back end returned (caller frees). */
static cmrs_backend *choose(const char *what, const cmrs_system *sys,
                            cmrs_prec prec, const cmrs_ksp_opts *o,
                            double budget, cmrs_choice_result *res)
{
    const cmrs_spmv_opts rules = {0};
    cmrs_backend *be = NULL;
    CHECK_OK(cmrs_choose_backend(&sys->A, prec, &rules, o, budget, &be, res));
    if (!be) return NULL;
    CHECK(res->chosen >= 0 && res->chosen < (res->cached ? 1 : res->tried),
          "%s: chosen %d of %d", what, res->chosen, res->tried);
    for (int i = 0; i < res->tried; ++i)
        CHECK(isfinite(res->t_iter[i]) && res->t_iter[i] > 0, "%s: %s timed "
              "%g", what, res->name[i], res->t_iter[i]);
    CHECK(format_is(be, res->name[res->chosen]), "%s: back end %s, chosen "
          "%s", what, be->format, res->name[res->chosen]);
    printf("%s: %s of %d (%s%s)\n", what, res->name[res->chosen], res->tried,
           res->spmv_only ? "SpMV" : "iterations",
           res->cached ? ", remembered" : "");
    return be;
}

/* Edge (a, a + d), a < a + d < n, of the irregular graph below: the
 * neighbour always, and in every third block of 64 rows 11 more. */
static int irregular_edge(int64_t a, int64_t d, int64_t n)
{
    return a + d < n && (d == 1 || ((a / 64) % 3 == 0 && d <= 12));
}

/* An SPD system whose row lengths spread (3 to 25 entries: the FEM-like
 * rows whose challenger is cmrs-mod): the graph Laplacian of the edges
 * above plus 0.5 on the diagonal, columns sorted; b = 1. */
static void irregular_system(int64_t n, cmrs_system *sys)
{
    memset(sys, 0, sizeof *sys);
    int64_t nnz = 0;
    for (int pass = 0; pass < 2; ++pass) {
        int64_t k = 0;
        for (int64_t i = 0; i < n; ++i) {
            if (pass) sys->A.indptr[i] = k;
            int64_t deg = 0, diag = 0;
            for (int64_t d = 12; d >= 1; --d) /* lower neighbours */
                if (i - d >= 0 && irregular_edge(i - d, d, n)) {
                    if (pass) {
                        sys->A.indices[k] = (int32_t)(i - d);
                        sys->A.values[k] = -1.0;
                    }
                    ++k, ++deg;
                }
            diag = k++;
            for (int64_t d = 1; d <= 12; ++d)
                if (irregular_edge(i, d, n)) {
                    if (pass) {
                        sys->A.indices[k] = (int32_t)(i + d);
                        sys->A.values[k] = -1.0;
                    }
                    ++k, ++deg;
                }
            if (pass) {
                sys->A.indices[diag] = (int32_t)i;
                sys->A.values[diag] = (double)deg + 0.5;
            }
        }
        if (pass) {
            sys->A.indptr[n] = k;
        } else {
            nnz = k;
            CHECK_OK(cmrs_csr_alloc(&sys->A, n, n, nnz));
        }
    }
    sys->b = malloc((size_t)n * sizeof *sys->b);
    for (int64_t i = 0; i < n; ++i) sys->b[i] = 1.0;
}

/* The chosen back end solves as the rules' one does. */
static void solves_alike(const char *what, const cmrs_system *sys,
                         cmrs_prec prec, cmrs_backend *be,
                         const cmrs_ksp_opts *o)
{
    outcome c = solve_on(be, &sys->A, sys->b, NULL, o);
    outcome r = solve_gpu("cmrs", prec, &sys->A, sys->b, NULL, o);
    double tol = prec == CMRS_PREC_SINGLE ? 1e-2 : 1e-7;
    CHECK(c.rc == CMRS_OK && r.rc == CMRS_OK, "%s: %s / %s", what,
          outcome_why(&c), outcome_why(&r));
    if (c.rc == CMRS_OK && r.rc == CMRS_OK) {
        CHECK(cmrs_ksp_reason_converged(c.r.reason) &&
                  rel_residual(&sys->A, sys->b, c.x) < tol,
              "%s: %s, true residual %.2e", what,
              cmrs_ksp_reason_name(c.r.reason),
              rel_residual(&sys->A, sys->b, c.x));
        CHECK(close_its(c.r.iterations, r.r.iterations, 3, 20), "%s: %lld "
              "iterations, the rules' back end %lld", what,
              (long long)c.r.iterations, (long long)r.r.iterations);
    }
    outcome_free(&c);
    outcome_free(&r);
}

/* A variant of the rules' back end made, timed, adopted, its origin
 * destroyed, then solving (a non-rules winner's path, whatever the
 * timings say). */
static void variant_outlives(const char *what, const cmrs_system *sys,
                             cmrs_prec prec, const char *format, int slice,
                             const cmrs_ksp_opts *o)
{
    cmrs_backend *be0 = NULL, *v = NULL;
    cmrs_spmv_opts vo = {0};
    vo.slice = slice;
    double t = 0;
    CHECK_OK(cmrs_backend_gpu_create(&sys->A, "cmrs", prec, NULL, &be0));
    if (!be0) return;
    CHECK_OK(cmrs_backend_gpu_variant(be0, &sys->A, format, &vo, &v));
    if (v) {
        CHECK_OK(cmrs_backend_time_spmv_of(v, sys->b, 5, &t));
        CHECK(t > 0 && isfinite(t), "%s: product timed %g s", what, t);
        CHECK(strcmp(v->format, format) == 0, "%s: variant in %s, asked %s",
              what, v->format, format);
        cmrs_backend_gpu_adopt(v, be0);
    }
    cmrs_backend_destroy(be0);
    if (v) solves_alike(what, sys, prec, v, o);
    cmrs_backend_destroy(v);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    unsetenv("CMRS_KERNEL_CHOICE_CACHE"); /* this process's choices only */
    cmrs_system vessel, poisson;
    cmrs_choice_result res, again;
    pc_cases(&vessel, &poisson);
    cmrs_choice_cache_clear();
    cmrs_ksp_opts jac = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-8);

    cmrs_backend *be = choose("vessel jacobi", &vessel, CMRS_PREC_DOUBLE,
                              &jac, 60.0, &res);
    CHECK(!res.cached && !res.spmv_only && res.tried >= 2, "vessel: %d "
          "tried, cached %d", res.tried, res.cached);
    if (be) solves_alike("vessel jacobi", &vessel, CMRS_PREC_DOUBLE, be, &jac);
    cmrs_backend_destroy(be);

    CHECK(!res.irregular && strncmp(res.name[1], "cmrs one-width", 14) == 0,
          "vessel: regular rows (%d), the challenger %s", res.irregular,
          res.name[1]);

    be = choose("vessel again", &vessel, CMRS_PREC_DOUBLE, &jac, 60.0, &again);
    CHECK(again.cached && again.tried == 0 &&
              strcmp(again.name[0], res.name[res.chosen]) == 0,
          "same pattern: cached %d, tried %d, %s against %s", again.cached,
          again.tried, again.name[0], res.name[res.chosen]);
    cmrs_backend_destroy(be);

    be = choose("poisson jacobi", &poisson, CMRS_PREC_DOUBLE, &jac, 60.0,
                &res);
    CHECK(!res.cached && res.tried >= 2, "another pattern searched: cached "
          "%d, tried %d", res.cached, res.tried);
    cmrs_backend_destroy(be);

    cmrs_choice_cache_clear();
    be = choose("budget 0", &vessel, CMRS_PREC_DOUBLE, &jac, 0.0, &res);
    CHECK(res.tried == 1 && res.chosen == 0 && strcmp(res.name[0], "cmrs") ==
              0, "budget 0: %d tried, %s", res.tried, res.name[res.chosen]);
    cmrs_backend_destroy(be);

    /* rows that spread: the rules' layout against cmrs-mod */
    cmrs_system irr;
    irregular_system(30000, &irr);
    be = choose("irregular jacobi", &irr, CMRS_PREC_DOUBLE, &jac, 60.0, &res);
    CHECK(res.irregular && res.tried == 2 &&
              strcmp(res.name[1], "cmrs-mod") == 0,
          "irregular: spread %d, %d tried, the challenger %s", res.irregular,
          res.tried, res.name[1]);
    if (be) solves_alike("irregular jacobi", &irr, CMRS_PREC_DOUBLE, be, &jac);
    cmrs_backend_destroy(be);

    /* regular rows and the one-width setting fixed by the caller: no
     * challenger, nothing timed, the rules' layout (not a cached choice
     * made without the setting) */
    {
        cmrs_spmv_opts fixed = {0};
        fixed.slice = 1;
        be = NULL;
        CHECK_OK(cmrs_choose_backend(&vessel.A, CMRS_PREC_DOUBLE, &fixed, &jac,
                                     60.0, &be, &res));
        CHECK(be && !res.cached && res.tried == 0 &&
                  strcmp(res.name[0], "cmrs") == 0 && be->one_width,
              "slice fixed: cached %d, tried %d, %s, one-width %d",
              res.cached, res.tried, res.name[0], be ? be->one_width : -1);
        cmrs_backend_destroy(be);
    }

    cmrs_ksp_opts amg = amg_opts(0, 1e-8);
    be = choose("poisson amg", &poisson, CMRS_PREC_DOUBLE, &amg, 60.0, &res);
    CHECK(res.spmv_only && res.tried >= 2, "amg: SpMV timing %d, tried %d",
          res.spmv_only, res.tried);
    if (be) solves_alike("poisson amg", &poisson, CMRS_PREC_DOUBLE, be, &amg);
    cmrs_backend_destroy(be);

    cmrs_ksp_opts single = opts_of(CMRS_METHOD_CG, CMRS_PC_JACOBI, 1e-5);
    be = choose("poisson single", &poisson, CMRS_PREC_SINGLE, &single, 60.0,
                &res);
    if (be) solves_alike("poisson single", &poisson, CMRS_PREC_SINGLE, be,
                         &single);
    cmrs_backend_destroy(be);

    variant_outlives("variant cmrs-mod", &vessel, CMRS_PREC_DOUBLE, "cmrs-mod",
                     0, &jac);
    variant_outlives("variant one-width on", &poisson, CMRS_PREC_DOUBLE,
                     "cmrs", 1, &jac);
    variant_outlives("variant cmrs-mod single", &poisson, CMRS_PREC_SINGLE,
                     "cmrs-mod", 0, &single);

    cmrs_system_free(&vessel);
    cmrs_system_free(&poisson);
    cmrs_system_free(&irr);
    return check_summary();
}
