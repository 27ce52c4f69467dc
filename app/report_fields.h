/* The members of a report as data: each a key and a typed value, or
 * missing. A report lists its members in one table, in output order, and
 * one loop writes them (JSON here: app_json_fields; `cmrs sweep` writes its
 * CSV columns from the same table), so that a missing value is one entry
 * (the _IF initialisers) rather than an if/else around two writer calls. */
#ifndef CMRS_APP_REPORT_FIELDS_H
#define CMRS_APP_REPORT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "io/json.h"

typedef enum app_field_type {
    APP_FIELD_NULL,  /* missing: JSON null */
    APP_FIELD_NUM,   /* num; NaN and infinities are null too (io/json.h) */
    APP_FIELD_INT,   /* i */
    APP_FIELD_BOOL,  /* i: 0 is false */
    APP_FIELD_STR,   /* str; NULL is null */
    APP_FIELD_OBJECT /* the n members of fields, nested */
} app_field_type;

typedef struct app_field {
    const char *key;
    app_field_type type;
    double num;
    int64_t i;
    const char *str;
    const struct app_field *fields;
    size_t n;
} app_field;

/* Table entries; the _IF forms are null unless `known`. */
#define APP_NUM(k, v) {.key = (k), .type = APP_FIELD_NUM, .num = (v)}
#define APP_INT(k, v) {.key = (k), .type = APP_FIELD_INT, .i = (v)}
#define APP_BOOL(k, v) {.key = (k), .type = APP_FIELD_BOOL, .i = (v)}
#define APP_STR(k, v) {.key = (k), .type = APP_FIELD_STR, .str = (v)}
#define APP_NUM_IF(known, k, v)                                             \
    {.key = (k), .type = (known) ? APP_FIELD_NUM : APP_FIELD_NULL, .num = (v)}
#define APP_INT_IF(known, k, v)                                             \
    {.key = (k), .type = (known) ? APP_FIELD_INT : APP_FIELD_NULL, .i = (v)}
#define APP_STR_IF(known, k, v)                                             \
    {.key = (k), .type = (known) ? APP_FIELD_STR : APP_FIELD_NULL, .str = (v)}

/* The entries of a table (an array, not a pointer). */
#define APP_FIELDS_LEN(table) (sizeof(table) / sizeof((table)[0]))
/* A nested object: the members of table, an array of app_field. */
#define APP_OBJECT(k, table)                                                \
    {.key = (k), .type = APP_FIELD_OBJECT, .fields = (table),               \
     .n = APP_FIELDS_LEN(table)}

/* Writes fields[0..n) as members of j's current object. */
void app_json_fields(cmrs_json *j, const app_field *fields, size_t n);
/* The same as the members of a new object under key (NULL in an array). */
void app_json_object(cmrs_json *j, const char *key, const app_field *fields,
                     size_t n);

#endif
