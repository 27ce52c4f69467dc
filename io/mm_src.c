#include "mm_src.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#ifdef CMRS_HAVE_ZLIB
#include <zlib.h>
#endif

#include "readers.h"

#define BLOCK_BYTES (256u << 10)
/* deflate never compresses better than about 1032:1: an upper bound of the
 * text size of a .gz, to refuse absurd size lines before allocating. */
#define GZIP_MAX_RATIO 1032.0

static void src_init(cmrs_mm_src *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
}

cmrs_code cmrs_mm_src_memory(cmrs_mm_src *s, const char *buf, size_t len,
                             const char *name)
{
    src_init(s, name);
    s->data = buf;
    s->len = len;
    s->max_bytes = (double)len;
    return CMRS_OK;
}

int cmrs_is_gzip(const char *path)
{
    unsigned char magic[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(magic, 1, 2, f);
    fclose(f);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

static void *open_stream(const char *path)
{
#ifdef CMRS_HAVE_ZLIB
    gzFile gz = gzopen(path, "rb"); /* reads plain files too */
    if (gz) gzbuffer(gz, BLOCK_BYTES);
    return gz;
#else
    return fopen(path, "rb");
#endif
}

cmrs_code cmrs_mm_src_file(cmrs_mm_src *s, const char *path)
{
    src_init(s, path);
    struct stat st;
    CMRS_ENSURE(stat(path, &st) == 0, CMRS_E_INPUT, "%s: cannot open: %s",
                path, strerror(errno));
    s->max_bytes = (double)st.st_size;
    if (cmrs_is_gzip(path)) s->max_bytes *= GZIP_MAX_RATIO;
    s->block = malloc(BLOCK_BYTES);
    CMRS_ENSURE(s->block, CMRS_E_NOMEM, "%s: cannot allocate a read buffer",
                path);
    s->file = open_stream(path);
    if (!s->file) {
        int e = errno;
        cmrs_mm_src_close(s);
        CMRS_FAIL(CMRS_E_INPUT, "%s: cannot open: %s", path, strerror(e));
    }
    s->data = s->block;
    return CMRS_OK;
}

void cmrs_mm_src_close(cmrs_mm_src *s)
{
    if (!s) return;
#ifdef CMRS_HAVE_ZLIB
    if (s->file) gzclose(s->file);
#else
    if (s->file) fclose(s->file);
#endif
    free(s->block);
    free(s->line);
    src_init(s, s->name);
}

/* Next block of a file into s->block; s->len = 0 at the end. */
static cmrs_code refill(cmrs_mm_src *s)
{
    s->pos = s->len = 0;
    if (!s->file) return CMRS_OK; /* memory: one block only */
#ifdef CMRS_HAVE_ZLIB
    int n = gzread(s->file, s->block, BLOCK_BYTES);
    int err = 0;
    const char *msg = n < 0 ? gzerror(s->file, &err) : NULL;
    CMRS_ENSURE(n >= 0, CMRS_E_INPUT, "%s: read error after line %lld: %s",
                s->name, (long long)s->lineno, msg ? msg : "?");
#else
    size_t n = fread(s->block, 1, BLOCK_BYTES, s->file);
    CMRS_ENSURE(!ferror((FILE *)s->file), CMRS_E_INPUT, "%s: read error after "
                "line %lld: %s", s->name, (long long)s->lineno,
                strerror(errno));
#endif
    s->len = (size_t)n;
    return CMRS_OK;
}

static cmrs_code line_append(cmrs_mm_src *s, const char *p, size_t n)
{
    CMRS_ENSURE(s->line_len + n < CMRS_MM_MAX_LINE, CMRS_E_INPUT,
                "%s: line %lld is longer than %d bytes", s->name,
                (long long)s->lineno + 1, CMRS_MM_MAX_LINE);
    if (s->line_len + n + 1 > s->line_cap) {
        size_t cap = s->line_cap ? s->line_cap : 256;
        while (cap < s->line_len + n + 1) cap *= 2;
        char *grown = realloc(s->line, cap);
        CMRS_ENSURE(grown, CMRS_E_NOMEM, "%s: cannot allocate a line buffer",
                    s->name);
        s->line = grown;
        s->line_cap = cap;
    }
    memcpy(s->line + s->line_len, p, n);
    s->line_len += n;
    s->line[s->line_len] = '\0';
    return CMRS_OK;
}

cmrs_code cmrs_mm_src_next(cmrs_mm_src *s, int *got)
{
    *got = 0;
    s->line_len = 0;
    CMRS_CHECK(line_append(s, "", 0)); /* line is a valid empty string */
    for (;;) {
        if (s->pos == s->len) {
            CMRS_CHECK(refill(s));
            if (s->len == 0) {
                if (s->line_len == 0) return CMRS_OK; /* end of input */
                break; /* last line without '\n' */
            }
        }
        const char *start = s->data + s->pos;
        const char *nl = memchr(start, '\n', s->len - s->pos);
        size_t take = nl ? (size_t)(nl - start) : s->len - s->pos;
        CMRS_CHECK(line_append(s, start, take));
        s->pos += take + (nl != NULL);
        if (nl) break;
    }
    ++s->lineno;
    CMRS_ENSURE(!memchr(s->line, '\0', s->line_len), CMRS_E_INPUT,
                "%s: line %lld contains a NUL byte (a binary file?)", s->name,
                (long long)s->lineno);
    *got = 1;
    return CMRS_OK;
}

int cmrs_mm_has_banner(const char *path)
{
    cmrs_mm_src s;
    int got = 0, yes = 0;
    if (cmrs_mm_src_file(&s, path) == CMRS_OK &&
        cmrs_mm_src_next(&s, &got) == CMRS_OK && got)
        yes = strncasecmp(s.line, "%%MatrixMarket", 14) == 0;
    cmrs_mm_src_close(&s);
    cmrs_error_clear(); /* a probe: its failure is not an error */
    return yes;
}
