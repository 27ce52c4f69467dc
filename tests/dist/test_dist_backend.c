/* The distributed back end's edges: what it refuses (bad part counts),
 * amg over all rows and as a hierarchy per part, new values through cmrs_ksp_update_values,
 * vec_set/vec_get in the global numbering, its partition report, and the
 * engine choice around a cg_loop hook (what GPU parts' fused loop gets). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solver/tsolve.h"
#include "tdist.h"

static cmrs_backend *make(const cmrs_csr *A, int P, cmrs_part_method m)
{
    cmrs_backend *be = NULL;
    cmrs_dist_params prm = {.nparts = P, .method = m};
    CHECK_OK(cmrs_backend_dist_create(A, &prm, &be));
    return be;
}

static void refusals(const cmrs_csr *A)
{
    cmrs_backend *be = NULL;
    cmrs_dist_params prm = {.nparts = 0};
    CHECK_FAILS(cmrs_backend_dist_create(A, &prm, &be), CMRS_E_USAGE,
                "--parts 0");
    CHECK(be == NULL, "no back end after a failure");
    be = make(A, 3, CMRS_PART_BLOCK);
    CHECK(cmrs_backend_dist_partition(be) != NULL, "partition of dist");
    cmrs_backend_destroy(be);
}

/* amg on P = 1..4 parts by every method: the hierarchy over all rows
 * (amg-parts global, the default) takes the one back end's iterations
 * (the same V-cycle; sums in another order: +-1) to the same true
 * residual; one per part (block) converges in more iterations on 2 parts
 * or more, as many on one; new values rebuild both. */
static void amg_on_parts(void)
{
    cmrs_csr Am = {0}, *A = &Am;
    lap2d(A, 70); /* 4900 rows: more than one level */
    cmrs_ksp_opts op;
    cmrs_ksp_opts_default(&op);
    op.pc = CMRS_PC_AMG;
    op.rtol = 1e-10;
    int64_t n = A->rows;
    double *b = malloc((size_t)n * 8);
    fill_x(n, b);
    outcome ref = solve_cpu(A, b, NULL, &op);
    CHECK(ref.rc == CMRS_OK, "amg on one back end");
    for (int block = 0; block <= 1; ++block)
        for (int P = 1; P <= 4; ++P)
            for (int m = 0; m < method_count(); ++m) {
                cmrs_ksp_opts o2 = op;
                o2.pco.amg_parts = block ? CMRS_AMG_PARTS_BLOCK
                                         : CMRS_AMG_PARTS_GLOBAL;
                const char *how = block ? "block" : "global";
                cmrs_backend *be = make(A, P, (cmrs_part_method)m);
                outcome o = solve_on(be, A, b, NULL, &o2);
                int64_t it = o.r.iterations, it1 = ref.r.iterations;
                CHECK(o.rc == CMRS_OK &&
                          cmrs_ksp_reason_converged(o.r.reason) &&
                          o.r.true_rel <= 10 * op.rtol,
                      "amg %s P=%d %s: %s, true residual %g", how, P,
                      cmrs_part_method_name(m), cmrs_error_message(),
                      o.r.true_rel);
                if (!block || P == 1)
                    CHECK(it >= it1 - 1 && it <= it1 + 1, "amg %s P=%d %s: "
                          "%lld iterations, one back end %lld", how, P,
                          cmrs_part_method_name(m), (long long)it,
                          (long long)it1);
                else
                    CHECK(it > it1 + 1, "amg block P=%d %s: %lld "
                          "iterations, not the block hierarchies' more "
                          "than %lld", P, cmrs_part_method_name(m),
                          (long long)it, (long long)it1);
                if (!block && o.rc == CMRS_OK)
                    CHECK(cmrs_ref_rel_err(n, o.x, ref.x) < 1e-8,
                          "amg global P=%d %s: x differs from one back "
                          "end's by %g", P, cmrs_part_method_name(m),
                          cmrs_ref_rel_err(n, o.x, ref.x));
                printf("amg %s P=%d %s: %lld iterations (one back end "
                       "%lld)\n", how, P, cmrs_part_method_name(m),
                       (long long)it, (long long)it1);
                outcome_free(&o);
                cmrs_backend_destroy(be);
            }
    /* New values: the hierarchies made again. */
    cmrs_backend *be = make(A, 3, CMRS_PART_RCM);
    check_doubled(be, A, &op, b, 1e-8, "amg global on 3 rcm parts");
    cmrs_backend_destroy(be);
    cmrs_ksp_opts ob = op;
    ob.pco.amg_parts = CMRS_AMG_PARTS_BLOCK;
    be = make(A, 3, CMRS_PART_RCM);
    check_doubled(be, A, &ob, b, 1e-8, "amg block on 3 rcm parts");
    cmrs_backend_destroy(be);
    outcome_free(&ref);
    cmrs_csr_free(A);
    free(b);
}

