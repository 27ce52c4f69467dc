/* Arrays of a value type for the GPU API tests: host copies as float or
 * double, and device copies (CHECK fails on a CUDA error). */
#ifndef CMRS_TEST_TAPI_GPU_H
#define CMRS_TEST_TAPI_GPU_H

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "base/csr.h"
#include "tapi.h"
#include "tapi_case.h"

static inline size_t tapi_vbytes(cmrs_value_type t)
{
    return t == CMRS_VALUE_FLOAT32 ? sizeof(float) : sizeof(double);
}

/* v[0..n) as a malloc'd host array of type t. */
static inline void *tapi_typed(cmrs_value_type t, const double *v, int64_t n)
{
    void *h = malloc((size_t)n * tapi_vbytes(t));
    for (int64_t i = 0; i < n; ++i) {
        if (t == CMRS_VALUE_FLOAT32) ((float *)h)[i] = (float)v[i];
        else ((double *)h)[i] = v[i];
    }
    return h;
}

/* The GPU API tests' start: the committed vessel_3k case read into *sys
 * (its path into file) and a context on GPU 0; 1 when both are there, else
 * 0 (main then returns check_summary()). */
static inline int tapi_gpu_start(char *file, size_t n, cmrs_system *sys,
                                 cmrs_context **gpu)
{
    case_path("vessel_3k.h5", file, n);
    CHECK_OK(cmrs_system_read(file, NULL, sys));
    API_OK(NULL, cmrs_context_create(0, gpu));
    return *gpu && sys->A.rows;
}

/* A's values with the diagonal scaled by `factor` (malloc'd): the new
 * values of the GPU update tests, same pattern, still SPD for factor > 1. */
static inline double *tapi_diag_scaled(const cmrs_csr *A, double factor)
{
    double *v = malloc((size_t)A->nnz * sizeof *v);
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            v[k] = A->values[k] * (A->indices[k] == i ? factor : 1.0);
    return v;
}

/* v[0..n) as a new device array of type t (cudaFree it). */
static inline void *tapi_to_device(cmrs_value_type t, const double *v,
                                   int64_t n)
{
    void *d = NULL, *h = tapi_typed(t, v, n);
    CHECK(cudaMalloc(&d, (size_t)n * tapi_vbytes(t)) == cudaSuccess &&
              cudaMemcpy(d, h, (size_t)n * tapi_vbytes(t),
                         cudaMemcpyHostToDevice) == cudaSuccess,
          "device copy");
    free(h);
    return d;
}

#endif
