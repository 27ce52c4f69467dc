/* What spmv/ gives the layers above from its GPU files, in a build
 * without CUDA (CMRS_CUDA=OFF). The formats of spmv/registry.c keep their
 * names, so that options naming one (--spmv, amg's coarse format) parse
 * as in any build and a CPU solve ignores them as it does there, but have
 * no setup: an instance would fail with CMRS_E_NODEVICE (exit 4) saying
 * this build has no CUDA. */
#include "base/device.h"
#include "spmv/autotune.h"
#include "spmv/cmrs/cmrs_reorder.h"
#include "spmv/csr_view.h"
#include "spmv/spmv.h"
#include "spmv/timing.h"

static cmrs_code no_setup(cmrs_spmv *self, const cmrs_csr *A)
{
    (void)A;
    CMRS_FAIL(CMRS_E_NODEVICE, "SpMV format %s: %s", self->ops->name,
              cmrs_gpu_missing());
}

static cmrs_code no_apply(cmrs_spmv *self, double alpha, const void *x_d,
                          double beta, void *y_d)
{
    (void)alpha, (void)x_d, (void)beta, (void)y_d;
    CMRS_FAIL(CMRS_E_NODEVICE, "SpMV format %s: %s", self->ops->name,
              cmrs_gpu_missing());
}

static void no_destroy(cmrs_spmv *self) { (void)self; }

#define NO_CUDA_FORMAT(table, format_name)                                 \
    const cmrs_spmv_ops table = {.name = format_name,                      \
                                 .summary = "not built (no CUDA)",         \
                                 .setup = no_setup,                        \
                                 .apply = no_apply,                        \
                                 .destroy = no_destroy}

NO_CUDA_FORMAT(cmrs_spmv_cmrs_basic, "cmrs");
NO_CUDA_FORMAT(cmrs_spmv_cmrs_mod, "cmrs-mod");
NO_CUDA_FORMAT(cmrs_spmv_cusparse, "cusparse");
NO_CUDA_FORMAT(cmrs_spmv_csr_scalar, "csr-scalar");
NO_CUDA_FORMAT(cmrs_spmv_csr_vector, "csr-vector");
NO_CUDA_FORMAT(cmrs_spmv_hyb, "hyb");
NO_CUDA_FORMAT(cmrs_spmv_ellr, "ellr");
NO_CUDA_FORMAT(cmrs_spmv_sell, "sell");
NO_CUDA_FORMAT(cmrs_spmv_argcsr, "argcsr");
NO_CUDA_FORMAT(cmrs_spmv_csrb, "csrb");

/* The GPU measurements the API and `cmrs bench`/`sweep` call (autotune.h,
 * timing.h): only reached with a GPU, so never here; refused all the same. */
cmrs_code cmrs_autotune(const cmrs_csr *A, const char *format, cmrs_prec prec,
                        const cmrs_spmv_opts *base, double budget_s,
                        cmrs_tune_result *out)
{
    (void)A, (void)prec, (void)base, (void)budget_s, (void)out;
    CMRS_FAIL(CMRS_E_NODEVICE, "--height auto (format %s): %s", format,
              cmrs_gpu_missing());
}

cmrs_code cmrs_measure_copy_bandwidth(size_t bytes, int reps,
                                      double *bytes_per_s)
{
    (void)bytes, (void)reps;
    *bytes_per_s = 0;
    CMRS_FAIL(CMRS_E_NODEVICE, "copy bandwidth: %s", cmrs_gpu_missing());
}

/* A matrix already on the device (AMG levels, tests): refused as the GPU
 * build refuses it, its counts first, then for want of a GPU. */
cmrs_code cmrs_spmv_create_dev(const char *name, const cmrs_csr_view_d *M,
                               cmrs_prec prec, const cmrs_spmv_opts *opts,
                               cmrs_stream stream, cmrs_spmv **out)
{
    (void)prec, (void)opts, (void)stream;
    *out = NULL;
    CMRS_CHECK(cmrs_csr_view_check_counts(M, name));
    CMRS_FAIL(CMRS_E_NODEVICE, "SpMV format %s: %s", name,
              cmrs_gpu_missing());
}

cmrs_code cmrs_reordered_build_sorted_gpu(const cmrs_csr *A,
                                          cmrs_reordered *out,
                                          cmrs_reordered_d *maps)
{
    (void)A, (void)out, (void)maps;
    CMRS_FAIL(CMRS_E_NODEVICE, "renumbering on the GPU: %s",
              cmrs_gpu_missing());
}

cmrs_code cmrs_reorder_gather(const int32_t *map_d, int64_t n, cmrs_prec prec,
                              const void *src_d, void *dst_d,
                              cmrs_stream stream)
{
    (void)map_d, (void)n, (void)prec, (void)src_d, (void)dst_d, (void)stream;
    CMRS_FAIL(CMRS_E_NODEVICE, "a gather on the device: %s",
              cmrs_gpu_missing());
}

void cmrs_reordered_dev_free(cmrs_reordered_d *r)
{
    (void)r; /* nothing is ever made without CUDA */
}
