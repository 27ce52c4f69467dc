/* Internal to the GPU back end (backend_gpu.c: the arithmetic ops;
 * backend_gpu_setup.c: creation, vectors, preconditioner, measurements). */
#ifndef CMRS_SOLVER_BACKEND_GPU_H
#define CMRS_SOLVER_BACKEND_GPU_H

#include "../spmv/cuda_check.h"
#include "backend.h"

typedef struct gpu_impl {
    cmrs_spmv *spmv;        /* the chosen format, on `stream` */
    cudaStream_t stream;
    cublasHandle_t blas;    /* host pointer mode except inside resnorm */
    int have_stream, have_blas;
    void *dinv_d;           /* Jacobi: inverted diagonal */
    void *history_d;        /* residual norms, in the precision's type */
    void *history_h;        /* host copy of history_d, read once per solve */
    int64_t history_cap;
    void *scalar_h;         /* pinned: the norm read back each iteration */
    float *stage_h;         /* single precision: n floats for set/get */
} gpu_impl;

#define GPU(be) ((gpu_impl *)(be)->impl)
#define IS_SINGLE(be) ((be)->prec == CMRS_PREC_SINGLE)
#define VBYTES(be) cmrs_prec_value_bytes((be)->prec)

/* The arithmetic ops (backend_gpu.c), installed by the setup file. */
cmrs_code cmrs_gpu_op_spmv(cmrs_backend *be, double alpha, const cmrs_vec *x,
                           double beta, cmrs_vec *y);
cmrs_code cmrs_gpu_op_dot(cmrs_backend *be, const cmrs_vec *x,
                          const cmrs_vec *y, double *out);
cmrs_code cmrs_gpu_op_nrm2(cmrs_backend *be, const cmrs_vec *x, double *out);
cmrs_code cmrs_gpu_op_axpy(cmrs_backend *be, double a, const cmrs_vec *x,
                           cmrs_vec *y);
cmrs_code cmrs_gpu_op_scal(cmrs_backend *be, double a, cmrs_vec *x);
cmrs_code cmrs_gpu_op_copy(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y);
cmrs_code cmrs_gpu_op_xpby(cmrs_backend *be, const cmrs_vec *x, double b,
                           cmrs_vec *y);
cmrs_code cmrs_gpu_op_precond_apply(cmrs_backend *be, const cmrs_vec *r,
                                    cmrs_vec *z);
cmrs_code cmrs_gpu_op_resnorm(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                              double *out);
cmrs_code cmrs_gpu_op_history_get(cmrs_backend *be, int64_t count,
                                  double *h);
cmrs_code cmrs_gpu_op_sync(cmrs_backend *be);

#endif
