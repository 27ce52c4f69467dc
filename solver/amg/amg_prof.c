/* CMRS_AMG_PROFILE's step timer (amg_prof.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "amg_prof.h"

int amg_prof_on(void)
{
    static int on = -1; /* read once: the environment does not change */
    if (on < 0) {
        const char *v = getenv("CMRS_AMG_PROFILE");
        on = v && *v && strcmp(v, "0") != 0;
    }
    return on;
}

void amg_prof_begin(double *t)
{
    if (amg_prof_on()) *t = cmrs_wtime();
}

cmrs_code amg_prof_step(cmrs_stream stream, double *t, const char *fmt,
                        ...)
{
    if (!amg_prof_on()) return CMRS_OK;
    if (stream) CMRS_CHECK(cmrs_gpu_stream_sync(stream));
    double now = cmrs_wtime();
    char label[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof label, fmt, ap);
    va_end(ap);
    fprintf(stderr, "amg-profile: %-36s %.4f s\n", label, now - *t);
    *t = now;
    return CMRS_OK;
}
