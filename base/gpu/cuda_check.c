#include "cuda_check.h"

#include <stdio.h>

#include "cuda_dl.h"

cmrs_code cmrs_cuda_error(cudaError_t e, const char *expr, const char *file,
                          int line)
{
    cudaGetLastError(); /* clear a sticky-free error so later calls work */
    cmrs_code code = e == cudaErrorMemoryAllocation ? CMRS_E_NOMEM
                     : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                         ? CMRS_E_NODEVICE
                         : CMRS_E_GPU;
    return cmrs_error_set(code, file, line, "CUDA: %s (%s) in %s",
                          cudaGetErrorString(e), cudaGetErrorName(e), expr);
}

/* A library the shim could not load (cuda_dl.h): its reason, with the
 * call that needed it; CMRS_E_GPU (exit 4, runtime failure). */
static cmrs_code not_loaded(const char *why, const char *expr,
                            const char *file, int line)
{
    return cmrs_error_set(CMRS_E_GPU, file, line, "%s (needed by %s)", why,
                          expr);
}

cmrs_code cmrs_cublas_error(cublasStatus_t e, const char *expr,
                            const char *file, int line)
{
    const char *why = cmrs_dl_error(CMRS_DL_CUBLAS);
    if (why) return not_loaded(why, expr, file, line);
    cmrs_code code = e == CUBLAS_STATUS_ALLOC_FAILED ? CMRS_E_NOMEM : CMRS_E_GPU;
    return cmrs_error_set(code, file, line, "cuBLAS: %s (%s) in %s",
                          cublasGetStatusString(e), cublasGetStatusName(e),
                          expr);
}

cmrs_code cmrs_cusparse_error(cusparseStatus_t e, const char *expr,
                              const char *file, int line)
{
    const char *why = cmrs_dl_error(CMRS_DL_CUSPARSE);
    if (why) return not_loaded(why, expr, file, line);
    /* INSUFFICIENT_RESOURCES: memory (global or shared) short for the
     * call, as SpGEMM's ALG2 reports: NOMEM, so that its callers may try a
     * leaner way (amg_spgemm_gpu.c) */
    cmrs_code code = e == CUSPARSE_STATUS_ALLOC_FAILED ||
                             e == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
                         ? CMRS_E_NOMEM
                         : CMRS_E_GPU;
    return cmrs_error_set(code, file, line, "cuSPARSE: %s (%s) in %s",
                          cusparseGetErrorString(e), cusparseGetErrorName(e),
                          expr);
}
