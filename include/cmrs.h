/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* libcmrs: the public C API (C11). Solve A x = b, A sparse (the pressure
 * equation of a CFD code), with preconditioned CG or BiCGStab on an NVIDIA
 * GPU (SpMV in the CMRS format or any format of the registry) or on the CPU
 * reference back end.
 *
 * Objects (opaque handles):
 *   cmrs_context  a device (GPU index, or the CPU back end) and the library
 *                 handles bound to it; every other object belongs to one.
 *   cmrs_matrix   a square CSR matrix copied from host arrays or read from a
 *                 file; the caller keeps ownership of its own arrays.
 *   cmrs_solver   method, preconditioner, SpMV format, engine, precision and
 *                 tolerances (string options, the names of the CLI's long
 *                 options), set up once for a matrix, then solved any number
 *                 of times, with values-only updates in between.
 *
 * Errors: every fallible call returns a cmrs_status; CMRS_SUCCESS is 0. The
 * one-line message of the last failed call on a context, or on any object of
 * that context, is cmrs_last_error(ctx); cmrs_last_error(NULL) gives the
 * last failure of the calling thread (for a context that could not be
 * created). The library prints nothing and never exits.
 *
 * A solve that does not converge is not an error: cmrs_solver_solve returns
 * CMRS_SUCCESS and the info's reason says why it stopped.
 *
 * Thread safety: a context and its objects may be used by one thread at a
 * time. Different contexts may be used concurrently from different threads
 * (one context per thread is the rule; they may share a GPU).
 */
#ifndef CMRS_H
#define CMRS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CMRS_STATIC_DEFINE) || !defined(__GNUC__)
#define CMRS_API
#else
#define CMRS_API __attribute__((visibility("default")))
#endif

#define CMRS_VERSION_MAJOR 0
#define CMRS_VERSION_MINOR 2
#define CMRS_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the library that is linked (may differ from the
 * header's macros when a shared library was replaced). */
CMRS_API const char *cmrs_version(void);

typedef enum cmrs_status {
    CMRS_SUCCESS = 0,
    CMRS_ERROR_USAGE = 1,     /* bad argument, option or call order */
    CMRS_ERROR_INPUT = 2,     /* bad data: matrix, vector, file contents */
    CMRS_ERROR_LIMIT = 3,     /* input beyond a documented limit */
    CMRS_ERROR_NOMEM = 4,     /* host or device allocation failed */
    CMRS_ERROR_IO = 5,        /* a file could not be read or written */
    CMRS_ERROR_GPU = 6,       /* CUDA, cuBLAS or cuSPARSE failure */
    CMRS_ERROR_NODEVICE = 7,  /* a GPU was asked for and none is present */
    CMRS_ERROR_INTERNAL = 8   /* a bug in the library */
} cmrs_status;

/* "SUCCESS", "ERROR_USAGE", ... */
CMRS_API const char *cmrs_status_name(cmrs_status s);

typedef struct cmrs_context cmrs_context;
typedef struct cmrs_matrix cmrs_matrix;
typedef struct cmrs_solver cmrs_solver;

/* ---- Context ---------------------------------------------------------- */

#define CMRS_DEVICE_CPU (-1)  /* the CPU reference back end (double only) */
#define CMRS_DEVICE_AUTO (-2) /* GPU 0 when present, else the CPU */

/* device: a GPU index (0, 1, ...), CMRS_DEVICE_CPU or CMRS_DEVICE_AUTO. A
 * GPU index without that GPU fails with CMRS_ERROR_NODEVICE. */
CMRS_API cmrs_status cmrs_context_create(int device, cmrs_context **ctx);
/* NULL-safe. Every matrix and solver of ctx must be destroyed first. */
CMRS_API void cmrs_context_destroy(cmrs_context *ctx);
/* The device the context runs on: a GPU index or CMRS_DEVICE_CPU. */
CMRS_API int cmrs_context_device(const cmrs_context *ctx);
/* "cpu" or the GPU's name. */
CMRS_API const char *cmrs_context_device_name(const cmrs_context *ctx);
/* Message of the last failed call on ctx or its objects ("" if none);
 * ctx NULL: the calling thread's last failure. Valid until the next call
 * on ctx. */
CMRS_API const char *cmrs_last_error(const cmrs_context *ctx);

/* ---- Matrix ----------------------------------------------------------- */

typedef enum cmrs_index_type {
    CMRS_INDEX_INT32 = 0,
    CMRS_INDEX_INT64 = 1
} cmrs_index_type;

typedef enum cmrs_value_type {
    CMRS_VALUE_FLOAT64 = 0,
    CMRS_VALUE_FLOAT32 = 1
} cmrs_value_type;

