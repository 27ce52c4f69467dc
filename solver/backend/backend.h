/* The solver back-end interface: the operations a Krylov loop needs, as a
 * table of functions over opaque vectors (hypre/PETSc style). cg.c and
 * bicgstab.c are written once against it; backend_cpu.c (plain C, double)
 * and backend_gpu.c (an SpMV format from the registry + cuBLAS) implement it.
 *
 * Life cycle: create the back end (matrix conversion and upload), then
 * vec_create / history_reserve and the preconditioner (precond.h, over the
 * kit below) (all allocation), then any
 * number of solves that only call the arithmetic ops, which never allocate.
 * Scalars cross the interface as double whatever the back end's precision.
 * Every op returns cmrs_code; the GPU ops fail with CMRS_E_GPU/NOMEM.
 */
#ifndef CMRS_SOLVER_BACKEND_H
#define CMRS_SOLVER_BACKEND_H

#include <stdint.h>

#include "base/csr.h"
#include "spmv/spmv.h"

/* A vector of be->n values of the back end's precision. `data` is a host
 * double array (CPU) or a device array (GPU); only the back end reads it. */
typedef struct cmrs_vec {
    void *data;
} cmrs_vec;

typedef struct cmrs_backend cmrs_backend;
struct cmrs_precond;  /* precond.h */
struct cmrs_pc_opts;
/* An operator of any shape on a back end (a preconditioner's level
 * matrices): a registry SpMV format on the GPU, a CSR copy on the CPU. */
typedef struct cmrs_op cmrs_op;

/* How AMG builds its levels on a back end: solver/amg/amg_builder.h. */
struct cmrs_amg_builder_ops;

/* What the cg_loop op (below) is given and answers: a CG solve from r =
 * b - A x0, the fused engine's recurrence (solver/engine/fused_cg.cu),
 * with Jacobi inline, none, or a preconditioner applied between steps. */
typedef struct cmrs_cg_loop_io {
    cmrs_vec *x;            /* x0 in, the solution out */
    cmrs_vec *r, *p, *q, *z;/* work; r = b - A x0 on entry; z NULL
                               without a preconditioner */
    const void *dinv;       /* Jacobi's D^-1 (a kit array of n), or NULL */
    /* Any other preconditioner (amg, chebyshev), or NULL: z = M^-1 r on
     * the back end's arrays, applied between the loop's steps; it queues
     * its work on the devices without waiting for it (precond.h), so the
     * loop still never waits on the host within a block. */
    cmrs_code (*precond)(void *ctx, const void *r, void *z);
    void *precond_ctx;
    double rtol_b, atol;    /* stop at ||r|| <= rtol_b or <= atol */
    int64_t maxiter;
    int check_every;        /* iterations between status reads, >= 1
                               (the solver's cmrs_ksp_check_every) */
    /* Answers: a cmrs_ksp_reason, the iterations, the last ||r||; the
     * norms themselves go to the back end's history (history_get). */
    int reason;
    int64_t iterations;
    double res_norm;
} cmrs_cg_loop_io;

