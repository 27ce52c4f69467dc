/* cuSPARSE through the loader of cuda_dl.h: the functions cmrs calls (the
 * cusparse and sell formats, AMG's SpGEMM and transpose), with
 * cusparse.h's prototypes (a mismatch does not compile). Add a function
 * here when the code calls a new one (the link fails until then). */
#include <cusparse.h>

#include "cuda_dl.h"

#define CMRS_DL_THIS CMRS_DL_CUSPARSE
#define CMRS_DL_FNS cusparse_fns
#define NOT_LOADED CUSPARSE_STATUS_NOT_INITIALIZED
#define WHY cmrs_dl_error(CMRS_DL_CUSPARSE)

/* The SpGEMM calls' parameter lists (compute and workEstimation add the
 * buffer size and buffer). */
#define SPGEMM_PARAMS                                                       \
    cusparseHandle_t handle, cusparseOperation_t opA,                       \
        cusparseOperation_t opB, const void *alpha,                         \
        cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,     \
        const void *beta, cusparseSpMatDescr_t matC,                        \
        cudaDataType computeType, cusparseSpGEMMAlg_t alg,                  \
        cusparseSpGEMMDescr_t spgemmDescr
#define SPGEMM_ARGS                                                         \
    handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg,      \
        spgemmDescr
/* The reuse pipeline's (AMG re-setup: amg_sa_plan_gpu.c): no alpha,
 * beta or compute type until compute. */
#define REUSE_PARAMS                                                        \
    cusparseHandle_t handle, cusparseOperation_t opA,                       \
        cusparseOperation_t opB, cusparseConstSpMatDescr_t matA,            \
        cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,          \
        cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr
#define REUSE_ARGS handle, opA, opB, matA, matB, matC, alg, spgemmDescr
#define SPMV_PARAMS                                                         \
    cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,    \
        cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,     \
        const void *beta, cusparseDnVecDescr_t vecY,                        \
        cudaDataType computeType, cusparseSpMVAlg_t alg
#define SPMV_ARGS handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg
#define CSR2CSC_PARAMS                                                      \
    cusparseHandle_t handle, int m, int n, int nnz, const void *csrVal,     \
        const int *csrRowPtr, const int *csrColInd, void *cscVal,           \
        int *cscColPtr, int *cscRowInd, cudaDataType valType,               \
        cusparseAction_t copyValues, cusparseIndexBase_t idxBase,           \
        cusparseCsr2CscAlg_t alg
#define CSR2CSC_ARGS                                                        \
    handle, m, n, nnz, csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr,     \
        cscRowInd, valType, copyValues, idxBase, alg

