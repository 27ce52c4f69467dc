/* The setup profile on the CPU back end (runs everywhere): option profile
 * on gives every phase (libraries and allocation too), non-negative,
 * summing to at most the total (they are exclusive), the host CSR's byte count, no GPU figures; without the
 * option the getter says how to get one. The command line: `cmrs solve
 * --json` writes a "setup_profile" object, --verbose its one line, and
 * neither asks for none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tapi_case.h"

static void api_profile(void)
{
    int32_t indptr[TAPI_N + 1], indices[TAPI_NNZ];
    double values[TAPI_NNZ], b[TAPI_N], x[TAPI_N];
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL, *s2 = NULL;
    cmrs_setup_profile p;
    tapi_laplacian(indptr, indices, values);
    for (int i = 0; i < TAPI_N; ++i) b[i] = 1.0, x[i] = 0.0;
    API_OK(NULL, cmrs_context_create(CMRS_DEVICE_CPU, &ctx));
    API_OK(ctx, cmrs_matrix_create_csr(ctx, TAPI_N, TAPI_N, TAPI_NNZ, indptr,
                                       indices, CMRS_INDEX_INT32, values,
                                       CMRS_VALUE_FLOAT64, &A));
    API_OK(ctx, cmrs_solver_create(ctx, &s));
    API_FAILS(ctx, cmrs_solver_set_option(s, "profile", "yes"),
              CMRS_ERROR_USAGE, "--profile");
    API_OK(ctx, cmrs_solver_set_option(s, "profile", "on"));
    API_OK(ctx, cmrs_solver_setup(s, A));
    memset(&p, 0xff, sizeof p);
    API_OK(ctx, cmrs_solver_setup_profile(s, &p));
    const double ph[] = {p.host_staging, p.transfer, p.conversion, p.precond,
                         p.other, p.libraries, p.allocation};
    double sum = 0;
    int nonneg = 1;
    for (int i = 0; i < 7; ++i) {
        nonneg &= ph[i] >= 0 && isfinite(ph[i]);
        sum += ph[i];
    }
    CHECK(p.valid == 1 && nonneg && p.total >= 0 && sum <= p.total + 1e-9 &&
              sum >= 0.99 * p.total - 1e-6,
          "phases %g %g %g %g %g %g %g, total %g", ph[0], ph[1], ph[2],
          ph[3], ph[4], ph[5], ph[6], p.total);
    CHECK(p.libraries == 0 && p.upload_threads == 0,
          "CPU: no library handles (%g s), no upload threads (%d)",
          p.libraries, p.upload_threads);
    CHECK(p.transfer == 0 && p.transfer_bytes == 0 && p.h2d_pinned_gbs == 0 &&
              p.transfer_floor == 0 && p.upload[0] == '\0',
          "CPU: no uploads, no GPU figures");
    CHECK(p.csr_bytes == 8.0 * (TAPI_N + 1) + 12.0 * TAPI_NNZ,
          "csr bytes %g", p.csr_bytes);
    API_OK(ctx, cmrs_solver_solve(s, b, x));
    /* Without the option: a usage error saying how. */
    API_OK(ctx, cmrs_solver_create(ctx, &s2));
    API_OK(ctx, cmrs_solver_setup(s2, A));
    API_FAILS(ctx, cmrs_solver_setup_profile(s2, &p), CMRS_ERROR_USAGE,
              "option profile on");
    API_FAILS(ctx, cmrs_solver_setup_profile(s, NULL), CMRS_ERROR_USAGE,
              "p is NULL");
    API_FAILS(NULL, cmrs_solver_setup_profile(NULL, &p), CMRS_ERROR_USAGE,
              NULL);
    cmrs_solver_destroy(s);
    cmrs_solver_destroy(s2);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
}

/* The output of `cmrs solve CASE --device cpu ARGS` (stdout, stderr to
 * stdout when err is set) into text. */
static size_t run_cmd(const char *command, const char *args, int err,
                      char *text, size_t cap)
{
    char cmd[2600], file[1024];
    const char *bin = getenv("CMRS_BIN");
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' --device cpu %s %s",
             bin ? bin : "cmrs", command,
             case_path("vessel_3k.h5", file, sizeof file), args,
             err ? "2>&1" : "2>/dev/null");
    FILE *f = popen(cmd, "r");
    size_t len = f ? fread(text, 1, cap - 1, f) : 0;
    text[len] = '\0';
    if (f) pclose(f);
    CHECK(len > 0, "no output from '%s'", cmd);
    return len;
}

static size_t run_cli(const char *args, int err, char *text, size_t cap)
{
    return run_cmd("solve", args, err, text, cap);
}

/* compare --json: a profile per row; the second preconditioner's row
 * reuses the first row's back end and says so. */
static void compare_profile(void)
{
    static char text[1 << 20];
    run_cmd("compare", "--preconds jacobi,amg --json -", 0, text,
            sizeof text);
    const char *first = strstr(text, "\"setup_profile\"");
    const char *second = first ? strstr(first + 1, "\"setup_profile\"") : NULL;
    CHECK(first && second, "compare --json: a setup_profile per row");
    if (!first || !second) return;
    CHECK(strstr(first, "\"backend_reused\": false") &&
              strstr(second, "\"backend_reused\": true"),
          "compare --json: the second row reuses the first's back end");
    CHECK(json_number(second, "precond_s") > 0,
          "compare --json: the amg row's precond phase");
    run_cmd("compare", "--preconds jacobi,amg", 0, text, sizeof text);
    CHECK(!strstr(text, "setup_profile"), "no profile unless --json");
}

static void cli_profile(void)
{
    static char text[1 << 20];
    run_cli("--json -", 0, text, sizeof text);
    const char *obj = strstr(text, "\"setup_profile\"");
    CHECK(obj != NULL, "--json: no setup_profile");
    if (obj) {
        const char *keys[] = {"host_staging_s", "transfer_s", "conversion_s",
                              "precond_s", "other_s", "libraries_s",
                              "allocation_s", "total_s"};
        double sum = 0, total = json_number(obj, "total_s");
        for (int i = 0; i < 8; ++i) {
            double v = json_number(obj, keys[i]);
            CHECK(v >= 0, "--json: %s = %g", keys[i], v);
            if (i < 7) sum += v;
        }
        /* printed with %.17g or so: the sum within rounding of the total */
        CHECK(sum <= total * (1 + 1e-9) + 1e-12, "--json: phases sum %g > "
              "total %g", sum, total);
        CHECK(json_number(obj, "csr_bytes") > 0 &&
                  json_number(obj, "transfer_bytes") == 0 &&
                  strstr(obj, "\"h2d_pinned_gbs\": null") &&
                  strstr(obj, "\"transfer_floor_s\": null") &&
                  strstr(obj, "\"upload_threads\": null"),
              "--json: bytes and the CPU's null GPU figures");
    }
    run_cli("--verbose -q", 0, text, sizeof text);
    CHECK(strstr(text, "setup profile: total ") &&
              strstr(text, " + transfer ") && strstr(text, " + precond ") &&
              strstr(text, " + libraries ") && strstr(text, " + allocation "),
          "--verbose: no profile line in '%.200s'", text);
    run_cli("--verbose --json -", 1, text, sizeof text);
    CHECK(strstr(text, "setup profile: total ") &&
              strstr(text, "\"setup_profile\""), "--verbose --json -");
    run_cli("", 0, text, sizeof text);
    CHECK(!strstr(text, "setup profile"), "no profile line unless asked");
}

int main(void)
{
    api_profile();
    cli_profile();
    compare_profile();
    return check_summary();
}
