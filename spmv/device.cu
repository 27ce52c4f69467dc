/* Device buffers in a precision, the device CSR matrix and y = beta*y
 * (see device.h). Host code compiled by nvcc so the scale kernel can live
 * beside the upload helpers. */
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_scan.cuh>

/* device.h first: it declares the C headers with C linkage. */
#include "device.h"
#include "base/csr.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "spmv/prec.cuh"
#include "base/gpu/upload.h"
extern "C" {
#include "base/profile.h"
}

static cmrs_code value_bytes(int64_t n, cmrs_prec prec, size_t *bytes)
{
    CMRS_ENSURE(n >= 0 && cmrs_mul_size((size_t)n, cmrs_prec_value_bytes(prec),
                                        bytes) == 0,
                CMRS_E_LIMIT, "%lld %s values: byte count overflows",
                (long long)n, cmrs_prec_name(prec));
    return CMRS_OK;
}

cmrs_code cmrs_dev_alloc_values(int64_t n, cmrs_prec prec, void **v_d)
{
    size_t bytes = 0;
    *v_d = NULL;
    CMRS_CHECK(value_bytes(n, prec, &bytes));
    CMRS_CUDA(cmrs_dev_malloc(v_d, bytes));
    return CMRS_OK;
}

cmrs_code cmrs_dev_copy_to(void *dst_d, const void *src_h, size_t bytes)
{
    /* staged, registered or pageable (upload.h); returns once landed. */
    CMRS_CHECK(cmrs_h2d(dst_d, src_h, (int64_t)bytes, CMRS_H2D_BYTES,
                        "upload"));
    return CMRS_OK;
}

cmrs_code cmrs_dev_upload(const void *src_h, size_t bytes, void **dst_d)
{
    cmrs_code rc = CMRS_OK;
    *dst_d = NULL;
    CMRS_CUDA_TRY(cmrs_dev_malloc(dst_d, bytes));
    CMRS_TRY(cmrs_dev_copy_to(*dst_d, src_h, bytes));
done:
    if (rc != CMRS_OK) {
        cmrs_dev_free(*dst_d);
        *dst_d = NULL;
    }
    return rc;
}

cmrs_code cmrs_dev_upload_values(const double *v_h, int64_t n, cmrs_prec prec,
                                 const char *what, void **v_d)
{
    size_t bytes = 0;
    *v_d = NULL;
    CMRS_CHECK(value_bytes(n, prec, &bytes));
    if (prec == CMRS_PREC_DOUBLE) {
        CMRS_CHECK(cmrs_dev_upload(v_h, bytes, v_d));
        return CMRS_OK;
    }
    /* Narrowed (and range-checked: finite values must not turn into Inf
     * silently) on the way, chunk by chunk (upload.h). */
    cmrs_code rc = CMRS_OK;
    CMRS_CUDA(cmrs_dev_malloc(v_d, bytes));
    CMRS_TRY(cmrs_h2d(*v_d, v_h, n, CMRS_H2D_F64_F32, what));
done:
    if (rc != CMRS_OK) {
        cmrs_dev_free(*v_d);
        *v_d = NULL;
    }
    return rc;
}

