/* cmrs bench: placeholder until its issue lands. */
#include "commands.h"

cmrs_code cmd_bench(int argc, char **argv, int *exit_code)
{
    (void)argc;
    (void)argv;
    (void)exit_code;
    CMRS_FAIL(CMRS_E_INTERNAL, "'cmrs bench' is not implemented yet");
}
