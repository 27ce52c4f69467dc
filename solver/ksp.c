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
