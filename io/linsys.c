/* cmrs_system_free (linsys.h). */
#include <stdlib.h>
#include <string.h>

#include "linsys.h"

void cmrs_system_free(cmrs_system *sys)
{
    if (!sys) return;
    cmrs_csr_free(&sys->A);
    free(sys->b);
    free(sys->x0);
    memset(sys, 0, sizeof *sys);
}
