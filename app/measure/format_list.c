/* --formats of bench and sweep (format_list.h). */
#include "format_list.h"

#include <string.h>

#include "spmv/spmv.h"

void format_list_all(const char **formats, int cap, int *n)
{
    *n = 0;
    for (size_t i = 0; i < cmrs_spmv_format_count() && *n < cap; ++i)
        formats[(*n)++] = cmrs_spmv_format_at(i)->name;
}

/* Adds format `name` unless it is there already. */
static cmrs_code add_format(const char *opt, const char *name,
                            const char **formats, int cap, int *n)
{
    const cmrs_spmv_ops *ops = cmrs_spmv_format_find(name);
    CMRS_ENSURE(ops, CMRS_E_USAGE, "%s: unknown format '%s' (known: %s)", opt,
                name, cmrs_spmv_format_names());
    for (int i = 0; i < *n; ++i)
        if (formats[i] == ops->name) return CMRS_OK;
    CMRS_ENSURE(*n < cap, CMRS_E_USAGE, "%s: more than %d formats", opt, cap);
    formats[(*n)++] = ops->name;
    return CMRS_OK;
}

cmrs_code format_list_parse(const char *opt, const char *list, int empty_ok,
                            const char **formats, int cap, int *n)
{
    char buf[512];
    CMRS_ENSURE(*list && strlen(list) < sizeof buf, CMRS_E_USAGE,
                "%s: empty or overlong list", opt);
    strcpy(buf, list);
    *n = 0;
    for (char *p = buf, *comma; p; p = comma ? comma + 1 : NULL) {
        comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p && empty_ok) continue;
        CMRS_ENSURE(*p, CMRS_E_USAGE, "%s: empty name in '%s'", opt, list);
        CMRS_CHECK(add_format(opt, p, formats, cap, n));
    }
    CMRS_ENSURE(*n > 0, CMRS_E_USAGE, "%s: empty list", opt);
    return CMRS_OK;
}
