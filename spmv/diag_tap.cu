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
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "spmv.h"

namespace {

/* One thread per row of [r0, r1): a_ii's index by the lower-bound search
 * of cmrs_csr_lookup (the host Jacobi's: the same entry whatever the
 * row's order), its value, and the row flagged where the host's Jacobi
 * setup fails (missing, or not > 0: NaN too). Entry k of A lies at
 * cols[k - e0] and values[k - e0] (e0: the first entry a chunk of A's
 * arrays holds, cmrs_mat_dev_build's pipeline; 0 for whole arrays). */
template <typename I>
__global__ void diag_kernel(int64_t r0, int64_t r1, const I *__restrict__ indptr,
                            const int32_t *__restrict__ cols,
                            const double *__restrict__ values, int64_t e0,
                            int32_t *__restrict__ pos,
                            double *__restrict__ value,
                            unsigned long long *bad)
{
    CMRS_GRID_LOOP_AS(int64_t, i, r0, r1) {
        const int64_t end = (int64_t)indptr[i + 1];
        int64_t lo = (int64_t)indptr[i], hi = end;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if ((int64_t)cols[mid - e0] < i) lo = mid + 1;
            else hi = mid;
        }
        const bool found = lo < end && (int64_t)cols[lo - e0] == i;
        const double d = found ? values[lo - e0] : 0.0;
        pos[i] = found ? (int32_t)lo : -1;
        value[i] = d;
        if (!(d > 0)) atomicMin(bad, (unsigned long long)i);
    }
}

cmrs_code alloc_diag(int64_t rows, cmrs_diag_d *d)
{
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->pos_d, (size_t)rows * sizeof(int32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->value_d, (size_t)rows * sizeof(double)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->bad_d, sizeof *d->bad_d));
    CMRS_CUDA(cudaMemset(d->bad_d, 0xff, sizeof *d->bad_d));
    return CMRS_OK;
}

} // namespace

void cmrs_diag_d_free(cmrs_diag_d *d)
{
    if (!d) return;
    /* cmrs_dev_free(NULL) asks CUDA nothing: a process whose format
     * failed before touching the GPU does not start it here */
    CMRS_GPU_FREE_ALL(d->pos_d, d->value_d, d->bad_d);
    memset(d, 0, sizeof *d);
}

/* Whether self wants its diagonal found (cmrs_spmv_diag_tap's rule). */
static int wants_diag(const cmrs_spmv *self)
{
    return self->want_diag && self->rows > 0 && self->nnz <= INT32_MAX;
}

cmrs_code cmrs_spmv_diag_prepare(cmrs_spmv *self, int *wanted)
{
    *wanted = wants_diag(self);
    if (!*wanted) return CMRS_OK;
    cmrs_diag_d_free(&self->diag); /* a setup retried: the last one counts */
    cmrs_code rc = alloc_diag(self->rows, &self->diag);
    if (rc != CMRS_OK) {
        cmrs_diag_d_free(&self->diag);
        *wanted = 0;
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

cmrs_code cmrs_spmv_diag_tap_rows(cmrs_spmv *self, const int64_t *indptr_d,
                                  const int32_t *cols_d,
                                  const double *values_d, int64_t r0,
                                  int64_t r1, int64_t e0, cmrs_stream stream)
{
    if (r1 <= r0) return CMRS_OK;
    const int block = 256;
    cmrs_diag_d *d = &self->diag;
    diag_kernel<int64_t><<<cmrs_dev_stride_grid(r1 - r0, block), block, 0,
                           stream>>>(r0, r1, indptr_d, cols_d, values_d, e0,
                                     d->pos_d, d->value_d, d->bad_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_spmv_diag_tap(cmrs_spmv *self, const void *indptr_d,
                             int offsets64, const int32_t *indices_d,
                             const double *values_d)
{
    const int64_t rows = self->rows;
    int wanted = 0;
    CMRS_CHECK(cmrs_spmv_diag_prepare(self, &wanted));
    if (!wanted) return CMRS_OK;
    if (offsets64) {
        CMRS_CHECK(cmrs_spmv_diag_tap_rows(self, (const int64_t *)indptr_d,
                                           indices_d, values_d, 0, rows, 0,
                                           0));
        return CMRS_OK;
    }
    const int block = 256;
    cmrs_diag_d *d = &self->diag;
    diag_kernel<int32_t><<<cmrs_dev_stride_grid(rows, block), block>>>(
        0, rows, (const int32_t *)indptr_d, indices_d, values_d, 0, d->pos_d,
        d->value_d, d->bad_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
