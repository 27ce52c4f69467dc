/* Inside the library's public objects (include/cmrs.h): what api/ shares
 * and what the command line (app/) and the tests read beyond the public
 * API -- the back end, the Krylov solver and the preconditioner behind a
 * cmrs_solver, for reports that show the AMG hierarchy, SpMV bytes, or
 * time one SpMV. Not installed, not exported: static linking only. */
#ifndef CMRS_API_INTERNAL_H
#define CMRS_API_INTERNAL_H

#include "cmrs.h"
#include "io/system.h"
#include "spmv/autotune.h"
#include "kernel_choice.h"
#include "options.h"

struct cmrs_context {
    int device;             /* GPU index or CMRS_DEVICE_CPU */
    char device_name[128];  /* "cpu" or the GPU's name */
    char error[1024];       /* the last failure's message, "" if none */
};

struct cmrs_matrix {
    cmrs_context *ctx;
    int refs;               /* the caller's + one per solver set up on it */
    cmrs_system sys;        /* A, and b/x0 when read from a file */
    char what[256];         /* names A in messages: the file, or "matrix" */
    /* A matrix of rows (matrix_rows.c): sys holds rows row0 .. row0 +
     * sys.A.rows of an n x n matrix (global columns); n 0: the whole
     * matrix. */
    int64_t row0, n;
};

struct cmrs_solver {
    cmrs_context *ctx;
    cmrs_opts o;            /* set_option's values, frozen by setup */
    cmrs_matrix *A;         /* a reference, from setup on */
    cmrs_backend *be;
    cmrs_ksp *ksp;
    cmrs_ksp_result res;    /* the last solve's (res.x: the ksp's) */
    int solved;             /* res holds a solve */
    double t_setup, t_update;
    double t_backend;       /* the part of t_setup that made the back end */
    cmrs_setup_profile prof; /* the last setup's (option profile on) */
    cmrs_tune_result tune;  /* height auto on the GPU: the search's */
    int tuned;              /* tune holds a search of the last setup */
    cmrs_choice_result choice; /* kernel-choice measure: the last setup's */
    int chose;              /* choice holds the last setup's */
    double *b_h, *x_h;      /* n: float host arrays as doubles (solve_ex;
                               made on the first float32 host solve) */
    int host_stale;         /* a device update left A's host values (the
                               true residual's) behind the GPU's: read
                               back before they are next used */
    double *vals_d;         /* nnz: host values of an update, uploaded
                               (api/update.c update_host_d; made on the
                               first such update, freed with the setup) */
    unsigned long long *bad_d; /* its finiteness check's word */
    void *pc_r, *pc_z;      /* back-end arrays of n for host arrays given
                               to cmrs_solver_apply_precond (made on its
                               first host call; freed with the setup) */
    struct cmrs_api_ren *ren; /* the system renumbered (renumber.c): back
                               end and solver set up on its B, or NULL */
};

/* Converts the thread's error state (base/status.h) for an API return: the
 * message is copied into ctx (when not NULL); CMRS_OK gives CMRS_SUCCESS
 * and leaves the context's message alone. */
cmrs_status cmrs_api_status(cmrs_context *ctx, cmrs_code code);
/* Makes ctx's device current for the calling thread (GPU contexts). */
cmrs_code cmrs_api_enter(const cmrs_context *ctx);

/* Public entry points: a NULL handle has no context to hold the message,
 * so it goes to the thread's (cmrs_last_error(NULL)). */
