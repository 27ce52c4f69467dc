/* The names, parsers and defaults of ksp.h. */
#include <string.h>

#include "ksp.h"

const char *cmrs_ksp_reason_name(cmrs_ksp_reason r)
{
    static const char *const names[] = {
        "ITERATING", "CONVERGED_RTOL", "CONVERGED_ATOL", "DIVERGED_MAXITS",
        "DIVERGED_BREAKDOWN", "DIVERGED_NANORINF"};
    return (unsigned)r < sizeof names / sizeof *names ? names[r] : "UNKNOWN";
}

const char *cmrs_method_name(cmrs_method m)
{
    return m == CMRS_METHOD_BICGSTAB ? "bicgstab" : "cg";
}

static const char *const k_engine_names[] = {"auto", "cublas", "graph",
                                             "fused"};

const char *cmrs_engine_name(cmrs_engine e)
{
    return (unsigned)e < 4 ? k_engine_names[e] : "unknown";
}

const char *cmrs_engine_label(cmrs_engine e, const cmrs_backend *be)
{
    return strcmp(be->ops->name, "gpu") != 0 && e == CMRS_ENGINE_CUBLAS
               ? "reference"
               : cmrs_engine_name(e);
}

cmrs_code cmrs_engine_parse(const char *text, cmrs_engine *e)
{
    for (int i = 0; i < 4; ++i)
        if (strcmp(text, k_engine_names[i]) == 0) {
            *e = (cmrs_engine)i;
            return CMRS_OK;
        }
    CMRS_FAIL(CMRS_E_USAGE, "unknown engine '%s' (known: auto, cublas, "
              "graph, fused)", text);
}

const char *cmrs_mixed_name(cmrs_mixed m)
{
    static const char *const names[] = {"off", "auto", "refine", "precond",
                                        "values"};
    return (unsigned)m < 5 ? names[m] : "unknown";
}

const char *cmrs_precision_label(cmrs_prec prec, cmrs_mixed m)
{
    return m != CMRS_MIXED_OFF ? "mixed" : cmrs_prec_name(prec);
}

int cmrs_ksp_reason_converged(cmrs_ksp_reason r)
{
    return r == CMRS_CONVERGED_RTOL || r == CMRS_CONVERGED_ATOL;
}

int cmrs_ksp_reason_exit_code(cmrs_ksp_reason r)
{
    if (cmrs_ksp_reason_converged(r)) return CMRS_EXIT_OK;
    return r == CMRS_DIVERGED_MAXITS ? CMRS_EXIT_NOT_CONVERGED
                                     : CMRS_EXIT_BREAKDOWN;
}

void cmrs_ksp_opts_default(cmrs_ksp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = CMRS_METHOD_CG;
    o->pc = CMRS_PC_JACOBI;
    cmrs_pc_opts_default(&o->pco);
    o->rtol = 1e-8;
    o->atol = 0.0;
}

int64_t cmrs_default_maxiter(int64_t n)
{
    int64_t cap = 100000;
    return n > cap / 10 ? cap : (n < 1 ? 10 : 10 * n);
}

/* Iterations per status read when check_every is 0: long enough that one
 * status read (a host round trip, ~10-20 us) is a few percent of a block
 * even on small systems, short enough that the no-op iterations after
 * the stop cost little ... */
#define DEFAULT_CHECK_EVERY 32
/* ... except where the preconditioner's apply does not read the device
 * state (amg, chebyshev: their kernels are the levels' own), so that an
 * iteration after the stop still runs a whole V-cycle or polynomial:
 * measured on an H100 (docs/BENCHMARKS.md "Iterations per graph replay"),
 * AMG's solve phase took 0.0648 s at 32 against 0.0421 at 2 (vessel 5M,
 * 20 iterations), 0.1101 against 0.0516 (Poisson 200^3, 14), and a
 * V-cycle (0.3-4 ms) dwarfs a status read. Chebyshev's best was 4-8. */
#define AMG_CHECK_EVERY 2
#define CHEBYSHEV_CHECK_EVERY 8

int cmrs_ksp_check_every(const cmrs_ksp_opts *o)
{
    if (o->check_every > 0) return o->check_every;
    if (o->pc == CMRS_PC_AMG) return AMG_CHECK_EVERY;
    if (o->pc == CMRS_PC_CHEBYSHEV) return CHEBYSHEV_CHECK_EVERY;
    return DEFAULT_CHECK_EVERY;
}
