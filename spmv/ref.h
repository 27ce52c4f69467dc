/* CPU reference: plain C CSR SpMV and vector operations in double. The ground
 * truth every GPU kernel and solver is tested against; kept obviously
 * correct rather than fast. */
#ifndef CMRS_REF_H
#define CMRS_REF_H

#include <stdint.h>

#include "base/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = alpha*A*x + beta*y. With beta == 0, y is not read. */
void cmrs_ref_spmv(const cmrs_csr *A, double alpha, const double *x,
                   double beta, double *y);
double cmrs_ref_dot(int64_t n, const double *x, const double *y);
double cmrs_ref_nrm2(int64_t n, const double *x);
void cmrs_ref_axpy(int64_t n, double a, const double *x, double *y);
void cmrs_ref_scal(int64_t n, double a, double *x);
void cmrs_ref_copy(int64_t n, const double *x, double *y);
/* max_i |a_i - b_i| / max(max_i |b_i|, tiny): the test error measure. */
double cmrs_ref_rel_err(int64_t n, const double *a, const double *b);

#ifdef __cplusplus
}
#endif

#endif
