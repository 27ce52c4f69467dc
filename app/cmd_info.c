/* cmrs info: matrix statistics and the CMRS performance model (paper 000
 * §5) for one input file, as aligned text or as JSON (--json). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "io/json.h"
#include "io/system.h"
#include "spmv/model.h"
#include "report_fields.h"
#include "args.h"
#include "commands.h"

#define MAX_HEIGHT 16

static const char k_help[] =
    "usage: cmrs info FILE [--matrix NAME] [--rhs NAME] [--json]\n\n"
    "Prints the layout, size, row-length statistics (mean mu, std sigma,\n"
    "min, max, empty rows), symmetry, diagonal and diagonal dominance of the\n"
    "matrix in FILE (HDF5 or Matrix Market), whether the file holds a\n"
    "right-hand side, and the CMRS performance model: the predicted\n"
    "acceleration a(h, mu) of CMRS with strip height h = 1..16 over a\n"
    "one-row-per-warp CSR kernel, in double and single precision, with the\n"
    "suggested height.\n\n"
    "  --matrix NAME  HDF5 group holding the matrix (default A)\n"
    "  --rhs NAME     HDF5 dataset of b (default b); for a Matrix Market\n"
    "                 matrix, a .mtx vector file\n"
    "  --json         print the same as JSON\n"
    "  -h, --help     this help\n";

typedef struct info_args {
    const char *file;
    cmrs_read_opts read;
    int json, help;
} info_args;

/* Long-only options get values above any character, so that getopt's
 * optopt never names them as a short option in messages. */
enum { OPT_JSON = 256 };

static cmrs_code take_option(void *ctx, int id, const char *arg)
{
    info_args *a = ctx;
    if (cmrs_arg_read_option(&a->read, id, arg)) return CMRS_OK;
    if (id == OPT_JSON) a->json = 1;
    else a->help = 1; /* -h: the only other option */
    return CMRS_OK;
}

static cmrs_code parse_args(int argc, char **argv, info_args *a)
{
    static const struct option longs[] = {
        {"matrix", required_argument, NULL, CMRS_ARG_MATRIX},
        {"rhs", required_argument, NULL, CMRS_ARG_RHS},
        {"json", no_argument, NULL, OPT_JSON},
        CMRS_ARG_HELP_END};
    memset(a, 0, sizeof *a);
    CMRS_CHECK(cmrs_arg_getopt("info", argc, argv, "h", longs, 0,
                               take_option, a, NULL));
    if (a->help) return CMRS_OK;
    CMRS_ENSURE(optind == argc - 1, CMRS_E_USAGE, "info: expected one input "
                "FILE, got %d (see 'cmrs info --help')", argc - optind);
    a->file = argv[optind];
    return CMRS_OK;
}

/* The model's numbers for one precision (b bytes per value). */
typedef struct model_row {
    double accel[MAX_HEIGHT + 1]; /* index h = 1..16 */
    int suggested;
} model_row;

static void model_compute(double mu, double bytes, model_row *m)
{
    for (int h = 1; h <= MAX_HEIGHT; ++h)
        m->accel[h] = cmrs_model_accel(h, mu, bytes, CMRS_MODEL_LAMBDA);
    m->suggested = cmrs_model_suggest_height(mu, bytes, CMRS_MODEL_LAMBDA);
}

static double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *yes_no(int v) { return v ? "yes" : "no"; }

static void print_diagonal(const cmrs_csr_stats *s)
{
    if (s->nonpositive_diagonal == 0) {
        printf("%-20s present and positive in every row\n", "diagonal");
        return;
    }
    printf("%-20s %lld rows missing it, %lld rows with it <= 0 or missing "
           "(first: row %lld, 0-based)\n", "diagonal",
           (long long)s->missing_diagonal, (long long)s->nonpositive_diagonal,
           (long long)s->first_bad_diagonal);
}

static void print_stats(const info_args *a, const cmrs_system *sys,
                        const cmrs_csr_stats *s)
{
    printf("%-20s %s\n%-20s %s\n", "file", a->file, "layout", sys->layout);
    printf("%-20s %lld\n%-20s %lld\n%-20s %lld\n", "rows", (long long)s->rows,
           "columns", (long long)s->cols, "nonzeros", (long long)s->nnz);
    printf("%-20s mean %.4g, std %.4g, min %lld, max %lld\n", "row length",
           s->mu, s->sigma, (long long)s->min_row, (long long)s->max_row);
    printf("%-20s %lld\n", "empty rows", (long long)s->empty_rows);
    printf("%-20s structure %s, values %s\n", "symmetric",
           yes_no(s->structurally_symmetric), yes_no(s->symmetric));
    print_diagonal(s);
    printf("%-20s %lld rows (%.1f%%), strictly %lld rows (%.1f%%)\n",
           "diagonal dominance", (long long)s->dominant_rows,
           percent(s->dominant_rows, s->rows),
           (long long)s->strictly_dominant_rows,
           percent(s->strictly_dominant_rows, s->rows));
    printf("%-20s %s\n", "right-hand side",
           !sys->b ? "not in the file (solvers use b = A*1)"
                            : "in the file");
    printf("%-20s %s\n", "initial guess x0",
           sys->x0 ? "in the file" : "not in the file");
}

