/* The Cartesian product of the swept values (sweep.h), per format only
 * over the knobs that format takes. */
#include <string.h>

#include "sweep.h"

int sweep_takes_height(const char *format)
{
    return cmrs_format_has_height(format);
}

/* cuSPARSE picks its own launch configuration. */
int sweep_takes_block(const char *format)
{
    return strcmp(format, "cusparse") != 0;
}

int sweep_takes_modulo(const char *format)
{
    return strcmp(format, "cmrs-mod") == 0;
}

int sweep_takes_sorted(const char *format)
{
    return cmrs_format_has_height(format);
}

/* The values of a knob for a format: those given, or one 0 (default)
 * when none were given or the knob does not apply. */
static sweep_values applicable(const sweep_values *given, int applies)
{
    sweep_values one = {{0}, 1};
    return applies && given->n ? *given : one;
}

int sweep_expand(const sweep_args *a, cmrs_prec prec, sweep_config *out,
                 int cap)
{
    int n = 0;
    for (int f = 0; f < a->nformats; ++f) {
        const char *name = a->formats[f];
        sweep_values hs = applicable(&a->heights, sweep_takes_height(name));
        sweep_values bs = applicable(&a->blocks, sweep_takes_block(name));
        sweep_values ms = applicable(&a->modulos, sweep_takes_modulo(name));
        sweep_values ss = applicable(&a->sorted, sweep_takes_sorted(name));
        for (int h = 0; h < hs.n; ++h)
            for (int b = 0; b < bs.n; ++b)
                for (int m = 0; m < ms.n; ++m)
                    for (int s = 0; s < ss.n; ++s, ++n) {
                        if (n >= cap) continue;
                        sweep_config *c = &out[n];
                        memset(c, 0, sizeof *c);
                        c->format = name;
                        c->prec = prec;
                        c->opts.height = (int)hs.v[h];
                        c->opts.block_size = (int)bs.v[b];
                        c->opts.modulo = (int)ms.v[m];
                        c->opts.sorted = (int)ss.v[s];
                    }
    }
    return n;
}
