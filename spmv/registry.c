/* The format registry: the one list of SpMV back ends, their names, the
 * byte-count helpers over cmrs_spmv_ops and the formats' host helpers
 * (padding limit, index pattern). Host code (a build without CUDA lists
 * the same names: spmv/nocuda/spmv_none.c); the generic create, apply,
 * update and destroy are in instance.c. Adding a format = one extern line
 * and one table entry here. */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "spmv.h"

extern const cmrs_spmv_ops cmrs_spmv_cmrs_basic;
extern const cmrs_spmv_ops cmrs_spmv_cmrs_mod;
extern const cmrs_spmv_ops cmrs_spmv_cusparse;
extern const cmrs_spmv_ops cmrs_spmv_csr_scalar;
extern const cmrs_spmv_ops cmrs_spmv_csr_vector;
extern const cmrs_spmv_ops cmrs_spmv_hyb;
extern const cmrs_spmv_ops cmrs_spmv_ellr;
extern const cmrs_spmv_ops cmrs_spmv_sell;
extern const cmrs_spmv_ops cmrs_spmv_argcsr;
extern const cmrs_spmv_ops cmrs_spmv_csrb;

static const cmrs_spmv_ops *const k_formats[] = {
    &cmrs_spmv_cmrs_basic, &cmrs_spmv_cmrs_mod, &cmrs_spmv_cusparse,
    &cmrs_spmv_csr_scalar, &cmrs_spmv_csr_vector, &cmrs_spmv_hyb,
    &cmrs_spmv_ellr, &cmrs_spmv_sell, &cmrs_spmv_argcsr, &cmrs_spmv_csrb,
    NULL
};
#define N_FORMATS (sizeof k_formats / sizeof k_formats[0] - 1)

size_t cmrs_prec_value_bytes(cmrs_prec p)
{
    return p == CMRS_PREC_SINGLE ? sizeof(float) : sizeof(double);
}

double cmrs_prec_value_at(cmrs_prec p, const void *values, int64_t i)
{
    return p == CMRS_PREC_SINGLE ? ((const float *)values)[i]
                                 : ((const double *)values)[i];
}

double cmrs_prec_unit_roundoff(cmrs_prec p)
{
    return p == CMRS_PREC_SINGLE ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
}

const char *cmrs_prec_name(cmrs_prec p)
{
    return p == CMRS_PREC_SINGLE ? "single" : "double";
}

size_t cmrs_spmv_format_count(void) { return N_FORMATS; }

const cmrs_spmv_ops *cmrs_spmv_format_at(size_t i)
{
    return i < N_FORMATS ? k_formats[i] : NULL;
}

const cmrs_spmv_ops *cmrs_spmv_format_find(const char *name)
{
    for (size_t i = 0; i < N_FORMATS; ++i)
        if (strcmp(k_formats[i]->name, name) == 0) return k_formats[i];
    return NULL;
}

const char *cmrs_spmv_format_names(void)
{
    static char names[256];
    if (names[0]) return names;
    for (size_t i = 0; i < N_FORMATS; ++i) {
        strncat(names, i ? "," : "", sizeof names - strlen(names) - 1);
        strncat(names, k_formats[i]->name, sizeof names - strlen(names) - 1);
    }
    return names;
}

/* Bytes of a stored value (sm) and of a vector entry (sx); float values
 * under double vectors (values32) add a 4-byte correction per row. */
static double value_bytes(const cmrs_spmv *s, double *sx, double *per_row)
{
    *sx = (double)cmrs_prec_value_bytes(s->prec);
    *per_row = s->opts.values32 > 0 ? 4.0 : 0.0;
    return s->opts.values32 > 0 ? 4.0 : *sx;
}

/* Paper 000 eq. (6.1) with 4-byte indices and sv-byte values. */
double cmrs_spmv_beta_plus(const cmrs_spmv *s)
{
    double sx, corr, sm = value_bytes(s, &sx, &corr);
    return (sm + 4) * (double)s->nnz + 4.0 * (double)(s->strips + 1) +
           (2 * sx + corr) * (double)s->rows;
}

double cmrs_spmv_beta_minus(const cmrs_spmv *s)
{
    double sx, corr, sm = value_bytes(s, &sx, &corr);
    return (sm + sx + 4) * (double)s->nnz + 4.0 * (double)(s->strips + 1) +
           (sx + corr) * (double)s->rows;
}

cmrs_code cmrs_check_padding(const char *format, int64_t stored, int64_t nnz,
                             int64_t rows)
{
    double limit = CMRS_MAX_PADDING_RATIO * (double)nnz + 1024.0;
    CMRS_ENSURE((double)stored <= limit, CMRS_E_LIMIT,
                "%s: padding would store %lld entries for %lld nonzeros in %lld "
                "rows (more than %.0fx): rows are too uneven for this format; "
                "use cmrs or a CSR format", format, (long long)stored,
                (long long)nnz, (long long)rows, CMRS_MAX_PADDING_RATIO);
    return CMRS_OK;
}

cmrs_code cmrs_csr_index_pattern(const cmrs_csr *A, cmrs_csr *idx)
{
    *idx = *A;
    idx->values = NULL;
    CMRS_ENSURE(A->nnz <= INT32_MAX, CMRS_E_LIMIT, "%lld entries: the value "
                "permutation is 32-bit", (long long)A->nnz);
    idx->values = cmrs_malloc_array((size_t)A->nnz, sizeof(double));
    CMRS_ENSURE(idx->values, CMRS_E_NOMEM, "cannot allocate %lld entry "
                "numbers", (long long)A->nnz);
    for (int64_t k = 0; k < A->nnz; ++k) idx->values[k] = (double)(k + 1);
    return CMRS_OK;
}
