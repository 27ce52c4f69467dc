/* getopt diagnostics of the command line (the value parsers are the
 * library's: api/args.h). */
#include "args.h"

cmrs_code cmrs_arg_unknown(const char *cmd, int argc, char **argv, int optopt_)
{
    (void)argc;
    extern int optind;
    const char *word = optind > 0 ? argv[optind - 1] : "?";
    /* optopt is a short option's letter, or a long option's id (>= 1000
     * here), which only the word itself can name. */
    if (optopt_ > 0 && optopt_ < 128 && optopt_ != '?')
        CMRS_FAIL(CMRS_E_USAGE, "%s: option -%c needs a value or is unknown "
                  "(see 'cmrs %s --help')", cmd, optopt_, cmd);
    if (optopt_ >= 128)
        CMRS_FAIL(CMRS_E_USAGE, "%s: option '%s' needs a value (see 'cmrs %s "
                  "--help')", cmd, word, cmd);
    CMRS_FAIL(CMRS_E_USAGE, "%s: unknown option or missing value near '%s' "
              "(see 'cmrs %s --help')", cmd, word, cmd);
}
