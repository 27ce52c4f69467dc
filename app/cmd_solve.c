/* cmrs solve: placeholder until its issue lands. */
#include "commands.h"

cmrs_code cmd_solve(int argc, char **argv, int *exit_code)
{
    (void)argc;
    (void)argv;
    (void)exit_code;
    CMRS_FAIL(CMRS_E_INTERNAL, "'cmrs solve' is not implemented yet");
}
