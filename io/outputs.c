/* A command's output files: checked up front, committed together, removed
 * on failure or on SIGINT/SIGTERM (outputs.h). */
#define _XOPEN_SOURCE 700 /* realpath, with POSIX.1-2008 */
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 4200 /* outfile.h's temporary names fit */
#define N_SLOTS 16

enum { SLOT_FREE = 0, SLOT_OPEN, SLOT_STAGED };
enum { BAK_NONE = 0, BAK_LINK, BAK_MOVED };

/* The signal handler reads state, keep and tmp; every string is written
 * before state leaves SLOT_FREE. */
typedef struct out_slot {
    volatile sig_atomic_t state;
    volatile sig_atomic_t keep;
    char tmp[PATH_LEN];
    char path[PATH_LEN];
    char bak[PATH_LEN]; /* the old target during a commit */
    int bak_kind, renamed;
} out_slot;

static out_slot g_slots[N_SLOTS];

/* ---- checking the paths ---- */

/* dir (at least ".") and base name of path. */
static void split_path(const char *path, char *dir, size_t n,
                       const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, n, ".");
    else if (slash == path) snprintf(dir, n, "/");
    else snprintf(dir, n, "%.*s", (int)(slash - path), path);
    *base = slash ? slash + 1 : path;
}

/* The absolute path with every directory resolved (the last component as
 * given); 0 when the directory does not resolve. */
static int resolve(const char *path, char *out, size_t n)
{
    char dir[PATH_LEN], *real;
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    if (!(real = realpath(dir, NULL))) return 0;
    int w = snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
    free(real);
    return w > 0 && (size_t)w < n;
}

/* 1 when a and b are the same file: one inode, or one resolved path. */
static int same_path(const char *a, const char *b)
{
    struct stat sa, sb;
    char ra[PATH_LEN], rb[PATH_LEN];
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return resolve(a, ra, sizeof ra) && resolve(b, rb, sizeof rb) &&
           strcmp(ra, rb) == 0;
}

/* The directory of the output: exists and can be written. */
static cmrs_code check_dir(const cmrs_out_arg *o)
{
    char dir[PATH_LEN];
    const char *base;
    struct stat st;
    split_path(o->path, dir, sizeof dir, &base);
    CMRS_ENSURE(*base && strcmp(base, ".") && strcmp(base, ".."),
                CMRS_E_USAGE, "%s %s: is a directory", o->option, o->path);
    if (stat(dir, &st) != 0)
        CMRS_FAIL(CMRS_E_USAGE, "%s %s: the directory %s %s%s", o->option,
                  o->path, dir, errno == ENOENT ? "does not exist" : "is "
                  "not usable: ", errno == ENOENT ? "" : strerror(errno));
    CMRS_ENSURE(S_ISDIR(st.st_mode), CMRS_E_USAGE, "%s %s: %s is not a "
                "directory", o->option, o->path, dir);
    CMRS_ENSURE(access(dir, W_OK | X_OK) == 0, CMRS_E_USAGE, "%s %s: the "
                "directory %s is not writable (%s)", o->option, o->path, dir,
                strerror(errno));
    return CMRS_OK;
}

/* One output on its own: the path and its directory. */
static cmrs_code check_one(const cmrs_out_arg *o)
{
    struct stat st;
    CMRS_ENSURE(*o->path, CMRS_E_USAGE, "%s: the output path is empty",
                o->option);
    CMRS_ENSURE(strlen(o->path) < 4000, CMRS_E_USAGE, "%s: output path too "
                "long (%zu bytes)", o->option, strlen(o->path));
    CMRS_CHECK(check_dir(o));
    if (stat(o->path, &st) != 0) return CMRS_OK; /* a new file */
    CMRS_ENSURE(!S_ISDIR(st.st_mode), CMRS_E_USAGE, "%s %s: is a directory",
                o->option, o->path);
    CMRS_ENSURE(S_ISREG(st.st_mode), CMRS_E_USAGE, "%s %s: is not a regular "
                "file%s", o->option, o->path,
                o->stdout_ok ? " (use '-' for stdout)" : "");
    return CMRS_OK;
}

