/* cmrs sweep without a GPU: option parsing into configurations (what is
 * multiplied for which format), the row writer fed with fake rows (CSV rows
 * flushed to <csv>.partial one by one, the JSON array in <json>.partial
 * complete after every row, failed rows marked, close renames both), the
 * autotuner's candidate order and --height auto / --tune-budget in the
 * shared solve options. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/measure/sweep.h"
#include "check.h"
#include "spmv/autotune.h"
#include "spmv/model.h"

static cmrs_code parse(sweep_args *a, const char *line)
{
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "sweep %s", line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 31;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    cmrs_code rc = sweep_parse(argc, argv, a);
    cmrs_error_clear();
    return rc;
}

static void test_parse(void)
{
    sweep_args a;
    CHECK(parse(&a, "m.mtx") == CMRS_OK, "plain");
    CHECK(a.nfiles == 1 && a.mode == SWEEP_SPMV && a.repeat == 50, "defaults");
    CHECK(parse(&a, "a.h5 --height 1-3,8,12-13 b.h5 --mode solve") == CMRS_OK,
          "lists");
    CHECK(a.heights.n == 6 && a.heights.v[3] == 8 && a.heights.v[5] == 13,
          "heights %d", a.heights.n);
    CHECK(a.nfiles == 2 && !strcmp(a.files[1], "b.h5"), "two files");
    CHECK(a.mode == SWEEP_SOLVE && a.repeat == 3, "solve mode");
    CHECK(parse(&a, "m --precision single,double --sorted on,off") == CMRS_OK,
          "words");
    CHECK(a.precs.n == 2 && a.precs.v[0] == CMRS_PREC_SINGLE, "precs");
    CHECK(a.sorted.n == 2 && a.sorted.v[0] == 1 && a.sorted.v[1] == -1, "sorted");
    CHECK(parse(&a, "m --height 12,auto,1-2") == CMRS_OK, "auto");
    CHECK(a.heights.n == 4 && a.heights.v[0] == 12 && a.heights.v[2] == 2 &&
          a.heights.v[3] == SWEEP_HEIGHT_AUTO, "auto last");
    CHECK(parse(&a, "m --height auto") == CMRS_OK && a.heights.n == 1 &&
          a.heights.v[0] == SWEEP_HEIGHT_AUTO, "auto alone");
    CHECK(parse(&a, "m --height auto,0") == CMRS_E_USAGE, "auto,0");
    CHECK(parse(&a, "m --height auto,,") == CMRS_OK, "auto with commas");
    CHECK(parse(&a, "m --height 0") == CMRS_E_USAGE, "height 0");
    CHECK(parse(&a, "m --height 4-2") == CMRS_E_USAGE, "empty range");
    CHECK(parse(&a, "m --height 1,,x") == CMRS_E_USAGE, "junk");
    CHECK(parse(&a, "m --block-size 128,100") == CMRS_E_USAGE, "block 100");
    CHECK(parse(&a, "m --modulo 2,12") == CMRS_E_USAGE, "modulo 12");
    CHECK(parse(&a, "m --formats cmrs,nope") == CMRS_E_USAGE, "format");
    CHECK(parse(&a, "m --mode fast") == CMRS_E_USAGE, "mode");
    CHECK(parse(&a, "--height 3") == CMRS_E_USAGE, "no file");
    CHECK(parse(&a, "m --csv - --json -") == CMRS_E_USAGE, "two stdouts");
}

static void test_expand(void)
{
    sweep_args a;
    sweep_config c[64];
    CHECK(parse(&a, "m --formats cmrs,cusparse,cmrs-mod,csr-vector --height "
                "4,8 --block-size 128,256 --modulo 2,4 --sorted on,off") ==
              CMRS_OK, "parse");
    /* cmrs 2h x 2b x 2s = 8, cusparse 1, cmrs-mod 2x2x2x2 = 16, csr 2b. */
    int n = sweep_expand(&a, CMRS_PREC_DOUBLE, c, 64);
    CHECK(n == 27, "configurations: %d", n);
    CHECK(sweep_expand(&a, CMRS_PREC_DOUBLE, NULL, 0) == 27, "count only");
    CHECK(!strcmp(c[8].format, "cusparse") && c[8].opts.height == 0 &&
          c[8].opts.block_size == 0, "cusparse not multiplied");
    CHECK(!strcmp(c[0].format, "cmrs") && c[0].opts.height == 4 &&
          c[0].opts.block_size == 128 && c[0].opts.sorted == 1 &&
          c[0].opts.modulo == 0, "first cmrs");
    CHECK(c[9].opts.modulo == 2 && c[10].opts.modulo == 2 &&
          c[11].opts.modulo == 4, "cmrs-mod modulo");
    CHECK(!strcmp(c[25].format, "csr-vector") && c[25].opts.height == 0 &&
          c[26].opts.block_size == 256, "csr-vector");
    CHECK(sweep_expand(&a, CMRS_PREC_SINGLE, c, 5) == 27 &&
          c[4].prec == CMRS_PREC_SINGLE, "capped");
}

