/* cmrs convert --order in-process: the file written is exactly the
 * library's renumbering of the input (cmrs_reorder with the same order and
 * seed: P A P^T, b and x0 alike) for every order (metis where built),
 * natural writes the input unchanged, a CPU solve of the renumbered file
 * gives the input's solution renumbered, and the input file is left byte
 * for byte as it was. (The command line's refusals: test_convert_order.sh.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "base/csr_metis.h"
#include "check.h"
#include "reorder_check.h"
#include "tdir.h"

static cmrs_system g_input; /* a shuffled vessel with x0, in.h5 */

/* The whole of a file (malloc'd), its size in *len; NULL if unreadable. */
static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *bytes = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*len = (size_t)ftell(f)) > 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc(*len)) &&
        fread(bytes, 1, *len, f) != *len) {
        free(bytes);
        bytes = NULL;
    }
    if (f) fclose(f);
    return bytes;
}

/* `cmrs convert in.h5 --order ORDER [--seed SEED] -o out.h5`, read back. */
static void convert_read(const char *order, const char *seed,
                         cmrs_system *out)
{
    char *argv[] = {"convert", (char *)path_of("in.h5"), "--order",
                    (char *)order, "-o", (char *)path_of("out.h5"), "--seed",
                    (char *)seed};
    int exit_code = -1;
    memset(out, 0, sizeof *out);
    CHECK_OK(cmd_convert(seed ? 8 : 6, argv, &exit_code));
    CHECK(exit_code == 0, "convert --order %s: exit code %d", order,
          exit_code);
    CHECK_OK(cmrs_system_read(path_of("out.h5"), NULL, out));
    unlink(path_of("out.h5"));
}

/* The file of --order `order` is the library's cmrs_reorder of the input. */
static void check_same_as_library(cmrs_order order, const char *seed)
{
    cmrs_system file, mem;
    convert_read(cmrs_order_names[order], seed, &file);
    copy_system(&mem, &g_input);
    CHECK_OK(cmrs_reorder(&mem, order, seed ? strtoull(seed, NULL, 10) : 1));
    CHECK(file.b && mem.b && same_system(&file, &mem), "convert --order %s: "
          "the file is not the library's P A P^T", cmrs_order_names[order]);
    cmrs_system_free(&file);
    cmrs_system_free(&mem);
}

static void check_orders(void)
{
    check_same_as_library(CMRS_ORDER_NATURAL, NULL);
    check_same_as_library(CMRS_ORDER_RANDOM, "5");
    check_same_as_library(CMRS_ORDER_RCM, NULL);
    check_same_as_library(CMRS_ORDER_BFS, NULL);
    if (cmrs_metis_built()) check_same_as_library(CMRS_ORDER_METIS, NULL);
    cmrs_system file;
    convert_read("natural", NULL, &file);
    CHECK(file.b && same_system(&file, &g_input), "convert --order natural "
          "changed the system");
    cmrs_system_free(&file);
}

/* x' of the RCM file is x of the input moved by the RCM permutation. */
static void check_solution(void)
{
    cmrs_system file;
    int32_t *p = NULL;
    int64_t n = g_input.A.rows, iters = 0, off = 0;
    double *x = malloc((size_t)n * sizeof *x);
    double *y = malloc((size_t)n * sizeof *y);
    convert_read("rcm", NULL, &file);
    CHECK_OK(cmrs_order_perm(&g_input.A, CMRS_ORDER_RCM, 0, &p));
    CHECK(file.b && p, "no RCM file or permutation");
    if (file.b && p &&
        solve_cpu(&g_input, CMRS_METHOD_CG, 1e-12, x, &iters) ==
            CMRS_CONVERGED_RTOL &&
        solve_cpu(&file, CMRS_METHOD_CG, 1e-12, y, &iters) ==
            CMRS_CONVERGED_RTOL)
        for (int64_t i = 0; i < n; ++i)
            off += fabs(y[p[i]] - x[i]) > 1e-8 * (1 + fabs(x[i]));
    else
        off = n;
    CHECK(off == 0, "RCM file's solution: %lld of %lld entries are not the "
          "input's renumbered", (long long)off, (long long)n);
    cmrs_system_free(&file);
    CMRS_FREE_ALL(p, x, y);
}

int main(void)
{
    cmrs_vessel_opts vo = {2000, 1};
    size_t before_len = 0, after_len = 0;
    if (!tdir_make("convert_order")) return 1;
    CHECK_OK(cmrs_gen_vessel(&vo, &g_input));
    CHECK_OK(cmrs_reorder(&g_input, CMRS_ORDER_RANDOM, 2));
    if (!g_input.b) return check_summary();
    g_input.x0 = malloc((size_t)g_input.A.rows * sizeof(double));
    for (int64_t i = 0; i < g_input.A.rows; ++i)
        g_input.x0[i] = 0.5 + (double)(i % 7);
    CHECK_OK(cmrs_system_write(path_of("in.h5"), &g_input, NULL));
    char *before = file_bytes(path_of("in.h5"), &before_len);
    check_orders();
    check_solution();
    char *after = file_bytes(path_of("in.h5"), &after_len);
    CHECK(before && after && before_len == after_len &&
              !memcmp(before, after, before_len),
          "convert changed its input file");
    CMRS_FREE_ALL(before, after);
    cmrs_system_free(&g_input);
    tdir_remove();
    return check_summary();
}
