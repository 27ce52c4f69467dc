/* Status codes and error propagation for every fallible cmrs function.
 *
 * A fallible function returns cmrs_code. The place where a failure is first
 * detected records a one-line message with CMRS_FAIL; every caller on the way
 * up passes it on with CMRS_CHECK (or CMRS_TRY + goto cleanup), which appends
 * its file:line to a short traceback. Only app/main.c prints the message and
 * exits, with the exit code cmrs_exit_code() gives. Error state is per thread.
 */
#ifndef CMRS_STATUS_H
#define CMRS_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cmrs_code {
    CMRS_OK = 0,
    CMRS_E_USAGE,       /* bad command line                       -> exit 2 */
    CMRS_E_INPUT,       /* bad input file or data                 -> exit 2 */
    CMRS_E_LIMIT,       /* input exceeds a documented format limit-> exit 2 */
    CMRS_E_NOMEM,       /* host or device allocation failed       -> exit 4 */
    CMRS_E_IO,          /* cannot write output, system call failed-> exit 4 */
    CMRS_E_GPU,         /* CUDA / cuBLAS / cuSPARSE failure       -> exit 4 */
    CMRS_E_NODEVICE,    /* a GPU is required and none is present  -> exit 4 */
    CMRS_E_INTERNAL     /* a bug: an invariant did not hold       -> exit 4 */
} cmrs_code;

/* Documented process exit codes (README "Exit codes"). */
enum {
    CMRS_EXIT_OK = 0,
    CMRS_EXIT_NOT_CONVERGED = 1,
    CMRS_EXIT_USAGE = 2,       /* bad input or usage */
    CMRS_EXIT_BREAKDOWN = 3,   /* breakdown or NaN/Inf in the iteration */
    CMRS_EXIT_RUNTIME = 4,     /* GPU or runtime failure, out of memory */
    CMRS_EXIT_SIGINT = 130,    /* interrupted: 128 + SIGINT (app/main.c) */
    CMRS_EXIT_SIGTERM = 143,   /* terminated: 128 + SIGTERM */
    CMRS_EXIT_SKIP = 77        /* tests only: no GPU, test skipped */
};

/* Records a new error (replacing any earlier one) and returns code. */
cmrs_code cmrs_error_set(cmrs_code code, const char *file, int line,
                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends file:line to the traceback of the current error; returns code. */
cmrs_code cmrs_error_trace(cmrs_code code, const char *file, int line);
/* The message of the last error ("" if none). Valid until the next set. */
const char *cmrs_error_message(void);
/* The traceback, innermost first, as "a.c:1 <- b.c:2" ("" if none). */
const char *cmrs_error_traceback(void);
/* The code of the last error set (CMRS_OK after cmrs_error_clear). */
cmrs_code cmrs_error_code(void);
void cmrs_error_clear(void);
/* Process exit code for a status code. */
int cmrs_exit_code(cmrs_code code);
const char *cmrs_code_name(cmrs_code code);

#define CMRS_FAIL(code, ...) \
    return cmrs_error_set((code), __FILE__, __LINE__, __VA_ARGS__)

/* One-line precondition: fail with code and message unless cond holds. */
#define CMRS_ENSURE(cond, code, ...)                                        \
    do {                                                                    \
        if (!(cond)) CMRS_FAIL((code), __VA_ARGS__);                        \
    } while (0)

/* Propagate a failure upward, adding this frame to the traceback. */
#define CMRS_CHECK(expr)                                                    \
    do {                                                                    \
        cmrs_code cmrs_c_ = (expr);                                         \
        if (cmrs_c_ != CMRS_OK)                                             \
            return cmrs_error_trace(cmrs_c_, __FILE__, __LINE__);           \
    } while (0)

/* For functions with cleanup: needs `cmrs_code rc` and a `done:` label. */
#define CMRS_TRY(expr)                                                      \
    do {                                                                    \
        rc = (expr);                                                        \
        if (rc != CMRS_OK) {                                                \
            cmrs_error_trace(rc, __FILE__, __LINE__);                       \
            goto done;                                                      \
        }                                                                   \
    } while (0)

/* Like CMRS_FAIL, for functions with cleanup. */
#define CMRS_TRY_FAIL(code, ...)                                            \
    do {                                                                    \
        rc = cmrs_error_set((code), __FILE__, __LINE__, __VA_ARGS__);       \
        goto done;                                                          \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
