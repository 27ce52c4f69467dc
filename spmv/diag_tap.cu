/* Each row's diagonal found on the device while a format's setup has A's
 * CSR arrays there (spmv.h: cmrs_diag_d, cmrs_spmv_diag_tap). It replaces
 * two host passes of the GPU solver's setup (the diagonal positions of the
 * device-values update, D^-1 of the Jacobi setup: 0.03 + 0.05 s on a 5M-row,
 * 25M-entry vessel, timed on a build machine's CPU) by one kernel over
 * arrays the conversion uploads anyway. */
#include <cstdint>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/grid.cuh"
#include "spmv.h"

namespace {

/* One thread per row: a_ii's index by the lower-bound search of
 * cmrs_csr_lookup (the host Jacobi's: the same entry whatever the row's
 * order), its value, and the row flagged where the host's Jacobi setup
 * fails (missing, or not > 0: NaN too). */
template <typename I>
__global__ void diag_kernel(int64_t rows, const I *__restrict__ indptr,
                            const int32_t *__restrict__ cols,
                            const double *__restrict__ values,
                            int32_t *__restrict__ pos,
                            double *__restrict__ value,
                            unsigned long long *bad)
{
    CMRS_GRID_LOOP(i, rows) {
        const int64_t end = (int64_t)indptr[i + 1];
        int64_t lo = (int64_t)indptr[i], hi = end;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if ((int64_t)cols[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        const bool found = lo < end && (int64_t)cols[lo] == i;
        const double d = found ? values[lo] : 0.0;
        pos[i] = found ? (int32_t)lo : -1;
        value[i] = d;
        if (!(d > 0)) atomicMin(bad, (unsigned long long)i);
    }
}

cmrs_code alloc_diag(int64_t rows, cmrs_diag_d *d)
{
    CMRS_CUDA(cudaMalloc((void **)&d->pos_d, (size_t)rows * sizeof(int32_t)));
    CMRS_CUDA(cudaMalloc((void **)&d->value_d, (size_t)rows * sizeof(double)));
    CMRS_CUDA(cudaMalloc((void **)&d->bad_d, sizeof *d->bad_d));
    CMRS_CUDA(cudaMemset(d->bad_d, 0xff, sizeof *d->bad_d));
    return CMRS_OK;
}

} // namespace

void cmrs_diag_d_free(cmrs_diag_d *d)
{
    if (!d) return;
    /* Only what exists: cudaFree(NULL) would start CUDA in a process
     * whose format failed before touching the GPU. */
    if (d->pos_d) cudaFree(d->pos_d);
    if (d->value_d) cudaFree(d->value_d);
    if (d->bad_d) cudaFree(d->bad_d);
    memset(d, 0, sizeof *d);
}

cmrs_code cmrs_spmv_diag_tap(cmrs_spmv *self, const void *indptr_d,
                             int offsets64, const int32_t *indices_d,
                             const double *values_d)
{
    const int64_t rows = self->rows;
    if (!self->want_diag || rows <= 0 || self->nnz > INT32_MAX)
        return CMRS_OK;
    cmrs_diag_d_free(&self->diag); /* a setup retried: the last one counts */
    cmrs_code rc = alloc_diag(rows, &self->diag);
    if (rc != CMRS_OK) {
        cmrs_diag_d_free(&self->diag);
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    const int block = 256;
    const unsigned grid = cmrs_dev_stride_grid(rows, block);
    cmrs_diag_d *d = &self->diag;
    if (offsets64)
        diag_kernel<int64_t><<<grid, block>>>(
            rows, (const int64_t *)indptr_d, indices_d, values_d, d->pos_d,
            d->value_d, d->bad_d);
    else
        diag_kernel<int32_t><<<grid, block>>>(
            rows, (const int32_t *)indptr_d, indices_d, values_d, d->pos_d,
            d->value_d, d->bad_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
