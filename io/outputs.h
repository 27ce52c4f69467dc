/* The output files of a command: checked before any work, written to
 * temporary names, renamed together at the end (all or none), and removed
 * when the command fails or is interrupted. For the command line (one
 * command per process): the table of temporaries is process-wide and not
 * thread-safe; the library's API never uses it.
 *
 *   cmrs_outputs_check       every output path of the command, before any
 *                            work (CMRS_E_USAGE naming option and path)
 *   cmrs_outputs_track       a temporary about to be created (outfile.h
 *                            and h5_out.h do this), then _stage when it is
 *                            complete
 *   cmrs_outputs_commit      every staged temporary renamed to its target:
 *                            all or none, files replaced are restored when
 *                            a later rename fails
 *   cmrs_outputs_discard     every temporary removed (a failed command)
 *   cmrs_outputs_remove_temporaries  the same from a signal handler
 *                            (app/main.c: SIGINT/SIGTERM exit 130/143) */
#ifndef CMRS_OUTPUTS_H
#define CMRS_OUTPUTS_H

#include "base/status.h"

/* One output of a command: the option naming it (for messages), its path
 * (NULL: not given) and whether "-" (stdout) is allowed. */
typedef struct cmrs_out_arg {
    const char *option;
    const char *path;
    int stdout_ok;
} cmrs_out_arg;

/* Refuses (CMRS_E_USAGE, one line naming the option and the path) an
 * output path that is empty, too long, "-" where not allowed (or "-"
 * twice), a directory or another non-regular file, in a directory that
 * does not exist or cannot be written, the same file as one of the inputs
 * (device and inode when both exist, else the resolved path; NULL inputs
 * and inputs that do not exist are skipped), or the same file as another
 * output. Nothing is created. */
cmrs_code cmrs_outputs_check(const cmrs_out_arg *outs, int nouts,
                             const char *const *inputs, int ninputs);

/* Registers temporary tmp of target path before tmp is created: from now
 * on a failure or a signal removes tmp. *slot: its handle. */
cmrs_code cmrs_outputs_track(const char *tmp, const char *path, int *slot);
/* tmp is complete: the next cmrs_outputs_commit renames it. */
void cmrs_outputs_stage(int slot);
/* keep 1: tmp is a documented partial result (cmrs sweep's FILE.partial):
 * failures and signals leave it in place. */
void cmrs_outputs_keep(int slot, int keep);
/* Drops a slot: removes its temporary unless kept. Negative: no-op. */
void cmrs_outputs_release(int slot);

/* Renames every staged temporary to its target, all or none: a target
 * that existed is kept under a backup name until every rename succeeded
 * and is put back otherwise (the new files go back to their temporary
 * names, then removed unless kept). SIGINT and SIGTERM are held during the
 * renames; one that arrived meanwhile undoes them too. Test hook: with
 * CMRS_TEST_PAUSE_BEFORE_COMMIT=SECONDS in the environment it first sleeps
 * (the temporaries complete, nothing renamed), so a test can signal the
 * write phase. */
cmrs_code cmrs_outputs_commit(void);
/* The same for one slot only (a file rewritten on its own). */
cmrs_code cmrs_outputs_commit_one(int slot);
/* Removes every temporary not kept and forgets every slot. */
void cmrs_outputs_discard(void);

/* Removes every temporary not kept, touching nothing else: only unlink(),
 * so a signal handler may call it (app/main.c's, for SIGINT/SIGTERM). */
void cmrs_outputs_remove_temporaries(void);

#endif
