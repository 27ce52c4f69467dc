/* `cmrs solve -o`: the result file read back with the HDF5 C API (/x,
 * /history/residual, attributes), a non-converged solve still writing it,
 * and no file (nor temporary) left after a failure. Runs cmd_solve
 * in-process on the CPU back end. */
#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "io/system.h"
#include "tdir.h"
#include "tsolve.h"

static void path_in_dir(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Runs cmd_solve on argv (NULL-terminated); returns the status code. */
static cmrs_code run_solve(const char **argv, int *exit_code)
{
    int argc = 0;
    while (argv[argc]) ++argc;
    *exit_code = -1;
    cmrs_error_clear();
    return cmd_solve(argc, (char **)argv, exit_code);
}

static double *read_f64(hid_t f, const char *name, hsize_t *n)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, n, NULL);
    double *v = malloc((size_t)*n * sizeof *v + 1);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Sclose(sp);
    H5Dclose(d);
    return v;
}

static int attr_str_is(hid_t f, const char *name, const char *want)
{
    char *value = NULL;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t t = H5Aget_type(a);
    int ok = H5Aread(a, t, &value) >= 0 && value && !strcmp(value, want);
    if (!ok) fprintf(stderr, "attribute %s is '%s', want '%s'\n", name,
                     value ? value : "(unreadable)", want);
    H5free_memory(value);
    H5Tclose(t);
    H5Aclose(a);
    return ok;
}

static double attr_f64(hid_t f, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0) return NAN;
    H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
    return v;
}

/* Checks the result file of a solve of A x = b. */
static void check_result(const char *out, const cmrs_csr *A, const double *b,
                         const char *input, const char *reason, double rtol)
{
    hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "%s: cannot open the result", out);
    if (f < 0) return;
    hsize_t nx = 0, nh = 0;
    double *x = read_f64(f, "/x", &nx), *h = read_f64(f, "/history/residual",
                                                      &nh);
    double its = attr_f64(f, "iterations");
    CHECK(x && (int64_t)nx == A->rows, "/x has %llu entries",
          (unsigned long long)nx);
    CHECK(h && nh == (hsize_t)its + 1 && its >= 1 && h[0] == 1.0,
          "/history/residual: %llu entries for %g iterations",
          (unsigned long long)nh, its);
    double tr = x ? rel_residual(A, b, x) : NAN;
    CHECK(fabs(tr - attr_f64(f, "residual_true")) <= 1e-6 * tr,
          "residual_true %g, recomputed %g", attr_f64(f, "residual_true"), tr);
    if (!strcmp(reason, "CONVERGED_RTOL"))
        CHECK(tr <= 2 * rtol && h[nh - 1] <= rtol, "converged: true %g", tr);
    CHECK(attr_str_is(f, "solver", "cg") &&
              attr_str_is(f, "preconditioner", "jacobi") &&
              attr_str_is(f, "format", "cpu-csr") &&
              attr_str_is(f, "precision", "double") &&
              attr_str_is(f, "device", "cpu") &&
              attr_str_is(f, "input_file", input) &&
              attr_str_is(f, "converged_reason", reason),
          "string attributes");
    CHECK(attr_f64(f, "rtol") == rtol && attr_f64(f, "height") == 0 &&
              attr_f64(f, "time_solve") >= 0 &&
              attr_f64(f, "time_setup") >= 0 &&
              attr_f64(f, "time_per_iteration") >= 0,
          "numeric attributes");
    free(x);
    free(h);
    H5Fclose(f);
}

static int count_files(void)
{
    int n = 0;
    DIR *d = opendir(g_dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.' || strstr(e->d_name, ".tmp") != NULL;
    if (d) closedir(d);
    return n;
}

/* Writes the native system file for A, b into the test directory. */
static void write_system(const char *path, const cmrs_csr *A, double *b)
{
    cmrs_system sys;
    memset(&sys, 0, sizeof sys);
    sys.A = *A;
    sys.b = b;
    CHECK_OK(cmrs_system_write(path, &sys, NULL));
}

static void test_result_files(void)
{
    char in[128], out[128], out2[128];
    cmrs_csr A;
    lap2d(&A, 10);
    double *b = rhs_for(&A, NULL);
    path_in_dir(in, sizeof in, "sys.h5");
    path_in_dir(out, sizeof out, "x.h5");
    path_in_dir(out2, sizeof out2, "x2.h5");
    write_system(in, &A, b);
    const char *ok[] = {"solve", in, "--device", "cpu", "-q", "--rtol",
                        "1e-10", "-o", out, NULL};
    int code;
    CHECK_OK(run_solve(ok, &code));
    CHECK(code == CMRS_EXIT_OK, "converged solve exits %d", code);
    check_result(out, &A, b, in, "CONVERGED_RTOL", 1e-10);
    /* Not converged: exit 1, the file is still written. */
    const char *maxits[] = {"solve", in, "--device=cpu", "-q", "--maxiter",
                            "3", "-o", out2, NULL};
    CHECK_OK(run_solve(maxits, &code));
    CHECK(code == CMRS_EXIT_NOT_CONVERGED, "maxiter exits %d", code);
    check_result(out2, &A, b, in, "DIVERGED_MAXITS", 1e-8);
    free(b);
    cmrs_csr_free(&A);
}

/* Failures leave no result file and no temporary behind. */
static void test_failures(void)
{
    char in[128], out[128];
    double d[3] = {2, -2, 2}, b[3] = {1, 2, 3};
    cmrs_csr A;
    tridiag(&A, 3, d, 0.5);
    path_in_dir(in, sizeof in, "neg.h5");
    path_in_dir(out, sizeof out, "neg_x.h5");
    write_system(in, &A, b);
    int before = count_files(), code;
    const char *neg[] = {"solve", in, "--device", "cpu", "-q", "-o", out,
                         NULL};
    CHECK(run_solve(neg, &code) == CMRS_E_INPUT &&
              strstr(cmrs_error_message(), "row 1"),
          "negative diagonal: %s", cmrs_error_message());
    CHECK(access(out, F_OK) != 0 && count_files() == before,
          "nothing written after a failure");
    const char *clobber[] = {"solve", in, "--device", "cpu", "-q",
                             "--precond", "none", "-o", in, NULL};
    CHECK(run_solve(clobber, &code) == CMRS_E_USAGE &&
              strstr(cmrs_error_message(), "input file"),
          "-o over the input: %s", cmrs_error_message());
    CHECK(count_files() == before, "input intact, no temporary");
    const char *single[] = {"solve", in, "--device", "cpu", "--precision",
                            "single", NULL};
    CHECK(run_solve(single, &code) == CMRS_E_USAGE &&
              strstr(cmrs_error_message(), "double only"),
          "single on the CPU: %s", cmrs_error_message());
    cmrs_csr_free(&A);
}

int main(void)
{
    if (!tdir_make("solve_out")) return 1;
    test_result_files();
    test_failures();
    tdir_remove();
    return check_summary();
}
