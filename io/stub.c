/* Placeholders until the HDF5 / Matrix Market readers land. */
#include <stdlib.h>
#include "h5_out.h"
#include "system.h"

cmrs_code cmrs_system_read(const char *path, const cmrs_read_opts *opts, cmrs_system *sys)
{ (void)path; (void)opts; (void)sys; CMRS_FAIL(CMRS_E_INTERNAL, "read: not implemented"); }
void cmrs_system_free(cmrs_system *sys)
{ cmrs_csr_free(&sys->A); free(sys->b); free(sys->x0); sys->b = sys->x0 = NULL; }
cmrs_code cmrs_system_write(const char *path, const cmrs_system *sys, const char *input_path)
{ (void)path; (void)sys; (void)input_path; CMRS_FAIL(CMRS_E_INTERNAL, "write: not implemented"); }
cmrs_code cmrs_h5_out_open(cmrs_h5_out *o, const char *path, const char *input_path)
{ (void)o; (void)path; (void)input_path; CMRS_FAIL(CMRS_E_INTERNAL, "h5 out: not implemented"); }
cmrs_code cmrs_h5_out_commit(cmrs_h5_out *o) { (void)o; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
void cmrs_h5_out_abort(cmrs_h5_out *o) { (void)o; }
cmrs_code cmrs_h5_write_f64(cmrs_h5_out *o, const char *name, const double *v, int64_t n)
{ (void)o; (void)name; (void)v; (void)n; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
cmrs_code cmrs_h5_write_csr(cmrs_h5_out *o, const char *group, const cmrs_csr *A)
{ (void)o; (void)group; (void)A; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
cmrs_code cmrs_h5_attr_str(cmrs_h5_out *o, const char *obj, const char *name, const char *value)
{ (void)o; (void)obj; (void)name; (void)value; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
cmrs_code cmrs_h5_attr_f64(cmrs_h5_out *o, const char *obj, const char *name, double value)
{ (void)o; (void)obj; (void)name; (void)value; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
cmrs_code cmrs_h5_attr_i64(cmrs_h5_out *o, const char *obj, const char *name, int64_t value)
{ (void)o; (void)obj; (void)name; (void)value; CMRS_FAIL(CMRS_E_INTERNAL, "not implemented"); }
