/* The reports of `cmrs bench`: the speedups over cuSPARSE, aligned table,
 * JSON and CSV (bench.h). A number that does not exist (failed format, no
 * cuSPARSE row) is "-" in the table, null in JSON and an empty field in CSV. */
#include <math.h>
#include <string.h>

#include "io/json.h"
#include "app/report_fields.h"
#include "bench.h"

void cmrs_bench_speedups(cmrs_bench_row *rows, int n)
{
    double ref = NAN;
    for (int i = 0; i < n; ++i)
        if (!strcmp(rows[i].format, "cusparse") &&
            rows[i].status != CMRS_BENCH_FAILED)
            ref = rows[i].t.median;
    for (int i = 0; i < n; ++i) rows[i].speedup = ref / rows[i].t.median;
}

static const char *status_name(cmrs_bench_status s)
{
    return s == CMRS_BENCH_OK ? "ok" : s == CMRS_BENCH_WRONG ? "WRONG" : "FAILED";
}

/* The status in the JSON and CSV reports: the table's word, lower case. */
static const char *status_word(cmrs_bench_status s)
{
    return s == CMRS_BENCH_OK ? "ok" : s == CMRS_BENCH_WRONG ? "wrong" : "failed";
}

void cmrs_bench_describe_params(const char *format, const cmrs_spmv_opts *o,
                                char *buf, size_t n)
{
    if (!strncmp(format, "cmrs", 4)) {
        int w = snprintf(buf, n, "h=%d b=%d", o->height, o->block_size);
        if (!strcmp(format, "cmrs-mod") && w > 0 && (size_t)w < n)
            w += snprintf(buf + w, n - (size_t)w, " mod=%d", o->modulo);
        /* cmrs's layout: strips of one width, else (un)sorted strips */
        const int one_width = !strcmp(format, "cmrs") && o->slice > 0;
        if (w > 0 && (size_t)w < n)
            w += snprintf(buf + w, n - (size_t)w, " %s",
                          one_width     ? "one-width"
                          : o->sorted > 0 ? "sorted"
                                          : "unsorted");
        if (!strcmp(format, "cmrs") && o->reorder > 0 && w > 0 &&
            (size_t)w < n)
            snprintf(buf + w, n - (size_t)w, " reordered");
    } else if (!strcmp(format, "cusparse")) {
        snprintf(buf, n, "alg=%d", o->cusparse_alg);
    } else if (o->block_size > 0) {
        snprintf(buf, n, "b=%d", o->block_size);
    } else {
        snprintf(buf, n, "-");
    }
}

/* "%*.*f" of v into a column, or "-" when v is not a number. */
static void col(FILE *f, int width, int digits, double v)
{
    if (isfinite(v)) fprintf(f, " %*.*f", width, digits, v);
    else fprintf(f, " %*s", width, "-");
}

static void print_header(FILE *f, const cmrs_bench_run *r)
{
    const cmrs_csr_stats *s = &r->stats;
    fprintf(f, "cmrs bench: %s%s%s\n", r->file, r->matrix ? " group " : "",
            r->matrix ? r->matrix : "");
    fprintf(f, "device: %s | precision: %s | copy bandwidth: %.1f GB/s "
            "(device-to-device, read+write)\n", r->device,
            cmrs_prec_name(r->prec), r->copy_bw / 1e9);
    fprintf(f, "matrix: %lld rows, %lld cols, %lld nnz | row length mu %.2f "
            "sigma %.2f min %lld max %lld | %lld empty rows\n",
            (long long)s->rows, (long long)s->cols, (long long)s->nnz, s->mu,
            s->sigma, (long long)s->min_row, (long long)s->max_row,
            (long long)s->empty_rows);
    fprintf(f, "height: %d (%s) | time: median of %d after %d warm-up, CUDA "
            "events\n", r->height, r->height_source, r->repeat, r->warmup);
    fprintf(f, "one-time initialisation (CUDA context, libraries, kernels): "
            "%.3f s, charged to no format\n\n", r->init_s);
    fprintf(f, "%-12s %-27s %10s %8s %10s %10s %6s %6s %9s %7s %7s %9s %8s "
            "%8s  %s\n", "format", "params", "time_us", "GFLOPS", "beta+GB/s",
            "beta-GB/s", "eta+", "eta-", "mem_MB", "padding", "speedup",
            "rel_err", "setup_s", "convGB/s", "status");
}

