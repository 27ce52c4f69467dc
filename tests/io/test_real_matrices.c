/* Reads every public matrix in ../shared/data/matrices (beside the checkout;
 * skipped, exit 77, where that folder is absent) and checks it against an
 * independent count of its entries: nnz after symmetric expansion, the
 * pattern symmetry a symmetric file implies, b = A*1, and an HDF5 round
 * trip. Headers can lie (lap2D_5pt_n32_lowergeneral is 'general' but holds
 * a triangle): the reader must take them at their word. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cases/cases.h"
#include "check.h"
#include "io/system.h"

/* What the file holds, counted line by line with sscanf. */
typedef struct file_counts {
    int symmetric;       /* header says symmetric */
    long long entries;   /* entry lines */
    long long diagonal;  /* entry lines with i == j */
    long long upper;     /* entry lines with j > i */
} file_counts;

static int count_entries(const char *path, file_counts *c)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int header = 1;
    memset(c, 0, sizeof *c);
    if (!f || !fgets(line, sizeof line, f)) return -1;
    c->symmetric = strstr(line, "symmetric") != NULL;
    while (fgets(line, sizeof line, f)) {
        long long i, j;
        if (line[0] == '%' || sscanf(line, "%lld %lld", &i, &j) != 2) continue;
        if (header) { /* the size line */
            header = 0;
            continue;
        }
        ++c->entries;
        c->diagonal += i == j;
        c->upper += j > i;
    }
    fclose(f);
    return 0;
}

static void check_matrix(const char *dir, const char *name)
{
    char path[1200], out[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    file_counts c;
    CHECK(count_entries(path, &c) == 0, "%s: cannot count", name);
    cmrs_system s, t;
    CHECK_OK(cmrs_system_read(path, NULL, &s));
    if (!s.A.indptr) return;
    long long want = c.symmetric ? 2 * c.entries - c.diagonal : c.entries;
    CHECK(s.A.nnz == want, "%s: nnz %lld, expected %lld", name,
          (long long)s.A.nnz, want);
    cmrs_csr_stats st;
    cmrs_csr_stats_compute(&s.A, &st);
    if (c.symmetric)
        CHECK(st.symmetric, "%s: symmetric file, nonsymmetric matrix", name);
    if (!c.symmetric && c.upper == 0 && c.entries > c.diagonal)
        CHECK(!st.structurally_symmetric, "%s: a stored triangle was "
              "expanded", name);
    CHECK(!s.b, "%s: the reader takes no b", name);
    CHECK_OK(cmrs_system_rhs_ones(&s, name));
    int64_t bad_rows = 0; /* same summation order as b = A*1: exact */
    for (int64_t i = 0; i < s.A.rows; ++i) {
        double sum = 0;
        for (int64_t k = s.A.indptr[i]; k < s.A.indptr[i + 1]; ++k)
            sum += s.A.values[k];
        bad_rows += s.b[i] != sum;
    }
    CHECK(s.b_generated && bad_rows == 0, "%s: b is not A*1", name);
    snprintf(out, sizeof out, "/tmp/cmrs_real_%d.h5", (int)getpid());
    CHECK_OK(cmrs_system_write(out, &s, path));
    CHECK_OK(cmrs_system_read(out, NULL, &t));
    CHECK(t.A.nnz == s.A.nnz && !memcmp(t.A.values, s.A.values,
                                        (size_t)s.A.nnz * sizeof(double)) &&
              !memcmp(t.A.indices, s.A.indices, (size_t)s.A.nnz * 4),
          "%s: HDF5 round trip differs", name);
    remove(out);
    cmrs_system_free(&t);
    cmrs_system_free(&s);
}

int main(void)
{
    const char *src = getenv("CMRS_SOURCE_DIR");
    char dir[900];
    snprintf(dir, sizeof dir, "%s/../shared/data/matrices", src ? src : ".");
    DIR *d = opendir(dir);
    if (!d) {
        printf("no %s: skipped\n", dir);
        return 77;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcasecmp(e->d_name + len - 4, ".mtx") != 0) continue;
        check_matrix(dir, e->d_name);
        ++n;
    }
    closedir(d);
    printf("%d matrices read\n", n);
    return check_summary();
}
