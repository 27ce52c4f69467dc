/* The device CSR view: checks, download, widened row offsets (see
 * csr_view.h; what needs no GPU: csr_view.c). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "device.h"
#include "csr_view.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/grid.cuh"
#include "base/thread.h"

namespace {

/* indptr_d[0] and indptr_d[rows] against 0 and nnz: the counts describe
 * the arrays, so nothing below reads past them. */
cmrs_code check_ends(const cmrs_csr_view_d *M, const char *what)
{
    int32_t first = -1, last = -1;
    CMRS_CUDA(cudaMemcpy(&first, M->indptr_d, sizeof first,
                         cudaMemcpyDeviceToHost));
    CMRS_CUDA(cudaMemcpy(&last, M->indptr_d + M->rows, sizeof last,
                         cudaMemcpyDeviceToHost));
    CMRS_ENSURE(first == 0 && last == M->nnz, CMRS_E_INPUT,
                "%s: device matrix row offsets run from %d to %d, not from 0 "
                "to its %lld entries", what, first, last, (long long)M->nnz);
    return CMRS_OK;
}

__global__ void widen_kernel(int64_t n, const int32_t *__restrict__ src,
                             int64_t *__restrict__ dst)
{
    CMRS_GRID_LOOP(i, n)
        dst[i] = src[i];
}

} // namespace

cmrs_code cmrs_csr_view_check(const cmrs_csr_view_d *M, const char *what)
{
    CMRS_CHECK(cmrs_csr_view_check_counts(M, what));
    /* M may still be being written on any stream (the AMG forms it on the
     * solver's non-blocking stream), while the check and the setup read
     * it on the legacy default stream, which does not wait for those. */
    CMRS_CUDA(cudaDeviceSynchronize());
    CMRS_CHECK(check_ends(M, what));
    return CMRS_OK;
}

/* Pins a fresh host array for the download into it: a pageable copy into
 * memory never touched pays the first touch of every page inside the
 * driver's staging loop (measured on an H200, 188 MB: 0.142 s, against
 * 0.056 s to register plus 0.004 s to copy). Registering fresh memory
 * faults its pages in one thread too (the distributed AMG's download of
 * level 1, 1.9 GB at 50M rows: 1.16 s, then 0.60 s), so they are
 * touched by threads first (cmrs_touch_pages; test_gpu_amg_sa's download
 * with CMRS_PARALLEL_GRAIN=1 takes the threaded path on small ones).
 * 0: not pinned (a refusal is not an error; the copy then runs
 * pageable). */
static int pin(void *p, size_t bytes)
{
    cmrs_touch_pages(p, bytes);
    if (bytes == 0 || cudaHostRegister(p, bytes, cudaHostRegisterDefault) !=
                          cudaSuccess) {
        cudaGetLastError(); /* a refusal is not an error of the next call */
        return 0;
    }
    return 1;
}

/* Undoes pin() once the copies into p are done. */
static cmrs_code unpin(void *p)
{
    CMRS_CUDA(cudaHostUnregister(p));
    return CMRS_OK;
}

/* Queues the copies of M into A on `stream` (pinned NULL: as they are;
 * else A's arrays pinned where they can be: *pinned bit 0 indices, bit 1
 * values) and waits. */
static cmrs_code copy_down(const cmrs_csr_view_d *M, cudaStream_t stream,
                           int32_t *indptr32, cmrs_csr *A, int *pinned)
{
    const size_t n = (size_t)M->rows + 1, nnz = (size_t)M->nnz;
    CMRS_CUDA(cudaMemcpyAsync(indptr32, M->indptr_d, n * sizeof *indptr32,
                              cudaMemcpyDeviceToHost, stream));
    if (nnz > 0) {
        if (pinned)
            *pinned = pin(A->indices, nnz * sizeof *A->indices) |
                      pin(A->values, nnz * sizeof *A->values) << 1;
        CMRS_CUDA(cudaMemcpyAsync(A->indices, M->indices_d,
                                  nnz * sizeof *A->indices,
                                  cudaMemcpyDeviceToHost, stream));
        CMRS_CUDA(cudaMemcpyAsync(A->values, M->values_d,
                                  nnz * sizeof *A->values,
                                  cudaMemcpyDeviceToHost, stream));
    }
    CMRS_CUDA(cudaStreamSynchronize(stream));
    return CMRS_OK;
}

