#include "json.h"

#include <math.h>

void cmrs_json_init(cmrs_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->count[0] = 0;
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* Comma, newline and indentation before an item, then "key": if any. */
static void item(cmrs_json *j, const char *key)
{
    if (j->count[j->depth]++ > 0) fputc(',', j->f);
    if (j->depth > 0) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; ++i) fputs("  ", j->f);
    }
    if (key) {
        put_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void json_open(cmrs_json *j, const char *key, char c)
{
    item(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < CMRS_JSON_DEPTH) j->count[++j->depth] = 0;
}

static void json_close(cmrs_json *j, char c)
{
    int had_items = j->count[j->depth] > 0;
    if (j->depth > 0) --j->depth;
    if (had_items) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; ++i) fputs("  ", j->f);
    }
    fputc(c, j->f);
    if (j->depth == 0) fputc('\n', j->f);
}

void cmrs_json_object_begin(cmrs_json *j, const char *key) { json_open(j, key, '{'); }
void cmrs_json_object_end(cmrs_json *j) { json_close(j, '}'); }
void cmrs_json_array_begin(cmrs_json *j, const char *key) { json_open(j, key, '['); }
void cmrs_json_array_end(cmrs_json *j) { json_close(j, ']'); }

void cmrs_json_str(cmrs_json *j, const char *key, const char *value)
{
    item(j, key);
    if (value) put_string(j->f, value);
    else fputs("null", j->f);
}

void cmrs_json_num(cmrs_json *j, const char *key, double value)
{
    item(j, key);
    if (isfinite(value)) fprintf(j->f, "%.17g", value);
    else fputs("null", j->f);
}

void cmrs_json_int(cmrs_json *j, const char *key, int64_t value)
{
    item(j, key);
    fprintf(j->f, "%lld", (long long)value);
}

void cmrs_json_bool(cmrs_json *j, const char *key, int value)
{
    item(j, key);
    fputs(value ? "true" : "false", j->f);
}

void cmrs_json_null(cmrs_json *j, const char *key)
{
    item(j, key);
    fputs("null", j->f);
}
