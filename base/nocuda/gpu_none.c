/* What the layers above call in base/gpu/ (upload.h, dev_finite.h), in a
 * build without CUDA (CMRS_CUDA=OFF). Only GPU contexts reach these calls
 * and none can be made here, so each is a refusal (CMRS_E_NODEVICE, exit
 * 4) or does nothing, should a new caller forget to check. */
#include "base/gpu/dev_finite.h"
#include "base/gpu/upload.h"
#include "none.h"

cmrs_code cmrs_h2d(void *dst_d, const void *src_h, int64_t n,
                   cmrs_h2d_kind kind, const char *what)
{
    (void)dst_d, (void)src_h, (void)n, (void)kind;
    return no_cuda(what);
}

cmrs_code cmrs_upload_cfg_env(cmrs_upload_cfg *c)
{
    (void)c;
    return no_cuda("uploads");
}

const char *cmrs_upload_mode_name(cmrs_upload_mode m)
{
    (void)m;
    return "none";
}

void cmrs_upload_release(void) {}

cmrs_code cmrs_h2d_pinned_bandwidth(size_t bytes, int reps,
                                    double *bytes_per_s)
{
    (void)bytes, (void)reps;
    *bytes_per_s = 0;
    return no_cuda("host-to-device bandwidth");
}

cmrs_code cmrs_dev_first_nonfinite(const double *values_d, int64_t n,
                                   unsigned long long *bad_d,
                                   cmrs_stream stream, int64_t *first)
{
    (void)values_d, (void)n, (void)bad_d, (void)stream;
    *first = -1;
    return no_cuda("finiteness check on the device");
}
