/* The sweep's CSV and JSON rows (sweep.h), written to .partial files as
 * they are produced, so an interrupted sweep keeps what it measured; the
 * final names appear together when the sweep completes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "io/outfile.h"
#include "app/report_fields.h"
#include "sweep.h"

void sweep_row_init(sweep_row *r)
{
    memset(r, 0, sizeof *r);
    r->mode = "spmv";
    r->precision = "double";
    r->status = "failed";
    r->mu = r->sigma = NAN;
    r->t_median = r->t_min = r->t_max = NAN;
    r->gflops = r->eta_plus = r->eta_minus = NAN;
    r->iterations = -1;
    r->true_rel = r->speedup = r->model_accel = r->tune_s = NAN;
}

/* A row's columns in output order: the CSV header, the CSV rows and the
 * JSON objects are all written from this one list (docs/SWEEP.md). */
#define SWEEP_COLUMNS 26

typedef struct sweep_columns {
    app_field c[SWEEP_COLUMNS];
} sweep_columns;

static sweep_columns row_columns(const sweep_row *r)
{
    const sweep_columns columns = {{
        APP_STR("file", r->file),
        APP_STR("mode", r->mode),
        APP_STR("format", r->format),
        APP_STR("precision", r->precision),
        APP_INT("height", r->height),
        APP_INT("block_size", r->block_size),
        APP_INT("modulo", r->modulo),
        APP_INT("sorted", r->sorted),
        APP_INT("rows", r->rows),
        APP_INT("nnz", r->nnz),
        APP_NUM("mu", r->mu),
        APP_NUM("sigma", r->sigma),
        APP_STR("status", r->status),
        APP_STR("error", r->error),
        APP_NUM("time_median_s", r->t_median),
        APP_NUM("time_min_s", r->t_min),
        APP_NUM("time_max_s", r->t_max),
        APP_NUM("gflops", r->gflops),
        APP_NUM("eta_plus", r->eta_plus),
        APP_NUM("eta_minus", r->eta_minus),
        APP_INT_IF(r->iterations >= 0, "iterations", r->iterations),
        APP_NUM("true_rel_residual", r->true_rel),
        APP_NUM("speedup_vs_cusparse", r->speedup),
        APP_NUM("model_accel", r->model_accel),
        APP_BOOL("height_auto", r->height_auto),
        APP_NUM("tune_s", r->tune_s),
    }};
    return columns;
}

/* A CSV text field, quoted when it holds a comma, quote or newline. */
static void put_csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* A column's field: a missing value, NaN or an infinity is empty; a
 * boolean is 0 or 1 as the row holds it. */
static void put_csv_field(FILE *f, const app_field *c)
{
    switch (c->type) {
    case APP_FIELD_NULL: return;
    case APP_FIELD_NUM:
        if (isfinite(c->num)) fprintf(f, "%.6g", c->num);
        return;
    case APP_FIELD_INT:
    case APP_FIELD_BOOL: fprintf(f, "%lld", (long long)c->i); return;
    case APP_FIELD_STR: put_csv_str(f, c->str ? c->str : ""); return;
    case APP_FIELD_OBJECT: return; /* none among the columns */
    }
}

void sweep_write_csv_header(FILE *f)
{
    sweep_row blank; /* the keys do not depend on the row */
    sweep_row_init(&blank);
    const sweep_columns h = row_columns(&blank);
    for (int i = 0; i < SWEEP_COLUMNS; ++i)
        fprintf(f, "%s%s", i ? "," : "", h.c[i].key);
    fputc('\n', f);
}

void sweep_write_csv_row(FILE *f, const sweep_row *r)
{
    const sweep_columns row = row_columns(r);
    for (int i = 0; i < SWEEP_COLUMNS; ++i) {
        if (i) fputc(',', f);
        put_csv_field(f, &row.c[i]);
    }
    fputc('\n', f);
}

static void json_row(cmrs_json *j, const sweep_row *r)
{
    const sweep_columns row = row_columns(r);
    app_json_object(j, NULL, row.c, SWEEP_COLUMNS);
}

static void write_json_rows(FILE *f, const sweep_out *o)
{
    cmrs_json j;
    cmrs_json_init(&j, f);
    cmrs_json_array_begin(&j, NULL);
    for (int i = 0; i < o->nrows; ++i) json_row(&j, &o->rows[i]);
    cmrs_json_array_end(&j);
}

cmrs_code sweep_out_partial_name(const char *path, char *buf, size_t n)
{
    int w = snprintf(buf, n, "%s.partial", path);
    CMRS_ENSURE(w > 0 && (size_t)w < n, CMRS_E_USAGE, "output path too "
                "long: %s", path);
    return CMRS_OK;
}

/* The whole array to a temporary name, then renamed over <json>.partial. */
static cmrs_code rewrite_json(const sweep_out *o)
{
    cmrs_outfile out;
    CMRS_CHECK(cmrs_outfile_open(&out, o->json_partial, NULL));
    write_json_rows(out.f, o);
    CMRS_CHECK(cmrs_outfile_commit(&out));
    return CMRS_OK;
}

