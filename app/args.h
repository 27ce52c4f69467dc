/* The command line's value parsers (the library's, api/args.h) and its
 * getopt diagnostics. */
#ifndef CMRS_APP_ARGS_H
#define CMRS_APP_ARGS_H

#include "api/args.h"
#include "io/system.h"

/* Message for an unknown option or missing argument reported by getopt. */
cmrs_code cmrs_arg_unknown(const char *cmd, int argc, char **argv, int optopt_);

struct option;

/* The last entries of every command's long options: --help, the -h that
 * cmrs_arg_getopt answers, and getopt_long's terminator. */
#define CMRS_ARG_HELP_END                                                   \
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}

/* --matrix, --rhs and --x0, where the system lies in an input file: the
 * getopt_long ids every command gives them (above any character), and
 * their one handler. */
enum { CMRS_ARG_MATRIX = 900, CMRS_ARG_RHS, CMRS_ARG_X0 };

/* Stores option id's value in read; 0 when id is not one of the three. */
int cmrs_arg_read_option(cmrs_read_opts *read, int id, const char *arg);

/* --order of gen and convert: the index of text in cmrs_order_names
 * (cases/cases.h), refused with CMRS_E_USAGE where this build cannot make
 * that order (metis without METIS), before any work starts. */
cmrs_code cmrs_arg_order(const char *text, int *order);

/* What a command does with one of its options (id: getopt_long's val). */
typedef cmrs_code (*cmrs_arg_take)(void *ctx, int id, const char *arg);

/* The getopt loop the commands share, so that they reset getopt and report
 * options alike: -h sets *help and stops; every other option goes to
 * take(ctx, ...); an unknown one fails in cmrs_arg_unknown's words, which
 * name a long option's missing value only when name_long is set. With help
 * NULL, -h is one more option for take: the loop reads every option, so a
 * bad one after -h still fails (info, convert and gen read them so). */
cmrs_code cmrs_arg_getopt(const char *cmd, int argc, char **argv,
                          const char *shorts, const struct option *longs,
                          int name_long, cmrs_arg_take take, void *ctx,
                          int *help);

#endif
