/* The command line's value parsers (the library's, api/args.h) and its
 * getopt diagnostics. */
#ifndef CMRS_APP_ARGS_H
#define CMRS_APP_ARGS_H

#include "api/args.h"

/* Message for an unknown option or missing argument reported by getopt. */
cmrs_code cmrs_arg_unknown(const char *cmd, int argc, char **argv, int optopt_);

#endif
