/* The AMG level builders: how a back end forms the hierarchy's levels
 * (aggregates, P, R = P^T, A_c = R A P, the coarsest level's inverse) and
 * keeps their matrices, apart from the back-end table (backend.h), which
 * holds what every preconditioner applies. A back end names its builder
 * in cmrs_backend_ops.amg_builder (NULL: it builds no AMG levels, the
 * distributed back end); amg.c takes it once, at setup.
 *
 *   cmrs_amg_builder_cpu (amg_builder_cpu.c): everything on the host CSR
 *                        copies (amg_host.h), the three required ops;
 *   cmrs_amg_builder_gpu (gpu/amg_kit_gpu.c): aggregation, products and
 *                        inverses on the device, level matrices kept
 *                        there (cmrs_lmat.dev), updates in place.
 *
 * The optional ops may be NULL, or answer *done = 0 / *ok = 0: amg.c then
 * takes the host path itself (the CPU builder's, on the host copies that
 * cmrs_lmat_host makes).
 */
#ifndef CMRS_SOLVER_AMG_BUILDER_H
#define CMRS_SOLVER_AMG_BUILDER_H

#include "solver/amg/amg_host.h"
#include "solver/backend/backend.h"

/* A matrix of the AMG hierarchy (a level's A, P or R) where the builder
 * made it: a host CSR h, a copy only the builder reads (dev: the GPU's
 * device CSR, which its ops form and read with no host copy), or both.
 * h.indptr == NULL: no host copy yet (cmrs_lmat_host makes one when a host
 * step needs it: a fallback, the coarsest level's dense inverse). */
typedef struct cmrs_lmat {
    int64_t rows, cols, nnz;
    cmrs_csr h;
    void *dev;
} cmrs_lmat;

