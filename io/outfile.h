/* Text output files (JSON, CSV) written safely: to a temporary name (in
 * the table of outputs.h, so a failure or a signal removes it), staged
 * when complete and renamed with the command's other outputs by
 * cmrs_outputs_commit; "-" means stdout. */
#ifndef CMRS_OUTFILE_H
#define CMRS_OUTFILE_H

#include <stdio.h>

#include "outputs.h"
#include "base/status.h"

typedef struct cmrs_outfile {
    FILE *f;
    char path[4096];
    char tmp_path[4200];
    int is_stdout;
    int slot; /* outputs.h; -1: none */
} cmrs_outfile;

/* Builds "<dir>/.<base>.tmp.<pid>" for path into tmp (size n). */
cmrs_code cmrs_tmp_name(const char *path, char *tmp, size_t n);
/* 1 when a and b name the same existing file (so output would clobber
 * input), else 0. */
int cmrs_same_file(const char *a, const char *b);

/* Checks an output path (not empty, not the input file, fits `path_n`),
 * copies it to path_out and its temporary name to tmp_out. */
cmrs_code cmrs_out_path_prepare(const char *path, const char *input_path,
                                char *path_out, size_t path_n, char *tmp_out,
                                size_t tmp_n);

cmrs_code cmrs_outfile_open(cmrs_outfile *o, const char *path,
                            const char *input_path);
/* Closes and stages the temporary (a write error removes it and fails);
 * the file appears at cmrs_outputs_commit. stdout: flushed. */
cmrs_code cmrs_outfile_finish(cmrs_outfile *o);
/* finish, then renamed at once on its own (cmrs_outputs_commit_one). */
cmrs_code cmrs_outfile_commit(cmrs_outfile *o);
/* An open file: closed and its temporary removed. NULL-safe, idempotent;
 * nothing after finish (the outputs table owns the staged file). */
void cmrs_outfile_abort(cmrs_outfile *o);

#endif