/* A rows x cols matrix from host CSR arrays (0-based; indptr has rows + 1
 * entries, indices and values nnz). The arrays are copied and validated:
 * indices in range and strictly increasing within each row, values finite
 * (CMRS_ERROR_INPUT naming the first bad row otherwise). */
CMRS_API cmrs_status cmrs_matrix_create_csr(
    cmrs_context *ctx, int64_t rows, int64_t cols, int64_t nnz,
    const void *indptr, const void *indices, cmrs_index_type index_type,
    const void *values, cmrs_value_type value_type, cmrs_matrix **A);

/* A from a file (native/anndata/h5sparse/MATLAB HDF5 or Matrix Market),
 * group `matrix` of an HDF5 file (NULL: "A"). The file's right-hand side
 * and initial guess, when it has them, are kept with the matrix (see
 * cmrs_matrix_file_vector). */
CMRS_API cmrs_status cmrs_matrix_read(cmrs_context *ctx, const char *path,
                                      const char *matrix, cmrs_matrix **A);

/* ---- Matrices of rows (a solve under MPI in which no rank holds all of
 * A; docs/DISTRIBUTED.md "Each rank its rows") -------------------------
 *
 * Rows row0 .. row0 + rows - 1 of an n x n matrix, from this rank's CSR
 * arrays (indptr: rows + 1 entries from 0; indices: global columns,
 * sorted within each row; validated as cmrs_matrix_create_csr does). A
 * solver set up on it needs option mpi (or cmrs_solver_set_mpi_comm):
 * the ranks' rows must tile 0 .. n - 1 in rank order, each rank holding
 * at least one (refused on every rank otherwise); each rank's part is its
 * rows (a block partition: option partition does not apply). b, x0 and x
 * of its solves are this rank's rows (rows values), and so are the values
 * cmrs_solver_update_values takes (the rank's nnz, its CSR order). Not
 * yet: float32 arrays, precision single. */
CMRS_API cmrs_status cmrs_matrix_create_csr_rows(
    cmrs_context *ctx, int64_t n, int64_t row0, int64_t rows, int64_t nnz,
    const void *indptr, const void *indices, cmrs_index_type index_type,
    const void *values, cmrs_value_type value_type, cmrs_matrix **A);

/* Block `part` (0 .. nparts - 1) of the rows of an HDF5 file in a CSR
 * layout (native, anndata csr_matrix, h5sparse csr), group `matrix`
 * (NULL: "A"), with the same rows of its b (A*1's rows where it has none)
 * and x0: the blocks balanced by entries as --partition block cuts the
 * whole matrix, reading the file's row pointers whole (8 bytes a row) and
 * only this block's entries. cmrs_matrix_row_range says which rows. */
CMRS_API cmrs_status cmrs_matrix_read_rows(cmrs_context *ctx,
                                           const char *path,
                                           const char *matrix, int part,
                                           int nparts, cmrs_matrix **A);

/* 1 when cmrs_matrix_read_rows can read path (HDF5, a CSR layout), else 0
 * (other layouts and Matrix Market: read the whole matrix). */
CMRS_API int cmrs_matrix_rows_readable(const char *path, const char *matrix);

/* The rows a matrix holds: first global row, count, and the global size
 * n (a whole matrix: 0, its rows, its rows). NULL outputs are skipped. */
CMRS_API cmrs_status cmrs_matrix_row_range(const cmrs_matrix *A,
                                           int64_t *row0, int64_t *rows,
                                           int64_t *n);

typedef enum cmrs_file_vector {
    CMRS_FILE_RHS = 0, /* b; A*1 when the file has none */
    CMRS_FILE_X0 = 1   /* x0; zeros when the file has none */
} cmrs_file_vector;

/* Copies rows values of the file's b or x0 into out; *present (may be NULL)
 * is 1 when the file held that vector, 0 when it was generated. A matrix
 * made from arrays: as if the file had neither. */
CMRS_API cmrs_status cmrs_matrix_file_vector(const cmrs_matrix *A,
                                             cmrs_file_vector which,
                                             double *out, int *present);

/* Sizes; -1 for a NULL matrix. */
CMRS_API int64_t cmrs_matrix_rows(const cmrs_matrix *A);
CMRS_API int64_t cmrs_matrix_cols(const cmrs_matrix *A);
CMRS_API int64_t cmrs_matrix_nnz(const cmrs_matrix *A);

/* NULL-safe. A solver set up with A keeps its own reference: the matrix is
 * freed when the last of them lets go. */
CMRS_API void cmrs_matrix_destroy(cmrs_matrix *A);

/* ---- Solver ----------------------------------------------------------- */

CMRS_API cmrs_status cmrs_solver_create(cmrs_context *ctx,
                                        cmrs_solver **s);

