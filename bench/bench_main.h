/* The main of the GPU measurement programs (copy_ceiling, gather_ceiling,
 * upload_bw): run(argc, argv), and a failure as the command line reports
 * one: a line on stderr naming the program, the exit code of its status. */
#ifndef CMRS_BENCH_MAIN_H
#define CMRS_BENCH_MAIN_H

#include <stdio.h>

#include "base/status.h"

static inline int bench_main(const char *program,
                             cmrs_code (*run)(int argc, char **argv),
                             int argc, char **argv)
{
    const cmrs_code rc = run(argc, argv);
    if (rc == CMRS_OK) return 0;
    fprintf(stderr, "%s: %s\n", program, cmrs_error_message());
    return cmrs_exit_code(rc);
}

#endif
