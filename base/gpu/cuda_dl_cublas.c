/* cuBLAS through the loader of cuda_dl.h: the functions cmrs calls, with
 * cublas_api.h's prototypes (a mismatch does not compile) and the _v2
 * symbol names cublas_v2.h maps the calls to. Add a function here when
 * the code calls a new one (the link fails until then). */
#include <cublas_v2.h>

#include "cuda_dl.h"

#define CMRS_DL_THIS CMRS_DL_CUBLAS
#define CMRS_DL_FNS cublas_fns
#define NOT_LOADED CUBLAS_STATUS_NOT_INITIALIZED
#define WHY cmrs_dl_error(CMRS_DL_CUBLAS)

#define CUBLAS_FUNCS(X)                                                     \
    X(cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle), (handle), \
      NOT_LOADED)                                                           \
    X(cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle), (handle),  \
      NOT_LOADED)                                                           \
    X(cublasStatus_t, cublasSetStream_v2,                                   \
      (cublasHandle_t handle, cudaStream_t streamId), (handle, streamId),   \
      NOT_LOADED)                                                           \
    X(cublasStatus_t, cublasSetPointerMode_v2,                              \
      (cublasHandle_t handle, cublasPointerMode_t mode), (handle, mode),    \
      NOT_LOADED)                                                           \
    X(cublasStatus_t, cublasGetStream_v2,                                   \
      (cublasHandle_t handle, cudaStream_t * streamId), (handle, streamId), \
      NOT_LOADED)                                                           \
    X(cublasStatus_t, cublasGetPointerMode_v2,                              \
      (cublasHandle_t handle, cublasPointerMode_t * mode), (handle, mode),  \
      NOT_LOADED)                                                           \
    X(const char *, cublasGetStatusName, (cublasStatus_t status), (status), \
      "CUBLAS_NOT_LOADED")                                                  \
    X(const char *, cublasGetStatusString, (cublasStatus_t status),         \
      (status), WHY)                                                        \
    X(cublasStatus_t, cublasSdot_v2,                                        \
      (cublasHandle_t handle, int n, const float *x, int incx,              \
       const float *y, int incy, float *result),                            \
      (handle, n, x, incx, y, incy, result), NOT_LOADED)                    \
    X(cublasStatus_t, cublasDdot_v2,                                        \
      (cublasHandle_t handle, int n, const double *x, int incx,             \
       const double *y, int incy, double *result),                          \
      (handle, n, x, incx, y, incy, result), NOT_LOADED)                    \
    X(cublasStatus_t, cublasSnrm2_v2,                                       \
      (cublasHandle_t handle, int n, const float *x, int incx,              \
       float *result),                                                      \
      (handle, n, x, incx, result), NOT_LOADED)                             \
    X(cublasStatus_t, cublasDnrm2_v2,                                       \
      (cublasHandle_t handle, int n, const double *x, int incx,             \
       double *result),                                                     \
      (handle, n, x, incx, result), NOT_LOADED)                             \
    X(cublasStatus_t, cublasSaxpy_v2,                                       \
      (cublasHandle_t handle, int n, const float *alpha, const float *x,    \
       int incx, float *y, int incy),                                       \
      (handle, n, alpha, x, incx, y, incy), NOT_LOADED)                     \
    X(cublasStatus_t, cublasDaxpy_v2,                                       \
      (cublasHandle_t handle, int n, const double *alpha, const double *x,  \
       int incx, double *y, int incy),                                      \
      (handle, n, alpha, x, incx, y, incy), NOT_LOADED)                     \
    X(cublasStatus_t, cublasSscal_v2,                                       \
      (cublasHandle_t handle, int n, const float *alpha, float *x,          \
       int incx),                                                           \
      (handle, n, alpha, x, incx), NOT_LOADED)                              \
    X(cublasStatus_t, cublasDscal_v2,                                       \
      (cublasHandle_t handle, int n, const double *alpha, double *x,        \
       int incx),                                                           \
      (handle, n, alpha, x, incx), NOT_LOADED)                              \
    X(cublasStatus_t, cublasScopy_v2,                                       \
      (cublasHandle_t handle, int n, const float *x, int incx, float *y,    \
       int incy),                                                           \
      (handle, n, x, incx, y, incy), NOT_LOADED)                            \
    X(cublasStatus_t, cublasDcopy_v2,                                       \
      (cublasHandle_t handle, int n, const double *x, int incx, double *y,  \
       int incy),                                                           \
      (handle, n, x, incx, y, incy), NOT_LOADED)

enum { CUBLAS_FUNCS(CMRS_DL_INDEX) CUBLAS_COUNT };
static const char *const cublas_names[] = {CUBLAS_FUNCS(CMRS_DL_NAME) NULL};
static cmrs_dl_fn cublas_fns[CUBLAS_COUNT];
const cmrs_dl_table cmrs_dl_cublas_table = {cublas_names, cublas_fns};

CUBLAS_FUNCS(CMRS_DL_DEFINE)