/* Sets one option before setup, by the name and value the CLI takes
 * (without the leading "--"), for example:
 *   solver      cg | bicgstab                          (cg)
 *   precond     jacobi | none | chebyshev | amg        (jacobi)
 *   rtol, atol  relative / absolute tolerance          (1e-8, 0)
 *   maxiter     iteration limit                        (10 n, <= 100000)
 *   spmv        SpMV format on the GPU                 (cmrs)
 *   height      CMRS strip height 1..16 or auto        (by rule)
 *   reorder     on | off | auto: cmrs stores P A P^T   (auto: by rule)
 *   one-width   on | off | auto: cmrs strips of one width (auto: by rule)
 *   renumber    on | off | auto: the solver set up on P A P^T, b and x
 *               permuted at the boundary (auto: poorly numbered systems
 *               of 1M rows and more, on a GPU context)
 *   engine      auto | cublas | graph | fused          (auto)
 *   precision   double | single | mixed                (double; mixed: a
 *               double loop with single precision inside, device arrays
 *               in double)
 *   mixed       auto | refine | precond | values: what mixed does (auto)
 *   kernel-choice  rule | measure: cmrs's layout and kernel timed at
 *               setup among its variants (rule)
 *   check-every, cheb-degree, cheb-ratio, amg-agg, amg-agg-size,
 *   amg-prolong, amg-theta, amg-sweeps, amg-smoother, amg-coarse,
 *   amg-levels, amg-format, block-size, modulo, tune-budget
 *   amg-update  full | frozen: what an AMG values-only update redoes
 *               (full; API only, docs/AMG.md "Frozen hierarchy")
 *   history     on | off: keep the residual history     (off)
 * An unknown name or a bad value fails with CMRS_ERROR_USAGE, one line
 * naming the option; an option set after setup fails the same way. */
CMRS_API cmrs_status cmrs_solver_set_option(cmrs_solver *s, const char *name,
                                            const char *value);

/* Under MPI (the caller has initialised it): one part of A per rank of
 * the communicator whose Fortran handle is fortran_comm (MPI_Comm_c2f of
 * it; include/cmrs_mpi.h's cmrs_solver_set_comm takes an MPI_Comm), each
 * on the CPU back end; every rank of it passes the whole A, b and x0 and
 * gets the whole x. Implies option mpi (whose default communicator is
 * MPI_COMM_WORLD). Before setup; CMRS_ERROR_USAGE after it or where this
 * build has no MPI. */
CMRS_API cmrs_status cmrs_solver_set_mpi_comm(cmrs_solver *s,
                                              int64_t fortran_comm);

/* Conversion and upload of A, work vectors, preconditioner: everything a
 * solve needs (all allocation happens here). A second setup replaces the
 * first. */
CMRS_API cmrs_status cmrs_solver_setup(cmrs_solver *s, cmrs_matrix *A);

typedef enum cmrs_memory {
    CMRS_MEMORY_HOST = 0,
    CMRS_MEMORY_DEVICE = 1 /* device pointers on the context's GPU */
} cmrs_memory;

/* Same pattern, new values: nnz values in the CSR order of the matrix given
 * to setup (which is updated too). No re-conversion; the preconditioner is
 * refreshed as cheaply as it allows (Jacobi: the diagonal; AMG: coarse
 * operators, aggregates kept). Device values must be of the solver's
 * precision. */
CMRS_API cmrs_status cmrs_solver_update_values(cmrs_solver *s,
                                               const void *values,
                                               cmrs_value_type type,
                                               cmrs_memory where);

/* Solves A x = b. On entry x holds the initial guess (zeros for none); on
 * return the solution. Host pointers to rows doubles. */
CMRS_API cmrs_status cmrs_solver_solve(cmrs_solver *s, const double *b,
                                       double *x);

/* The same with arrays of any value type in host or device memory. Device
 * arrays must be of the solver's precision (CMRS_ERROR_USAGE otherwise).
 * Float host arrays: the solve runs in double from the rounded b and x0; x
 * is rounded to float and info's true residual is that of the rounded x. */
CMRS_API cmrs_status cmrs_solver_solve_ex(cmrs_solver *s, const void *b,
                                          void *x, cmrs_value_type type,
                                          cmrs_memory where);

/* z = M^-1 r: one application of the set-up solver's preconditioner (option
 * precond: jacobi D^-1 r, none a copy, chebyshev its polynomial, amg one
 * V-cycle), the operator its Krylov loop applies, for other Krylov codes.
 * No Krylov iteration runs and the last solve's info is left alone. Host
 * arrays of rows values of any value type (r must be finite:
 * CMRS_ERROR_INPUT otherwise), or device arrays of the solver's precision
 * (CMRS_MEMORY_DEVICE), read and written in place. r is not modified; z
 * must not be r. */