static void fake_row(sweep_row *r, int k)
{
    sweep_row_init(r);
    snprintf(r->file, sizeof r->file, "dir/m,%d.mtx", k); /* needs quoting */
    snprintf(r->format, sizeof r->format, "cmrs");
    r->height = k + 1;
    r->rows = 100;
    r->nnz = 700;
    r->mu = 7;
    r->status = k == 1 ? "failed" : "ok";
    if (k == 1) snprintf(r->error, sizeof r->error, "out of \"memory\", h=2");
    else r->t_median = 1e-5 * (k + 1);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = calloc(1 << 16, 1);
    /* Short reads are fine: s is zero-filled, so it stays a C string. */
    if (s && fread(s, 1, (1 << 16) - 1, f) == 0 && ferror(f)) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what)) ++n;
    return n;
}

/* Brackets balanced outside strings, ends with "]\n". */
static int json_balanced(const char *s)
{
    int depth = 0, in_str = 0;
    for (const char *p = s; *p; ++p) {
        if (in_str) {
            if (*p == '\\') ++p;
            else if (*p == '"') in_str = 0;
        } else if (*p == '"') in_str = 1;
        else if (*p == '[' || *p == '{') ++depth;
        else if (*p == ']' || *p == '}') --depth;
        if (depth < 0) return 0;
    }
    return depth == 0 && !in_str && strlen(s) > 2 && !strcmp(s + strlen(s) - 2, "]\n");
}

/* After row k: the partial CSV has k + 1 data lines, the JSON k + 1 rows. */
static void check_partial(const char *dir, int k)
{
    char path[512];
    snprintf(path, sizeof path, "%s/o.csv.partial", dir);
    char *csv = slurp(path);
    CHECK(csv && count(csv, "\n") == k + 2, "partial CSV after row %d", k);
    CHECK(csv && count(csv, "\"dir/m,") == k + 1, "quoted file names");
    snprintf(path, sizeof path, "%s/o.json.partial", dir);
    char *json = slurp(path);
    CHECK(json && json_balanced(json), "JSON well-formed after row %d", k);
    CHECK(json && count(json, "\"format\":") == k + 1, "JSON rows %d", k);
    free(csv);
    free(json);
}

