/* cmrs_mem_available and cmrs_check_memory (base/memory.h). */
#include "memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double g_memory_limit; /* 0: not set */

void cmrs_set_memory_limit(double bytes) { g_memory_limit = bytes; }

double cmrs_env_bytes(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end = NULL;
    double v = strtod(s, &end);
    return end != s && !*end && v > 0 ? v : 0;
}

/* MemAvailable of /proc/meminfo in bytes, else 0. */
static double meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(f);
    return kb > 0 ? kb * 1024.0 : 0;
}

double cmrs_mem_available(void)
{
    if (g_memory_limit > 0) return g_memory_limit;
    double v = cmrs_env_bytes("CMRS_MEM_AVAILABLE_BYTES");
    if (v > 0) return v;
    v = meminfo_available();
    if (v > 0) return v;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 1e300;
    return (double)pages * (double)page;
}

void cmrs_format_bytes(double bytes, char *buf, size_t n)
{
    if (bytes >= 1e9) snprintf(buf, n, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6) snprintf(buf, n, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3) snprintf(buf, n, "%.1f kB", bytes / 1e3);
    else snprintf(buf, n, "%.0f bytes", bytes);
}

cmrs_code cmrs_check_memory(const char *name, const char *what, double bytes)
{
    double avail = cmrs_mem_available();
    if (bytes <= avail) return CMRS_OK;
    char need[32], have[32];
    cmrs_format_bytes(bytes, need, sizeof need);
    cmrs_format_bytes(avail, have, sizeof have);
    CMRS_FAIL(CMRS_E_NOMEM, "%s: %s needs about %s of host memory; %s "
              "available", name, what, need, have);
}

cmrs_code cmrs_alloc_both(void *a, void *b, const char *what)
{
    if (a && b) return CMRS_OK;
    free(a);
    free(b);
    CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %s", what);
}

void cmrs_free_each(void (*release)(void *), void *const *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) release(p[i]);
}
