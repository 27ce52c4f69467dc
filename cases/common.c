#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"

cmrs_code cases_check_memory(const char *kind, const char *option,
                             double rows, double nnz, double bytes)
{
    char name[64], what[192];
    snprintf(name, sizeof name, "gen %s", kind);
    snprintf(what, sizeof what, "%s (about %.0f rows and %.0f nonzeros)",
             option, rows, nnz);
    CMRS_CHECK(cmrs_check_memory(name, what, bytes));
    return CMRS_OK;
}

cmrs_code cases_alloc_rhs(cmrs_system *sys, const char *kind)
{
    sys->b = calloc(sys->A.rows ? (size_t)sys->A.rows : 1, sizeof(double));
    CMRS_ENSURE(sys->b, CMRS_E_NOMEM, "%s: cannot allocate b of %lld entries",
                kind, (long long)sys->A.rows);
    return CMRS_OK;
}

cmrs_code cases_finish(cmrs_system *sys, const char *kind)
{
    char what[64];
    snprintf(what, sizeof what, "generated %s: /A", kind);
    cmrs_code rc = cmrs_csr_validate(&sys->A, what);
    if (rc == CMRS_E_INPUT) { /* keep the message: it is our bug, not input */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cmrs_error_message());
        CMRS_FAIL(CMRS_E_INTERNAL, "%s (a bug in the generator)", msg);
    }
    CMRS_CHECK(rc);
    sys->b_generated = 0;
    snprintf(sys->layout, sizeof sys->layout, "native");
    return CMRS_OK;
}
