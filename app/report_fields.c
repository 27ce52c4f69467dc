/* Reports' members written from tables (report_fields.h). */
#include "report_fields.h"

static void json_field(cmrs_json *j, const app_field *f)
{
    switch (f->type) {
    case APP_FIELD_NULL: cmrs_json_null(j, f->key); return;
    case APP_FIELD_NUM: cmrs_json_num(j, f->key, f->num); return;
    case APP_FIELD_INT: cmrs_json_int(j, f->key, f->i); return;
    case APP_FIELD_BOOL: cmrs_json_bool(j, f->key, f->i != 0); return;
    case APP_FIELD_STR: cmrs_json_str(j, f->key, f->str); return;
    case APP_FIELD_OBJECT: app_json_object(j, f->key, f->fields, f->n); return;
    }
}

void app_json_fields(cmrs_json *j, const app_field *fields, size_t n)
{
    for (size_t k = 0; k < n; ++k) json_field(j, &fields[k]);
}

void app_json_object(cmrs_json *j, const char *key, const app_field *fields,
                     size_t n)
{
    cmrs_json_object_begin(j, key);
    app_json_fields(j, fields, n);
    cmrs_json_object_end(j);
}
