/* Placeholders until the generators land: delete when cases/ defines them. */
#include "cases.h"

cmrs_code cmrs_gen_vessel(const cmrs_vessel_opts *o, cmrs_system *sys)
{ (void)o; (void)sys; CMRS_FAIL(CMRS_E_INTERNAL, "vessel: not implemented"); }
cmrs_code cmrs_gen_poisson3d(const cmrs_poisson_opts *o, cmrs_system *sys)
{ (void)o; (void)sys; CMRS_FAIL(CMRS_E_INTERNAL, "poisson3d: not implemented"); }
cmrs_code cmrs_gen_convdiff(const cmrs_convdiff_opts *o, cmrs_system *sys)
{ (void)o; (void)sys; CMRS_FAIL(CMRS_E_INTERNAL, "convdiff: not implemented"); }
cmrs_code cmrs_reorder(cmrs_system *sys, cmrs_order order, uint64_t seed)
{ (void)sys; (void)order; (void)seed; CMRS_FAIL(CMRS_E_INTERNAL, "reorder: not implemented"); }
