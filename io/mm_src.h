/* Lines of a Matrix Market text, from memory or from a file (gzip or plain,
 * through zlib when built with it), with line numbers for messages.
 * Internal to io/mm_read.c and its tests. */
#ifndef CMRS_MM_SRC_H
#define CMRS_MM_SRC_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Longest line accepted: entry lines are short; this only bounds memory. */
#define CMRS_MM_MAX_LINE (1 << 20)

typedef struct cmrs_mm_src {
    const char *name;   /* the file, for messages */
    void *file;         /* gzFile (or FILE * without zlib); NULL: memory */
    const char *data;   /* current block of input */
    size_t len, pos;    /* its length and the read position */
    char *block;        /* owned buffer behind data for file input */
    char *line;         /* current line, NUL-terminated, without '\n' */
    size_t line_len, line_cap;
    int64_t lineno;     /* number of the current line (1-based) */
    double max_bytes;   /* upper bound of the (decompressed) text size */
} cmrs_mm_src;

cmrs_code cmrs_mm_src_memory(cmrs_mm_src *s, const char *buf, size_t len,
                             const char *name);
cmrs_code cmrs_mm_src_file(cmrs_mm_src *s, const char *path);
void cmrs_mm_src_close(cmrs_mm_src *s); /* idempotent */
/* Reads the next line into s->line; *got = 0 at the end of the input. */
cmrs_code cmrs_mm_src_next(cmrs_mm_src *s, int *got);

#endif
