/* getopt diagnostics of the command line (the value parsers are the
 * library's: api/args.h). */
#include "args.h"

#include <getopt.h>
#include <stddef.h>

#include "cases/cases.h"

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

int cmrs_arg_read_option(cmrs_read_opts *read, int id, const char *arg)
{
    if (id == CMRS_ARG_MATRIX) read->matrix = arg;
    else if (id == CMRS_ARG_RHS) read->rhs = arg;
    else if (id == CMRS_ARG_X0) read->x0 = arg;
    else return 0;
    return 1;
}

cmrs_code cmrs_arg_order(const char *text, int *order)
{
    CMRS_CHECK(cmrs_arg_choice("--order", text, cmrs_order_names, order));
    CMRS_CHECK(cmrs_order_check((cmrs_order)*order));
    return CMRS_OK;
}

cmrs_code cmrs_arg_getopt(const char *cmd, int argc, char **argv,
                          const char *shorts, const struct option *longs,
                          int name_long, cmrs_arg_take take, void *ctx,
                          int *help)
{
    int id;
    optind = 0; /* full getopt reset: commands may run more than once */
    opterr = 0; /* errors are ours to report */
    while ((id = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (id == 'h' && help) {
            *help = 1;
            return CMRS_OK;
        }
        if (id == '?' || id == ':')
            return cmrs_arg_unknown(cmd, argc, argv, name_long || (optopt > 0
                                    && optopt < 128) ? optopt : 0);
        CMRS_CHECK(take(ctx, id, optarg));
    }
    return CMRS_OK;
}
