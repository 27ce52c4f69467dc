/* The preconditioner registry: names, options, and the calls every engine
 * and both back ends go through. */
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "precond.h"
#include "solver/amg/amg_builder.h"

static const cmrs_precond_ops *const k_registry[CMRS_PC_COUNT] = {
    [CMRS_PC_JACOBI] = &cmrs_pc_jacobi_ops,
    [CMRS_PC_NONE] = &cmrs_pc_none_ops,
    [CMRS_PC_CHEBYSHEV] = &cmrs_pc_chebyshev_ops,
    [CMRS_PC_AMG] = &cmrs_pc_amg_ops,
};

const char *cmrs_pc_name(cmrs_pc pc)
{
    return (unsigned)pc < CMRS_PC_COUNT ? k_registry[pc]->name : "unknown";
}

cmrs_code cmrs_pc_parse(const char *text, cmrs_pc *pc)
{
    for (int i = 0; i < CMRS_PC_COUNT; ++i)
        if (strcmp(text, k_registry[i]->name) == 0) {
            *pc = (cmrs_pc)i;
            return CMRS_OK;
        }
    CMRS_FAIL(CMRS_E_USAGE, "unknown preconditioner '%s' (known: jacobi, "
              "none, chebyshev, amg)", text);
}

void cmrs_pc_opts_default(cmrs_pc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cheb_degree = 3;
    o->cheb_ratio = 30.0;
    o->power_steps = 10;
    cmrs_amg_params_default(&o->amg);
    o->smoother = CMRS_SMOOTH_JACOBI;
    o->sweeps = 0; /* by the smoother: cmrs_pc_amg_sweeps */
    strcpy(o->level_format, "auto");
}

const char *const cmrs_pc_smoother_names[] = {"jacobi", "chebyshev", NULL};

int cmrs_pc_amg_sweeps(const cmrs_pc_opts *o)
{
    if (o->sweeps > 0) return o->sweeps;
    return o->smoother == CMRS_SMOOTH_CHEBYSHEV ? 2 : 1;
}

int cmrs_pc_amg_coarse_steps(const cmrs_pc_opts *o)
{
    const int sweeps = cmrs_pc_amg_sweeps(o);
    return 8 * (sweeps > 2 ? sweeps : 2);
}

cmrs_code cmrs_pc_opts_check(const cmrs_pc_opts *o)
{
    const cmrs_amg_params *a = &o->amg;
    CMRS_ENSURE(o->cheb_degree >= 1 && o->cheb_degree <= 64, CMRS_E_USAGE,
                "--cheb-degree %d is out of range [1, 64]", o->cheb_degree);
    CMRS_ENSURE(o->cheb_ratio > 1 && o->cheb_ratio <= 1e6, CMRS_E_USAGE,
                "--cheb-ratio %g is out of range (1, 1e6]", o->cheb_ratio);
    CMRS_ENSURE(o->power_steps >= 1 && o->power_steps <= 1000, CMRS_E_USAGE,
                "power steps %d out of range [1, 1000]", o->power_steps);
    CMRS_ENSURE(o->amg_parts == CMRS_AMG_PARTS_GLOBAL ||
                    o->amg_parts == CMRS_AMG_PARTS_BLOCK,
                CMRS_E_USAGE, "amg-parts %d: global (0) or block (1)",
                (int)o->amg_parts);
    CMRS_ENSURE(o->amg_parts_levels >= 0 && o->amg_parts_levels <= 2,
                CMRS_E_USAGE, "amg-parts-levels %d: auto (0), 1 or 2",
                o->amg_parts_levels);
    CMRS_ENSURE(o->sweeps >= 0 && o->sweeps <= 16, CMRS_E_USAGE,
                "--amg-sweeps %d is out of range [1, 16] (0: auto)", o->sweeps);
    CMRS_ENSURE(a->theta >= 0 && a->theta < 1, CMRS_E_USAGE,
                "--amg-theta %g is out of range [0, 1)", a->theta);
    CMRS_ENSURE(a->agg_size == 2 || a->agg_size == 4 || a->agg_size == 8 ||
                    a->agg_size == 16, CMRS_E_USAGE,
                "--amg-agg-size %d: use 2, 4, 8 or 16", a->agg_size);
    CMRS_ENSURE(a->coarse_rows >= 1 && a->coarse_rows <= 4096, CMRS_E_USAGE,
                "--amg-coarse %lld is out of range [1, 4096] (the coarsest "
                "level is inverted densely)", (long long)a->coarse_rows);
    CMRS_ENSURE(a->max_levels >= 1 && a->max_levels <= CMRS_AMG_MAX_LEVELS,
                CMRS_E_USAGE, "--amg-levels %d is out of range [1, %d]",
                a->max_levels, CMRS_AMG_MAX_LEVELS);
    CMRS_ENSURE(a->max_op_complexity >= 1, CMRS_E_USAGE, "AMG operator "
                "complexity bound %g is below 1", a->max_op_complexity);
    CMRS_ENSURE(o->amg_update == CMRS_AMG_UPDATE_FULL ||
                    o->amg_update == CMRS_AMG_UPDATE_FROZEN, CMRS_E_USAGE,
                "amg-update %d: use full or frozen", (int)o->amg_update);
    CMRS_ENSURE(a->p_omega > 0 && a->p_omega < 2, CMRS_E_USAGE,
                "prolongator weight %g is out of range (0, 2)", a->p_omega);
    return CMRS_OK;
}