typedef struct cmrs_amg_builder_ops {
    const char *name; /* "cpu" or "gpu" */

    /* ---- required ---------------------------------------------------- */

    /* The aggregates of A by method m (agg: A->rows entries, *naggs),
     * identical to m's host aggregation (cmrs_amg_aggregate_by).
     * P, R and Ac come in empty. A builder may form the next level on the
     * way, from the same copy of A, and then sets what it formed: exactly
     * one of
     *   - nothing;
     *   - Ac alone: the Galerkin operator of the tentative P (plain
     *     aggregation, p->smooth_p 0; GPU handshake);
     *   - P, R = P^T and Ac: smoothed aggregation (GPU MIS-2).
     * The caller forms the rest (amg.c coarsen: P and R by sa_level or the
     * host, then Ac by galerkin), or frees all three where the level turns
     * out to be the coarsest. agg_dev (NULL: agg written): a builder that
     * formed P, R and Ac on the device may keep the aggregates there and
     * leave agg unwritten; *agg_dev is then that copy (agg_fetch brings
     * it to the host, agg_dev_free frees it), else NULL. */
    cmrs_code (*aggregate)(cmrs_backend *be, const cmrs_amg_agg_method *m,
                           cmrs_lmat *A, const cmrs_amg_params *p,
                           int32_t *agg, int64_t *naggs, cmrs_lmat *P,
                           cmrs_lmat *R, cmrs_lmat *Ac, void **agg_dev);
    /* Required of builders that set *agg_dev: its n entries into agg;
     * freeing it (NULL-safe). */
    cmrs_code (*agg_fetch)(cmrs_backend *be, const void *agg_dev,
                           int32_t *agg, int64_t n);
    void (*agg_dev_free)(cmrs_backend *be, void *agg_dev);
    /* A_c = R A P from host CSR copies (GPU: cuSPARSE SpGEMM). */
    cmrs_code (*galerkin)(cmrs_backend *be, const cmrs_csr *R,
                          const cmrs_csr *A, const cmrs_csr *P, cmrs_csr *Ac);
    /* inv (dense row-major, symmetric) = A^-1 of the small SPD CSR A;
     * *spd = 0 when A is not numerically SPD (host: the Cholesky of
     * amg_dense.c; GPU: the sweep of amg_dense_gpu.c). */
    cmrs_code (*dense_inverse)(cmrs_backend *be, const cmrs_csr *A,
                               double *inv, int *spd);

    /* ---- optional: setup on the builder's copies ---------------------- */

    /* (NULL, or *done = 0: the host forms them) smoothed aggregation's P,
     * R = P^T and A_c = R A P from level matrix A and its aggregates,
     * equal to the host's within rounding; all three or none. GPU: on the
     * device, kept there (amg_sa_gpu.h). */
    cmrs_code (*sa_level)(cmrs_backend *be, cmrs_lmat *A,
                          const int32_t *agg, int64_t naggs,
                          const cmrs_amg_params *p, cmrs_lmat *P,
                          cmrs_lmat *R, cmrs_lmat *Ac, int *done);
    /* Required of builders that set cmrs_lmat.dev: M->h made from M->dev
     * (both kept); freeing a dev copy. */
    cmrs_code (*lmat_download)(cmrs_backend *be, cmrs_lmat *M);
    void (*lmat_free_dev)(cmrs_backend *be, void *dev);
    /* (NULL, or *ok = 0: none) M->dev = a copy of the back end's own A
     * (rows, cols, nnz of M set by the caller), made from its SpMV format
     * where it lives (GPU: cmrs_spmv_csr_get_d, no upload of the host A);
     * the AMG's fine level. Where M->dev is already such a copy (kept by
     * the AMG re-setup), its arrays are refilled (on failure it is freed,
     * M->dev NULL). */
    cmrs_code (*lmat_own)(cmrs_backend *be, cmrs_lmat *M, int *ok);
    /* (NULL: op_create on the host copy) an operator made from M->dev
     * (M->dev != NULL), with no host copy. */
    cmrs_code (*op_create_lmat)(cmrs_backend *be, const cmrs_lmat *M,
                                const char *format, cmrs_op **op);
    /* (NULL, or *ok = 0: from the host copy, whose error names the row)
     * D^-1 of the square M->dev into the array *dinv (made when NULL),
     * 1 / a_ii in double as the host's; *ok = 0 when some a_ii is missing,
     * not > 0 or its inverse does not fit the precision. */
    cmrs_code (*lmat_dinv)(cmrs_backend *be, const cmrs_lmat *M,
                           void **dinv, int *ok);

    /* (NULL, or *done = 0: the caller cuts them from the host copy) rows
     * r0 .. r1 of M as S and their transpose T = S^T, device copies only
     * (sorted rows; S's entries in M's order, so operators made from them
     * equal those made from the host's rows and cmrs_csr_transpose): a
     * part's share of a level's P and R (dist/pc/pc_global.c). */
    cmrs_code (*lmat_rows)(cmrs_backend *be, const cmrs_lmat *M, int64_t r0,
                           int64_t r1, cmrs_lmat *S, cmrs_lmat *T,
                           int *done);

    /* ---- optional: the re-setup with new values (amg-update full) ----- */

    /* (NULL, or *done = 0: the caller forms the level with sa_level)
     * smoothed aggregation's P, R and A_c of a level that setup formed,
     * again from A's new values, written into the device arrays of P, R
     * and Ac themselves (same patterns: the operators made from them need
     * only their values; host copies are the caller's to drop). What the
     * builder keeps between calls (GPU: the SpGEMM reuse plans,
     * amg_sa_plan_gpu.h) is *state, made on the first call and freed by
     * sa_state_free (NULL-safe; set with sa_again). own_a: A's arrays are
     * not the same between calls (level 0: the builder keeps its copy).
     * agg_dev: the aggregates' device copy that aggregate kept (then agg
     * may be unwritten), else NULL. */
    cmrs_code (*sa_again)(cmrs_backend *be, void **state, const cmrs_lmat *A,
                          int own_a, const int32_t *agg,
                          const void *agg_dev, int64_t naggs,
                          const cmrs_amg_params *p, cmrs_lmat *P,
                          cmrs_lmat *R, cmrs_lmat *Ac, int *done);
    void (*sa_state_free)(cmrs_backend *be, void *state);
    /* (NULL: never the same) *same = 1 when level matrices a and b have
     * the same shape, indptr and indices (either copy, the device's
     * compared on the device). */
    cmrs_code (*lmat_same)(cmrs_backend *be, const cmrs_lmat *a,
                           const cmrs_lmat *b, int *same);
    /* (NULL: the full update rebuilds every operator; with lmat_same,
     * the re-setup writes values in place) new values for op from M,
     * which has the pattern (same order) op was made from, the caller's
     * check (lmat_same). *done = 0: op cannot take values (no value
     * store; op unchanged, rebuild it); else *in_place = 1 when only op's
     * value buffer was rewritten (graphs that captured op_apply stay
     * valid), 0 when it redid more. May synchronise. */
    cmrs_code (*op_update)(cmrs_backend *be, cmrs_op *op, const cmrs_lmat *M,
                           int *done, int *in_place);
    /* (NULL, or *done = 0: the caller inverts through dense_inverse and
     * updates op from the host CSR) the dense inverse of the small n x n
     * level matrix M (its device copy where it has one, else M->h, which
     * the caller has made) computed and, where A is numerically SPD (*spd), written into
     * op's values on the device (op made from an earlier inverse's dense
     * CSR: every entry, row-major; unchanged when not SPD). *in_place as
     * op_update. GPU: the device sweep, no host copy of the inverse. */
    cmrs_code (*coarse_update)(cmrs_backend *be, const cmrs_lmat *M,
                               cmrs_op *op, int *spd, int *done,
                               int *in_place);
    /* (NULL, or *done = 0: the caller inverts the host copy through
     * dense_inverse and makes the operator from the host CSR) *op = the
     * coarsest level's inverse in `format` (every entry, row-major),
     * made from M (its device copy, else its host copy) without a host
     * copy of the inverse; *op NULL and *spd = 0 when M is not
     * numerically SPD. */
    cmrs_code (*coarse_create)(cmrs_backend *be, const cmrs_lmat *M,
                               const char *format, cmrs_op **op, int *spd,
                               int *done);
    /* (NULL: nothing to prepare) called once before the levels are
     * built: starts beside them what dense_inverse and coarse_update will
     * need first (GPU, in a thread: one small SpGEMM, whose kernels
     * load on first launch, ~0.03 s in a fresh process). Cannot fail the
     * setup. */
    void (*coarse_prepare)(cmrs_backend *be);
    /* (NULL: nothing kept) on = 1 before the levels are formed, 0 once
     * they are (on every path): scratch kept from one level to the next
     * in between (GPU: the setup's pool is trimmed once, at the end,
     * rather than after every level). Cannot fail. */
    void (*scratch_hold)(cmrs_backend *be, int on);
    /* (NULL: nothing) on = 1 when a hierarchy's setup starts, 0 when it
     * ends (on every path), on the setup's thread: the arrays it keeps
     * allocated from a pool (GPU: base/gpu/dev_alloc.h). Cannot fail. */
    void (*alloc_scope)(cmrs_backend *be, int on);
} cmrs_amg_builder_ops;

/* The host builder: every back end whose kit ops read host arrays. */
extern const cmrs_amg_builder_ops cmrs_amg_builder_cpu;

/* The level matrices (amg_lmat.c). has: either copy exists; wrap: M takes
 * the host CSR h (ownership moves; h zeroed); host: M->h made where only
 * the builder's copy exists; free: both copies, M zeroed. */
int cmrs_lmat_has(const cmrs_lmat *M);
void cmrs_lmat_wrap(cmrs_lmat *M, cmrs_csr *h);
cmrs_code cmrs_lmat_host(cmrs_backend *be, cmrs_lmat *M);
void cmrs_lmat_free(cmrs_backend *be, cmrs_lmat *M);

#endif
