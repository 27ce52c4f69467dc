/* The one refusal of base/'s stand-ins in a build without CUDA
 * (device_none.c, gpu_none.c): CMRS_E_NODEVICE (exit 4), "WHAT: this
 * build has no CUDA GPU support (CMRS_CUDA=OFF)". */
#ifndef CMRS_BASE_NOCUDA_NONE_H
#define CMRS_BASE_NOCUDA_NONE_H

#include "base/device.h"

static inline cmrs_code no_cuda(const char *what)
{
    CMRS_FAIL(CMRS_E_NODEVICE, "%s: %s", what, cmrs_gpu_missing());
}

#endif
