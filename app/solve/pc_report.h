/* How `cmrs solve` and `cmrs compare` report a preconditioner: the AMG
 * hierarchy (levels, rows, nnz, nnz/row, format, rho, V-cycle time per
 * level), complexities and setup phases; Chebyshev's interval. */
#ifndef CMRS_APP_PC_REPORT_H
#define CMRS_APP_PC_REPORT_H

#include <stdio.h>

#include "io/json.h"
#include "solver/pc/precond.h"

/* Indented lines for the summary; nothing for jacobi and none. */
void pc_report_print(FILE *f, const cmrs_precond *pc);
/* A "preconditioner_info" object (always written, empty fields for the
 * single-level ones). */
void pc_report_json(cmrs_json *j, const cmrs_precond *pc);

#endif