static cmrs_code open_csv(sweep_out *o, const char *csv)
{
    if (!strcmp(csv, "-")) {
        o->csv = stdout;
        o->csv_stdout = 1;
    } else {
        CMRS_ENSURE(strlen(csv) < sizeof o->csv_path, CMRS_E_USAGE,
                    "--csv: path too long");
        snprintf(o->csv_path, sizeof o->csv_path, "%s", csv);
        CMRS_CHECK(sweep_out_partial_name(csv, o->csv_partial,
                                          sizeof o->csv_partial));
        CMRS_CHECK(cmrs_outputs_track(o->csv_partial, o->csv_path,
                                      &o->csv_slot));
        o->csv = fopen(o->csv_partial, "w");
        CMRS_ENSURE(o->csv, CMRS_E_IO, "%s: cannot create: %s",
                    o->csv_partial, strerror(errno));
    }
    sweep_write_csv_header(o->csv);
    CMRS_ENSURE(fflush(o->csv) == 0, CMRS_E_IO, "%s: write failed: %s",
                o->csv_stdout ? "stdout" : o->csv_partial, strerror(errno));
    return CMRS_OK;
}

cmrs_code sweep_out_open(sweep_out *o, const char *csv, const char *json)
{
    memset(o, 0, sizeof *o);
    o->csv_slot = o->json_slot = -1;
    o->json_path = json;
    if (csv) CMRS_CHECK(open_csv(o, csv));
    if (json && strcmp(json, "-")) {
        /* The file itself appears with the first row. */
        CMRS_CHECK(sweep_out_partial_name(json, o->json_partial,
                                          sizeof o->json_partial));
        CMRS_CHECK(cmrs_outputs_track(o->json_partial, json, &o->json_slot));
    }
    return CMRS_OK;
}

static cmrs_code keep_row(sweep_out *o, const sweep_row *r)
{
    if (o->nrows == o->cap) {
        int cap = o->cap ? 2 * o->cap : 64;
        sweep_row *p = realloc(o->rows, (size_t)cap * sizeof *p);
        CMRS_ENSURE(p, CMRS_E_NOMEM, "sweep: cannot keep %d rows", cap);
        o->rows = p;
        o->cap = cap;
    }
    o->rows[o->nrows++] = *r;
    return CMRS_OK;
}

cmrs_code sweep_out_row(sweep_out *o, const sweep_row *r)
{
    o->written++;
    if (o->csv) {
        sweep_write_csv_row(o->csv, r);
        CMRS_ENSURE(fflush(o->csv) == 0 && !ferror(o->csv), CMRS_E_IO,
                    "%s: write failed: %s", o->csv_stdout ? "stdout"
                    : o->csv_partial, strerror(errno));
        cmrs_outputs_keep(o->csv_slot, 1); /* rows: a partial result */
    }
    if (!o->json_path) return CMRS_OK;
    CMRS_CHECK(keep_row(o, r));
    if (o->json_slot >= 0) {
        CMRS_CHECK(rewrite_json(o));
        cmrs_outputs_keep(o->json_slot, 1);
    }
    return CMRS_OK;
}

cmrs_code sweep_out_close(sweep_out *o)
{
    cmrs_code rc = CMRS_OK;
    if (o->json_path && !strcmp(o->json_path, "-")) {
        write_json_rows(stdout, o);
        if (fflush(stdout) != 0)
            CMRS_TRY_FAIL(CMRS_E_IO, "stdout: write failed: %s",
                          strerror(errno));
    }
    if (o->csv && !o->csv_stdout) {
        FILE *f = o->csv;
        o->csv = NULL;
        if (fclose(f) != 0)
            CMRS_TRY_FAIL(CMRS_E_IO, "%s: write failed: %s", o->csv_partial,
                          strerror(errno));
        cmrs_outputs_stage(o->csv_slot);
    }
    if (o->json_slot >= 0) {
        if (!o->nrows) CMRS_TRY(rewrite_json(o)); /* "[]" */
        cmrs_outputs_stage(o->json_slot);
    }
    /* Both final names at once; a failed rename keeps the .partial files. */
    CMRS_TRY(cmrs_outputs_commit());
    o->csv_slot = o->json_slot = -1;
done:
    sweep_out_abort(o);
    return rc;
}

void sweep_out_abort(sweep_out *o)
{
    if (o->csv && !o->csv_stdout) fclose(o->csv);
    o->csv = NULL;
    /* Nothing measured (no GPU, a bad file): leave nothing behind. */
    cmrs_outputs_release(o->csv_slot);
    cmrs_outputs_release(o->json_slot);
    o->csv_slot = o->json_slot = -1;
    free(o->rows);
    o->rows = NULL;
    o->nrows = o->cap = 0;
    o->json_path = NULL;
}
