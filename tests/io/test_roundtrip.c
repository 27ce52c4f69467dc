/* Writing: mtx -> native HDF5 -> read gives identical arrays; the safe
 * output (temporary + rename, nothing left on failure or abort, never over
 * the input); nested dataset names and attributes for result files. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "check.h"
#include "tdir.h"
#include "h5_make.h"
#include "io/h5_out.h"
#include "io/h5_util.h"
#include "io/system.h"

/* Number of entries in the test directory (temporaries included). */
static int dir_entries(void)
{
    DIR *d = opendir(g_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static int same_csr(const cmrs_csr *a, const cmrs_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           !memcmp(a->indptr, b->indptr, (size_t)(a->rows + 1) * 8) &&
           !memcmp(a->indices, b->indices, (size_t)a->nnz * 4) &&
           !memcmp(a->values, b->values, (size_t)a->nnz * 8);
}

/* Dataset name of file path is stored with type want. */
static void check_type(const char *path, const char *name, hid_t want)
{
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(h, name, H5P_DEFAULT);
    hid_t type = H5Dget_type(d);
    CHECK(H5Tequal(type, want) > 0, "%s has the wrong type", name);
    H5Tclose(type);
    H5Dclose(d);
    H5Fclose(h);
}

static void test_mtx_roundtrip(void)
{
    FILE *f = fopen(path_of("a.mtx"), "w");
    fputs("%%MatrixMarket matrix coordinate real general\n3 4 5\n"
          "1 1 0.1\n3 4 -1e-300\n2 2 3.141592653589793\n1 4 7\n3 1 2\n", f);
    fclose(f);
    f = fopen(path_of("x0.mtx"), "w");
    fputs("%%MatrixMarket matrix array real general\n3 1\n0.1\n0.2\n0.3\n", f);
    fclose(f);
    cmrs_read_opts o = {.x0 = path_of("x0.mtx")};
    cmrs_system s, t;
    CHECK_OK(cmrs_system_read(path_of("a.mtx"), &o, &s));
    CHECK(!s.b, "a.mtx: the reader takes no b");
    CHECK_OK(cmrs_system_rhs_ones(&s, "a.mtx")); /* as cmrs convert does */
    CHECK_OK(cmrs_system_write(path_of("a.h5"), &s, path_of("a.mtx")));
    CHECK_OK(cmrs_system_read(path_of("a.h5"), NULL, &t));
    CHECK(same_csr(&s.A, &t.A), "matrix changed in the round trip");
    CHECK(!strcmp(t.layout, "native") && !t.b_generated &&
          !memcmp(s.b, t.b, 3 * sizeof(double)) && t.x0 &&
          !memcmp(s.x0, t.x0, 3 * sizeof(double)), "vectors changed");
    CHECK(dir_entries() == 3, "temporary left behind: %d files", dir_entries());
    check_type(path_of("a.h5"), "/A/indices", H5T_STD_I32LE);
    check_type(path_of("a.h5"), "/A/indptr", H5T_STD_I64LE);
    check_type(path_of("a.h5"), "/A/data", H5T_IEEE_F64LE);
    /* Never over the input; the input survives. */
    CHECK_FAILS(cmrs_system_write(path_of("a.h5"), &t, path_of("a.h5")),
                CMRS_E_USAGE, "it is the input file");
    cmrs_system u;
    CHECK_OK(cmrs_system_read(path_of("a.h5"), NULL, &u));
    cmrs_system_free(&u);
    cmrs_system_free(&s);
    cmrs_system_free(&t);
}

static void test_out_failures(void)
{
    int before = dir_entries();
    cmrs_h5_out o;
    CHECK_OK(cmrs_h5_out_open(&o, path_of("r.h5"), NULL));
    double v[3] = {1, 2, 3};
    CHECK_OK(cmrs_h5_write_f64(&o, "/x", v, 3));
    CHECK(dir_entries() == before + 1, "temporary not beside the target");
    /* A name used twice fails, and the temporary goes at once. */
    CHECK_FAILS(cmrs_h5_write_f64(&o, "/x", v, 3), CMRS_E_IO, "r.h5: cannot "
                "write /x");
    CHECK(dir_entries() == before, "failed write left a temporary");
    cmrs_h5_out_abort(&o); /* harmless after the failure */
    CHECK(access(path_of("r.h5"), F_OK) != 0, "output appeared");

    CHECK_OK(cmrs_h5_out_open(&o, path_of("r.h5"), NULL));
    CHECK_OK(cmrs_h5_write_f64(&o, "/x", v, 3));
    cmrs_h5_out_abort(&o);
    cmrs_h5_out_abort(&o); /* idempotent */
    cmrs_h5_out_abort(NULL);
    CHECK(dir_entries() == before, "abort left files");

    CHECK_FAILS(cmrs_h5_out_open(&o, path_of("no/such/dir.h5"), NULL),
                CMRS_E_IO, "cannot create output: No such file or directory");
    CHECK_FAILS(cmrs_h5_out_open(&o, "", NULL), CMRS_E_USAGE, "empty");
    CHECK(dir_entries() == before, "failed open left files");
}

/* Reads scalar attribute `name` of obj as double (or string). */
static double attr_f64(hid_t f, const char *obj, const char *name)
{
    double v = -1;
    hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    if (a >= 0) H5Aclose(a);
    return v;
}

static void test_results_file(void)
{
    cmrs_h5_out o;
    double r[4] = {1, 0.5, 0.25, 0.125};
    CHECK_OK(cmrs_h5_out_open(&o, path_of("res.h5"), NULL));
    CHECK_OK(cmrs_h5_write_f64(&o, "/history/residual", r, 4));
    CHECK_OK(cmrs_h5_write_f64(&o, "/empty", r, 0));
    CHECK_OK(cmrs_h5_attr_str(&o, "/", "solver", "pcg"));
    CHECK_OK(cmrs_h5_attr_f64(&o, "/history", "rtol", 1e-8));
    CHECK_OK(cmrs_h5_attr_i64(&o, "/", "iterations", 3));
    CHECK_OK(cmrs_h5_attr_i64(&o, "/", "iterations", 4)); /* replaced */
    CHECK(access(path_of("res.h5"), F_OK) != 0, "visible before commit");
    CHECK_OK(cmrs_h5_out_commit(&o));
    hid_t f = H5Fopen(path_of("res.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "res.h5 not readable");
    double back[4] = {0};
    hid_t d = H5Dopen2(f, "/history/residual", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                            H5P_DEFAULT, back) >= 0 &&
              !memcmp(back, r, sizeof r), "residual history");
    if (d >= 0) H5Dclose(d);
    CHECK(attr_f64(f, "/history", "rtol") == 1e-8, "rtol attribute");
    CHECK(attr_f64(f, "/", "iterations") == 4, "iterations attribute");
    char solver[16] = "";
    CHECK_OK(cmrs_h5_attr_string(f, "res.h5", "/", "solver", solver,
                                 sizeof solver));
    CHECK(!strcmp(solver, "pcg"), "solver attribute '%s'", solver);
    H5Fclose(f);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return TDIR_MAIN("roundtrip", test_mtx_roundtrip, test_out_failures,
                     test_results_file);
}