/* Level 1 on the parts too (amg-parts-levels 2; a hierarchy of 4
 * levels): the one back end's iterations (+-1) and x (1e-8) on 1-4
 * parts by every method, level 1's own block partition and halo (a
 * part's level-1 rows need not be where its level-0 rows' aggregates
 * are: rcm, metis); where level 1 stays whole (1, or auto on a small
 * level 1) the same; new values rebuild it. */
static void level1_on_parts(void)
{
    cmrs_csr Am = {0}, *A = &Am;
    lap2d(A, 70);
    cmrs_ksp_opts op;
    cmrs_ksp_opts_default(&op);
    op.pc = CMRS_PC_AMG;
    op.rtol = 1e-10;
    op.pco.amg.coarse_rows = 20;
    int64_t n = A->rows;
    double *b = malloc((size_t)n * 8);
    fill_x(n, b);
    outcome ref = solve_cpu(A, b, NULL, &op);
    CHECK(ref.rc == CMRS_OK, "amg on one back end");
    for (int want = 0; want <= 2; ++want)
        for (int P = 1; P <= 4; ++P)
            for (int m = 0; m < method_count(); ++m) {
                cmrs_ksp_opts o2 = op;
                o2.pco.amg_parts_levels = want;
                cmrs_backend *be = make(A, P, (cmrs_part_method)m);
                outcome o = solve_on(be, A, b, NULL, &o2);
                int64_t it = o.r.iterations, it1 = ref.r.iterations;
                const char *how = cmrs_part_method_name(m);
                CHECK(o.rc == CMRS_OK && it >= it1 - 1 && it <= it1 + 1,
                      "levels %d P=%d %s: %s, %lld iterations, one back "
                      "end %lld", want, P, how, cmrs_error_message(),
                      (long long)it, (long long)it1);
                CHECK(o.parts_levels == (want == 2 ? 2 : 1), "levels %d "
                      "P=%d %s: %d levels on the parts", want, P, how,
                      o.parts_levels);
                if (o.rc == CMRS_OK)
                    CHECK(cmrs_ref_rel_err(n, o.x, ref.x) < 1e-8, "levels "
                          "%d P=%d %s: x differs from one back end's by %g",
                          want, P, how, cmrs_ref_rel_err(n, o.x, ref.x));
                if (want == 2)
                    printf("amg levels 0-1 on P=%d %s: %lld iterations "
                           "(one back end %lld)\n", P, how, (long long)it,
                           (long long)it1);
                outcome_free(&o);
                cmrs_backend_destroy(be);
            }
    op.pco.amg_parts_levels = 2;
    cmrs_backend *be = make(A, 3, CMRS_PART_RCM);
    check_doubled(be, A, &op, b, 1e-8, "amg levels 0-1 on 3 rcm parts");
    cmrs_backend_destroy(be);
    outcome_free(&ref);
    cmrs_csr_free(A);
    free(b);
}

/* New values with a negative diagonal: amg over all rows fails to make
 * its hierarchy again (a clear error), then refuses to run, and its
 * destruction frees everything once (scripts/sanitize.sh runs this test
 * under AddressSanitizer: a failed update had freed the coarse sums'
 * buffers twice). levels: amg-parts-levels, 2 running level 1 on the
 * parts before the update; inject (levels 2): the update instead fails
 * in level 1's setup on the parts, after its sibling and arrays are made
 * (CMRS_TEST_FAIL_DIST_LEVEL1; a solve after such a half-made setup had
 * run on freed state). */
static void failed_update(int levels, int inject)
{
    cmrs_csr A = {0};
    lap2d(&A, 70);
    cmrs_ksp_opts op;
    cmrs_ksp_opts_default(&op);
    op.pc = CMRS_PC_AMG;
    op.pco.amg.coarse_rows = 20;
    op.pco.amg_parts_levels = levels;
    double *b = malloc((size_t)A.rows * 8);
    fill_x(A.rows, b);
    cmrs_backend *be = make(&A, 3, CMRS_PART_RCM);
    cmrs_ksp *s = NULL;
    cmrs_ksp_result r;
    CHECK_OK(cmrs_ksp_create(be, &A, &op, "test", &s));
    if (s) {
        CHECK(cmrs_ksp_precond(s)->info.parts_levels == levels, "levels "
              "%d: %d on the parts before the update", levels,
              cmrs_ksp_precond(s)->info.parts_levels);
        if (inject) setenv("CMRS_TEST_FAIL_DIST_LEVEL1", "1", 1);
        else set_diagonal(&A, 17, -4.0);
        cmrs_code rc = cmrs_ksp_update_values(s, &A);
        unsetenv("CMRS_TEST_FAIL_DIST_LEVEL1");
        CHECK(rc != CMRS_OK && strstr(cmrs_error_message(),
                                      inject ? "injected" : "17"),
              "levels %d: a failing update: %s", levels,
              rc == CMRS_OK ? "accepted" : cmrs_error_message());
        CHECK_OK(cmrs_ksp_set_rhs(s, b, NULL));
        CHECK(cmrs_ksp_solve(s, &r) != CMRS_OK, "a solve after the failed "
              "update ran");
    }
    cmrs_ksp_destroy(s);
    cmrs_backend_destroy(be);
    cmrs_csr_free(&A);
    free(b);
}