/* A's row offsets widened from the staged int32 ones, checked. */
static cmrs_code widen_offsets(const cmrs_csr_view_d *M,
                               const int32_t *indptr32, cmrs_csr *A)
{
    for (int64_t i = 0; i <= M->rows; ++i) A->indptr[i] = indptr32[i];
    CMRS_ENSURE(A->indptr[0] == 0 && A->indptr[M->rows] == M->nnz,
                CMRS_E_INTERNAL, "device CSR: row offsets run from %lld to "
                "%lld, expected 0 to %lld", (long long)A->indptr[0],
                (long long)A->indptr[M->rows], (long long)M->nnz);
    return CMRS_OK;
}

cmrs_code cmrs_csr_view_download_into(const cmrs_csr_view_d *M,
                                      cudaStream_t stream, int32_t *indptr32,
                                      cmrs_csr *A)
{
    CMRS_ENSURE(A->rows == M->rows && A->cols == M->cols && A->nnz == M->nnz,
                CMRS_E_INTERNAL, "a %lld x %lld host CSR of %lld entries "
                "for a device one of %lld x %lld, %lld", (long long)A->rows,
                (long long)A->cols, (long long)A->nnz, (long long)M->rows,
                (long long)M->cols, (long long)M->nnz);
    CMRS_CHECK(copy_down(M, stream, indptr32, A, NULL));
    CMRS_CHECK(widen_offsets(M, indptr32, A));
    return CMRS_OK;
}

cmrs_code cmrs_csr_view_download(const cmrs_csr_view_d *M,
                                 cudaStream_t stream, cmrs_csr *A)
{
    cmrs_code rc = CMRS_OK;
    const size_t n = (size_t)M->rows + 1;
    int pinned = 0;
    CMRS_CHECK(cmrs_csr_alloc(A, M->rows, M->cols, M->nnz));
    int32_t *indptr32 = (int32_t *)cmrs_malloc_array(n, sizeof *indptr32);
    if (!indptr32)
        CMRS_TRY_FAIL(CMRS_E_NOMEM, "cannot stage %zu row offsets", n);
    CMRS_TRY(copy_down(M, stream, indptr32, A, &pinned));
    CMRS_TRY(widen_offsets(M, indptr32, A));
done:
    /* After a failure the copies may still run: wait before unpinning. */
    if (rc != CMRS_OK && pinned) cudaStreamSynchronize(stream);
    for (int k = 0; k < 2; ++k) {
        if (!(pinned >> k & 1)) continue;
        cmrs_code urc = unpin(k ? (void *)A->values : (void *)A->indices);
        if (rc == CMRS_OK) rc = urc;
    }
    free(indptr32);
    if (rc != CMRS_OK) cmrs_csr_free(A);
    return rc;
}

cmrs_code cmrs_spmv_setup_host_copy(cmrs_spmv *self, const cmrs_csr_view_d *M)
{
    cmrs_csr A;
    CMRS_CHECK(cmrs_csr_view_download(M, self->stream, &A));
    const cmrs_code rc = self->ops->setup(self, &A);
    cmrs_csr_free(&A); /* setup keeps nothing of A */
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_dev_widen_offsets(const int32_t *src_d, int64_t n,
                                 int64_t *dst_d, cudaStream_t stream)
{
    const int block = 256;
    if (n <= 0) return CMRS_OK;
    widen_kernel<<<cmrs_dev_stride_grid(n, block), block, 0, stream>>>(
        n, src_d, dst_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}
