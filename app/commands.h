/* The subcommands. Each parses its own options (argv[0] is the command
 * name), prints its help on --help, does its work and returns a status.
 * On CMRS_OK, *exit_code is the process exit code (0 unless the command has
 * a non-error outcome to report, such as a solve that did not converge).
 * Commands never print errors nor exit: app/main.c does. */
#ifndef CMRS_COMMANDS_H
#define CMRS_COMMANDS_H

#include "base/status.h"

typedef cmrs_code (*cmrs_command_fn)(int argc, char **argv, int *exit_code);

cmrs_code cmd_info(int argc, char **argv, int *exit_code);
cmrs_code cmd_convert(int argc, char **argv, int *exit_code);
cmrs_code cmd_gen(int argc, char **argv, int *exit_code);
cmrs_code cmd_bench(int argc, char **argv, int *exit_code);
cmrs_code cmd_solve(int argc, char **argv, int *exit_code);
cmrs_code cmd_compare(int argc, char **argv, int *exit_code);
cmrs_code cmd_sweep(int argc, char **argv, int *exit_code);

#endif
