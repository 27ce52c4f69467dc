/* CSR -> CMRS (basic layout, CSR order) on the GPU (cmrs_setup.h).
 *
 * The CMRS arrays of the basic unsorted layout are CSR's arrays with two
 * changes: the strip pointers are every h-th row offset, and each column
 * index gains the row's index in its strip in its low 4 bits. So setup
 * uploads what cuSPARSE's setup uploads (row offsets, column indices,
 * values) and one kernel finishes the job in place: the values are final
 * as uploaded (double) and the column indices become the packed words
 * where they lie. The host conversion (cmrs_mat_from_csr) stays as the
 * reference the tests compare against, bit for bit. For the rows kernel
 * the same kernel also writes each row's 16-bit offset in its strip.
 *
 * A matrix already on the device (cmrs_csr_view_d: the AMG's SpGEMM
 * products) takes the same path with the uploads replaced by work on the
 * device (stage_device): the build kernel then sees the same inputs, so
 * both builds give the same arrays. */
#include <cstdint>
#include <cstring>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/grid.cuh"
#include "cmrs_setup.h"
#include "spmv/csr_view.h"

namespace {

/* One thread per row: its entries' packed words, its offset in its strip
 * (row_off, when wanted), and the strip pointer when the row starts a
 * strip (the last thread also writes the end). */
__global__ void build_kernel(int64_t rows, unsigned height,
                             const int64_t *__restrict__ indptr,
                             uint32_t *__restrict__ colrow,
                             uint32_t *__restrict__ strip_ptr,
                             uint16_t *__restrict__ row_off)
{
    CMRS_GRID_LOOP(r, rows) {
        const int64_t begin = indptr[r], end = indptr[r + 1];
        const uint32_t tag = (uint32_t)(r % height);
        for (int64_t k = begin; k < end; ++k)
            colrow[k] = colrow[k] << CMRS_ROW_BITS | tag;
        if (row_off) row_off[r] = (uint16_t)(begin - indptr[r - tag]);
        if (tag == 0) strip_ptr[r / height] = (uint32_t)begin;
        if (r == rows - 1)
            strip_ptr[(rows + height - 1) / height] = (uint32_t)end;
    }
}

/* The three arrays, the last two with CMRS_TILE_PAD zeroed entries past
 * nnz (the tile kernel's 16-byte loads may reach into them). Reads only
 * A's counts. */
cmrs_code alloc_arrays(const cmrs_csr *A, int64_t strips, cmrs_prec prec,
                       int row_offsets, cmrs_mat_dev *d)
{
    if (row_offsets)
        CMRS_CUDA(cudaMalloc((void **)&d->row_off_d,
                             ((size_t)A->rows + 1) * sizeof(uint16_t)));
    const size_t n = (size_t)A->nnz + CMRS_TILE_PAD;
    const size_t sv = cmrs_prec_value_bytes(prec);
    CMRS_CUDA(cudaMalloc((void **)&d->strip_ptr_d,
                         ((size_t)strips + 1) * sizeof(uint32_t)));
    CMRS_CUDA(cudaMalloc((void **)&d->colrow_d, n * sizeof(uint32_t)));
    CMRS_CUDA(cudaMalloc(&d->values_d, n * sv));
    CMRS_CUDA(cudaMemset(d->colrow_d + A->nnz, 0,
                         CMRS_TILE_PAD * sizeof(uint32_t)));
    CMRS_CUDA(cudaMemset((char *)d->values_d + (size_t)A->nnz * sv, 0,
                         CMRS_TILE_PAD * sv));
    /* rows == 0: the only strip pointer, 0; otherwise the kernel writes all. */
    CMRS_CUDA(cudaMemset(d->strip_ptr_d, 0, sizeof(uint32_t)));
    return CMRS_OK;
}

/* The one-width sliced layout in place of the staged CSR order in *d
 * where slice asks for it (cmrs_slice_takes on the longest row); *taken. */
cmrs_code maybe_slice(const cmrs_csr *A, int height, cmrs_prec prec,
                      const int64_t *indptr_d, cmrs_slice_req *slice,
                      cmrs_mat_dev *d, int *taken)
{
    int64_t longest = 0;
    cmrs_mat_dev s;
    *taken = 0;
    if (!slice || slice->mode == 0 || A->rows == 0) return CMRS_OK;
    CMRS_CHECK(cmrs_dev_longest_row(indptr_d, A->rows, &longest));
    if (!cmrs_slice_takes(slice->mode, A->rows, A->nnz, longest)) return CMRS_OK;
    CMRS_CHECK(cmrs_mat_dev_slice(indptr_d, d->colrow_d, d->values_d, A->rows,
                                  height, longest > 0 ? longest : 1, prec, &s,
                                  &slice->perm_d));
    cmrs_mat_dev_free(d);
    *d = s;
    *taken = 1;
    return CMRS_OK;
}

/* The sliced layout where asked (maybe_slice), else the build kernel in
 * place, between two events; *ms their time (the sliced build's includes
 * its allocations). Reads only A's counts (the row offsets are indptr_d). */
cmrs_code timed_build(const cmrs_csr *A, int height, cmrs_prec prec,
                      const int64_t *indptr_d, cmrs_slice_req *slice,
                      cmrs_mat_dev *d, int *sliced, float *ms)
{
    cmrs_code rc = CMRS_OK;
    cudaEvent_t ev[2] = {NULL, NULL};
    const int block = 256;
    const unsigned grid = cmrs_dev_stride_grid(A->rows, block);
    *ms = 0;
    *sliced = 0;
    if (A->rows == 0) return CMRS_OK;
    CMRS_CUDA_TRY(cudaEventCreate(&ev[0]));
    CMRS_CUDA_TRY(cudaEventCreate(&ev[1]));
    CMRS_CUDA_TRY(cudaEventRecord(ev[0], 0));
    CMRS_TRY(maybe_slice(A, height, prec, indptr_d, slice, d, sliced));
    if (!*sliced) {
        build_kernel<<<grid, block>>>(A->rows, (unsigned)height, indptr_d,
                                      d->colrow_d, d->strip_ptr_d,
                                      d->row_off_d);
        CMRS_LAUNCH_TRY();
    }
    CMRS_CUDA_TRY(cudaEventRecord(ev[1], 0));
    CMRS_CUDA_TRY(cudaEventSynchronize(ev[1]));
    CMRS_CUDA_TRY(cudaEventElapsedTime(ms, ev[0], ev[1]));
done:
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    return rc;
}

/* What the build kernel starts from: A's row offsets in the int64 scratch
 * indptr_d, its column indices in d->colrow_d (packed there in place) and
 * its values, in prec, in d->values_d; from a host matrix (uploaded) or
 * from a device view (copied on the device). */
struct build_input {
    const cmrs_csr *host;          /* one of the two, the other NULL */
    const cmrs_csr_view_d *device;
    cmrs_spmv *tap;                /* host only: see stage_host */
};

/* Single precision with the diagonal asked for (tap): the values in
 * double on the device once, the diagonal's source and the narrowing's
 * (cmrs_dev_store_values_d: the host path's range check, on the device),
 * where cmrs_dev_store_values would range-check them on the host and
 * upload the same doubles. */
cmrs_code stage_single_tapped(const cmrs_csr *A, cmrs_prec prec,
                              cmrs_spmv *tap, const int64_t *indptr_d,
                              cmrs_mat_dev *d)
{
    cmrs_code rc = CMRS_OK;
    void *src_d = NULL;
    if (A->nnz > 0)
        CMRS_TRY(cmrs_dev_upload(A->values, (size_t)A->nnz * sizeof(double),
                                 &src_d));
    CMRS_TRY(cmrs_spmv_diag_tap(tap, indptr_d, 1,
                                (const int32_t *)d->colrow_d,
                                (const double *)src_d));
    CMRS_TRY(cmrs_dev_store_values_d((const double *)src_d, NULL, A->nnz,
                                     prec, d->values_d,
                                     "cmrs: matrix values"));
done:
    cudaFree(src_d); /* store_values_d synchronised: nothing reads it */
    return rc;
}

/* tap (or NULL): the format whose diagonal to find on the way
 * (cmrs_spmv_diag_tap), from the columns before the build packs them. */
cmrs_code stage_host(const cmrs_csr *A, cmrs_prec prec, cmrs_spmv *tap,
                     int64_t *indptr_d, cmrs_mat_dev *d)
{
    CMRS_CHECK(cmrs_dev_copy_to(indptr_d, A->indptr,
                                ((size_t)A->rows + 1) * sizeof(int64_t)));
    if (A->nnz > 0)
        CMRS_CHECK(cmrs_dev_copy_to(d->colrow_d, A->indices,
                                    (size_t)A->nnz * sizeof(int32_t)));
    if (tap && prec == CMRS_PREC_SINGLE) {
        CMRS_CHECK(stage_single_tapped(A, prec, tap, indptr_d, d));
        return CMRS_OK;
    }
    CMRS_CHECK(cmrs_dev_store_values(A->values, A->nnz, NULL, A->nnz, prec,
                                     d->values_d, "cmrs: matrix values"));
    if (tap) /* double: the stored values are A's, in CSR order */
        CMRS_CHECK(cmrs_spmv_diag_tap(tap, indptr_d, 1,
                                      (const int32_t *)d->colrow_d,
                                      (const double *)d->values_d));
    return CMRS_OK;
}

/* The same on the device: the int32 offsets widened by a kernel, the
 * indices copied (int32 and uint32 words alike), the values stored as the
 * host path stores them (cmrs_dev_store_values_d: a copy in double, a
 * conversion with the same range check in single). */
cmrs_code stage_device(const cmrs_csr_view_d *M, cmrs_prec prec,
                       int64_t *indptr_d, cmrs_mat_dev *d)
{
    CMRS_CHECK(cmrs_dev_widen_offsets(M->indptr_d, M->rows + 1, indptr_d, 0));
    if (M->nnz > 0)
        CMRS_CUDA(cudaMemcpy(d->colrow_d, M->indices_d,
                             (size_t)M->nnz * sizeof(int32_t),
                             cudaMemcpyDeviceToDevice));
    CMRS_CHECK(cmrs_dev_store_values_d(M->values_d, NULL, M->nnz, prec,
                                       d->values_d, "cmrs: matrix values"));
    return CMRS_OK;
}

/* Both builds: checks, arrays, the input staged, the kernel, the figures.
 * A: the counts (the host matrix itself, or the view's counts). */
cmrs_code build(const cmrs_csr *A, const build_input &in, int height,
                cmrs_prec prec, int row_offsets, cmrs_slice_req *slice,
                cmrs_mat_dev *d, double *convert_s, double *convert_bytes)
{
    cmrs_code rc = CMRS_OK;
    int64_t *indptr_d = NULL;
    float ms = 0;
    int sliced = 0;
    memset(d, 0, sizeof *d);
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs"));
    const int64_t strips = (A->rows + height - 1) / height;
    CMRS_TRY(alloc_arrays(A, strips, prec, row_offsets, d));
    CMRS_CUDA_TRY(cudaMalloc((void **)&indptr_d,
                             ((size_t)A->rows + 1) * sizeof(int64_t)));
    if (in.host) CMRS_TRY(stage_host(in.host, prec, in.tap, indptr_d, d));
    else CMRS_TRY(stage_device(in.device, prec, indptr_d, d));
    if (slice) slice->offsets_fit = 1;
    if (slice && slice->check_offsets && row_offsets) {
        CMRS_TRY(cmrs_row_offsets_fit_dev64(indptr_d, A->rows, height,
                                            &slice->offsets_fit));
        if (!slice->offsets_fit) { /* the tile kernel's layout */
            cudaFree(d->row_off_d);
            d->row_off_d = NULL;
            row_offsets = 0;
            slice->mode = 0;
        }
    }
    CMRS_TRY(timed_build(A, height, prec, indptr_d, slice, d, &sliced, &ms));
    d->rows = A->rows;
    d->strips = strips;
    d->height = height;
    *convert_s = 1e-3 * ms;
    /* Row offsets read, column words read and written, pointers written
     * (and 16-bit row offsets written, with a second row-offset read);
     * sliced: offsets read twice, columns and values read, W words,
     * values and permutation entries written per row. */
    if (sliced)
        *convert_bytes = 16.0 * (double)(A->rows + 1) +
                         (4.0 + cmrs_prec_value_bytes(prec)) * (double)A->nnz +
                         (8.0 + cmrs_prec_value_bytes(prec)) *
                             (double)A->rows * d->slice_width +
                         4.0 * (double)(strips + 1);
    else
        *convert_bytes = 8.0 * (double)(A->rows + 1) + 8.0 * (double)A->nnz +
                         4.0 * (double)(strips + 1) +
                         (row_offsets ? 10.0 * (double)A->rows : 0.0);
done:
    cudaFree(indptr_d);
    if (rc != CMRS_OK) cmrs_mat_dev_free(d);
    return rc;
}

} // namespace

