/* cuSOLVER (dense Cholesky of AMG's coarsest level, amg_dense_gpu.c)
 * through the loader of cuda_dl.h, with cusolverDn.h's prototypes. Add a
 * function here when the code calls a new one. */
#include <cusolverDn.h>

#include "cuda_dl.h"

#define CMRS_DL_THIS CMRS_DL_CUSOLVER
#define CMRS_DL_FNS cusolver_fns
#define NOT_LOADED CUSOLVER_STATUS_NOT_INITIALIZED

#define CUSOLVER_FUNCS(X)                                                   \
    X(cusolverStatus_t, cusolverDnCreate, (cusolverDnHandle_t * handle),    \
      (handle), NOT_LOADED)                                                 \
    X(cusolverStatus_t, cusolverDnDestroy, (cusolverDnHandle_t handle),     \
      (handle), NOT_LOADED)                                                 \
    X(cusolverStatus_t, cusolverDnSetStream,                                \
      (cusolverDnHandle_t handle, cudaStream_t streamId),                   \
      (handle, streamId), NOT_LOADED)                                       \
    X(cusolverStatus_t, cusolverDnDpotrf_bufferSize,                        \
      (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,  \
       int lda, int *Lwork),                                                \
      (handle, uplo, n, A, lda, Lwork), NOT_LOADED)                         \
    X(cusolverStatus_t, cusolverDnDpotrf,                                   \
      (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,  \
       int lda, double *Workspace, int Lwork, int *devInfo),                \
      (handle, uplo, n, A, lda, Workspace, Lwork, devInfo), NOT_LOADED)     \
    X(cusolverStatus_t, cusolverDnDpotri_bufferSize,                        \
      (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,  \
       int lda, int *Lwork),                                                \
      (handle, uplo, n, A, lda, Lwork), NOT_LOADED)                         \
    X(cusolverStatus_t, cusolverDnDpotri,                                   \
      (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,  \
       int lda, double *work, int lwork, int *devInfo),                     \
      (handle, uplo, n, A, lda, work, lwork, devInfo), NOT_LOADED)

enum { CUSOLVER_FUNCS(CMRS_DL_INDEX) CUSOLVER_COUNT };
static const char *const cusolver_names[] = {CUSOLVER_FUNCS(CMRS_DL_NAME)
                                                 NULL};
static cmrs_dl_fn cusolver_fns[CUSOLVER_COUNT];
const cmrs_dl_table cmrs_dl_cusolver_table = {cusolver_names, cusolver_fns};

CUSOLVER_FUNCS(CMRS_DL_DEFINE)