/* Files in dir, "." and ".." aside. */
static int entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void test_writer(void)
{
    char dir[] = "/tmp/cmrs_sweep_XXXXXX", csv_path[512], json_path[512];
    sweep_out o;
    sweep_row r;
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(csv_path, sizeof csv_path, "%s/o.csv", dir);
    snprintf(json_path, sizeof json_path, "%s/o.json", dir);
    CHECK_OK(sweep_out_open(&o, csv_path, json_path));
    for (int k = 0; k < 3; ++k) {
        fake_row(&r, k);
        CHECK_OK(sweep_out_row(&o, &r));
        check_partial(dir, k);
    }
    CHECK(access(csv_path, F_OK) != 0, "final CSV only at close");
    CHECK(access(json_path, F_OK) != 0, "final JSON only at close");
    CHECK_OK(sweep_out_close(&o));
    char *csv = slurp(csv_path), *json = slurp(json_path);
    CHECK(csv && count(csv, "\n") == 4, "final CSV: header + 3 rows");
    CHECK(csv && count(csv, ",failed,\"out of \"\"memory\"\", h=2\",") == 1,
          "failed row marked with its quoted reason");
    CHECK(csv && count(csv, ",ok,,") == 2, "ok rows: empty error");
    CHECK(json && count(json, "\"status\": \"failed\"") == 1, "JSON failed");
    CHECK(json && count(json, "\"time_median_s\": null") == 1, "NaN as null");
    CHECK(json && count(json, "\"iterations\": null") == 3, "no iterations");
    free(csv);
    free(json);
    CHECK(entries(dir) == 2, "nothing but the two outputs (no .partial, "
          "temporary or backup) after close");
    remove(csv_path);
    remove(json_path);
    rmdir(dir);
}

/* Nothing written (e.g. no GPU): no .partial is left behind. */
static void test_abort_empty(void)
{
    char dir[] = "/tmp/cmrs_sweep_XXXXXX", path[512];
    sweep_out o;
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/o.csv", dir);
    CHECK_OK(sweep_out_open(&o, path, NULL));
    sweep_out_abort(&o);
    snprintf(path, sizeof path, "%s/o.csv.partial", dir);
    CHECK(access(path, F_OK) != 0, "empty partial removed");
    rmdir(dir);
}

/* The autotuner's candidate order: the default height first, then every
 * other height once, tallest first. */
static void test_tune_order(void)
{
    const double mus[] = {1.0, 4.95, 6.97, 26.6, 200.0};
    for (int i = 0; i < 5; ++i) {
        int order[16], seen[17] = {0}, n = cmrs_tune_height_order(mus[i], order);
        CHECK(n == 16, "16 heights");
        CHECK(order[0] == cmrs_default_height(mus[i]), "default first");
        for (int k = 0; k < 16; ++k)
            if (order[k] >= 1 && order[k] <= 16) seen[order[k]]++;
        for (int h = 1; h <= 16; ++h)
            CHECK(seen[h] == 1, "mu %g: height %d once", mus[i], h);
    }
    int order[16];
    cmrs_tune_height_order(6.97, order);
    CHECK(order[0] == 16 && order[1] == 15 && order[15] == 1,
          "mu 6.97: 16, 15, ..., 1; got %d, %d, ..., %d", order[0], order[1],
          order[15]);
}

/* --height auto in solve/compare: the flag, not a height. */
static void test_solve_cli_auto(void)
{
    solve_cli c;
    int handled = 0;
    solve_cli_defaults(&c);
    CHECK(!c.opts.tune_height && c.opts.tune_budget == CMRS_TUNE_BUDGET_DEFAULT, "defaults");
    CHECK_OK(solve_cli_option(&c, OPT_HEIGHT, "auto", &handled));
    CHECK(handled && c.opts.tune_height && c.opts.spmv.height == 0, "auto");
    CHECK_OK(solve_cli_option(&c, OPT_HEIGHT, "7", &handled));
    CHECK(!c.opts.tune_height && c.opts.spmv.height == 7, "7 after auto");
    CHECK_OK(solve_cli_option(&c, OPT_TUNE_BUDGET, "0.25", &handled));
    CHECK(handled && c.opts.tune_budget == 0.25, "budget");
    CHECK(solve_cli_option(&c, OPT_TUNE_BUDGET, "-1", &handled) == CMRS_E_USAGE,
          "negative budget");
    cmrs_error_clear();
}

int main(void)
{
    test_tune_order();
    test_solve_cli_auto();
    test_parse();
    test_expand();
    test_writer();
    test_abort_empty();
    return check_summary();
}
