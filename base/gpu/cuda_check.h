/* Check macros for CUDA runtime, cuBLAS and cuSPARSE calls: a failure
 * becomes a cmrs error with the library's own text and this file:line, and
 * returns (CMRS_CUDA etc.) or jumps to done (CMRS_CUDA_TRY etc.). Out of
 * memory, and cuSPARSE's INSUFFICIENT_RESOURCES, map to CMRS_E_NOMEM
 * (exit 4). cuBLAS and cuSPARSE are
 * loaded on first use (cuda_dl.h): when that failed, the error says which
 * library and why instead. Usable from C and CUDA. */
#ifndef CMRS_CUDA_CHECK_H
#define CMRS_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "base/device.h" /* cmrs_gpu_available, cmrs_gpu_name, ... */
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif
cmrs_code cmrs_cuda_error(cudaError_t e, const char *expr, const char *file,
                          int line);
cmrs_code cmrs_cublas_error(cublasStatus_t e, const char *expr,
                            const char *file, int line);
cmrs_code cmrs_cusparse_error(cusparseStatus_t e, const char *expr,
                              const char *file, int line);
#ifdef __cplusplus
}
#endif

#define CMRS_CUDA(expr)                                                     \
    do {                                                                    \
        cudaError_t cmrs_e_ = (expr);                                       \
        if (cmrs_e_ != cudaSuccess)                                         \
            return cmrs_cuda_error(cmrs_e_, #expr, __FILE__, __LINE__);     \
    } while (0)
#define CMRS_CUBLAS(expr)                                                   \
    do {                                                                    \
        cublasStatus_t cmrs_e_ = (expr);                                    \
        if (cmrs_e_ != CUBLAS_STATUS_SUCCESS)                               \
            return cmrs_cublas_error(cmrs_e_, #expr, __FILE__, __LINE__);   \
    } while (0)
#define CMRS_CUSPARSE(expr)                                                 \
    do {                                                                    \
        cusparseStatus_t cmrs_e_ = (expr);                                  \
        if (cmrs_e_ != CUSPARSE_STATUS_SUCCESS)                             \
            return cmrs_cusparse_error(cmrs_e_, #expr, __FILE__, __LINE__); \
    } while (0)
/* After a kernel launch: catches bad configurations at once. */
#define CMRS_LAUNCH_CHECK() CMRS_CUDA(cudaGetLastError())

#define CMRS_CUDA_TRY(expr)                                                 \
    do {                                                                    \
        cudaError_t cmrs_e_ = (expr);                                       \
        if (cmrs_e_ != cudaSuccess) {                                       \
            rc = cmrs_cuda_error(cmrs_e_, #expr, __FILE__, __LINE__);       \
            goto done;                                                      \
        }                                                                   \
    } while (0)
/* After a kernel launch in a function with cleanup. */
#define CMRS_LAUNCH_TRY() CMRS_CUDA_TRY(cudaGetLastError())
#define CMRS_CUSPARSE_TRY(expr)                                             \
    do {                                                                    \
        cusparseStatus_t cmrs_e_ = (expr);                                  \
        if (cmrs_e_ != CUSPARSE_STATUS_SUCCESS) {                           \
            rc = cmrs_cusparse_error(cmrs_e_, #expr, __FILE__, __LINE__);   \
            goto done;                                                      \
        }                                                                   \
    } while (0)
#define CMRS_CUBLAS_TRY(expr)                                               \
    do {                                                                    \
        cublasStatus_t cmrs_e_ = (expr);                                    \
        if (cmrs_e_ != CUBLAS_STATUS_SUCCESS) {                             \
            rc = cmrs_cublas_error(cmrs_e_, #expr, __FILE__, __LINE__);     \
            goto done;                                                      \
        }                                                                   \
    } while (0)

#endif