cmrs_code cmrs_mat_dev_build(const cmrs_csr *A, int height, cmrs_prec prec,
                             int row_offsets, cmrs_slice_req *slice,
                             cmrs_mat_dev *d, double *convert_s,
                             double *convert_bytes)
{
    CMRS_CHECK(cmrs_mat_dev_build_tap(A, height, prec, row_offsets, slice,
                                      NULL, d, convert_s, convert_bytes));
    return CMRS_OK;
}

cmrs_code cmrs_mat_dev_build_tap(const cmrs_csr *A, int height,
                                 cmrs_prec prec, int row_offsets,
                                 cmrs_slice_req *slice, cmrs_spmv *tap,
                                 cmrs_mat_dev *d, double *convert_s,
                                 double *convert_bytes)
{
    const build_input in = {A, NULL, tap};
    CMRS_CHECK(build(A, in, height, prec, row_offsets, slice, d, convert_s,
                     convert_bytes));
    return CMRS_OK;
}

cmrs_code cmrs_mat_dev_build_view(const cmrs_csr_view_d *M, int height,
                                  cmrs_prec prec, int row_offsets,
                                  cmrs_slice_req *slice, cmrs_mat_dev *d,
                                  double *convert_s, double *convert_bytes)
{
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    const build_input in = {NULL, M, NULL};
    CMRS_CHECK(build(&counts, in, height, prec, row_offsets, slice, d,
                     convert_s, convert_bytes));
    return CMRS_OK;
}