int cmrs_pc_mixes(cmrs_pc kind)
{
    return kind == CMRS_PC_AMG || kind == CMRS_PC_CHEBYSHEV;
}

/* Option mixed on a double back end: the preconditioner on a
 * single-precision twin (pc_mixed.c), where the back end makes twins. */
static int mixed_wanted(const cmrs_backend *be, cmrs_pc kind,
                        const cmrs_pc_opts *o)
{
    return o->mixed && cmrs_pc_mixes(kind) && be->prec == CMRS_PREC_DOUBLE;
}

cmrs_code cmrs_precond_create(cmrs_backend *be, const cmrs_csr *A,
                              cmrs_pc kind, const cmrs_pc_opts *o,
                              const char *what, cmrs_precond **out)
{
    *out = NULL;
    CMRS_CHECK(cmrs_pc_opts_check(o));
    CMRS_ENSURE((unsigned)kind < CMRS_PC_COUNT, CMRS_E_USAGE,
                "unknown preconditioner %d", (int)kind);
    if (be->ops->pc_create) {
        int done = 0;
        CMRS_CHECK(be->ops->pc_create(be, A, (int)kind, o, what, out, &done));
        if (done) return CMRS_OK;
    }
    const cmrs_precond_ops *ops = k_registry[kind];
    if (mixed_wanted(be, kind, o)) {
        CMRS_ENSURE(be->ops->twin_create && be->ops->arr_cast, CMRS_E_USAGE,
                    "--precision mixed: the %s back end computes in double "
                    "only (mixed precision runs on the GPU)", be->ops->name);
        ops = &cmrs_pc_mixed_ops;
    }
    cmrs_precond *pc = calloc(1, sizeof *pc);
    CMRS_ENSURE(pc, CMRS_E_NOMEM, "cannot allocate a preconditioner");
    *pc = (cmrs_precond){.ops = ops, .be = be, .kind = kind, .o = *o};
    return cmrs_precond_setup_timed(pc, A, what, out);
}

cmrs_code cmrs_precond_setup_timed(cmrs_precond *pc, const cmrs_csr *A,
                                   const char *what, cmrs_precond **out)
{
    double t0 = cmrs_wtime();
    cmrs_code rc = pc->ops->setup(pc, A, what);
    if (rc == CMRS_OK) rc = pc->be->ops->sync(pc->be);
    if (rc != CMRS_OK) {
        cmrs_precond_destroy(pc);
        return rc;
    }
    pc->info.t_setup = cmrs_wtime() - t0;
    *out = pc;
    return CMRS_OK;
}

cmrs_code cmrs_precond_apply(cmrs_precond *pc, const void *r, void *z)
{
    CMRS_CHECK(pc->ops->apply(pc, r, z));
    return CMRS_OK;
}

cmrs_code cmrs_precond_update_values(cmrs_precond *pc, const cmrs_csr *A,
                                     const char *what)
{
    CMRS_ENSURE(A->rows == pc->be->n, CMRS_E_USAGE, "%s: new values for %lld "
                "rows, the preconditioner has %lld", what, (long long)A->rows,
                (long long)pc->be->n);
    pc->moved = 1; /* unless the op says it kept everything */
    CMRS_CHECK(pc->ops->update_values(pc, A, what));
    CMRS_CHECK(pc->be->ops->sync(pc->be));
    return CMRS_OK;
}

cmrs_code cmrs_precond_update_values_d(cmrs_precond *pc, const void *values_d,
                                       const char *what)
{
    CMRS_ENSURE(cmrs_precond_can_update_d(pc), CMRS_E_INTERNAL, "%s: %s has "
                "no device-values update with these options", what,
                pc->ops->name);
    pc->moved = 1;
    CMRS_CHECK(pc->ops->update_values_d(pc, values_d, what));
    return CMRS_OK;
}

void *cmrs_precond_update_dinv(const cmrs_precond *pc)
{
    return pc->ops->update_dinv ? pc->ops->update_dinv(pc) : NULL;
}

int cmrs_precond_can_update_d(const cmrs_precond *pc)
{
    const cmrs_amg_builder_ops *b = pc->be->ops->amg_builder;
    if (!pc->ops->update_values_d) return 0;
    /* amg full: the in-place re-setup and the read-back of level 0 where
     * a host step needs it (amg.c) */
    return pc->kind != CMRS_PC_AMG ||
           pc->o.amg_update == CMRS_AMG_UPDATE_FROZEN ||
           (b && b->op_update && pc->be->ops->values_get);
}

void cmrs_precond_destroy(cmrs_precond *pc)
{
    if (!pc) return;
    if (pc->ops && pc->ops->destroy) pc->ops->destroy(pc);
    free(pc);
}

cmrs_code cmrs_precond_profile(cmrs_precond *pc, int reps)
{
    if (pc->ops->profile) CMRS_CHECK(pc->ops->profile(pc, reps));
    return CMRS_OK;
}
