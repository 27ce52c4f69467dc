/* The public matrix (include/cmrs.h): from CSR arrays or a file, shared
 * by reference count with the solvers set up on it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "cases/cases.h"

cmrs_code cmrs_api_matrix_new(cmrs_context *ctx, const char *what,
                              cmrs_matrix **out)
{
    cmrs_matrix *m = calloc(1, sizeof *m);
    CMRS_ENSURE(m, CMRS_E_NOMEM, "cannot allocate a matrix");
    m->ctx = ctx;
    m->refs = 1;
    snprintf(m->what, sizeof m->what, "%s", what);
    *out = m;
    return CMRS_OK;
}

cmrs_code cmrs_api_matrix_take(cmrs_context *ctx, const char *what,
                               cmrs_system *sys, cmrs_matrix **A)
{
    cmrs_code rc = cmrs_api_matrix_new(ctx, what, A);
    if (rc != CMRS_OK) {
        cmrs_system_free(sys);
        return rc;
    }
    (*A)->sys = *sys;
    memset(sys, 0, sizeof *sys);
    return CMRS_OK;
}

cmrs_code cmrs_api_matrix_of_file(cmrs_context *ctx, const char *path,
                                  cmrs_system *sys, cmrs_matrix **A)
{
    cmrs_code rc = cmrs_system_rhs_ones(sys, path);
    if (rc != CMRS_OK) {
        cmrs_system_free(sys);
        return rc;
    }
    return cmrs_api_matrix_take(ctx, path, sys, A);
}

static cmrs_code create_csr(cmrs_context *ctx, int64_t rows, int64_t cols,
                            int64_t nnz, const void *indptr,
                            const void *indices, cmrs_index_type it,
                            const void *values, cmrs_value_type vt,
                            cmrs_matrix **A)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    CMRS_CHECK(cmrs_api_csr_copy(rows, cols, nnz, indptr, indices, it,
                                 values, vt, &sys.A));
    return cmrs_api_matrix_take(ctx, "matrix", &sys, A);
}

cmrs_status cmrs_matrix_create_csr(cmrs_context *ctx, int64_t rows,
                                   int64_t cols, int64_t nnz,
                                   const void *indptr, const void *indices,
                                   cmrs_index_type index_type,
                                   const void *values,
                                   cmrs_value_type value_type,
                                   cmrs_matrix **A)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_matrix_create_csr");
    cmrs_error_clear();
    if (!A)
        return cmrs_api_status(ctx, cmrs_error_set(CMRS_E_USAGE, __FILE__,
            __LINE__, "cmrs_matrix_create_csr: A is NULL"));
    *A = NULL;
    return cmrs_api_status(ctx, create_csr(ctx, rows, cols, nnz, indptr,
                                           indices, index_type, values,
                                           value_type, A));
}

/* HDF5's usual (serial) build is not thread-safe: one reader at a time in
 * the process, so contexts in different threads may read files. */
static pthread_mutex_t g_read_lock = PTHREAD_MUTEX_INITIALIZER;

void cmrs_api_read_lock(int on)
{
    if (on) pthread_mutex_lock(&g_read_lock);
    else pthread_mutex_unlock(&g_read_lock);
}

static cmrs_code read_file(cmrs_context *ctx, const char *path,
                           const cmrs_read_opts *ro, cmrs_matrix **A)
{
    cmrs_system sys;
    CMRS_ENSURE(path, CMRS_E_USAGE, "cmrs_matrix_read: path is NULL");
    /* Page-locked only on a GPU context, whose runtime is up. */
    cmrs_read_opts o = ro ? *ro : (cmrs_read_opts){0};
    o.pinned_matrix = o.pinned_matrix && ctx->device >= 0;
    cmrs_api_read_lock(1);
    cmrs_code rc = cmrs_system_read(path, &o, &sys);
    cmrs_api_read_lock(0);
    CMRS_CHECK(rc);
    return cmrs_api_matrix_of_file(ctx, path, &sys, A);
}

