/* From a run-time precision (cmrs_prec) to the element type of a template:
 * the one place that maps CMRS_PREC_SINGLE to float and anything else to
 * double, for the .cu files that instantiate a kernel or its host side
 * both ways. Element sizes are cmrs_prec_value_bytes (spmv.h). */
#ifndef CMRS_SPMV_PREC_CUH
#define CMRS_SPMV_PREC_CUH

#include "spmv/spmv.h"

/* Runs the statements `...` once, with T (a name of the caller's choice)
 * the type of prec's values. A statement, not an expression, so that
 * CMRS_CHECK, return and kernel launches may stand in it, e.g.
 *   CMRS_PREC_DISPATCH(self->prec, T, CMRS_CHECK(launch<T>(self)));
 * (variadic: commas in template arguments need no parentheses). */
#define CMRS_PREC_DISPATCH(prec, T, ...)                                    \
    do {                                                                    \
        if ((prec) == CMRS_PREC_SINGLE) {                                   \
            using T = float;                                                \
            __VA_ARGS__;                                                    \
        } else {                                                            \
            using T = double;                                               \
            __VA_ARGS__;                                                    \
        }                                                                   \
    } while (0)

#endif
