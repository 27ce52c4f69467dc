/* The command line's value parsers (the library's, api/args.h) and its
 * getopt diagnostics. */
#ifndef CMRS_APP_ARGS_H
#define CMRS_APP_ARGS_H

#include "api/args.h"

/* Message for an unknown option or missing argument reported by getopt. */
cmrs_code cmrs_arg_unknown(const char *cmd, int argc, char **argv, int optopt_);

struct option;

/* What a command does with one of its options (id: getopt_long's val). */
typedef cmrs_code (*cmrs_arg_take)(void *ctx, int id, const char *arg);

/* The getopt loop the commands share, so that they reset getopt and report
 * options alike: -h sets *help and stops; every other option goes to
 * take(ctx, ...); an unknown one fails in cmrs_arg_unknown's words, which
 * name a long option's missing value only when name_long is set. */
cmrs_code cmrs_arg_getopt(const char *cmd, int argc, char **argv,
                          const char *shorts, const struct option *longs,
                          int name_long, cmrs_arg_take take, void *ctx,
                          int *help);

#endif