cmrs_code cmrs_dev_download_values(const void *v_d, int64_t n, cmrs_prec prec,
                                   double *v_h)
{
    size_t bytes = 0;
    CMRS_CHECK(value_bytes(n, prec, &bytes));
    if (n == 0) return CMRS_OK;
    if (prec == CMRS_PREC_DOUBLE) {
        CMRS_CUDA(cudaMemcpy(v_h, v_d, bytes, cudaMemcpyDeviceToHost));
        return CMRS_OK;
    }
    cmrs_code rc = CMRS_OK;
    float *tmp = (float *)cmrs_malloc_array((size_t)n, sizeof(float));
    CMRS_ENSURE(tmp, CMRS_E_NOMEM, "cannot allocate %lld floats", (long long)n);
    CMRS_CUDA_TRY(cudaMemcpy(tmp, v_d, bytes, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; ++i) v_h[i] = tmp[i];
done:
    free(tmp);
    return rc;
}

/* Whether T holds v: a double narrowed to float must lie in float's
 * range (cmrs_check_float_range's test of host values), anything else be
 * finite; NaN holds nowhere. */
template <typename T, typename S> __device__ inline bool holds(S v)
{
    if constexpr (sizeof(T) < sizeof(S)) return fabs(v) <= FLT_MAX;
    else return isfinite(v);
}

/* dst[i] = src[perm[i]] as T (0 where perm[i] < 0), or src[i] when perm is
 * NULL, for i < n: the value stores (S double) and the device-values
 * update (S = T). bad (NULL: no check) is lowered (atomicMin) to the CSR
 * index of any value T does not hold. */
template <typename S, typename T>
__global__ void gather_values_kernel(int64_t n, const S *__restrict__ src,
                                     const int32_t *__restrict__ perm,
                                     T *__restrict__ dst,
                                     unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, n) {
        const int64_t j = perm ? (int64_t)perm[i] : i;
        const S v = j >= 0 ? src[j] : S(0);
        dst[i] = (T)v;
        if (bad && !holds<T>(v)) atomicMin(bad, (unsigned long long)j);
    }
}

unsigned cmrs_dev_stride_grid(int64_t n, int block)
{
    return cmrs_grid::blocks(n, block, 65536);
}

cmrs_code cmrs_dev_offsets_from_lengths(const int32_t *lengths_d, int64_t n,
                                        int32_t *indptr_d, cudaStream_t stream)
{
    cmrs_code rc = CMRS_OK;
    void *scratch_d = NULL;
    size_t bytes = 0;
    CMRS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, lengths_d,
                                                indptr_d, (int)(n + 1), stream));
    CMRS_CUDA_TRY(cmrs_dev_malloc(&scratch_d, bytes));
    CMRS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(scratch_d, bytes, lengths_d,
                                                indptr_d, (int)(n + 1), stream));
    CMRS_CUDA_TRY(cudaStreamSynchronize(stream)); /* before the free */
done:
    cmrs_dev_free(scratch_d);
    return rc;
}