#define CUSPARSE_FUNCS(X)                                                   \
    X(cusparseStatus_t, cusparseCreate, (cusparseHandle_t * handle),        \
      (handle), NOT_LOADED)                                                 \
    X(cusparseStatus_t, cusparseDestroy, (cusparseHandle_t handle),         \
      (handle), NOT_LOADED)                                                 \
    X(cusparseStatus_t, cusparseSetStream,                                  \
      (cusparseHandle_t handle, cudaStream_t streamId), (handle, streamId), \
      NOT_LOADED)                                                           \
    X(const char *, cusparseGetErrorName, (cusparseStatus_t status),        \
      (status), "CUSPARSE_NOT_LOADED")                                      \
    X(const char *, cusparseGetErrorString, (cusparseStatus_t status),      \
      (status), WHY)                                                        \
    X(cusparseStatus_t, cusparseCreateCsr,                                  \
      (cusparseSpMatDescr_t * spMatDescr, int64_t rows, int64_t cols,       \
       int64_t nnz, void *csrRowOffsets, void *csrColInd, void *csrValues,  \
       cusparseIndexType_t csrRowOffsetsType,                               \
       cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase,      \
       cudaDataType valueType),                                             \
      (spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,    \
       csrRowOffsetsType, csrColIndType, idxBase, valueType),               \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseCreateSlicedEll,                            \
      (cusparseSpMatDescr_t * spMatDescr, int64_t rows, int64_t cols,       \
       int64_t nnz, int64_t sellValuesSize, int64_t sliceSize,              \
       void *sellSliceOffsets, void *sellColInd, void *sellValues,          \
       cusparseIndexType_t sellSliceOffsetsType,                            \
       cusparseIndexType_t sellColIndType, cusparseIndexBase_t idxBase,     \
       cudaDataType valueType),                                             \
      (spMatDescr, rows, cols, nnz, sellValuesSize, sliceSize,              \
       sellSliceOffsets, sellColInd, sellValues, sellSliceOffsetsType,      \
       sellColIndType, idxBase, valueType),                                 \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseCsrSetPointers,                             \
      (cusparseSpMatDescr_t spMatDescr, void *csrRowOffsets,                \
       void *csrColInd, void *csrValues),                                   \
      (spMatDescr, csrRowOffsets, csrColInd, csrValues), NOT_LOADED)        \
    X(cusparseStatus_t, cusparseSpMatGetSize,                               \
      (cusparseConstSpMatDescr_t spMatDescr, int64_t * rows,                \
       int64_t * cols, int64_t * nnz),                                      \
      (spMatDescr, rows, cols, nnz), NOT_LOADED)                            \
    X(cusparseStatus_t, cusparseDestroySpMat,                               \
      (cusparseConstSpMatDescr_t spMatDescr), (spMatDescr), NOT_LOADED)     \
    X(cusparseStatus_t, cusparseCreateDnVec,                                \
      (cusparseDnVecDescr_t * dnVecDescr, int64_t size, void *values,       \
       cudaDataType valueType),                                             \
      (dnVecDescr, size, values, valueType), NOT_LOADED)                    \
    X(cusparseStatus_t, cusparseDnVecSetValues,                             \
      (cusparseDnVecDescr_t dnVecDescr, void *values),                      \
      (dnVecDescr, values), NOT_LOADED)                                     \
    X(cusparseStatus_t, cusparseDestroyDnVec,                               \
      (cusparseConstDnVecDescr_t dnVecDescr), (dnVecDescr), NOT_LOADED)     \
    X(cusparseStatus_t, cusparseSpMV_bufferSize,                            \
      (SPMV_PARAMS, size_t *bufferSize), (SPMV_ARGS, bufferSize),           \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseSpMV_preprocess,                            \
      (SPMV_PARAMS, void *externalBuffer), (SPMV_ARGS, externalBuffer),     \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseSpMV,                                       \
      (SPMV_PARAMS, void *externalBuffer), (SPMV_ARGS, externalBuffer),     \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseCsr2cscEx2_bufferSize,                      \
      (CSR2CSC_PARAMS, size_t *bufferSize), (CSR2CSC_ARGS, bufferSize),     \
      NOT_LOADED)                                                           \
    X(cusparseStatus_t, cusparseCsr2cscEx2,                                 \
      (CSR2CSC_PARAMS, void *buffer), (CSR2CSC_ARGS, buffer), NOT_LOADED)   \
    X(cusparseStatus_t, cusparseSpGEMM_createDescr,                         \
      (cusparseSpGEMMDescr_t * descr), (descr), NOT_LOADED)                 \
    X(cusparseStatus_t, cusparseSpGEMM_destroyDescr,                        \
      (cusparseSpGEMMDescr_t descr), (descr), NOT_LOADED)                   \
    X(cusparseStatus_t, cusparseSpGEMM_workEstimation,                      \
      (SPGEMM_PARAMS, size_t *bufferSize1, void *externalBuffer1),          \
      (SPGEMM_ARGS, bufferSize1, externalBuffer1), NOT_LOADED)              \
    X(cusparseStatus_t, cusparseSpGEMM_compute,                             \
      (SPGEMM_PARAMS, size_t *bufferSize2, void *externalBuffer2),          \
      (SPGEMM_ARGS, bufferSize2, externalBuffer2), NOT_LOADED)              \
    X(cusparseStatus_t, cusparseSpGEMM_copy, (SPGEMM_PARAMS),               \
      (SPGEMM_ARGS), NOT_LOADED)                                            \
    X(cusparseStatus_t, cusparseSpGEMM_estimateMemory,                      \
      (SPGEMM_PARAMS, float chunk_fraction, size_t *bufferSize3,            \
       void *externalBuffer3, size_t *bufferSize2),                         \
      (SPGEMM_ARGS, chunk_fraction, bufferSize3, externalBuffer3,           \
       bufferSize2), NOT_LOADED)                                            \
    X(cusparseStatus_t, cusparseSpGEMMreuse_workEstimation,                 \
      (REUSE_PARAMS, size_t *bufferSize1, void *externalBuffer1),           \
      (REUSE_ARGS, bufferSize1, externalBuffer1), NOT_LOADED)               \
    X(cusparseStatus_t, cusparseSpGEMMreuse_nnz,                            \
      (REUSE_PARAMS, size_t *bufferSize2, void *externalBuffer2,            \
       size_t *bufferSize3, void *externalBuffer3, size_t *bufferSize4,     \
       void *externalBuffer4),                                              \
      (REUSE_ARGS, bufferSize2, externalBuffer2, bufferSize3,               \
       externalBuffer3, bufferSize4, externalBuffer4), NOT_LOADED)          \
    X(cusparseStatus_t, cusparseSpGEMMreuse_copy,                           \
      (REUSE_PARAMS, size_t *bufferSize5, void *externalBuffer5),           \
      (REUSE_ARGS, bufferSize5, externalBuffer5), NOT_LOADED)               \
    X(cusparseStatus_t, cusparseSpGEMMreuse_compute, (SPGEMM_PARAMS),       \
      (SPGEMM_ARGS), NOT_LOADED)

enum { CUSPARSE_FUNCS(CMRS_DL_INDEX) CUSPARSE_COUNT };
static const char *const cusparse_names[] = {CUSPARSE_FUNCS(CMRS_DL_NAME)
                                                 NULL};
static cmrs_dl_fn cusparse_fns[CUSPARSE_COUNT];
const cmrs_dl_table cmrs_dl_cusparse_table = {cusparse_names, cusparse_fns};

CUSPARSE_FUNCS(CMRS_DL_DEFINE)