/* A vector set in the global numbering comes back unchanged, whatever
 * the parts' local order (rcm reorders). */
static void round_trip(const cmrs_csr *A)
{
    cmrs_backend *be = make(A, 4, CMRS_PART_RCM);
    int64_t n = A->rows;
    double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
    cmrs_vec *v = NULL;
    fill_x(n, x);
    CHECK_OK(be->ops->vec_create(be, &v));
    CHECK_OK(be->ops->vec_set(be, v, x));
    CHECK_OK(be->ops->vec_get(be, v, y));
    CHECK(memcmp(x, y, (size_t)n * 8) == 0, "vec_set/vec_get round trip");
    be->ops->vec_destroy(be, v);
    cmrs_backend_destroy(be);
    free(x), free(y);
}

/* A scaled by 2 through update_values: x halves (to the tolerance). */
static void new_values(cmrs_csr *A)
{
    cmrs_backend *be = make(A, 3, CMRS_PART_BLOCK);
    cmrs_ksp_opts op;
    cmrs_ksp_opts_default(&op);
    op.rtol = 1e-12;
    double *b = malloc((size_t)A->rows * 8);
    fill_x(A->rows, b);
    check_doubled(be, A, &op, b, 1e-9, "jacobi on 3 block parts");
    cmrs_backend_destroy(be);
    free(b);
}

/* METIS may leave parts empty on a tiny graph (a path of 10 in 7 parts):
 * empty parts take part in every op and the solve is unchanged. */
static void empty_parts(void)
{
    cmrs_csr A = {0};
    double d[10] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, b[10];
    tridiag(&A, 10, d, -1.0);
    fill_x(10, b);
    cmrs_ksp_opts op;
    cmrs_ksp_opts_default(&op);
    /* amg over all rows: a coarse level of 2 rows, so that the
     * hierarchy has two levels and its coarse sums count the empty parts */
    cmrs_ksp_opts oa = op;
    oa.pc = CMRS_PC_AMG;
    oa.pco.amg.coarse_rows = 2;
    outcome ref = solve_cpu(&A, b, NULL, &op), refa = solve_cpu(&A, b, NULL,
                                                                  &oa), o;
    CHECK(refa.rc == CMRS_OK, "amg on the path of 10: %s",
          cmrs_error_message());
    for (int m = 0; m < method_count(); ++m) {
        cmrs_backend *be = make(&A, 7, (cmrs_part_method)m);
        if (!be) continue;
        o = solve_on(be, &A, b, NULL, &op);
        CHECK(o.rc == CMRS_OK && o.r.iterations == ref.r.iterations &&
              cmrs_ref_rel_err(10, o.x, ref.x) < 1e-12,
              "path of 10 in 7 parts by %s", cmrs_part_method_name(m));
        outcome_free(&o);
        o = solve_on(be, &A, b, NULL, &oa);
        CHECK(o.rc == CMRS_OK && o.r.iterations == refa.r.iterations &&
              cmrs_ref_rel_err(10, o.x, refa.x) < 1e-10,
              "amg on the path of 10 in 7 parts by %s: %lld iterations, "
              "one back end %lld", cmrs_part_method_name(m),
              (long long)o.r.iterations, (long long)refa.r.iterations);
        outcome_free(&o);
        cmrs_backend_destroy(be);
    }
    outcome_free(&ref);
    outcome_free(&refa);
    cmrs_csr_free(&A);
}

/* What the back end's cg_loop hook was given (fake_loop): the engine
 * choice and cg.c's io, checked without a GPU. */
typedef struct loop_seen {
    int calls, precond, z, dinv, check_every;
    double rz; /* r'z after applying the preconditioner it was given */
} loop_seen;

static loop_seen g_seen;

/* A stand-in for the GPU parts' fused loop: records io, applies the
 * preconditioner where one is given (on the parts' arrays, as the fused
 * loop does between its kernels), stops at once with entry 0. */
