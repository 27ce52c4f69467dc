/* cmrs gen in-process, file read back: the written system is exactly the
 * generator's (after the same reordering), and a command run twice in one
 * process parses its options afresh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "check.h"
#include "props.h"

static char g_dir[64];

/* Runs `cmrs gen ARGS -o DIR/name` and reads the file back into *s. */
static void gen_and_read(char **args, int nargs, const char *name,
                         cmrs_system *s)
{
    char path[128], *argv[16];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    int argc = 0;
    argv[argc++] = "gen";
    for (int i = 0; i < nargs; ++i) argv[argc++] = args[i];
    argv[argc++] = "-o";
    argv[argc++] = path;
    int exit_code = -1;
    memset(s, 0, sizeof *s);
    CHECK_OK(cmd_gen(argc, argv, &exit_code));
    CHECK(exit_code == 0, "gen exit code %d", exit_code);
    CHECK_OK(cmrs_system_read(path, NULL, s));
    unlink(path);
}

static void check_same(const cmrs_system *file, const cmrs_system *mem,
                       const char *what)
{
    CHECK(file->b && same_system(file, mem), "%s: file differs from memory",
          what);
    CHECK(file->x0 == NULL && !file->b_generated, "%s: x0 or b_generated",
          what);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cmrs_gen_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    cmrs_system f, m;
    char *vessel[] = {"vessel", "--cells", "2000", "--order", "rcm"};
    gen_and_read(vessel, 5, "v.h5", &f);
    cmrs_vessel_opts vo = {2000, 1};
    CHECK_OK(cmrs_gen_vessel(&vo, &m));
    CHECK_OK(cmrs_reorder(&m, CMRS_ORDER_RCM, 1));
    check_same(&f, &m, "vessel rcm");
    cmrs_system_free(&f);
    cmrs_system_free(&m);

    char *poisson[] = {"poisson3d", "--n", "6", "--stencil", "27",
                       "--contrast", "2.5", "--seed", "8", "--order", "random"};
    gen_and_read(poisson, 11, "p.h5", &f);
    cmrs_poisson_opts po = {6, 27, 2.5, 8};
    CHECK_OK(cmrs_gen_poisson3d(&po, &m));
    CHECK_OK(cmrs_reorder(&m, CMRS_ORDER_RANDOM, 8));
    check_same(&f, &m, "poisson3d");
    cmrs_system_free(&f);
    cmrs_system_free(&m);

    char *convdiff[] = {"convdiff", "--n", "5", "--peclet", "30"};
    gen_and_read(convdiff, 5, "c.h5", &f);
    cmrs_convdiff_opts co = {5, 30.0, 1};
    CHECK_OK(cmrs_gen_convdiff(&co, &m));
    check_same(&f, &m, "convdiff");
    cmrs_system_free(&f);
    cmrs_system_free(&m);
    rmdir(g_dir);
    return check_summary();
}
