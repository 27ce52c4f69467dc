/* --kernel-choice measure: the SpMV layout and kernel of the "cmrs" format
 * chosen by timing on the matrix instead of by the rules fitted to
 * structured grids (spmv/cmrs/cmrs_rules.h). The candidates are the CMRS
 * variants the binary has: the rules' layout, the same with strips of one
 * width toggled (CMRS-U on / off), and the modified kernel of paper 000
 * §6.7 (cmrs-mod's buffered layout), screened by the row lengths' spread:
 * where they spread (FEM) the rules' layout against cmrs-mod, where they
 * do not against the one-width toggle (kernel_choice.c says what each
 * measured). The rules' candidate is built as the solver's back end from
 * A (the setup itself); the other is made on the GPU from that back end's
 * device copy of A (no second upload; cmrs-mod's layout is built there
 * too) and timed as the solver will run it: the solve the options
 * describe (its engine: the fused kernels with the SpMV's p'q epilogue
 * where the format has one), from the back end's start vector as b, 20
 * iterations after a warm-up of 10, without the true residual or x's
 * download; with a preconditioner that applies A in its own V-cycle or
 * polynomial (amg, chebyshev), the SpMV alone. The challenger replaces
 * the rules' back end only when 1% faster; the loser is freed at once.
 * It is not made once `budget` seconds are spent after the rules' back
 * end. A choice is remembered for the process by the matrix's signature
 * (rows, entries, row-length histogram, distance of the columns from the
 * diagonal, precision, method, preconditioner, engine, the layout
 * settings the caller fixed): a repeated setup of the same pattern builds
 * the winner only. */
#ifndef CMRS_API_KERNEL_CHOICE_H
#define CMRS_API_KERNEL_CHOICE_H

#include <stdint.h>

#include "solver/ksp.h"

#define CMRS_CHOICE_MAX 2 /* candidates: the rules' and one challenger */

typedef struct cmrs_choice_result {
    int tried;                     /* candidates timed in this search (0:
                                      taken from the cache, or the rules'
                                      had no challenger: name[0]) */
    int chosen;                    /* index of the winner in name[] */
    int cached;                    /* 1: the signature cache answered */
    int spmv_only;                 /* 1: timed by the SpMV alone */
    int irregular;                 /* 1: the row lengths spread (the
                                      challenger: cmrs-mod), 0: they do
                                      not (the one-width toggle, if any) */
    char name[CMRS_CHOICE_MAX][32];/* "cmrs", "cmrs one-width on", ... */
    double t_iter[CMRS_CHOICE_MAX];/* s per iteration (or per SpMV); NaN:
                                      not timed */
    double build_s[CMRS_CHOICE_MAX];  /* making the variant (0: the
                                         rules', the setup's own) */
    double timing_s[CMRS_CHOICE_MAX]; /* timing it (solves and their
                                         solver's making) */
    double cost_s;                 /* wall time of the search beyond the
                                      rules' back end (0: cached) */
} cmrs_choice_result;

/* The back end for A (*be) in `prec` from the format "cmrs" with opts,
 * chosen as above among its variants; ksp: the solve's options. */
cmrs_code cmrs_choose_backend(const cmrs_csr *A, cmrs_prec prec,
                              const cmrs_spmv_opts *opts,
                              const cmrs_ksp_opts *ksp, double budget_s,
                              cmrs_backend **be, cmrs_choice_result *res);

/* Forgets every remembered choice (tests). */
void cmrs_choice_cache_clear(void);

/* Choices kept across processes (opt-in: CMRS_KERNEL_CHOICE_CACHE=FILE;
 * parameter studies run one process per solve): one line per choice,
 * "cmrs-choice VERSION SIGNATURE FORMAT SLICE DEVICE", appended in one
 * write; the last line of a signature, cmrs version and GPU name wins.
 * A file that cannot be read or written is no cache (the search runs);
 * malformed lines are skipped. find: 1 and the candidate (format "cmrs"
 * or "cmrs-mod", slice -1/0/1) when the file has it, else 0. put: 1 when
 * the line was written. */
int cmrs_choice_file_find(const char *path, uint64_t sig, const char *device,
                          char format[16], int *slice);
int cmrs_choice_file_put(const char *path, uint64_t sig, const char *device,
                         const char *format, int slice);

#endif
