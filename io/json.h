/* A minimal streaming JSON writer for reports (--json). Keys are NULL inside
 * arrays and at top level. Non-finite numbers are written as null. */
#ifndef CMRS_JSON_H
#define CMRS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define CMRS_JSON_DEPTH 16

typedef struct cmrs_json {
    FILE *f;
    int depth;
    int count[CMRS_JSON_DEPTH]; /* items written at each level */
} cmrs_json;

void cmrs_json_init(cmrs_json *j, FILE *f);
void cmrs_json_object_begin(cmrs_json *j, const char *key);
void cmrs_json_object_end(cmrs_json *j);
void cmrs_json_array_begin(cmrs_json *j, const char *key);
void cmrs_json_array_end(cmrs_json *j);
void cmrs_json_str(cmrs_json *j, const char *key, const char *value);
void cmrs_json_num(cmrs_json *j, const char *key, double value);
void cmrs_json_int(cmrs_json *j, const char *key, int64_t value);
void cmrs_json_bool(cmrs_json *j, const char *key, int value);
void cmrs_json_null(cmrs_json *j, const char *key);

#endif