static cmrs_code fake_loop(void *user, cmrs_backend *be, cmrs_cg_loop_io *io)
{
    (void)user;
    g_seen.calls++;
    g_seen.precond = io->precond != NULL;
    g_seen.z = io->z != NULL;
    g_seen.dinv = io->dinv != NULL;
    g_seen.check_every = io->check_every;
    if (io->precond) {
        CMRS_CHECK(io->precond(io->precond_ctx, io->r->data, io->z->data));
        CMRS_CHECK(be->ops->dot(be, io->r, io->z, &g_seen.rz));
    }
    CMRS_CHECK(be->ops->history_reserve(be, 1));
    CMRS_CHECK(be->ops->resnorm(be, io->r, 0, &io->res_norm));
    io->reason = CMRS_DIVERGED_MAXITS;
    io->iterations = 0;
    return CMRS_OK;
}

/* The engine a CG solve over parts with a cg_loop hook runs (auto: the
 * hook for jacobi and none, the reference loop for amg and chebyshev;
 * fused: the hook for every preconditioner, BiCGStab the reference loop
 * with a notice), and what the hook gets: D^-1 for jacobi, a
 * preconditioner to apply for amg and chebyshev (r'z > 0 after it), no z
 * for none, the iterations per status read of each. */
static void loop_hook(const cmrs_csr *A)
{
    static const struct {
        cmrs_method me;
        cmrs_pc pc;
        cmrs_engine asked, ran;
        int hook, precond, z, dinv, every;
    } k_case[] = {
        {CMRS_METHOD_CG, CMRS_PC_JACOBI, CMRS_ENGINE_AUTO, CMRS_ENGINE_FUSED,
         1, 0, 1, 1, 32},
        {CMRS_METHOD_CG, CMRS_PC_NONE, CMRS_ENGINE_FUSED, CMRS_ENGINE_FUSED,
         1, 0, 0, 0, 32},
        {CMRS_METHOD_CG, CMRS_PC_AMG, CMRS_ENGINE_AUTO, CMRS_ENGINE_CUBLAS,
         0, 0, 0, 0, 0},
        {CMRS_METHOD_CG, CMRS_PC_AMG, CMRS_ENGINE_FUSED, CMRS_ENGINE_FUSED,
         1, 1, 1, 0, 2},
        {CMRS_METHOD_CG, CMRS_PC_CHEBYSHEV, CMRS_ENGINE_FUSED,
         CMRS_ENGINE_FUSED, 1, 1, 1, 0, 8},
        {CMRS_METHOD_BICGSTAB, CMRS_PC_JACOBI, CMRS_ENGINE_FUSED,
         CMRS_ENGINE_CUBLAS, 0, 0, 0, 0, 0},
    };
    double *b = malloc((size_t)A->rows * sizeof *b);
    for (int64_t i = 0; b && i < A->rows; ++i) b[i] = 1.0 + (double)(i % 7);
    for (size_t c = 0; b && c < sizeof k_case / sizeof *k_case; ++c) {
        cmrs_backend *be = NULL;
        cmrs_dist_params prm = {.nparts = 2, .method = CMRS_PART_BLOCK,
                                .cg_loop = fake_loop};
        CHECK_OK(cmrs_backend_dist_create(A, &prm, &be));
        cmrs_ksp_opts op = opts_of(k_case[c].me, k_case[c].pc, 1e-8);
        op.engine = k_case[c].asked;
        memset(&g_seen, 0, sizeof g_seen);
        outcome o = solve_fresh(be ? CMRS_OK : CMRS_E_INTERNAL, be, A, b,
                                NULL, &op);
        const char *pc = cmrs_pc_name(k_case[c].pc);
        CHECK(o.rc == CMRS_OK && o.r.engine == k_case[c].ran, "loop hook "
              "%s/%s: %s, engine %s", cmrs_method_name(k_case[c].me), pc,
              outcome_why(&o), cmrs_engine_name(o.r.engine));
        CHECK(g_seen.calls == k_case[c].hook, "loop hook %s: called %d "
              "times", pc, g_seen.calls);
        if (k_case[c].hook)
            CHECK(g_seen.precond == k_case[c].precond &&
                      g_seen.z == k_case[c].z &&
                      g_seen.dinv == k_case[c].dinv &&
                      g_seen.check_every == k_case[c].every &&
                      (!g_seen.precond || g_seen.rz > 0),
                  "loop hook %s: precond %d, z %d, dinv %d, every %d, r'z "
                  "%g", pc, g_seen.precond, g_seen.z, g_seen.dinv,
                  g_seen.check_every, g_seen.rz);
        outcome_free(&o);
    }
    free(b);
}

int main(void)
{
    empty_parts();
    cmrs_csr A = {0};
    lap2d(&A, 20);
    refusals(&A);
    amg_on_parts();
    level1_on_parts();
    failed_update(1, 0);
    failed_update(2, 0);
    failed_update(2, 1);
    round_trip(&A);
    new_values(&A);
    loop_hook(&A);
    cmrs_csr_free(&A);
    return check_summary();
}