typedef struct cmrs_backend_ops {
    const char *name; /* "cpu" or "gpu" */
    /* Setup phase: the only places that allocate. */
    cmrs_code (*vec_create)(cmrs_backend *be, cmrs_vec **v);
    void (*vec_destroy)(cmrs_backend *be, cmrs_vec *v); /* NULL-safe */
    /* v = h (n doubles, converted to the precision); h == NULL sets 0. */
    cmrs_code (*vec_set)(cmrs_backend *be, cmrs_vec *v, const double *h);
    /* h = v as doubles; waits for queued work. */
    cmrs_code (*vec_get)(cmrs_backend *be, const cmrs_vec *v, double *h);
    /* Room for `count` residual norms (iterations + 1). */
    cmrs_code (*history_reserve)(cmrs_backend *be, int64_t count);
    /* New values of A, same pattern (the caller's promise): the GPU
     * updates its format in place (cmrs_spmv_update_values); the CPU
     * reads the CSR it borrows, and borrows A from now on. *in_place = 0
     * when the format redid more than rewrite its value buffer (captured
     * graphs must go: cmrs_spmv_values_in_place). */
    cmrs_code (*update_values)(cmrs_backend *be, const cmrs_csr *A,
                               int *in_place);
    /* Optional (GPU; NULL on the CPU): values-only updates from device
     * values (values_d: nnz values of the precision, CSR order), queued
     * on the back end's stream with no allocation. update_values_d
     * rewrites the format's buffer in place (*in_place = 0 when the
     * format redid more, synchronising: captured graphs must go) and
     * clears the error words update_check reads; dinv_d writes D^-1 of
     * the values (diagonal positions found at creation, the host's
     * arithmetic: 1/d in double) to the array dinv. update_values_d's
     * dinv (or NULL): the array the preconditioner's update will ask
     * dinv_d for; the back end may write it in the same pass as the
     * values (a format holding a plain copy), and that dinv_d call then
     * returns at once. update_check waits
     * and gives the CSR index of a non-finite value and a row whose
     * diagonal is not > 0 (-1: none); values_get copies the format's
     * values, CSR order, to the host (refreshing a host copy). */
    cmrs_code (*update_values_d)(cmrs_backend *be, const void *values_d,
                                 void *dinv, int *in_place);
    cmrs_code (*dinv_d)(cmrs_backend *be, const void *values_d, void *dinv);
    cmrs_code (*update_check)(cmrs_backend *be, int64_t *bad_value,
                              int64_t *bad_row);
    cmrs_code (*values_get)(cmrs_backend *be, double *values_h);
    /* Optional (NULL, or *done = 0: the host's cmrs_jacobi_inverse_diagonal
     * and arr_set): D^-1 of the back end's own A into the array *dinv
     * (made when NULL), from the diagonal its creation found on the device
     * (GPU: cmrs_spmv_opts.diagonal), 1 / a_ii in double, then the
     * precision: bitwise the host's. A row whose a_ii is missing or not >
     * 0 fails with cmrs_jacobi_inverse_diagonal's message for it (the row
     * read from A). *done = 0 where that diagonal is not there (a format
     * that does not find it, new values since creation) or A is not the
     * matrix the back end was made from. */
    cmrs_code (*own_dinv)(cmrs_backend *be, const cmrs_csr *A,
                          const char *what, void **dinv, int *done);
    /* Optional (NULL: unknown): 1 when the back end's setup found a
     * diagonal entry, and > 0, in every row of its A (the GPU's, found on
     * the device during the conversion), so that the solver may skip its
     * host scan for empty rows; 0 when it does not know (the scan runs). */
    int (*rows_nonempty)(cmrs_backend *be);

    /* Solve phase: never allocate. y = alpha*A*x + beta*y (beta 0: y not
     * read). */
    cmrs_code (*spmv)(cmrs_backend *be, double alpha, const cmrs_vec *x,
                      double beta, cmrs_vec *y);
    cmrs_code (*dot)(cmrs_backend *be, const cmrs_vec *x, const cmrs_vec *y,
                     double *out);
    cmrs_code (*nrm2)(cmrs_backend *be, const cmrs_vec *x, double *out);
    cmrs_code (*axpy)(cmrs_backend *be, double a, const cmrs_vec *x,
                      cmrs_vec *y); /* y += a*x */
    cmrs_code (*scal)(cmrs_backend *be, double a, cmrs_vec *x);
    cmrs_code (*copy)(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y);
    /* y = x + b*y: the CG direction update in one pass instead of two. */
    cmrs_code (*xpby)(cmrs_backend *be, const cmrs_vec *x, double b,
                      cmrs_vec *y);
    /* *out = ||r||2, also recorded as history entry k (kept where the
     * vectors live: on the GPU, in device memory). */
    cmrs_code (*resnorm)(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                         double *out);
    /* Copies the first `count` recorded norms to h (once, after a solve). */
    cmrs_code (*history_get)(cmrs_backend *be, int64_t count, double *h);
    cmrs_code (*sync)(cmrs_backend *be); /* waits for queued work */

    /* Optional (NULL when absent): measurements for `cmrs compare`.
     * Median time of one y = A*x over `reps` products (after a warm-up). */
    cmrs_code (*time_spmv)(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y,
                           int reps, double *median_s);
    /* Memory copy bandwidth, bytes read + written per second. */
    cmrs_code (*copy_bandwidth)(cmrs_backend *be, double *bytes_per_s);

    /* Optional (NULL: every preconditioner from the registry over the
     * kit below): preconditioner `kind` (a cmrs_pc) built the back end's
     * own way, *done = 1; *done = 0 leaves it to the registry. The
     * distributed back end: amg over all rows, or one hierarchy per part
     * (dist/pc/). */
    cmrs_code (*pc_create)(cmrs_backend *be, const cmrs_csr *A, int kind,
                           const struct cmrs_pc_opts *o, const char *what,
                           struct cmrs_precond **out, int *done);
    /* Optional (NULL: this back end builds no AMG levels; the registry's
     * amg refuses it): how the AMG preconditioner forms and keeps its
     * levels (solver/amg/amg_builder.h: the CPU's on the host, the GPU's
     * on the device). */
    const struct cmrs_amg_builder_ops *amg_builder;

    /* The preconditioners' kit (solver/pc/precond.h): arrays of any length n
     * (raw back-end arrays of the precision, like cmrs_vec.data) and
     * operators of any shape. Setup side: */
    cmrs_code (*arr_create)(cmrs_backend *be, int64_t n, void **a); /* 0s */
    void (*arr_destroy)(cmrs_backend *be, void *a);             /* NULL-safe */
    cmrs_code (*arr_set)(cmrs_backend *be, int64_t n, void *a,
                         const double *h);
    cmrs_code (*arr_get)(cmrs_backend *be, int64_t n, const void *a,
                         double *h);
    /* Optional (NULL: made on the host and set): a = the power
     * iteration's fixed start vector, a_i = cmrs_pc_start_value(i)
     * (pc_start.h; in double, then the precision), where the array
     * lives. */
    cmrs_code (*arr_start)(cmrs_backend *be, int64_t n, void *a);
    /* *out = x'y over n entries (waits for queued work). */
    cmrs_code (*arr_dot)(cmrs_backend *be, int64_t n, const void *x,
                         const void *y, double *out);
    /* M in SpMV format `format` (GPU: a registry name or "auto"; ignored
     * on the CPU). M is not kept. */
    cmrs_code (*op_create)(cmrs_backend *be, const cmrs_csr *M,
                           const char *format, cmrs_op **op);
    void (*op_destroy)(cmrs_backend *be, cmrs_op *op); /* NULL-safe */
    const char *(*op_format)(const cmrs_op *op);  /* the format that ran */
    /* Apply side: never allocate, queued on the back end's stream,
     * capturable in a CUDA graph (no cuBLAS: its pointer mode belongs to
     * the engines). y = alpha op x + beta y; op NULL is the back end's A
     * (beta 0: y not read). */
    cmrs_code (*op_apply)(cmrs_backend *be, const cmrs_op *op, double alpha,
                          const void *x, double beta, void *y);
    /* y = alpha d.*x + beta y over n entries (d NULL: the identity; beta
     * 0: y not read): Jacobi, smoothers, copies, axpys. */
    cmrs_code (*dxpby)(cmrs_backend *be, int64_t n, double alpha,
                       const void *d, const void *x, double beta, void *y);

    /* Optional (NULL: no mixed precision on this back end): a back end
     * over A in precision `prec` that queues all its work on this back
     * end's stream, so that its ops order with this one's and are
     * captured in the same CUDA graphs (--precision mixed: a
     * preconditioner or an inner solve kept in single precision inside a
     * double loop). values32 (prec double): its matrix's values stored in
     * float (cmrs_spmv_opts.values32; formats without it: CMRS_E_USAGE).
     * Destroyed (cmrs_backend_destroy) before this one. */
    cmrs_code (*twin_create)(cmrs_backend *be, const cmrs_csr *A,
                             cmrs_prec prec, int values32,
                             cmrs_backend **twin);
    /* y (n entries of precision py) = x (precision px) times s, rounded
     * to py; queued like the apply ops, never allocates (with
     * twin_create: arrays of this back end and of its twins). */
    cmrs_code (*arr_cast)(cmrs_backend *be, int64_t n, double s,
                          const void *x, cmrs_prec px, void *y,
                          cmrs_prec py);

    /* Optional (NULL: the solver's own loops): CG (Jacobi inline, or any
     * preconditioner between its steps) run by the back end itself with
     * its scalars on the devices (the distributed back end on GPUs: the
     * fused engine's kernels per part, the reductions summed over the
     * parts on the devices). */
    cmrs_code (*cg_loop)(cmrs_backend *be, cmrs_cg_loop_io *io);

    void (*destroy)(cmrs_backend *be); /* frees be->impl; NULL-safe */
} cmrs_backend_ops;