CMRS_API cmrs_status cmrs_solver_apply_precond(cmrs_solver *s, const void *r,
                                               void *z, cmrs_value_type type,
                                               cmrs_memory where);

typedef enum cmrs_reason {
    CMRS_REASON_NONE = 0,                /* no solve yet */
    CMRS_REASON_CONVERGED_RTOL = 1,      /* ||r|| <= rtol ||b|| */
    CMRS_REASON_CONVERGED_ATOL = 2,      /* ||r|| <= atol (also b = 0) */
    CMRS_REASON_DIVERGED_MAXITS = 3,     /* maxiter reached */
    CMRS_REASON_DIVERGED_BREAKDOWN = 4,  /* CG: p'Ap <= 0; BiCGStab */
    CMRS_REASON_DIVERGED_NANORINF = 5    /* NaN or Inf in the iteration */
} cmrs_reason;

typedef struct cmrs_solve_info {
    cmrs_reason reason;
    int converged;             /* 1 for the CONVERGED_* reasons */
    int64_t iterations;
    double residual;           /* final recursive residual ||r||2 */
    double relative_residual;  /* residual / ||b||2 */
    double true_residual;      /* ||b - A x||2, recomputed in double */
    double true_relative_residual;
    double t_setup;            /* seconds of the last setup */
    double t_update;           /* seconds of the last update_values */
    double t_solve;            /* seconds of the last solve */
    char method[16];           /* "cg" | "bicgstab" */
    char precond[16];          /* "jacobi", ... */
    char engine[16];           /* the engine that ran ("reference": CPU) */
    char format[32];           /* SpMV format ("cpu-csr" on the CPU) */
    int height;                /* CMRS strip height, 0 for other formats */
    char precision[8];         /* "double" | "single" | "mixed" */
    char device[128];          /* "cpu" or the GPU's name */
} cmrs_solve_info;

/* What the last setup, update and solve did. */
CMRS_API cmrs_status cmrs_solver_get_info(const cmrs_solver *s,
                                          cmrs_solve_info *info);
/* "CONVERGED_RTOL", ... */
CMRS_API const char *cmrs_reason_name(cmrs_reason r);

/* Where the last setup spent its time (option profile on; docs/API.md,
 * "Setup profile"). Phases are exclusive -- an upload inside the format's
 * conversion counts as transfer only -- and sum to at most total; while
 * profiling, setup synchronises the GPU at every phase boundary. */
typedef struct cmrs_setup_profile {
    int valid;               /* 1: the last setup recorded this profile */
    double host_staging;     /* s: host copies, narrowing, scans */
    double transfer;         /* s: host-to-device uploads (with the
                                chunk-wise narrowing they overlap) */
    double conversion;       /* s: the SpMV format's build, less uploads */
    double precond;          /* s: preconditioner setup, less uploads */
    double other;            /* s: the rest (the height search, small
                                host work) */
    double total;            /* s: the whole setup (t_setup) */
    double transfer_bytes;   /* bytes uploaded to the device */
    double csr_bytes;        /* the host CSR: 8 (rows+1) + 12 nnz */
    double h2d_pinned_gbs;   /* pinned host-to-device GB/s, measured after
                                setup (128 MiB copies); 0 on the CPU */
    double transfer_floor;   /* s: csr_bytes / that bandwidth; 0 on the CPU */
    char upload[16];         /* CMRS_UPLOAD's path: "staged", "registered",
                                "pageable" ("" on the CPU) */
    /* Added with parallel staging (exclusive like the phases above; the
     * seven phases sum to total): */
    double libraries;        /* s: the back end's stream and library
                                handles (cuBLAS loaded and created) */
    double allocation;       /* s: the solver's and preconditioner's
                                arrays, the update's diagonal positions */
    int upload_threads;      /* CMRS_UPLOAD_THREADS (0 on the CPU) */
    int backend_reused;      /* 1: a new Krylov solver and preconditioner
                                on the back end an earlier setup made
                                (`cmrs compare`'s later rows): the phases
                                are theirs alone, total too */
} cmrs_setup_profile;

/* The last setup's profile; CMRS_ERROR_USAGE unless option profile was on
 * for that setup. */
CMRS_API cmrs_status cmrs_solver_setup_profile(const cmrs_solver *s,
                                               cmrs_setup_profile *p);

/* The relative residual per iteration of the last solve (option history
 * on): copies min(cap, iterations + 1) values into h (h may be NULL with
 * cap 0) and stores iterations + 1 in *count. */
CMRS_API cmrs_status cmrs_solver_history(const cmrs_solver *s, double *h,
                                         int64_t cap, int64_t *count);

/* NULL-safe; releases the solver's reference to its matrix. */
CMRS_API void cmrs_solver_destroy(cmrs_solver *s);

#ifdef __cplusplus
}
#endif

#endif
