/* `--height auto`: a short timed search for the strip height (and block
 * size) of a CMRS format on the actual matrix and GPU.
 *
 * Candidates: the default height first (cmrs_default_height, model.h: 16,
 * also cmrs-mod's), then the others from tall to short (taller strips need
 * fewer pointer bytes; the default tile kernel's cost does not otherwise
 * depend on h), so a small budget still covers the likely winners.
 * Each candidate is set up (convert + upload) and timed with CUDA events;
 * the search stops once the budget (seconds of wall time) is spent, after
 * at least one candidate. If none could be measured, the result falls back
 * to cmrs_default_height. */
#ifndef CMRS_AUTOTUNE_H
#define CMRS_AUTOTUNE_H

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMRS_TUNE_BUDGET_DEFAULT 1.0 /* seconds */
#define CMRS_TUNE_MAX_CANDIDATES 32  /* 16 heights x block sizes 128, 256 */

typedef struct cmrs_tune_result {
    int height, block_size;  /* chosen (block_size 0: the format default) */
    double time_s;           /* median SpMV time of the choice; NaN on
                                fallback */
    double cost_s;           /* wall time the search took */
    int tried;               /* candidates measured */
    int fell_back;           /* 1: nothing measured, default height */
} cmrs_tune_result;

/* Heights 1..16 in the order they are tried for mean row length mu (the
 * default first, then 16 down to 1). Returns 16. */
int cmrs_tune_height_order(double mu, int heights[16]);

/* Searches heights (and, when base->block_size is 0, block sizes 128 and
 * 256) of `format` for A in prec; other knobs of base are kept. Needs a
 * GPU; a failing candidate is skipped (error state cleared). */
cmrs_code cmrs_autotune(const cmrs_csr *A, const char *format, cmrs_prec prec,
                        const cmrs_spmv_opts *base, double budget_s,
                        cmrs_tune_result *out);

#ifdef __cplusplus
}
#endif

#endif
