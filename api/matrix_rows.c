/* Matrices of rows (include/cmrs.h): each MPI rank's rows of one square
 * matrix, from the caller's arrays or read from a file, for a solve in
 * which no rank holds the whole matrix (docs/DISTRIBUTED.md "Each rank
 * its rows"). */
#include <string.h>

#include "api_internal.h"
#include "io/h5_rows.h"

static cmrs_code create_rows(cmrs_context *ctx, int64_t n, int64_t row0,
                             int64_t rows, int64_t nnz, const void *indptr,
                             const void *indices, cmrs_index_type it,
                             const void *values, cmrs_value_type vt,
                             cmrs_matrix **A)
{
    CMRS_ENSURE(n > 0 && rows > 0 && row0 >= 0 && row0 <= n - rows,
                CMRS_E_USAGE, "cmrs_matrix_create_csr_rows: rows %lld .. "
                "%lld of %lld: a rank holds at least one row, within the "
                "matrix", (long long)row0, (long long)(row0 + rows),
                (long long)n);
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    CMRS_CHECK(cmrs_api_csr_copy(rows, n, nnz, indptr, indices, it, values,
                                 vt, &sys.A));
    CMRS_CHECK(cmrs_api_matrix_take(ctx, "matrix", &sys, A));
    (*A)->row0 = row0;
    (*A)->n = n;
    return CMRS_OK;
}

cmrs_status cmrs_matrix_create_csr_rows(cmrs_context *ctx, int64_t n,
                                        int64_t row0, int64_t rows,
                                        int64_t nnz, const void *indptr,
                                        const void *indices,
                                        cmrs_index_type index_type,
                                        const void *values,
                                        cmrs_value_type value_type,
                                        cmrs_matrix **A)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_matrix_create_csr_rows");
    cmrs_error_clear();
    if (!A)
        return cmrs_api_status(ctx, cmrs_error_set(CMRS_E_USAGE, __FILE__,
            __LINE__, "cmrs_matrix_create_csr_rows: A is NULL"));
    *A = NULL;
    return cmrs_api_status(ctx, create_rows(ctx, n, row0, rows, nnz, indptr,
                                            indices, index_type, values,
                                            value_type, A));
}

static cmrs_code read_rows(cmrs_context *ctx, const char *path,
                           const cmrs_read_opts *ro, int part, int nparts,
                           cmrs_matrix **A)
{
    cmrs_system sys;
    int64_t row0 = 0, n = 0, nnz = 0;
    CMRS_ENSURE(path, CMRS_E_USAGE, "cmrs_matrix_read_rows: path is NULL");
    cmrs_read_opts o = ro ? *ro : (cmrs_read_opts){0};
    cmrs_api_read_lock(1);
    cmrs_code rc = cmrs_h5_read_rows(path, &o, part, nparts, &sys, &row0,
                                     &n, &nnz);
    cmrs_api_read_lock(0);
    CMRS_CHECK(rc);
    CMRS_CHECK(cmrs_api_matrix_of_file(ctx, path, &sys, A));
    (*A)->row0 = row0;
    (*A)->n = n;
    return CMRS_OK;
}

cmrs_status cmrs_matrix_read_rows_with(cmrs_context *ctx, const char *path,
                                       const cmrs_read_opts *ro, int part,
                                       int nparts, cmrs_matrix **A)
{
    CMRS_API_NOT_NULL(ctx, "cmrs_matrix_read_rows");
    CMRS_API_NOT_NULL(A, "cmrs_matrix_read_rows");
    *A = NULL;
    cmrs_error_clear();
    return cmrs_api_status(ctx, read_rows(ctx, path, ro, part, nparts, A));
}

cmrs_status cmrs_matrix_read_rows(cmrs_context *ctx, const char *path,
                                  const char *matrix, int part, int nparts,
                                  cmrs_matrix **A)
{
    cmrs_read_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.matrix = matrix;
    return cmrs_matrix_read_rows_with(ctx, path, &ro, part, nparts, A);
}

int cmrs_matrix_rows_readable(const char *path, const char *matrix)
{
    cmrs_read_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.matrix = matrix;
    if (!path) return 0;
    cmrs_api_read_lock(1);
    int yes = cmrs_h5_rows_readable(path, &ro);
    cmrs_api_read_lock(0);
    return yes;
}

cmrs_status cmrs_matrix_row_range(const cmrs_matrix *A, int64_t *row0,
                                  int64_t *rows, int64_t *n)
{
    CMRS_API_NOT_NULL(A, "cmrs_matrix_row_range");
    cmrs_error_clear();
    if (row0) *row0 = A->row0;
    if (rows) *rows = A->sys.A.rows;
    if (n) *n = cmrs_api_is_rows(A) ? A->n : A->sys.A.rows;
    return CMRS_SUCCESS;
}
