/* The distributed back end's own AMG (its pc_create op): the global
 * hierarchy of pc_global.c where it fits (amg-parts global, the default),
 * else (amg-parts block, one process holding only its rows, single or
 * mixed precision, a hierarchy of one level) one aggregation hierarchy
 * per part, built by that part's inner back end from the part's
 * diagonal block (its rows and owned columns; the couplings to other
 * parts dropped), applied to every part at once: block Jacobi with an AMG
 * V-cycle per block. No communication inside the preconditioner; the
 * price is more iterations than one hierarchy over all rows (measured in
 * docs/DISTRIBUTED.md). New values: each part's hierarchy made again. */
#include <stdlib.h>

#include "base/memory.h"
#include "solver/pc/precond.h"
#include "dist/dist_impl.h"

typedef struct block_pc {
    cmrs_csr *block;      /* nparts diagonal blocks, rows sorted */
    cmrs_precond **part;  /* nparts hierarchies on the inner back ends */
} block_pc;

#define BLOCKS(pc) ((block_pc *)(pc)->impl)

/* Part p's rows restricted to its owned columns (local numbering), rows
 * sorted (a CPU part's local rows keep the global row's order). */
static cmrs_code diagonal_block(const cmrs_halo_part *hp, cmrs_csr *B)
{
    const cmrs_csr *L = &hp->A;
    int64_t nnz = 0;
    for (int64_t k = 0; k < L->nnz; ++k) nnz += L->indices[k] < hp->n_own;
    CMRS_CHECK(cmrs_csr_alloc(B, hp->n_own, hp->n_own, nnz));
    int64_t at = 0;
    for (int64_t i = 0; i < hp->n_own; ++i) {
        B->indptr[i] = at;
        for (int64_t k = L->indptr[i]; k < L->indptr[i + 1]; ++k)
            if (L->indices[k] < hp->n_own) {
                B->indices[at] = L->indices[k];
                B->values[at++] = L->values[k];
            }
    }
    B->indptr[hp->n_own] = at;
    CMRS_CHECK(cmrs_csr_sort_sum_duplicates(B));
    return CMRS_OK;
}

/* Every part's hierarchy, made anew: the setup, and the update after the
 * back end's update_values has put new values into the halo's local
 * matrices (cmrs_precond_update_values has set pc->moved). A is unused:
 * the parts' blocks come from the halo's local matrices. */
static cmrs_code block_build(cmrs_precond *pc, const cmrs_csr *A,
                             const char *what)
{
    (void)A;
    const dist_impl *d = DIST(pc->be);
    block_pc *b = BLOCKS(pc);
    cmrs_pc_opts o = pc->o;
    o.fine_own_op = 1;
    FOR_MY_PARTS(d, p) {
        cmrs_backend *in = dist_inner(d, p);
        cmrs_precond_destroy(b->part[p]);
        b->part[p] = NULL;
        cmrs_csr_free(&b->block[p]);
        if (d->halo.part[p].n_own == 0) continue; /* an empty part */
        CMRS_CHECK(diagonal_block(&d->halo.part[p], &b->block[p]));
        CMRS_CHECK(cmrs_precond_create(in, &b->block[p], CMRS_PC_AMG, &o,
                                       what, &b->part[p]));
    }
    dist_home(d);
    for (int p = d->pt.nparts - 1; p >= 0; --p) /* the first part's */
        if (b->part[p]) pc->info = b->part[p]->info;
    return CMRS_OK;
}

/* Each part's V-cycle on its own rows, queued on every part before any
 * waits (the GPUs run theirs at once). */
static cmrs_code block_apply(cmrs_precond *pc, const void *r, void *z)
{
    const dist_impl *d = DIST(pc->be);
    const cmrs_dist_arr *ra = r;
    cmrs_dist_arr *za = z;
    FOR_MY_PARTS(d, p) {
        if (!BLOCKS(pc)->part[p]) continue; /* an empty part */
        (void)dist_inner(d, p);
        CMRS_CHECK(cmrs_precond_apply(BLOCKS(pc)->part[p], ra->part[p],
                                      za->part[p]));
    }
    dist_home(d);
    return CMRS_OK;
}

static void block_destroy(cmrs_precond *pc)
{
    block_pc *b = BLOCKS(pc);
    if (!b) return;
    const dist_impl *d = DIST(pc->be);
    for (int p = 0; p < d->pt.nparts; ++p) {
        if (b->part && b->part[p]) {
            (void)dist_inner(d, p);
            cmrs_precond_destroy(b->part[p]);
        }
        if (b->block) cmrs_csr_free(&b->block[p]);
    }
    dist_home(d);
    CMRS_FREE_ALL(b->part, b->block, b);
    pc->impl = NULL;
}

static const cmrs_precond_ops k_block_amg = {
    .name = "amg", .setup = block_build, .apply = block_apply,
    .update_values = block_build, .destroy = block_destroy};

cmrs_code cmrs_dist_pc_create(cmrs_backend *be, const cmrs_csr *A, int kind,
                              const struct cmrs_pc_opts *o, const char *what,
                              struct cmrs_precond **out, int *done)
{
    *done = 0;
    if (kind != CMRS_PC_AMG) return CMRS_OK;
    if (cmrs_dist_pc_global_fits(be, A, o)) {
        *done = 1;
        CMRS_CHECK(cmrs_dist_pc_global_create(be, A, o, what, out));
        if (*out) return CMRS_OK; /* else one level: a hierarchy per part */
    }
    const dist_impl *d = DIST(be);
    cmrs_precond *pc = calloc(1, sizeof *pc);
    block_pc *b = calloc(1, sizeof *b);
    CMRS_CHECK(cmrs_alloc_both(pc, b, "the parts' AMG"));
    *pc = (cmrs_precond){.ops = &k_block_amg, .be = be, .kind = CMRS_PC_AMG,
                         .o = *o, .impl = b};
    b->block = calloc((size_t)d->pt.nparts, sizeof *b->block);
    b->part = calloc((size_t)d->pt.nparts, sizeof *b->part);
    if (!b->block || !b->part) {
        cmrs_precond_destroy(pc);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate the parts' AMG");
    }
    *done = 1; /* made here, failed or not */
    return cmrs_precond_setup_timed(pc, A, what, out);
}