/* Output i against the inputs and the outputs before it. */
static cmrs_code check_clash(const cmrs_out_arg *outs, int i,
                             const char *const *inputs, int ninputs)
{
    const cmrs_out_arg *o = &outs[i];
    struct stat st;
    for (int k = 0; k < ninputs; ++k)
        CMRS_ENSURE(!inputs[k] || stat(inputs[k], &st) != 0 ||
                        !same_path(o->path, inputs[k]),
                    CMRS_E_USAGE, "%s %s: it is the input file (%s)",
                    o->option, o->path, inputs[k]);
    for (int j = 0; j < i; ++j) {
        const cmrs_out_arg *p = &outs[j];
        if (!p->path || !strcmp(p->path, "-")) continue;
        CMRS_ENSURE(!same_path(o->path, p->path), CMRS_E_USAGE,
                    "%s %s: the same file as %s %s", o->option, o->path,
                    p->option, p->path);
    }
    return CMRS_OK;
}

cmrs_code cmrs_outputs_check(const cmrs_out_arg *outs, int nouts,
                             const char *const *inputs, int ninputs)
{
    const char *to_stdout = NULL;
    for (int i = 0; i < nouts; ++i) {
        const cmrs_out_arg *o = &outs[i];
        if (!o->path) continue;
        if (!strcmp(o->path, "-")) {
            CMRS_ENSURE(o->stdout_ok, CMRS_E_USAGE, "%s -: this output "
                        "cannot go to stdout: give a file name", o->option);
            CMRS_ENSURE(!to_stdout, CMRS_E_USAGE, "%s and %s cannot both be "
                        "'-' (stdout)", to_stdout, o->option);
            to_stdout = o->option;
            continue;
        }
        CMRS_CHECK(check_one(o));
        CMRS_CHECK(check_clash(outs, i, inputs, ninputs));
    }
    return CMRS_OK;
}

/* ---- the table of temporaries ---- */

cmrs_code cmrs_outputs_track(const char *tmp, const char *path, int *slot)
{
    *slot = -1;
    CMRS_ENSURE(strlen(tmp) < PATH_LEN && strlen(path) < PATH_LEN,
                CMRS_E_USAGE, "output path too long: %s", path);
    for (int i = 0; i < N_SLOTS; ++i) {
        out_slot *s = &g_slots[i];
        if (s->state != SLOT_FREE) continue;
        strcpy(s->tmp, tmp);
        strcpy(s->path, path);
        s->bak[0] = '\0';
        s->bak_kind = s->renamed = 0;
        s->keep = 0;
        atomic_signal_fence(memory_order_seq_cst);
        s->state = SLOT_OPEN;
        *slot = i;
        return CMRS_OK;
    }
    CMRS_FAIL(CMRS_E_INTERNAL, "%s: more than %d output files at once", path,
              N_SLOTS);
}

static out_slot *slot_at(int slot)
{
    return slot >= 0 && slot < N_SLOTS && g_slots[slot].state != SLOT_FREE
               ? &g_slots[slot] : NULL;
}

void cmrs_outputs_stage(int slot)
{
    out_slot *s = slot_at(slot);
    if (s) s->state = SLOT_STAGED;
}

void cmrs_outputs_keep(int slot, int keep)
{
    out_slot *s = slot_at(slot);
    if (s) s->keep = keep != 0;
}

void cmrs_outputs_release(int slot)
{
    out_slot *s = slot_at(slot);
    if (!s) return;
    if (!s->keep) unlink(s->tmp);
    s->state = SLOT_FREE;
    s->keep = 0;
}

void cmrs_outputs_discard(void)
{
    for (int i = 0; i < N_SLOTS; ++i) cmrs_outputs_release(i);
}

/* ---- committing ---- */

/* Test hook (outputs.h): sleep with every temporary complete. */
static void pause_hook(void)
{
    const char *v = getenv("CMRS_TEST_PAUSE_BEFORE_COMMIT");
    unsigned s = v ? (unsigned)strtoul(v, NULL, 10) : 0;
    while (s > 0) s = sleep(s);
}

/* Keeps an existing target under "<dir>/.<base>.bak.<pid>": a second
 * link where the file system has them (the target never disappears),
 * else the target itself moved there. */
