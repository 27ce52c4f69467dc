/* Placeholders until the formats land (each replaced by its own file). */
#include "spmv.h"

static cmrs_code stub_setup(cmrs_spmv *self, const cmrs_csr *A)
{ (void)A; CMRS_FAIL(CMRS_E_INTERNAL, "format %s: not implemented", self->ops->name); }
static cmrs_code stub_apply(cmrs_spmv *self, double alpha, const void *x_d, double beta, void *y_d)
{ (void)self; (void)alpha; (void)x_d; (void)beta; (void)y_d; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
static void stub_destroy(cmrs_spmv *self) { (void)self; }
#define STUB(sym, nm) const cmrs_spmv_ops sym = {nm, "placeholder", stub_setup, stub_apply, stub_destroy};
STUB(cmrs_spmv_cmrs_basic, "cmrs")
STUB(cmrs_spmv_cmrs_mod, "cmrs-mod")
STUB(cmrs_spmv_cusparse, "cusparse")
STUB(cmrs_spmv_csr_scalar, "csr-scalar")
STUB(cmrs_spmv_csr_vector, "csr-vector")