#define CMRS_API_NOT_NULL(p, fn)                                            \
    do {                                                                    \
        if (!(p)) {                                                         \
            cmrs_error_clear();                                             \
            return cmrs_api_status(NULL, cmrs_error_set(CMRS_E_USAGE,       \
                __FILE__, __LINE__, "%s: " #p " is NULL", fn));             \
        }                                                                   \
    } while (0)

/* matrix_csr.c: the caller's arrays into a validated host CSR *A
 * (allocated; nothing held on failure). */
cmrs_code cmrs_api_csr_copy(int64_t rows, int64_t cols, int64_t nnz,
                            const void *indptr, const void *indices,
                            cmrs_index_type it, const void *values,
                            cmrs_value_type vt, cmrs_csr *A);
cmrs_code cmrs_api_check_types(cmrs_index_type it, cmrs_value_type vt);
/* The index of the first of n host values of type t that is NaN or Inf,
 * or -1. */
int64_t cmrs_api_first_nonfinite(const void *values, cmrs_value_type t,
                                 int64_t n);
/* n host values of type t into out as doubles. */
void cmrs_api_values_to_double(const void *values, cmrs_value_type t,
                               int64_t n, double *out);
/* s->b_h and s->x_h, n doubles each, made once: the double copies of float
 * host arrays (solve.c, precond.c). */
cmrs_code cmrs_api_float_buffers(cmrs_solver *s);
/* Device arrays of a set-up solver (solve.c): a GPU context, the
 * solver's precision, memory the context's GPU can address; `fn` names
 * the call in the message. */
cmrs_code cmrs_api_check_device(const cmrs_solver *s, const void *p,
                                cmrs_value_type type, const char *fn);
/* Waits for the legacy default stream, so that device arrays the caller
 * filled there (cudaMemcpy) are complete before the library reads them:
 * once per call that takes device arrays. */
cmrs_code cmrs_api_wait_caller(void);
/* A's host values brought up to the GPU's after device updates (update.c;
 * a no-op when they are current). */
cmrs_code cmrs_api_refresh_host(cmrs_solver *s);
/* Frees what update_host_d keeps (NULL-safe, never fails). */
void cmrs_api_free_update_buffers(cmrs_solver *s);
/* Undoes setup (back end, solver, matrix reference): not set up. */
void cmrs_api_solver_reset(cmrs_solver *s);
/* One more reference to A (a solver's); cmrs_matrix_destroy lets go. */
void cmrs_api_matrix_retain(cmrs_matrix *A);
/* A new matrix with one reference, named what. */
cmrs_code cmrs_api_matrix_new(cmrs_context *ctx, const char *what,
                              cmrs_matrix **out);
/* A new matrix holding *sys (taken: zeroed on success, freed on
 * failure). */
cmrs_code cmrs_api_matrix_take(cmrs_context *ctx, const char *what,
                               cmrs_system *sys, cmrs_matrix **A);
/* The same for a system read from path, b made A*1 (its rows) where the
 * file has none. */
cmrs_code cmrs_api_matrix_of_file(cmrs_context *ctx, const char *path,
                                  cmrs_system *sys, cmrs_matrix **A);
/* HDF5's usual build is not thread-safe: every reader of the library
 * holds this lock (on 1, off 0) while it reads. */
void cmrs_api_read_lock(int on);
/* Whether A holds only some rows (cmrs_matrix_create_csr_rows). */
static inline int cmrs_api_is_rows(const cmrs_matrix *A) { return A->n > 0; }
/* A, read under a CPU context while CUDA started (app/solve/gpu_probe.h), moved
 * to ctx before any solver uses it: CMRS_E_INTERNAL when a solver already
 * holds it. */
cmrs_code cmrs_api_matrix_rebind(cmrs_matrix *A, cmrs_context *ctx);

/* The system renumbered once (renumber.c; option renumber): the back end,
 * the Krylov solver and the preconditioner are set up on B = P A P^T, in
 * the breadth-first order of spmv/cmrs/cmrs_reorder.h; the calls below
 * move vectors and values across the boundary. */
typedef struct cmrs_api_ren cmrs_api_ren;
/* Option renumber's rule ("auto", the default): on a GPU context,
 * systems of at least this many rows whose numbering the cmrs format's
 * locality rule calls poor (measured: docs/BENCHMARKS.md "Renumbering
 * the system": from 2M rows setup + solve gain or tie with Jacobi and
 * AMG; at 0.5M AMG loses). The CPU context keeps the caller's order (its
 * host build was not measured against its solves). */
#define CMRS_RENUMBER_MIN_ROWS 1000000
/* Whether to renumber A under options o (1) or not (0): off, or a
 * distributed solve, or what the format's reordering cannot map (not
 * square, over INT32_MAX entries): never; on: always; auto: the rule, on
 * a GPU context (gpu 1), from min_rows rows (cmrs_api_ren_wanted:
 * CMRS_RENUMBER_MIN_ROWS; the tests pass fewer). */
int cmrs_api_ren_rule(const cmrs_opts *o, const cmrs_csr *A, int gpu,
                      int64_t min_rows);
int cmrs_api_ren_wanted(const cmrs_opts *o, const cmrs_csr *A, int gpu);
/* CMRS_E_USAGE where "on" was asked of a solve that cannot have it. */
cmrs_code cmrs_api_ren_check(const cmrs_opts *o, const cmrs_csr *A);
/* B and its maps, made on the GPU (gpu 1: a GPU context) or the host. */
cmrs_code cmrs_api_ren_make(const cmrs_csr *A, int gpu, cmrs_api_ren **out);
void cmrs_api_ren_free(cmrs_api_ren *ren); /* NULL-safe */
/* B, which the back end and the Krylov solver hold. */
const cmrs_csr *cmrs_api_ren_matrix(const cmrs_api_ren *ren);
double cmrs_api_ren_seconds(const cmrs_api_ren *ren);
/* B's row r is A's row rows[r]; B's entry j is A's entry entries[j] (the
 * entry map downloaded on first use where the GPU built it); one entry's
 * source, for messages (ctx: the renumbering; B's index where the device
 * cannot say). */
const int32_t *cmrs_api_ren_rows(const cmrs_api_ren *ren);
cmrs_code cmrs_api_ren_entries(cmrs_api_ren *ren, const int32_t **entries);
int64_t cmrs_api_ren_entry(void *ren, int64_t j);
/* Two host arrays of n doubles for a solve's b and x in B's order. */
double *cmrs_api_ren_b(cmrs_api_ren *ren);
double *cmrs_api_ren_x(cmrs_api_ren *ren);
/* v_b = P v (into B's order), v = P^T v_b (back), n doubles each. */
void cmrs_api_ren_in(const cmrs_api_ren *ren, const double *v, double *v_b);
void cmrs_api_ren_out(const cmrs_api_ren *ren, const double *v_b,
                      double *v);
/* B's host values from A's (nnz, A's CSR order), and back. */
cmrs_code cmrs_api_ren_values_in(cmrs_api_ren *ren, const double *values);
cmrs_code cmrs_api_ren_values_out(cmrs_api_ren *ren, double *values);
/* Device arrays (GPU back end be): *b_d, *x_d, n values of be's precision
 * (made once), for b and x in B's order; then the same permutations on
 * be's stream (not waited for). */
cmrs_code cmrs_api_ren_vectors_d(cmrs_api_ren *ren, const cmrs_backend *be,
                                 void **b_d, void **x_d);
cmrs_code cmrs_api_ren_in_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                            const void *v_d, void *v_b_d);
cmrs_code cmrs_api_ren_out_d(const cmrs_api_ren *ren, const cmrs_backend *be,
                             const void *v_b_d, void *v_d);
/* *vals_b_d = device values_d (nnz of be's precision, A's CSR order) in
 * B's order, in an array kept for the next update, on be's stream. */
cmrs_code cmrs_api_ren_values_d(cmrs_api_ren *ren, const cmrs_backend *be,
                                const void *values_d, const void **vals_b_d);
/* A renumbered solver's setup or host-update failure rc as the caller's
 * numbering says it: a message of CMRS_E_INPUT that names a row of B (an
 * empty row; a diagonal that is not > 0 where the preconditioner scales
 * by it) is replaced by the same message for A's first such row, and one
 * that names an entry of B outside the float range (single precision) by
 * the same message for A's first such entry; any other rc is returned as
 * it is. */
cmrs_code cmrs_api_ren_error(const cmrs_solver *s, cmrs_code rc);
/* The matrix the solver's back end holds: B, or the caller's A. */
static inline const cmrs_csr *cmrs_api_sys_matrix(const cmrs_solver *s)
{
    return s->ren ? cmrs_api_ren_matrix(s->ren) : &s->A->sys.A;
}

/* For the command line: its options parsed once (options.h) replace the
 * solver's, before setup. */
cmrs_status cmrs_solver_set_opts(cmrs_solver *s, const cmrs_opts *o);
/* The matrix's host CSR and system (b, x0 as read; the CLI negates them
 * with A for --negate) and read options beyond the public call. */
cmrs_system *cmrs_matrix_system(cmrs_matrix *A);
cmrs_status cmrs_matrix_read_with(cmrs_context *ctx, const char *path,
                                  const cmrs_read_opts *ro, cmrs_matrix **A);
/* A matrix that takes over *sys (its arrays, b, x0; *sys is zeroed):
 * systems the command line builds itself (the compare warm-up). */
/* cmrs_matrix_read_rows with every read option (io/linsys.h). */
cmrs_status cmrs_matrix_read_rows_with(cmrs_context *ctx, const char *path,
                                       const cmrs_read_opts *ro, int part,
                                       int nparts, cmrs_matrix **A);
cmrs_status cmrs_matrix_adopt(cmrs_context *ctx, cmrs_system *sys,
                              const char *what, cmrs_matrix **A);
/* For cmrs compare's rows of one format: a new Krylov solver with the
 * solve options `solve` (engine, preconditioner, tolerances) on the back
 * end setup made, which is kept (no second conversion or upload). Its
 * setup time is then the back end's plus the new solver's, what a fresh
 * setup with these options reports. s must be set up. */
cmrs_status cmrs_solver_new_ksp(cmrs_solver *s, const cmrs_ksp_opts *solve);
/* The solver's internals after setup (NULL before). */
cmrs_backend *cmrs_solver_backend(const cmrs_solver *s);
cmrs_ksp *cmrs_solver_ksp(const cmrs_solver *s);
/* The last solve's full result (x, history, engine); NULL before one. */
const cmrs_ksp_result *cmrs_solver_result(const cmrs_solver *s);
/* The height search of the last setup (height auto on the GPU), or NULL. */
const cmrs_tune_result *cmrs_solver_tune(const cmrs_solver *s);
/* The last setup's measured kernel choice (kernel-choice measure on the
 * GPU with format cmrs), or NULL. */
const cmrs_choice_result *cmrs_solver_choice(const cmrs_solver *s);
/* The seconds the last setup spent renumbering the system (option
 * renumber), or -1 when it was not renumbered. */
double cmrs_solver_renumbered(const cmrs_solver *s);

#endif
