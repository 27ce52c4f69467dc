/* What the solver's GPU folders give the code above them, in a build
 * without CUDA (CMRS_CUDA=OFF): the GPU back end's creation and stream
 * (backend.h) and the device loop (engines.h). No GPU back end can be
 * made, so resolve_engine (solver.c) never picks graph or fused; asking
 * for the GPU back end is CMRS_E_NODEVICE (exit 4), saying why. */
#include "base/device.h"
#include "solver/engine/engines.h"

cmrs_code cmrs_devloop_solve(cmrs_ksp *s, cmrs_ksp_result *res)
{
    (void)res;
    CMRS_FAIL(CMRS_E_NODEVICE, "engine %s: %s",
              cmrs_engine_name(s->o.engine), cmrs_gpu_missing());
}

void cmrs_devloop_free(struct devloop *d) { (void)d; }

cmrs_code cmrs_backend_gpu_create(const cmrs_csr *A, const char *format,
                                  cmrs_prec prec, const cmrs_spmv_opts *opts,
                                  cmrs_backend **out)
{
    (void)A, (void)prec, (void)opts;
    *out = NULL;
    CMRS_FAIL(CMRS_E_NODEVICE, "the GPU back end (format %s): %s", format,
              cmrs_gpu_missing());
}

cmrs_stream cmrs_backend_gpu_stream(const cmrs_backend *be)
{
    (void)be;
    return NULL;
}

cmrs_code cmrs_backend_gpu_variant(cmrs_backend *be, const cmrs_csr *A,
                                   const char *format,
                                   const cmrs_spmv_opts *opts,
                                   cmrs_backend **out)
{
    (void)be, (void)A, (void)opts;
    *out = NULL;
    CMRS_FAIL(CMRS_E_NODEVICE, "the GPU back end (format %s): %s", format,
              cmrs_gpu_missing());
}

void cmrs_backend_gpu_adopt(cmrs_backend *variant, cmrs_backend *be)
{
    (void)variant, (void)be;
}