cmrs_status cmrs_matrix_read_with(cmrs_context *ctx, const char *path,
                                  const cmrs_read_opts *ro, cmrs_matrix **A)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_matrix_read");
    CMRS_API_NOT_NULL(A, "cmrs_matrix_read");
    *A = NULL;
    cmrs_error_clear();
    return cmrs_api_status(ctx, read_file(ctx, path, ro, A));
}

cmrs_status cmrs_matrix_read(cmrs_context *ctx, const char *path,
                             const char *matrix, cmrs_matrix **A)
{
    cmrs_read_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.matrix = matrix;
    return cmrs_matrix_read_with(ctx, path, &ro, A);
}

/* b, or A*1 when the file had none (the reader made it); x0 or zeros. */
static cmrs_code file_vector(const cmrs_matrix *A, cmrs_file_vector which,
                             double *out, int *present)
{
    const cmrs_system *s = &A->sys;
    size_t n = (size_t)s->A.rows;
    CMRS_ENSURE(out, CMRS_E_USAGE, "cmrs_matrix_file_vector: out is NULL");
    CMRS_ENSURE(which == CMRS_FILE_RHS || which == CMRS_FILE_X0,
                CMRS_E_USAGE, "cmrs_matrix_file_vector: which is %d (use "
                "CMRS_FILE_RHS or CMRS_FILE_X0)", (int)which);
    const double *v = which == CMRS_FILE_RHS ? s->b : s->x0;
    int have = v != NULL && !(which == CMRS_FILE_RHS && s->b_generated);
    if (which == CMRS_FILE_RHS && !v) {
        /* Arrays, not a file: as if the file had no b, which is A*1. */
        for (int64_t i = 0; i < s->A.rows; ++i) {
            out[i] = 0.0;
            for (int64_t k = s->A.indptr[i]; k < s->A.indptr[i + 1]; ++k)
                out[i] += s->A.values[k];
        }
    } else if (v) {
        memcpy(out, v, n * sizeof *out);
    } else {
        memset(out, 0, n * sizeof *out);
    }
    if (present) *present = have;
    return CMRS_OK;
}

cmrs_status cmrs_matrix_file_vector(const cmrs_matrix *A,
                                    cmrs_file_vector which, double *out,
                                    int *present)
{
    CMRS_API_NOT_NULL(A, "cmrs_matrix_file_vector");
    cmrs_error_clear();
    return cmrs_api_status(A->ctx, file_vector(A, which, out, present));
}

int64_t cmrs_matrix_rows(const cmrs_matrix *A)
{
    return A ? A->sys.A.rows : -1;
}

int64_t cmrs_matrix_cols(const cmrs_matrix *A)
{
    return A ? A->sys.A.cols : -1;
}

int64_t cmrs_matrix_nnz(const cmrs_matrix *A)
{
    return A ? A->sys.A.nnz : -1;
}

void cmrs_api_matrix_retain(cmrs_matrix *A) { ++A->refs; }

cmrs_code cmrs_api_matrix_rebind(cmrs_matrix *A, cmrs_context *ctx)
{
    CMRS_ENSURE(A->refs == 1, CMRS_E_INTERNAL, "%s: a matrix in use by a "
                "solver cannot change contexts", A->what);
    A->ctx = ctx;
    return CMRS_OK;
}

void cmrs_matrix_destroy(cmrs_matrix *A)
{
    if (!A || --A->refs > 0) return;
    cmrs_system_free(&A->sys);
    free(A);
}

cmrs_system *cmrs_matrix_system(cmrs_matrix *A) { return &A->sys; }

cmrs_status cmrs_matrix_adopt(cmrs_context *ctx, cmrs_system *sys,
                              const char *what, cmrs_matrix **A)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_matrix_adopt");
    cmrs_error_clear();
    cmrs_code rc = cmrs_api_matrix_new(ctx, what, A);
    if (rc == CMRS_OK) {
        (*A)->sys = *sys;
        memset(sys, 0, sizeof *sys);
    }
    return cmrs_api_status(ctx, rc);
}
