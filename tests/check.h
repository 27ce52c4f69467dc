/* A tiny test harness: CHECK records a failure and goes on; the summary line
 * "N passed, N failed" is what CTest logs and CI reads. GPU tests call
 * CHECK_GPU_OR_SKIP() first: without a GPU they exit 77, which CTest reports
 * as skipped (SKIP_RETURN_CODE), never as passed. */
#ifndef CMRS_TEST_CHECK_H
#define CMRS_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "base/status.h"

static int g_checks_passed, g_checks_failed;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (cond) {                                                         \
            ++g_checks_passed;                                              \
        } else {                                                            \
            ++g_checks_failed;                                              \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

/* Checks that expr returns CMRS_OK, printing the error otherwise. */
#define CHECK_OK(expr)                                                      \
    do {                                                                    \
        cmrs_code check_rc_ = (expr);                                       \
        CHECK(check_rc_ == CMRS_OK, "%s -> %s: %s", #expr,                  \
              cmrs_code_name(check_rc_), cmrs_error_message());             \
    } while (0)

/* Checks that expr fails with the given code and its message contains
 * the substring want (NULL: any message). */
#define CHECK_FAILS(expr, code, want)                                       \
    do {                                                                    \
        cmrs_error_clear();                                                 \
        cmrs_code check_rc_ = (expr);                                       \
        const char *check_w_ = (want);                                      \
        CHECK(check_rc_ == (code) &&                                        \
                  (!check_w_ || strstr(cmrs_error_message(), check_w_)),    \
              "%s -> %s '%s', expected %s containing '%s'", #expr,          \
              cmrs_code_name(check_rc_), cmrs_error_message(),              \
              cmrs_code_name(code), check_w_ ? check_w_ : "");              \
    } while (0)

#define CHECK_GPU_OR_SKIP()                                                 \
    do {                                                                    \
        if (!cmrs_gpu_available()) {                                        \
            printf("no GPU: skipped\n");                                    \
            return 77;                                                      \
        }                                                                   \
    } while (0)

/* Ends main: prints the summary and returns the exit status. A test that
 * checked nothing fails: it cannot have tested anything. */
static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", g_checks_passed, g_checks_failed);
    return (g_checks_failed == 0 && g_checks_passed > 0) ? 0 : 1;
}

/* One test function of a main that runs a list of them (CHECK_RUN). */
typedef void (*check_test)(void);

/* Runs the tests in order and ends main: the summary's exit status. */
static inline int check_run(const check_test *tests, size_t count)
{
    for (size_t i = 0; i < count; ++i) tests[i]();
    return check_summary();
}

/* return CHECK_RUN(test_a, test_b, ...); ends a main that runs a list. */
#define CHECK_RUN(...)                                                      \
    check_run((const check_test[]){__VA_ARGS__},                            \
              sizeof((check_test[]){__VA_ARGS__}) / sizeof(check_test))

#endif