static void print_model(double mu, const model_row *dbl, const model_row *sgl)
{
    printf("\nCMRS performance model (paper 000 §5, %.0f-byte segments):\n"
           "predicted acceleration a(h, mu = %.4g) of CMRS with strip height "
           "h\nover a one-row-per-warp CSR kernel\n", CMRS_MODEL_LAMBDA, mu);
    printf("%6s %8s %8s\n", "h", "double", "single");
    for (int h = 1; h <= MAX_HEIGHT; ++h)
        printf("%6d %8.3f %8.3f\n", h, dbl->accel[h], sgl->accel[h]);
    printf("suggested strip height: %d (double), %d (single)\n", dbl->suggested,
           sgl->suggested);
}

static void json_model(cmrs_json *j, const char *key, double bytes,
                       const model_row *m)
{
    cmrs_json_object_begin(j, key);
    cmrs_json_int(j, "value_bytes", (int64_t)bytes);
    cmrs_json_array_begin(j, "acceleration");
    for (int h = 1; h <= MAX_HEIGHT; ++h) cmrs_json_num(j, NULL, m->accel[h]);
    cmrs_json_array_end(j);
    cmrs_json_int(j, "suggested_height", m->suggested);
    cmrs_json_object_end(j);
}

/* The matrix statistics: the sizes, then the row lengths, the symmetry and
 * the diagonal, each an object of its own. */
static void json_stats(cmrs_json *j, const cmrs_csr_stats *s)
{
    const app_field row_length[] = {
        APP_NUM("mean", s->mu),
        APP_NUM("std", s->sigma),
        APP_INT("min", s->min_row),
        APP_INT("max", s->max_row),
        APP_INT("empty_rows", s->empty_rows),
    };
    const app_field symmetric[] = {
        APP_BOOL("structure", s->structurally_symmetric),
        APP_BOOL("values", s->symmetric),
    };
    const app_field diagonal[] = {
        APP_INT("missing", s->missing_diagonal),
        APP_INT("nonpositive_or_missing", s->nonpositive_diagonal),
        APP_INT_IF(s->first_bad_diagonal >= 0, "first_bad_row",
                   s->first_bad_diagonal),
        APP_INT("dominant_rows", s->dominant_rows),
        APP_INT("strictly_dominant_rows", s->strictly_dominant_rows),
    };
    const app_field stats[] = {
        APP_INT("rows", s->rows),
        APP_INT("cols", s->cols),
        APP_INT("nnz", s->nnz),
        APP_OBJECT("row_length", row_length),
        APP_OBJECT("symmetric", symmetric),
        APP_OBJECT("diagonal", diagonal),
    };
    app_json_fields(j, stats, APP_FIELDS_LEN(stats));
}

static void print_json(const info_args *a, const cmrs_system *sys,
                       const cmrs_csr_stats *s, const model_row *dbl,
                       const model_row *sgl)
{
    cmrs_json j;
    cmrs_json_init(&j, stdout);
    cmrs_json_object_begin(&j, NULL);
    cmrs_json_str(&j, "file", a->file);
    cmrs_json_str(&j, "layout", sys->layout);
    json_stats(&j, s);
    cmrs_json_bool(&j, "rhs_in_file", sys->b != NULL);
    cmrs_json_bool(&j, "x0_in_file", sys->x0 != NULL);
    cmrs_json_object_begin(&j, "model");
    cmrs_json_num(&j, "lambda_bytes", CMRS_MODEL_LAMBDA);
    json_model(&j, "double", 8.0, dbl);
    json_model(&j, "single", 4.0, sgl);
    cmrs_json_object_end(&j);
    cmrs_json_object_end(&j);
}

cmrs_code cmd_info(int argc, char **argv, int *exit_code)
{
    info_args a;
    *exit_code = CMRS_EXIT_OK;
    CMRS_CHECK(parse_args(argc, argv, &a));
    if (a.help) {
        fputs(k_help, stdout);
        return CMRS_OK;
    }
    cmrs_system sys;
    CMRS_CHECK(cmrs_system_read(a.file, &a.read, &sys));
    cmrs_csr_stats s;
    cmrs_csr_stats_compute(&sys.A, &s);
    model_row dbl, sgl;
    model_compute(s.mu, 8.0, &dbl);
    model_compute(s.mu, 4.0, &sgl);
    if (a.json) {
        print_json(&a, &sys, &s, &dbl, &sgl);
    } else {
        print_stats(&a, &sys, &s);
        print_model(s.mu, &dbl, &sgl);
    }
    cmrs_system_free(&sys);
    return CMRS_OK;
}
