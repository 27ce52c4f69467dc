/* Which device-loop method runs an engine x solver pair. */
#include "devloop.h"

extern const devloop_method cmrs_graph_cg, cmrs_fused_cg;
extern const devloop_method cmrs_graph_bicgstab, cmrs_fused_bicgstab;

const devloop_method *cmrs_devloop_method(cmrs_engine e, cmrs_method m)
{
    if (m == CMRS_METHOD_CG)
        return e == CMRS_ENGINE_GRAPH   ? &cmrs_graph_cg
               : e == CMRS_ENGINE_FUSED ? &cmrs_fused_cg
                                        : NULL;
    if (m == CMRS_METHOD_BICGSTAB)
        return e == CMRS_ENGINE_GRAPH   ? &cmrs_graph_bicgstab
               : e == CMRS_ENGINE_FUSED ? &cmrs_fused_bicgstab
                                        : NULL;
    return NULL;
}
