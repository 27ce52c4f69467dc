#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

cmrs_code cmrs_tmp_name(const char *path, char *tmp, size_t n)
{
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    int w = snprintf(tmp, n, "%.*s.%s.tmp.%ld", dir_len, path, base,
                     (long)getpid());
    CMRS_ENSURE(*base && w > 0 && (size_t)w < n, CMRS_E_USAGE,
                "output path '%s' is empty or too long", path);
    return CMRS_OK;
}

int cmrs_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

cmrs_code cmrs_out_path_prepare(const char *path, const char *input_path,
                                char *path_out, size_t path_n, char *tmp_out,
                                size_t tmp_n)
{
    CMRS_ENSURE(path && *path, CMRS_E_USAGE, "the output path is empty");
    CMRS_ENSURE(!cmrs_same_file(path, input_path), CMRS_E_USAGE,
                "refusing to write '%s': it is the input file", path);
    CMRS_ENSURE(strlen(path) < path_n, CMRS_E_USAGE,
                "output path too long: %s", path);
    strcpy(path_out, path);
    CMRS_CHECK(cmrs_tmp_name(path, tmp_out, tmp_n));
    return CMRS_OK;
}

cmrs_code cmrs_outfile_open(cmrs_outfile *o, const char *path,
                            const char *input_path)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = 1;
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_out_path_prepare(path, input_path, o->path, sizeof o->path,
                                     o->tmp_path, sizeof o->tmp_path));
    CMRS_CHECK(cmrs_outputs_track(o->tmp_path, o->path, &o->slot));
    o->f = fopen(o->tmp_path, "w");
    if (!o->f) {
        int e = errno;
        cmrs_outputs_release(o->slot);
        o->slot = -1;
        CMRS_FAIL(CMRS_E_IO, "%s: cannot create: %s", path, strerror(e));
    }
    return CMRS_OK;
}

cmrs_code cmrs_outfile_finish(cmrs_outfile *o)
{
    CMRS_ENSURE(o->f, CMRS_E_INTERNAL, "%s: output is not open", o->path);
    if (o->is_stdout) {
        o->f = NULL;
        CMRS_ENSURE(fflush(stdout) == 0, CMRS_E_IO, "stdout: write failed: "
                    "%s", strerror(errno));
        return CMRS_OK;
    }
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    int e = errno;
    o->f = NULL;
    if (bad) {
        cmrs_outputs_release(o->slot);
        o->slot = -1;
        CMRS_FAIL(CMRS_E_IO, "%s: write failed: %s", o->path,
                  strerror(e ? e : EIO));
    }
    cmrs_outputs_stage(o->slot);
    return CMRS_OK;
}

cmrs_code cmrs_outfile_commit(cmrs_outfile *o)
{
    CMRS_CHECK(cmrs_outfile_finish(o));
    if (o->is_stdout) return CMRS_OK;
    int slot = o->slot;
    o->slot = -1;
    CMRS_CHECK(cmrs_outputs_commit_one(slot));
    return CMRS_OK;
}

void cmrs_outfile_abort(cmrs_outfile *o)
{
    if (!o || !o->f) return;
    if (!o->is_stdout) {
        fclose(o->f);
        cmrs_outputs_release(o->slot);
        o->slot = -1;
    }
    o->f = NULL;
}