struct cmrs_backend {
    const cmrs_backend_ops *ops;
    void *impl;
    int64_t n;            /* rows = columns of A */
    int64_t nnz;
    int64_t n_total;      /* rows of the whole system where this back end
                             holds one rank's (dist.h rows mode), else 0:
                             the default iteration limit comes from it, so
                             that every rank stops at the same iteration */
    int64_t row0;         /* then: the global row of its first row (its
                             host matrix is those rows, columns global),
                             else 0 */
    cmrs_prec prec;
    double eps;           /* machine epsilon of the precision (breakdowns) */
    char device[128];     /* "cpu" or the GPU's name */
    char format[32];      /* SpMV format: "cpu-csr" or a registry name */
    int height;           /* strip height used by a CMRS format, else 0 */
    int reordered;        /* 1: the format stores P A P^T (cmrs's locality
                             reordering, docs/CMRS.md), else 0 */
    int one_width;        /* 1: cmrs stores strips of one width (CMRS-U,
                             docs/CMRS.md), else 0 */
    double spmv_bytes;    /* bytes one product moves (beta+ of eq. 6.1) */
    int device_update;    /* 1: update_values_d and dinv_d can run (GPU,
                             a format with a value store, diagonal
                             positions found); else the host path */
};

/* The CPU reference back end: keeps a pointer to A (which must outlive
 * it). Double only: CMRS_PREC_SINGLE is refused with CMRS_E_USAGE. */
