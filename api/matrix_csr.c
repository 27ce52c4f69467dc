/* cmrs_matrix_create_csr: the caller's CSR arrays (int32/int64 indices,
 * float/double values) copied into the library's host CSR and validated
 * (base/csr.h's invariants), each bad input one CMRS_E_INPUT/USAGE line. */
#include <stdint.h>
#include <string.h>

#include "api_internal.h"

static cmrs_code check_sizes(int64_t rows, int64_t cols, int64_t nnz)
{
    CMRS_ENSURE(rows >= 0 && cols >= 0 && nnz >= 0, CMRS_E_USAGE,
                "cmrs_matrix_create_csr: negative size (rows %lld, cols "
                "%lld, nnz %lld)", (long long)rows, (long long)cols,
                (long long)nnz);
    CMRS_ENSURE(cols <= INT32_MAX, CMRS_E_LIMIT, "cmrs_matrix_create_csr: "
                "%lld columns; column indices are 32-bit (at most %d)",
                (long long)cols, INT32_MAX);
    return CMRS_OK;
}

static cmrs_code copy_indptr(cmrs_csr *A, const void *indptr,
                             cmrs_index_type t)
{
    for (int64_t i = 0; i <= A->rows; ++i)
        A->indptr[i] = t == CMRS_INDEX_INT64 ? ((const int64_t *)indptr)[i]
                                             : ((const int32_t *)indptr)[i];
    return CMRS_OK; /* checked with the rest by cmrs_csr_validate */
}

/* int64 indices must fit the library's 32-bit column indices. */
static cmrs_code copy_indices(cmrs_csr *A, const void *indices,
                              cmrs_index_type t)
{
    if (t == CMRS_INDEX_INT32) {
        memcpy(A->indices, indices, (size_t)A->nnz * sizeof(int32_t));
        return CMRS_OK;
    }
    const int64_t *in = indices;
    for (int64_t k = 0; k < A->nnz; ++k) {
        CMRS_ENSURE(in[k] >= INT32_MIN && in[k] <= INT32_MAX, CMRS_E_INPUT,
                    "matrix: column index %lld (entry %lld) is out of range "
                    "[0, %lld)", (long long)in[k], (long long)k,
                    (long long)A->cols);
        A->indices[k] = (int32_t)in[k];
    }
    return CMRS_OK;
}

/* n values of type t into out as doubles (finiteness: validate's). */
void cmrs_api_values_to_double(const void *values, cmrs_value_type t,
                               int64_t n, double *out)
{
    if (t == CMRS_VALUE_FLOAT64) {
        memcpy(out, values, (size_t)n * sizeof(double));
        return;
    }
    for (int64_t k = 0; k < n; ++k) out[k] = ((const float *)values)[k];
}

cmrs_code cmrs_api_check_types(cmrs_index_type it, cmrs_value_type vt)
{
    CMRS_ENSURE(it == CMRS_INDEX_INT32 || it == CMRS_INDEX_INT64,
                CMRS_E_USAGE, "index type %d: use CMRS_INDEX_INT32 or "
                "CMRS_INDEX_INT64", (int)it);
    CMRS_ENSURE(vt == CMRS_VALUE_FLOAT64 || vt == CMRS_VALUE_FLOAT32,
                CMRS_E_USAGE, "value type %d: use CMRS_VALUE_FLOAT64 or "
                "CMRS_VALUE_FLOAT32", (int)vt);
    return CMRS_OK;
}

cmrs_code cmrs_api_csr_copy(int64_t rows, int64_t cols, int64_t nnz,
                            const void *indptr, const void *indices,
                            cmrs_index_type it, const void *values,
                            cmrs_value_type vt, cmrs_csr *A)
{
    cmrs_code rc = CMRS_OK;
    CMRS_CHECK(check_sizes(rows, cols, nnz));
    CMRS_CHECK(cmrs_api_check_types(it, vt));
    CMRS_ENSURE(indptr && (nnz == 0 || (indices && values)), CMRS_E_USAGE,
                "cmrs_matrix_create_csr: indptr, indices or values is NULL");
    CMRS_CHECK(cmrs_csr_alloc(A, rows, cols, nnz));
    CMRS_TRY(copy_indptr(A, indptr, it));
    CMRS_TRY(copy_indices(A, indices, it));
    if (nnz > 0) cmrs_api_values_to_double(values, vt, nnz, A->values);
    CMRS_TRY(cmrs_csr_validate(A, "matrix"));
    return CMRS_OK;
done:
    cmrs_csr_free(A);
    return rc;
}