cmrs_code cmrs_dev_store_values_on(const double *src_d, const int32_t *perm_d,
                                   int64_t stored, cmrs_prec prec,
                                   void *dst_d, unsigned long long *bad_d,
                                   cudaStream_t stream)
{
    const int block = 256;
    if (stored <= 0) return CMRS_OK;
    const unsigned grid = cmrs_dev_stride_grid(stored, block);
    CMRS_PREC_DISPATCH(prec, T,
                       gather_values_kernel<double, T><<<grid, block, 0,
                                                         stream>>>(
                           stored, src_d, perm_d, (T *)dst_d, bad_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_dev_store_values(const double *values_h, int64_t nnz,
                                const int32_t *perm_d, int64_t stored,
                                cmrs_prec prec, void *dst_d, const char *what)
{
    cmrs_code rc = CMRS_OK;
    void *src_d = NULL;
    if (stored <= 0) return CMRS_OK;
    if (prec == CMRS_PREC_SINGLE) {
        cmrs_phase_push(CMRS_PHASE_HOST_STAGING);
        rc = cmrs_check_float_range(values_h, nnz, what);
        cmrs_phase_pop();
        CMRS_CHECK(rc);
    }
    /* CSR order and double: the upload is the whole job. */
    if (!perm_d && prec == CMRS_PREC_DOUBLE) {
        CMRS_CHECK(cmrs_dev_copy_to(dst_d, values_h,
                                    (size_t)stored * sizeof(double)));
        return CMRS_OK;
    }
    CMRS_TRY(cmrs_dev_upload(values_h, (size_t)(nnz > 0 ? nnz : 0) *
                             sizeof(double), &src_d));
    /* on the legacy default stream, where setup's uploads run */
    CMRS_TRY(cmrs_dev_store_values_on((const double *)src_d, perm_d, stored,
                                      prec, dst_d, nullptr, 0));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
done:
    cmrs_dev_free(src_d);
    return rc;
}

/* The smallest CSR index gather_values_kernel flagged in *bad_d (~0:
 * none) as the range error cmrs_check_float_range reports for host values. */
static cmrs_code report_flagged(const double *values_d,
                                const unsigned long long *bad_d,
                                const char *what)
{
    unsigned long long bad = 0;
    double v = 0;
    CMRS_CUDA(cudaMemcpy(&bad, bad_d, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad == ~0ull) return CMRS_OK;
    CMRS_CUDA(cudaMemcpy(&v, values_d + bad, sizeof v,
                         cudaMemcpyDeviceToHost));
    return cmrs_float_range_error(what, v, (int64_t)bad);
}

cmrs_code cmrs_dev_store_values_d(const double *values_d,
                                  const int32_t *perm_d, int64_t stored,
                                  cmrs_prec prec, void *dst_d,
                                  const char *what)
{
    cmrs_code rc = CMRS_OK;
    unsigned long long *bad_d = NULL;
    if (stored <= 0) return CMRS_OK;
    /* CSR order and double: a copy on the device is the whole job (no
     * check, as for host values in double). */
    if (!perm_d && prec == CMRS_PREC_DOUBLE) {
        CMRS_CUDA(cudaMemcpy(dst_d, values_d, (size_t)stored * sizeof(double),
                             cudaMemcpyDeviceToDevice));
        return CMRS_OK;
    }
    if (prec == CMRS_PREC_SINGLE) {
        CMRS_CUDA(cmrs_dev_malloc((void **)&bad_d, sizeof *bad_d));
        CMRS_CUDA_TRY(cudaMemset(bad_d, 0xff, sizeof *bad_d));
    }
    CMRS_TRY(cmrs_dev_store_values_on(values_d, perm_d, stored, prec, dst_d,
                                      bad_d, 0));
    CMRS_CUDA_TRY(cudaDeviceSynchronize());
    if (bad_d) CMRS_TRY(report_flagged(values_d, bad_d, what));
done:
    cmrs_dev_free(bad_d);
    return rc;
}

cmrs_code cmrs_dev_gather_values(const void *src_d, const int32_t *perm_d,
                                 int64_t stored, cmrs_prec prec, void *dst_d,
                                 unsigned long long *bad_d,
                                 cudaStream_t stream)
{
    const int block = 256;
    if (stored <= 0) return CMRS_OK;
    const unsigned grid = cmrs_dev_stride_grid(stored, block);
    /* A kernel even for a plain copy: the finiteness check rides along at
     * the same memory traffic as cudaMemcpyAsync. */
    CMRS_PREC_DISPATCH(prec, T,
                       gather_values_kernel<T, T><<<grid, block, 0, stream>>>(
                           stored, (const T *)src_d, perm_d, (T *)dst_d,
                           bad_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_dev_perm_upload(const double *index_values_h, int64_t stored,
                               int32_t **perm_d)
{
    cmrs_code rc = CMRS_OK;
    *perm_d = NULL;
    CMRS_CUDA(cmrs_dev_malloc((void **)perm_d, (size_t)stored * sizeof(int32_t)));
    /* index_values_h[i] - 1 as int32, converted chunk by chunk on the way */
    CMRS_TRY(cmrs_h2d(*perm_d, index_values_h, stored, CMRS_H2D_PERM,
                      "permutation"));
done:
    if (rc != CMRS_OK) {
        cmrs_dev_free(*perm_d);
        *perm_d = NULL;
    }
    return rc;
}

/* Row offsets as int32 when nnz allows it (half the bytes, narrowed on the
 * way: upload.h), else as is. */
static cmrs_code upload_offsets(const cmrs_csr *A, cmrs_csr_dev *d)
{
    size_t n = (size_t)A->rows + 1;
    d->offsets64 = A->nnz > INT32_MAX;
    if (d->offsets64) {
        CMRS_CHECK(cmrs_dev_upload(A->indptr, n * sizeof(int64_t), &d->indptr_d));
        d->bytes += n * sizeof(int64_t);
        return CMRS_OK;
    }
    CMRS_CUDA(cmrs_dev_malloc(&d->indptr_d, n * sizeof(int32_t)));
    CMRS_CHECK(cmrs_h2d(d->indptr_d, A->indptr, (int64_t)n, CMRS_H2D_I64_I32,
                        "row offsets"));
    d->bytes += n * sizeof(int32_t);
    return CMRS_OK;
}

cmrs_code cmrs_csr_dev_upload(const cmrs_csr *A, cmrs_prec prec,
                              cmrs_csr_dev *d)
{
    cmrs_code rc = CMRS_OK;
    size_t nnz = (size_t)A->nnz, idx_bytes = 0, val_bytes = 0;
    memset(d, 0, sizeof *d);
    CMRS_TRY(value_bytes(A->nnz, prec, &val_bytes));
    if (cmrs_mul_size(nnz, sizeof(int32_t), &idx_bytes) != 0)
        CMRS_TRY_FAIL(CMRS_E_LIMIT, "%zu column indices: byte count overflows",
                      nnz);
    CMRS_TRY(upload_offsets(A, d));
    CMRS_TRY(cmrs_dev_upload(A->indices, idx_bytes, (void **)&d->indices_d));
    d->bytes += idx_bytes;
    CMRS_TRY(cmrs_dev_upload_values(A->values, A->nnz, prec, "matrix values",
                                    &d->values_d));
    d->bytes += val_bytes;
done:
    if (rc != CMRS_OK) cmrs_csr_dev_free(d);
    return rc;
}

cmrs_code cmrs_csr_dev_copy_d(const cmrs_csr_view_d *M, cmrs_prec prec,
                              cmrs_csr_dev *d)
{
    cmrs_code rc = CMRS_OK;
    size_t ptr_bytes = ((size_t)M->rows + 1) * sizeof(int32_t),
           idx_bytes = (size_t)M->nnz * sizeof(int32_t), val_bytes = 0;
    memset(d, 0, sizeof *d);
    CMRS_TRY(value_bytes(M->nnz, prec, &val_bytes));
    CMRS_CUDA_TRY(cmrs_dev_malloc(&d->indptr_d, ptr_bytes));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&d->indices_d,
                             idx_bytes ? idx_bytes : 1));
    CMRS_CUDA_TRY(cmrs_dev_malloc(&d->values_d, val_bytes ? val_bytes : 1));
    d->bytes = ptr_bytes + idx_bytes + val_bytes;
    CMRS_CUDA_TRY(cudaMemcpy(d->indptr_d, M->indptr_d, ptr_bytes,
                             cudaMemcpyDeviceToDevice));
    if (idx_bytes)
        CMRS_CUDA_TRY(cudaMemcpy(d->indices_d, M->indices_d, idx_bytes,
                                 cudaMemcpyDeviceToDevice));
    CMRS_TRY(cmrs_dev_store_values_d(M->values_d, NULL, M->nnz, prec,
                                     d->values_d, "matrix values"));
    /* device-to-device copies return early: done before M may go */
    CMRS_CUDA_TRY(cudaStreamSynchronize(0));
done:
    if (rc != CMRS_OK) cmrs_csr_dev_free(d);
    return rc;
}

void cmrs_csr_dev_free(cmrs_csr_dev *d)
{
    if (!d) return;
    CMRS_GPU_FREE_ALL(d->indptr_d, d->indices_d, d->values_d);
    memset(d, 0, sizeof *d);
}

template <typename T>
__global__ void scale_kernel(int64_t n, T beta, T *__restrict__ y)
{
    CMRS_GRID_LOOP(i, n)
        y[i] = beta == T(0) ? T(0) : beta * y[i];
}

cmrs_code cmrs_dev_scale(cmrs_prec prec, int64_t n, double beta, void *y_d,
                         cudaStream_t stream)
{
    const int block = 256;
    if (n <= 0) return CMRS_OK;
    const unsigned grid = cmrs_dev_stride_grid(n, block);
    CMRS_PREC_DISPATCH(prec, T,
                       scale_kernel<T><<<grid, block, 0, stream>>>(
                           n, (T)beta, (T *)y_d));
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