cmrs_code cmrs_backend_cpu_create(const cmrs_csr *A, cmrs_prec prec,
                                  cmrs_backend **out);

/* The GPU back end: builds SpMV format `format` (registry name) for A with
 * opts (NULL: defaults) in precision prec, creates the stream and cuBLAS
 * handle. A is not kept. CMRS_E_NODEVICE without a GPU. */
cmrs_code cmrs_backend_gpu_create(const cmrs_csr *A, const char *format,
                                  cmrs_prec prec, const cmrs_spmv_opts *opts,
                                  cmrs_backend **out);

/* The kernel choice's tools (api/kernel_choice.c), GPU back ends only
 * (else CMRS_E_USAGE; without CUDA CMRS_E_NODEVICE):
 * variant: A (be's matrix) in `format` with opts, made from be's device
 *   copy of A where its format gives one back (else from A), on be's
 *   stream, with be's diagonal;
 * adopt: the variant takes be's stream, to outlive be (destroy be next). */
cmrs_code cmrs_backend_gpu_variant(cmrs_backend *be, const cmrs_csr *A,
                                   const char *format,
                                   const cmrs_spmv_opts *opts,
                                   cmrs_backend **out);
void cmrs_backend_gpu_adopt(cmrs_backend *variant, cmrs_backend *be);

/* The GPU back end's stream (the distributed exchange queues its
 * transfers there), or NULL for any other back end. */
cmrs_stream cmrs_backend_gpu_stream(const cmrs_backend *be);

void cmrs_backend_destroy(cmrs_backend *be); /* NULL-safe */

/* Jacobi setup shared by the back ends: dinv[i] = 1 / a_ii, or
 * CMRS_E_INPUT naming the first row whose diagonal is missing, zero or
 * negative (with a hint for negative definite matrices). */
cmrs_code cmrs_jacobi_inverse_diagonal(const cmrs_csr *A, const char *what,
                                       double *dinv);
/* The same for rows row0 .. of a larger matrix (a_ii at column row0 + i;
 * messages name the global row). */
cmrs_code cmrs_jacobi_inverse_diagonal_rows(const cmrs_csr *A, int64_t row0,
                                            const char *what, double *dinv);
/* That function's error for row i alone (the first row a device scan
 * flagged); CMRS_E_INTERNAL if row i has a positive diagonal after all. */
cmrs_code cmrs_jacobi_row_error(const cmrs_csr *A, const char *what,
                                int64_t i);

/* The host residual history of a back end grown to `count` entries
 * (kept when already large enough; CMRS_E_NOMEM leaves it as it was). */
cmrs_code cmrs_history_grow(double **history, int64_t *cap, int64_t count);

/* The time_spmv op of back ends timed by the host clock: median of `reps`
 * products y = A x (ops->spmv, then ops->sync) after one warm-up. */
cmrs_code cmrs_backend_time_spmv_host(cmrs_backend *be, const cmrs_vec *x,
                                      cmrs_vec *y, int reps,
                                      double *median_s);

/* Median time of one y = A x_h (ops->time_spmv over `reps` products) for
 * the host vector x_h of be->n values (NULL: x = 0, made where the vectors
 * live); the device vectors are made and freed here. */
cmrs_code cmrs_backend_time_spmv_of(cmrs_backend *be, const double *x_h,
                                    int reps, double *median_s);

/* Median of v[0..n) (sorted in place); 0 for n <= 0. */
double cmrs_median(double *v, int n);

#endif