static cmrs_code backup(out_slot *s)
{
    struct stat st;
    char dir[PATH_LEN];
    const char *base;
    if (lstat(s->path, &st) != 0) return CMRS_OK; /* a new file */
    CMRS_ENSURE(!S_ISDIR(st.st_mode), CMRS_E_IO, "%s: is a directory "
                "(made while the command ran)", s->path);
    split_path(s->path, dir, sizeof dir, &base);
    int w = snprintf(s->bak, sizeof s->bak, "%s/.%s.bak.%ld", dir, base,
                     (long)getpid());
    CMRS_ENSURE(w > 0 && (size_t)w < sizeof s->bak, CMRS_E_USAGE,
                "%s: output path too long", s->path);
    unlink(s->bak);
    if (linkat(AT_FDCWD, s->path, AT_FDCWD, s->bak, 0) == 0)
        s->bak_kind = BAK_LINK;
    else if (rename(s->path, s->bak) == 0)
        s->bak_kind = BAK_MOVED;
    else
        CMRS_FAIL(CMRS_E_IO, "%s: cannot keep the old file while writing "
                  "the new one: %s", s->path, strerror(errno));
    return CMRS_OK;
}

/* Puts the target back as it was before the commit; the new content goes
 * back to the temporary name. */
static void undo(out_slot *s)
{
    int was = s->renamed;
    if (was) rename(s->path, s->tmp);
    if (s->bak_kind == BAK_LINK && !was) unlink(s->bak);
    else if (s->bak_kind != BAK_NONE) rename(s->bak, s->path);
    s->renamed = 0;
    s->bak_kind = BAK_NONE;
}

static int signal_pending(void)
{
    sigset_t p;
    return sigpending(&p) == 0 &&
           (sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1);
}

/* Backups, then every rename; with signals held, so a signal sees either
 * nothing renamed or the commit done. */
static cmrs_code rename_all(out_slot **s, int n)
{
    for (int i = 0; i < n; ++i) CMRS_CHECK(backup(s[i]));
    for (int i = 0; i < n; ++i) {
        CMRS_ENSURE(rename(s[i]->tmp, s[i]->path) == 0, CMRS_E_IO,
                    "%s: cannot rename the temporary file %s: %s",
                    s[i]->path, s[i]->tmp, strerror(errno));
        s[i]->renamed = 1;
    }
    CMRS_ENSURE(!signal_pending(), CMRS_E_IO, "interrupted while renaming "
                "the output files");
    return CMRS_OK;
}

static cmrs_code commit_slots(out_slot **s, int n)
{
    if (n == 0) return CMRS_OK;
    pause_hook();
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigprocmask(SIG_BLOCK, &hold, &old);
    cmrs_code rc = rename_all(s, n);
    for (int i = n - 1; i >= 0; --i) {
        if (rc != CMRS_OK) {
            undo(s[i]);
            continue;
        }
        if (s[i]->bak_kind != BAK_NONE) unlink(s[i]->bak);
        s[i]->keep = 0;
        s[i]->state = SLOT_FREE;
    }
    if (rc != CMRS_OK)
        for (int i = 0; i < n; ++i) cmrs_outputs_release((int)(s[i] - g_slots));
    sigprocmask(SIG_SETMASK, &old, NULL); /* a held signal arrives here */
    return rc;
}

cmrs_code cmrs_outputs_commit(void)
{
    out_slot *s[N_SLOTS];
    int n = 0;
    for (int i = 0; i < N_SLOTS; ++i)
        if (g_slots[i].state == SLOT_STAGED) s[n++] = &g_slots[i];
    CMRS_CHECK(commit_slots(s, n));
    return CMRS_OK;
}

cmrs_code cmrs_outputs_commit_one(int slot)
{
    out_slot *s = slot_at(slot);
    CMRS_ENSURE(s && s->state == SLOT_STAGED, CMRS_E_INTERNAL,
                "output slot %d is not staged", slot);
    CMRS_CHECK(commit_slots(&s, 1));
    return CMRS_OK;
}

/* ---- signals ---- */

void cmrs_outputs_remove_temporaries(void)
{
    for (int i = 0; i < N_SLOTS; ++i)
        if (g_slots[i].state != SLOT_FREE && !g_slots[i].keep)
            unlink(g_slots[i].tmp);
}
