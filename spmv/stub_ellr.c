/* Placeholder for the 'ellr' format until its real file lands: delete this
 * file when spmv/ defines cmrs_spmv_ellr. */
#include "spmv.h"

static cmrs_code stub_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    (void)A;
    CMRS_FAIL(CMRS_E_INTERNAL, "format %s: not implemented", self->ops->name);
}
static cmrs_code stub_apply(cmrs_spmv *self, double alpha, const void *x_d,
                            double beta, void *y_d)
{
    (void)self; (void)alpha; (void)x_d; (void)beta; (void)y_d;
    CMRS_FAIL(CMRS_E_INTERNAL, "not implemented");
}
static void stub_destroy(cmrs_spmv *self) { (void)self; }
const cmrs_spmv_ops cmrs_spmv_ellr = {"ellr", "placeholder", stub_setup,
                                     stub_apply, stub_destroy};
