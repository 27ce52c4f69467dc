/* The sweep's CSV and JSON rows (sweep.h), written to .partial files as
 * they are produced, so an interrupted sweep keeps what it measured; the
 * final names appear together when the sweep completes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "io/outfile.h"
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

/* A CSV field, quoted when it holds a comma, quote or newline. */
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

/* Numbers: NaN and infinities as an empty field. */
static void put_csv_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, ",%.6g", v);
    else fputc(',', f);
}

void sweep_write_csv_header(FILE *f)
{
    fputs("file,mode,format,precision,height,block_size,modulo,sorted,rows,"
          "nnz,mu,sigma,status,error,time_median_s,time_min_s,time_max_s,"
          "gflops,eta_plus,eta_minus,iterations,true_rel_residual,"
          "speedup_vs_cusparse,model_accel,height_auto,tune_s\n", f);
}

void sweep_write_csv_row(FILE *f, const sweep_row *r)
{
    put_csv_str(f, r->file);
    fprintf(f, ",%s,%s,%s,%d,%d,%d,%d,%lld,%lld", r->mode, r->format,
            r->precision, r->height, r->block_size, r->modulo, r->sorted,
            (long long)r->rows, (long long)r->nnz);
    put_csv_num(f, r->mu);
    put_csv_num(f, r->sigma);
    fprintf(f, ",%s,", r->status);
    put_csv_str(f, r->error);
    put_csv_num(f, r->t_median);
    put_csv_num(f, r->t_min);
    put_csv_num(f, r->t_max);
    put_csv_num(f, r->gflops);
    put_csv_num(f, r->eta_plus);
    put_csv_num(f, r->eta_minus);
    if (r->iterations >= 0) fprintf(f, ",%lld", (long long)r->iterations);
    else fputc(',', f);
    put_csv_num(f, r->true_rel);
    put_csv_num(f, r->speedup);
    put_csv_num(f, r->model_accel);
    fprintf(f, ",%d", r->height_auto);
    put_csv_num(f, r->tune_s);
    fputc('\n', f);
}

static void json_row(cmrs_json *j, const sweep_row *r)
{
    cmrs_json_object_begin(j, NULL);
    cmrs_json_str(j, "file", r->file);
    cmrs_json_str(j, "mode", r->mode);
    cmrs_json_str(j, "format", r->format);
    cmrs_json_str(j, "precision", r->precision);
    cmrs_json_int(j, "height", r->height);
    cmrs_json_int(j, "block_size", r->block_size);
    cmrs_json_int(j, "modulo", r->modulo);
    cmrs_json_int(j, "sorted", r->sorted);
    cmrs_json_int(j, "rows", r->rows);
    cmrs_json_int(j, "nnz", r->nnz);
    cmrs_json_num(j, "mu", r->mu);
    cmrs_json_num(j, "sigma", r->sigma);
    cmrs_json_str(j, "status", r->status);
    cmrs_json_str(j, "error", r->error);
    cmrs_json_num(j, "time_median_s", r->t_median);
    cmrs_json_num(j, "time_min_s", r->t_min);
    cmrs_json_num(j, "time_max_s", r->t_max);
    cmrs_json_num(j, "gflops", r->gflops);
    cmrs_json_num(j, "eta_plus", r->eta_plus);
    cmrs_json_num(j, "eta_minus", r->eta_minus);
    if (r->iterations >= 0) cmrs_json_int(j, "iterations", r->iterations);
    else cmrs_json_null(j, "iterations");
    cmrs_json_num(j, "true_rel_residual", r->true_rel);
    cmrs_json_num(j, "speedup_vs_cusparse", r->speedup);
    cmrs_json_num(j, "model_accel", r->model_accel);
    cmrs_json_bool(j, "height_auto", r->height_auto);
    cmrs_json_num(j, "tune_s", r->tune_s);
    cmrs_json_object_end(j);
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
