/* The reports of `cmrs bench`: the speedups over cuSPARSE, aligned table,
 * JSON and CSV (bench.h). A number that does not exist (failed format, no
 * cuSPARSE row) is "-" in the table, null in JSON and an empty field in CSV. */
#include <math.h>
#include <string.h>

#include "io/json.h"
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
    cmrs_json_object_begin(j, NULL);
    cmrs_json_str(j, "name", w->format);
    cmrs_json_str(j, "status", w->status == CMRS_BENCH_OK ? "ok"
                   : w->status == CMRS_BENCH_WRONG ? "wrong" : "failed");
    if (w->status == CMRS_BENCH_FAILED) cmrs_json_str(j, "error", w->error);
    else cmrs_json_null(j, "error");
    cmrs_json_object_begin(j, "params");
    cmrs_json_int(j, "height", w->opts.height);
    cmrs_json_int(j, "block_size", w->opts.block_size);
    cmrs_json_int(j, "modulo", w->opts.modulo);
    cmrs_json_int(j, "sorted", w->opts.sorted);
    cmrs_json_int(j, "reorder", strcmp(w->format, "cmrs") ? 0 : w->opts.reorder);
    cmrs_json_int(j, "cusparse_alg", w->opts.cusparse_alg);
    cmrs_json_object_end(j);
    cmrs_json_int(j, "strips", w->strips);
    cmrs_json_int(j, "stored_entries", w->stored_entries);
    cmrs_json_int(j, "device_bytes", (int64_t)w->device_bytes);
    cmrs_json_num(j, "padding", w->padding);
    cmrs_json_num(j, "setup_s", w->setup_s);
    cmrs_json_num(j, "convert_s", w->convert_s);
    cmrs_json_num(j, "convert_bytes", w->convert_bytes);
    cmrs_json_num(j, "convert_GBps", cmrs_bench_convert_gbps(w));
    cmrs_json_object_begin(j, "time_s");
    cmrs_json_num(j, "median", w->t.median);
    cmrs_json_num(j, "min", w->t.min);
    cmrs_json_num(j, "max", w->t.max);
    cmrs_json_num(j, "mean", w->t.mean);
    cmrs_json_object_end(j);
    cmrs_json_num(j, "gflops", w->gflops);
    cmrs_json_num(j, "beta_plus_bytes", w->beta_plus);
    cmrs_json_num(j, "beta_minus_bytes", w->beta_minus);
    cmrs_json_num(j, "bandwidth_plus_bytes_per_s", w->bw_plus);
    cmrs_json_num(j, "bandwidth_minus_bytes_per_s", w->bw_minus);
    cmrs_json_num(j, "eta_plus", w->eta_plus);
    cmrs_json_num(j, "eta_minus", w->eta_minus);
    cmrs_json_num(j, "speedup_vs_cusparse", w->speedup);
    cmrs_json_num(j, "rel_err", w->rel_err);
    cmrs_json_num(j, "tolerance", w->tol);
    cmrs_json_object_end(j);
}

static void json_matrix(cmrs_json *j, const cmrs_bench_run *r)
{
    const cmrs_csr_stats *s = &r->stats;
    cmrs_json_object_begin(j, "matrix");
    cmrs_json_str(j, "file", r->file);
    cmrs_json_str(j, "group", r->matrix);
    cmrs_json_int(j, "rows", s->rows);
    cmrs_json_int(j, "cols", s->cols);
    cmrs_json_int(j, "nnz", s->nnz);
    cmrs_json_num(j, "mu", s->mu);
    cmrs_json_num(j, "sigma", s->sigma);
    cmrs_json_int(j, "min_row", s->min_row);
    cmrs_json_int(j, "max_row", s->max_row);
    cmrs_json_int(j, "empty_rows", s->empty_rows);
    cmrs_json_object_end(j);
}

void cmrs_bench_write_json(FILE *f, const cmrs_bench_run *r)
{
    cmrs_json j;
    cmrs_json_init(&j, f);
    cmrs_json_object_begin(&j, NULL);
    cmrs_json_str(&j, "command", r->cmdline);
    cmrs_json_str(&j, "date", r->date);
    cmrs_json_str(&j, "device", r->device);
    cmrs_json_str(&j, "precision", cmrs_prec_name(r->prec));
    json_matrix(&j, r);
    cmrs_json_num(&j, "copy_bandwidth_bytes_per_s", r->copy_bw);
    cmrs_json_num(&j, "init_s", r->init_s);
    cmrs_json_int(&j, "warmup", r->warmup);
    cmrs_json_int(&j, "repeat", r->repeat);
    cmrs_json_int(&j, "height", r->height);
    cmrs_json_str(&j, "height_source", r->height_source);
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
    csv_str(f, w->status == CMRS_BENCH_OK ? "ok"
               : w->status == CMRS_BENCH_WRONG ? "wrong" : "failed", ',');
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
