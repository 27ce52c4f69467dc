#include "status.h"

#include <stdio.h>
#include <string.h>

#define CMRS_MSG_MAX 1024
#define CMRS_TRACE_MAX 512

static _Thread_local char g_message[CMRS_MSG_MAX];
static _Thread_local char g_trace[CMRS_TRACE_MAX];
static _Thread_local cmrs_code g_code = CMRS_OK;

/* Drops the directories of a source path: "/x/y/io/h5.c" -> "io/h5.c". */
static const char *short_path(const char *file)
{
    const char *last = NULL, *prev = NULL;
    for (const char *p = file; *p; ++p) {
        if (*p == '/') {
            prev = last;
            last = p;
        }
    }
    return prev ? prev + 1 : (last ? last + 1 : file);
}

static void trace_append(const char *file, int line)
{
    size_t used = strlen(g_trace);
    if (used + 8 >= CMRS_TRACE_MAX) return; /* keep what fits */
    snprintf(g_trace + used, CMRS_TRACE_MAX - used, "%s%s:%d",
             used ? " <- " : "", short_path(file), line);
}

cmrs_code cmrs_error_set(cmrs_code code, const char *file, int line,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    /* A message must stay one line: fold any newline from library text. */
    for (char *p = g_message; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
    g_trace[0] = '\0';
    g_code = code;
    trace_append(file, line);
    return code;
}

cmrs_code cmrs_error_trace(cmrs_code code, const char *file, int line)
{
    if (g_code == CMRS_OK) { /* a callee returned failure without a message */
        g_code = code;
        snprintf(g_message, sizeof g_message, "%s", cmrs_code_name(code));
    }
    trace_append(file, line);
    return code;
}

const char *cmrs_error_message(void) { return g_message; }
const char *cmrs_error_traceback(void) { return g_trace; }
cmrs_code cmrs_error_code(void) { return g_code; }

void cmrs_error_clear(void)
{
    g_message[0] = '\0';
    g_trace[0] = '\0';
    g_code = CMRS_OK;
}

int cmrs_exit_code(cmrs_code code)
{
    switch (code) {
    case CMRS_OK: return CMRS_EXIT_OK;
    case CMRS_E_USAGE:
    case CMRS_E_INPUT:
    case CMRS_E_LIMIT: return CMRS_EXIT_USAGE;
    default: return CMRS_EXIT_RUNTIME;
    }
}

const char *cmrs_code_name(cmrs_code code)
{
    switch (code) {
    case CMRS_OK: return "ok";
    case CMRS_E_USAGE: return "usage error";
    case CMRS_E_INPUT: return "bad input";
    case CMRS_E_LIMIT: return "format limit exceeded";
    case CMRS_E_NOMEM: return "out of memory";
    case CMRS_E_IO: return "I/O error";
    case CMRS_E_GPU: return "GPU error";
    case CMRS_E_NODEVICE: return "no GPU present";
    case CMRS_E_INTERNAL: return "internal error";
    }
    return "unknown error";
}
