/* Checks shared by the HDF5 and Matrix Market readers. */
#include <math.h>
#include <unistd.h>

#include "readers.h"

static double g_memory_limit; /* 0: physical memory */

void cmrs_set_memory_limit(double bytes) { g_memory_limit = bytes; }

static double memory_limit(void)
{
    if (g_memory_limit > 0) return g_memory_limit;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 1e300; /* unknown: malloc decides */
    return (double)pages * (double)page;
}

cmrs_code cmrs_check_memory(const char *name, const char *what, double bytes)
{
    double limit = memory_limit();
    CMRS_ENSURE(bytes <= limit, CMRS_E_LIMIT,
                "%s: %s needs %.3g GB, more than the %.3g GB of memory of "
                "this machine (a corrupt size?)", name, what, bytes / 1e9,
                limit / 1e9);
    return CMRS_OK;
}

double cmrs_csr_bytes(int64_t rows, int64_t nnz, int vectors)
{
    return ((double)rows + 1) * 8.0 + (double)nnz * 12.0 +
           (double)vectors * (double)rows * 8.0;
}

cmrs_code cmrs_check_finite(const char *name, const char *what,
                            const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        CMRS_ENSURE(isfinite(v[i]), CMRS_E_INPUT, "%s: %s[%lld] is %g (not "
                    "finite)", name, what, (long long)i, v[i]);
    return CMRS_OK;
}

int cmrs_csr_is_sorted(const cmrs_csr *A)
{
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i] + 1; k < A->indptr[i + 1]; ++k)
            if (A->indices[k - 1] >= A->indices[k]) return 0;
    return 1;
}
