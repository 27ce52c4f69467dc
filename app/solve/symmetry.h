/* The CLI's "the matrix is not symmetric: CG may fail" warning, checked in
 * a helper thread while the solver is set up and solves (printed before
 * the command's report): the check looks up (j, i)
 * for every entry (i, j), and on a 3M-row, 46M-entry FEM matrix that was
 * most of the ~2.5 s a cold `cmrs solve` spent outside its timed phases
 * (H100 machine, docs/BENCHMARKS.md); joined after setup only, it still
 * cost ~0.8 s there when setup was short (Jacobi). */
#ifndef CMRS_APP_SYMMETRY_H
#define CMRS_APP_SYMMETRY_H

#include "base/csr.h"

/* Starts the check of A (read only: nothing may write A until
 * symmetry_finish); without a thread, checks here. At most one check at a
 * time per process. */
void symmetry_start(const cmrs_csr *A, const char *file);
/* Waits for it; warn = 1 prints the warning if A is not symmetric (a
 * failed command passes 0: its one error line is all it prints). Safe to
 * call when nothing was started, and more than once. */
void symmetry_finish(int warn);

#endif