double cmrs_bench_convert_gbps(const cmrs_bench_row *w)
{
    return w->convert_s > 0 ? w->convert_bytes / w->convert_s / 1e9 : NAN;
}

static void print_row(FILE *f, const cmrs_bench_row *w)
{
    char params[64];
    cmrs_bench_describe_params(w->format, &w->opts, params, sizeof params);
    fprintf(f, "%-12s %-27s", w->format, params);
    col(f, 10, 2, w->t.median * 1e6);
    col(f, 8, 2, w->gflops);
    col(f, 10, 1, w->bw_plus / 1e9);
    col(f, 10, 1, w->bw_minus / 1e9);
    col(f, 6, 3, w->eta_plus);
    col(f, 6, 3, w->eta_minus);
    col(f, 9, 2, w->status == CMRS_BENCH_FAILED ? NAN : w->device_bytes / 1e6);
    col(f, 7, 3, w->padding);
    col(f, 7, 2, w->speedup);
    if (isfinite(w->rel_err)) fprintf(f, " %9.2e", w->rel_err);
    else fprintf(f, " %9s", "-");
    col(f, 8, 4, w->status == CMRS_BENCH_FAILED ? NAN : w->setup_s);
    col(f, 8, 1, cmrs_bench_convert_gbps(w));
    fprintf(f, "  %s\n", status_name(w->status));
}

void cmrs_bench_print_table(FILE *f, const cmrs_bench_run *r)
{
    int notes = 0;
    print_header(f, r);
    for (int i = 0; i < r->n_rows; ++i) print_row(f, &r->rows[i]);
    for (int i = 0; i < r->n_rows; ++i) {
        const cmrs_bench_row *w = &r->rows[i];
        if (w->status == CMRS_BENCH_OK) continue;
        if (!notes++) fputc('\n', f);
        if (w->status == CMRS_BENCH_FAILED)
            fprintf(f, "%s: FAILED: %s\n", w->format, w->error);
        else
            fprintf(f, "%s: WRONG: relative error %.3g exceeds the bound %.3g; "
                    "its timings are not to be trusted\n", w->format,
                    w->rel_err, w->tol);
    }
}

static void json_row(cmrs_json *j, const cmrs_bench_row *w)
{
    const int failed = w->status == CMRS_BENCH_FAILED;
    const app_field params[] = {
        APP_INT("height", w->opts.height),
        APP_INT("block_size", w->opts.block_size),
        APP_INT("modulo", w->opts.modulo),
        APP_INT("sorted", w->opts.sorted),
        APP_INT("reorder", strcmp(w->format, "cmrs") ? 0 : w->opts.reorder),
        APP_INT("cusparse_alg", w->opts.cusparse_alg),
    };
    const app_field time_s[] = {
        APP_NUM("median", w->t.median),
        APP_NUM("min", w->t.min),
        APP_NUM("max", w->t.max),
        APP_NUM("mean", w->t.mean),
    };
    const app_field row[] = {
        APP_STR("name", w->format),
        APP_STR("status", status_word(w->status)),
        APP_STR_IF(failed, "error", w->error),
        APP_OBJECT("params", params),
        APP_INT("strips", w->strips),
        APP_INT("stored_entries", w->stored_entries),
        APP_INT("device_bytes", (int64_t)w->device_bytes),
        APP_NUM("padding", w->padding),
        APP_NUM("setup_s", w->setup_s),
        APP_NUM("convert_s", w->convert_s),
        APP_NUM("convert_bytes", w->convert_bytes),
        APP_NUM("convert_GBps", cmrs_bench_convert_gbps(w)),
        APP_OBJECT("time_s", time_s),
        APP_NUM("gflops", w->gflops),
        APP_NUM("beta_plus_bytes", w->beta_plus),
        APP_NUM("beta_minus_bytes", w->beta_minus),
        APP_NUM("bandwidth_plus_bytes_per_s", w->bw_plus),
        APP_NUM("bandwidth_minus_bytes_per_s", w->bw_minus),
        APP_NUM("eta_plus", w->eta_plus),
        APP_NUM("eta_minus", w->eta_minus),
        APP_NUM("speedup_vs_cusparse", w->speedup),
        APP_NUM("rel_err", w->rel_err),
        APP_NUM("tolerance", w->tol),
    };
    app_json_object(j, NULL, row, APP_FIELDS_LEN(row));
}

