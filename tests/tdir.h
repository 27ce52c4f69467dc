/* A test's scratch folder: tdir_make("name") makes /tmp/cmrs_name_XXXXXX
 * (mkdtemp), path_of names a file in it (4 rotating buffers, so one call
 * can take several), tdir_remove deletes it and everything in it.
 * TDIR_MAIN("name", test_a, test_b, ...) is the whole of a main that runs
 * its tests in such a folder. */
#ifndef CMRS_TEST_TDIR_H
#define CMRS_TEST_TDIR_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static char g_dir[64];

static inline int tdir_make(const char *name)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cmrs_%s_XXXXXX", name);
    return mkdtemp(g_dir) != NULL;
}

static inline const char *path_of(const char *name)
{
    static char paths[4][512];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", g_dir, name);
    return p;
}

static inline void tdir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
}

/* Runs the tests in order in a new scratch folder `name`, removes it and
 * returns the summary's exit status (1 when the folder cannot be made). */
static inline int tdir_run(const char *name, const check_test *tests,
                           size_t count)
{
    if (!tdir_make(name)) return 1;
    for (size_t i = 0; i < count; ++i) tests[i]();
    tdir_remove();
    return check_summary();
}

#define TDIR_MAIN(name, ...)                                                \
    tdir_run(name, (const check_test[]){__VA_ARGS__},                        \
             sizeof((check_test[]){__VA_ARGS__}) / sizeof(check_test))

#endif