void cmrs_bench_write_json(FILE *f, const cmrs_bench_run *r)
{
    const cmrs_csr_stats *s = &r->stats;
    const app_field matrix[] = {
        APP_STR("file", r->file),
        APP_STR("group", r->matrix),
        APP_INT("rows", s->rows),
        APP_INT("cols", s->cols),
        APP_INT("nnz", s->nnz),
        APP_NUM("mu", s->mu),
        APP_NUM("sigma", s->sigma),
        APP_INT("min_row", s->min_row),
        APP_INT("max_row", s->max_row),
        APP_INT("empty_rows", s->empty_rows),
    };
    const app_field run[] = {
        APP_STR("command", r->cmdline),
        APP_STR("date", r->date),
        APP_STR("device", r->device),
        APP_STR("precision", cmrs_prec_name(r->prec)),
        APP_OBJECT("matrix", matrix),
        APP_NUM("copy_bandwidth_bytes_per_s", r->copy_bw),
        APP_NUM("init_s", r->init_s),
        APP_INT("warmup", r->warmup),
        APP_INT("repeat", r->repeat),
        APP_INT("height", r->height),
        APP_STR("height_source", r->height_source),
    };
    cmrs_json j;
    cmrs_json_init(&j, f);
    cmrs_json_object_begin(&j, NULL);
    app_json_fields(&j, run, APP_FIELDS_LEN(run));
    cmrs_json_array_begin(&j, "formats");
    for (int i = 0; i < r->n_rows; ++i) json_row(&j, &r->rows[i]);
    cmrs_json_array_end(&j);
    cmrs_json_object_end(&j);
}

/* CSV text field: quoted, inner quotes doubled, then `end`. */
static void csv_str(FILE *f, const char *s, char end)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
    fputc(end, f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.9g", v);
    fputc(',', f);
}

static void csv_row(FILE *f, const cmrs_bench_run *r, const cmrs_bench_row *w)
{
    const cmrs_spmv_opts *o = &w->opts;
    csv_str(f, w->format, ',');
    csv_str(f, status_word(w->status), ',');
    fprintf(f, "%d,%d,%d,%d,%d,%d,", o->height, o->block_size, o->modulo,
            o->sorted, strcmp(w->format, "cmrs") ? 0 : o->reorder,
            o->cusparse_alg);
    const double nums[] = {w->t.median, w->t.min, w->t.max, w->t.mean,
                           w->gflops, w->beta_plus, w->beta_minus, w->bw_plus,
                           w->bw_minus, w->eta_plus, w->eta_minus, w->padding,
                           w->speedup, w->rel_err, w->tol, w->setup_s,
                           r->copy_bw, r->stats.mu, w->convert_s,
                           w->convert_bytes, cmrs_bench_convert_gbps(w),
                           r->init_s};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; ++i) csv_num(f, nums[i]);
    fprintf(f, "%zu,%lld,%lld,%lld,%lld,%lld,", w->device_bytes,
            (long long)w->strips, (long long)w->stored_entries,
            (long long)r->stats.rows, (long long)r->stats.cols,
            (long long)r->stats.nnz);
    csv_str(f, cmrs_prec_name(r->prec), ',');
    csv_str(f, r->device, ',');
    csv_str(f, r->file, ',');
    csv_str(f, w->status == CMRS_BENCH_FAILED ? w->error : "", '\n');
}

void cmrs_bench_write_csv(FILE *f, const cmrs_bench_run *r)
{
    fputs("format,status,height,block_size,modulo,sorted,reorder,cusparse_alg,"
          "time_median_s,time_min_s,time_max_s,time_mean_s,gflops,"
          "beta_plus_bytes,beta_minus_bytes,bandwidth_plus_bytes_per_s,"
          "bandwidth_minus_bytes_per_s,eta_plus,eta_minus,padding,"
          "speedup_vs_cusparse,rel_err,tolerance,setup_s,"
          "copy_bandwidth_bytes_per_s,mu,convert_s,convert_bytes,"
          "convert_GBps,init_s,"
          "device_bytes,strips,stored_entries,"
          "rows,cols,nnz,precision,device,file,error\n", f);
    for (int i = 0; i < r->n_rows; ++i) csv_row(f, r, &r->rows[i]);
}
