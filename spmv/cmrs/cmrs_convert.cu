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
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "cmrs_setup.h"
#include "spmv/csr_view.h"
extern "C" {
#include "base/profile.h"
}

namespace {

/* One thread per row of [r0, r1): its entries' packed words, its offset
 * in its strip (row_off, when wanted), and the strip pointer when the row
 * starts a strip (the last row also writes the end). */
__global__ void build_kernel(int64_t r0, int64_t r1, int64_t rows,
                             unsigned height,
                             const int64_t *__restrict__ indptr,
                             uint32_t *__restrict__ colrow,
                             uint32_t *__restrict__ strip_ptr,
                             uint16_t *__restrict__ row_off)
{
    CMRS_GRID_LOOP_AS(int64_t, r, r0, r1) {
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
        CMRS_CUDA(cmrs_dev_malloc((void **)&d->row_off_d,
                             ((size_t)A->rows + 1) * sizeof(uint16_t)));
    const size_t n = (size_t)A->nnz + CMRS_TILE_PAD;
    const size_t sv = cmrs_prec_value_bytes(prec);
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->strip_ptr_d,
                         ((size_t)strips + 1) * sizeof(uint32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->colrow_d, n * sizeof(uint32_t)));
    CMRS_CUDA(cmrs_dev_malloc(&d->values_d, n * sv));
    CMRS_CUDA(cudaMemset(d->colrow_d + A->nnz, 0,
                         CMRS_TILE_PAD * sizeof(uint32_t)));
    CMRS_CUDA(cudaMemset((char *)d->values_d + (size_t)A->nnz * sv, 0,
                         CMRS_TILE_PAD * sv));
    /* rows == 0: the only strip pointer, 0; otherwise the kernel writes all. */
    CMRS_CUDA(cudaMemset(d->strip_ptr_d, 0, sizeof(uint32_t)));
    return CMRS_OK;
}

/* Whether the one-width layout is taken where slice asks for it
 * (cmrs_slice_takes on the longest row), and its *width. */
cmrs_code pick_slice(const cmrs_csr *A, const int64_t *indptr_d,
                     const cmrs_slice_req *slice, int *sliced, int64_t *width)
{
    int64_t longest = 0;
    *sliced = 0;
    if (!slice || slice->mode == 0 || A->rows == 0) return CMRS_OK;
    CMRS_CHECK(cmrs_dev_longest_row(indptr_d, A->rows, &longest));
    *sliced = cmrs_slice_takes(slice->mode, A->rows, A->nnz, longest);
    *width = longest > 0 ? longest : 1;
    return CMRS_OK;
}

/* The one-width sliced layout in place of the staged CSR order in *d
 * where pick_slice takes it; *taken. */
cmrs_code maybe_slice(const cmrs_csr *A, int height, cmrs_prec prec,
                      const int64_t *indptr_d, cmrs_slice_req *slice,
                      cmrs_mat_dev *d, int *taken)
{
    int64_t width = 0;
    cmrs_mat_dev s;
    CMRS_CHECK(pick_slice(A, indptr_d, slice, taken, &width));
    if (!*taken) return CMRS_OK;
    CMRS_CHECK(cmrs_mat_dev_slice(indptr_d, d->colrow_d, d->values_d, A->rows,
                                  height, width, prec, &s, &slice->perm_d));
    cmrs_mat_dev_free(d);
    *d = s;
    return CMRS_OK;
}

/* The build kernel over rows [r0, r1) on `stream`. */
cmrs_code launch_build(int64_t r0, int64_t r1, int64_t rows, int height,
                       const int64_t *indptr_d, cmrs_mat_dev *d,
                       cudaStream_t stream)
{
    const int block = 256;
    build_kernel<<<cmrs_dev_stride_grid(r1 - r0, block), block, 0, stream>>>(
        r0, r1, rows, (unsigned)height, indptr_d, d->colrow_d, d->strip_ptr_d,
        d->row_off_d);
    CMRS_LAUNCH_CHECK();
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
    *ms = 0;
    *sliced = 0;
    if (A->rows == 0) return CMRS_OK;
    CMRS_CUDA_TRY(cudaEventCreate(&ev[0]));
    CMRS_CUDA_TRY(cudaEventCreate(&ev[1]));
    CMRS_CUDA_TRY(cudaEventRecord(ev[0], 0));
    CMRS_TRY(maybe_slice(A, height, prec, indptr_d, slice, d, sliced));
    if (!*sliced)
        CMRS_TRY(launch_build(0, A->rows, A->rows, height, indptr_d, d, 0));
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
    cmrs_dev_free(src_d); /* store_values_d synchronised: nothing reads it */
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

/* The rows kernel's 16-bit offsets checked on the device where the
 * request asks (check_offsets, with offsets wanted); where they do not
 * fit, no offsets and no slices (the tile kernel's layout). */
cmrs_code check_offsets(const int64_t *indptr_d, int64_t rows, int height,
                        cmrs_slice_req *slice, int *row_offsets)
{
    if (slice) slice->offsets_fit = 1;
    if (!slice || !slice->check_offsets || !*row_offsets) return CMRS_OK;
    CMRS_CHECK(cmrs_row_offsets_fit_dev64(indptr_d, rows, height,
                                          &slice->offsets_fit));
    if (!slice->offsets_fit) {
        *row_offsets = 0;
        slice->mode = 0;
    }
    return CMRS_OK;
}

/* *d's sizes, and the conversion's bytes: row offsets read, column words
 * read and written, pointers written (and 16-bit row offsets written,
 * with a second row-offset read); sliced: offsets read twice, columns and
 * values read, W words, values and permutation entries written per row. */
void record_figures(const cmrs_csr *A, int height, int64_t strips,
                    cmrs_prec prec, int row_offsets, int sliced, float ms,
                    cmrs_mat_dev *d, double *convert_s, double *convert_bytes)
{
    d->rows = A->rows;
    d->strips = strips;
    d->height = height;
    *convert_s = 1e-3 * ms;
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
    const int64_t strips = (A->rows + height - 1) / height;
    CMRS_TRY(alloc_arrays(A, strips, prec, row_offsets, d));
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&indptr_d,
                             ((size_t)A->rows + 1) * sizeof(int64_t)));
    if (in.host) CMRS_TRY(stage_host(in.host, prec, in.tap, indptr_d, d));
    else CMRS_TRY(stage_device(in.device, prec, indptr_d, d));
    {
        const int asked = row_offsets;
        CMRS_TRY(check_offsets(indptr_d, A->rows, height, slice, &row_offsets));
        if (asked && !row_offsets) { /* the tile kernel's layout */
            cmrs_dev_free(d->row_off_d);
            d->row_off_d = NULL;
        }
    }
    CMRS_TRY(timed_build(A, height, prec, indptr_d, slice, d, &sliced, &ms));
    record_figures(A, height, strips, prec, row_offsets, sliced, ms, d,
                   convert_s, convert_bytes);
done:
    cmrs_dev_free(indptr_d);
    if (rc != CMRS_OK) cmrs_mat_dev_free(d);
    return rc;
}

/* The pipelined host build (double precision): A's columns and values go
 * up a chunk of rows at a time, and the chunk's conversion (its diagonal,
 * its packed words or slices) runs on a stream of its own while the next
 * chunk's bytes travel. The decisions that need every row (the offsets'
 * fit, the longest row) are taken first, from the row offsets alone. In
 * CSR order the chunks land in the final arrays, packed there in place;
 * sliced, in two staging buffers of the chunk's size taken in turn (no
 * whole staged copy of A beside the layout). The same arrays, bit for
 * bit, as the one-pass build (tests/spmv/cmrs/test_gpu_cmrs_convert.c). */
struct pipe {
    cudaStream_t stream = nullptr;
    cudaEvent_t t0[2] = {nullptr, nullptr}, t1[2] = {nullptr, nullptr};
    bool pending[2] = {false, false};
    void *stage_d[2] = {nullptr, nullptr}; /* sliced: columns, values */
    int64_t cap = 0;                       /* entries a stage holds */
    float ms = 0;                          /* the chunks' kernels */

    cmrs_code open(int stages, int64_t entries)
    {
        cap = (entries + 1) / 2 * 2; /* the values after it 8-byte aligned */
        CMRS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        for (int b = 0; b < 2; ++b) {
            CMRS_CUDA(cudaEventCreate(&t0[b]));
            CMRS_CUDA(cudaEventCreate(&t1[b]));
        }
        for (int b = 0; b < stages; ++b) /* 4-byte columns, then doubles */
            CMRS_CUDA(cmrs_dev_malloc(&stage_d[b], (size_t)cap * 12));
        return CMRS_OK;
    }
    /* Stage b's last chunk finished (its buffer free), its time added. */
    cmrs_code settle(int b)
    {
        if (!pending[b]) return CMRS_OK;
        float t = 0;
        CMRS_CUDA(cudaEventSynchronize(t1[b]));
        CMRS_CUDA(cudaEventElapsedTime(&t, t0[b], t1[b]));
        ms += t;
        pending[b] = false;
        return CMRS_OK;
    }
    void close()
    {
        if (stream) (void)cudaStreamSynchronize(stream); /* stages unread */
        for (int b = 0; b < 2; ++b) {
            if (stage_d[b]) cmrs_dev_free(stage_d[b]);
            if (t0[b]) cudaEventDestroy(t0[b]);
            if (t1[b]) cudaEventDestroy(t1[b]);
        }
        if (stream) cudaStreamDestroy(stream);
    }
};

/* CMRS_CONVERT_CHUNK_ENTRIES: entries per chunk (2^23: 32 MB of columns
 * and 64 MB of values, large enough for the staged uploads' threads,
 * upload.h), or 0 (unset: the default) for the one-pass build. Not the
 * default: measured on an H200 (docs/BENCHMARKS.md) it did not shorten
 * the setup from page-locked arrays (what remains of the conversion is
 * allocations and checks the host waits for, not kernels) and lengthened
 * it by 5-16 ms from pageable ones at 5M rows (six smaller uploads, each
 * with its threads, instead of two). */
cmrs_code chunk_entries(int64_t *out)
{
    const char *v = getenv("CMRS_CONVERT_CHUNK_ENTRIES");
    *out = 0;
    if (!v || !*v) return CMRS_OK;
    char *end = NULL;
    const long long n = strtoll(v, &end, 10);
    CMRS_ENSURE(end != v && !*end && n >= 0 && n <= INT32_MAX, CMRS_E_USAGE,
                "CMRS_CONVERT_CHUNK_ENTRIES=%s: expected a count of entries "
                "in 0..%d (0: no pipeline)", v, INT32_MAX);
    *out = n;
    return CMRS_OK;
}

/* The last row r1 > r0 whose chunk [r0, r1) holds at most `chunk`
 * entries, or r0 + 1 where row r0 alone holds more. */
int64_t chunk_end(const cmrs_csr *A, int64_t r0, int64_t chunk)
{
    const int64_t limit = A->indptr[r0] + chunk;
    int64_t lo = r0 + 1, hi = A->rows; /* the answer lies in [lo, hi] */
    if (A->indptr[lo] > limit) return lo;
    while (lo < hi) {
        const int64_t mid = hi - (hi - lo) / 2;
        if (A->indptr[mid] <= limit) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* One chunk, rows [r0, r1): its bytes up (into the final CSR-order arrays,
 * or stage b), then its diagonal (diag) and its conversion queued on the
 * pipe's stream. */
cmrs_code pipe_chunk(const cmrs_csr *A, cmrs_spmv *diag, int height,
                     const int64_t *indptr_d, int sliced, int32_t *perm_d,
                     cmrs_mat_dev *d, pipe &p, int b, int64_t r0, int64_t r1)
{
    const int64_t e0 = A->indptr[r0], n = A->indptr[r1] - e0;
    uint32_t *cols = sliced ? (uint32_t *)p.stage_d[b] : d->colrow_d;
    double *vals = sliced ? (double *)((uint32_t *)p.stage_d[b] + p.cap)
                          : (double *)d->values_d;
    const int64_t off = sliced ? e0 : 0; /* entry e of A at cols[e - off] */
    CMRS_CHECK(p.settle(b));
    if (n > 0) {
        CMRS_CHECK(cmrs_dev_copy_to(cols + (e0 - off), A->indices + e0,
                                    (size_t)n * sizeof(int32_t)));
        CMRS_CHECK(cmrs_dev_copy_to(vals + (e0 - off), A->values + e0,
                                    (size_t)n * sizeof(double)));
    }
    CMRS_CUDA(cudaEventRecord(p.t0[b], p.stream));
    if (diag)
        CMRS_CHECK(cmrs_spmv_diag_tap_rows(diag, indptr_d, (const int32_t *)cols,
                                           vals, r0, r1, off, p.stream));
    if (sliced) {
        CMRS_CHECK(cmrs_mat_dev_slice_rows(indptr_d, cols, vals, r0, r1, off,
                                           CMRS_PREC_DOUBLE, d, perm_d,
                                           p.stream));
    } else {
        CMRS_CHECK(launch_build(r0, r1, A->rows, height, indptr_d, d,
                                p.stream));
    }
    CMRS_CUDA(cudaEventRecord(p.t1[b], p.stream));
    p.pending[b] = true;
    return CMRS_OK;
}

cmrs_code build_pipelined(const cmrs_csr *A, cmrs_spmv *tap, int height,
                          int row_offsets, cmrs_slice_req *slice,
                          int64_t chunk, cmrs_mat_dev *d, double *convert_s,
                          double *convert_bytes)
{
    cmrs_code rc = CMRS_OK;
    int64_t *indptr_d = NULL, width = 0, cap = 0;
    int32_t *perm_d = NULL;
    int sliced = 0, want_diag = 0, overlapping = 0;
    pipe p;
    const int64_t strips = (A->rows + height - 1) / height;
    /* tests: the pipeline fails before this chunk's upload (-1: never) */
    const char *fail = getenv("CMRS_TEST_FAIL_CONVERT_CHUNK");
    const int64_t fail_at = fail && *fail ? strtoll(fail, NULL, 10) : -1;
    CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&indptr_d,
                             ((size_t)A->rows + 1) * sizeof(int64_t)));
    CMRS_TRY(cmrs_dev_copy_to(indptr_d, A->indptr,
                              ((size_t)A->rows + 1) * sizeof(int64_t)));
    CMRS_TRY(check_offsets(indptr_d, A->rows, height, slice, &row_offsets));
    CMRS_TRY(pick_slice(A, indptr_d, slice, &sliced, &width));
    if (sliced) {
        CMRS_TRY(cmrs_mat_dev_slice_alloc(A->rows, height, width,
                                          CMRS_PREC_DOUBLE, d, &perm_d));
        if (slice) slice->perm_d = perm_d; /* the caller owns it */
    } else {
        CMRS_TRY(alloc_arrays(A, strips, CMRS_PREC_DOUBLE, row_offsets, d));
    }
    if (tap) CMRS_TRY(cmrs_spmv_diag_prepare(tap, &want_diag));
    /* a stage holds a chunk, or the longest row where it holds more */
    cap = chunk < A->nnz ? chunk : A->nnz;
    if (cap < width) cap = width;
    CMRS_TRY(p.open(sliced ? 2 : 0, cap));
    /* the allocations' memsets (legacy stream) before the pipe's stream */
    CMRS_CUDA_TRY(cudaStreamSynchronize(0));
    cmrs_profile_overlap(1); /* a profile's syncs would serialise it */
    overlapping = 1;
    for (int64_t r0 = 0, k = 0; r0 < A->rows; ++k) {
        const int64_t r1 = chunk_end(A, r0, chunk);
        if (k == fail_at)
            CMRS_TRY_FAIL(CMRS_E_GPU, "cmrs: injected failure at chunk %lld "
                          "of the conversion", (long long)k);
        CMRS_TRY(pipe_chunk(A, want_diag ? tap : NULL, height, indptr_d,
                            sliced, perm_d, d, p, (int)(k % 2), r0, r1));
        r0 = r1;
    }
    CMRS_TRY(p.settle(0));
    CMRS_TRY(p.settle(1));
    record_figures(A, height, strips, CMRS_PREC_DOUBLE, row_offsets, sliced,
                   p.ms, d, convert_s, convert_bytes);
done:
    if (overlapping) cmrs_profile_overlap(0);
    p.close();
    cmrs_dev_free(indptr_d);
    if (rc != CMRS_OK) cmrs_mat_dev_free(d); /* perm_d: the slice's owner's */
    return rc;
}

/* The checks both builds start with, then the pipelined or the one-pass
 * build. */
cmrs_code build_checked(const cmrs_csr *A, const build_input &in, int height,
                        cmrs_prec prec, int row_offsets, cmrs_slice_req *slice,
                        cmrs_mat_dev *d, double *convert_s,
                        double *convert_bytes)
{
    int64_t chunk = 0;
    memset(d, 0, sizeof *d);
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    CMRS_CHECK(cmrs_mat_check_limits(A, "cmrs"));
    if (in.host) CMRS_CHECK(chunk_entries(&chunk)); /* a bad value: always */
    /* one chunk has nothing to overlap: its stream, events and stages
     * cost the vessel 0.5M 0.2-0.4 ms (H200, chunks of 2^23) */
    if (chunk > 0 && A->nnz > chunk && prec == CMRS_PREC_DOUBLE)
        CMRS_CHECK(build_pipelined(in.host, in.tap, height, row_offsets,
                                   slice, chunk, d, convert_s, convert_bytes));
    else
        CMRS_CHECK(build(A, in, height, prec, row_offsets, slice, d,
                         convert_s, convert_bytes));
    return CMRS_OK;
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
    CMRS_CHECK(build_checked(A, in, height, prec, row_offsets, slice, d,
                             convert_s, convert_bytes));
    return CMRS_OK;
}

cmrs_code cmrs_mat_dev_build_view(const cmrs_csr_view_d *M, int height,
                                  cmrs_prec prec, int row_offsets,
                                  cmrs_slice_req *slice, cmrs_mat_dev *d,
                                  double *convert_s, double *convert_bytes)
{
    const cmrs_csr counts = cmrs_csr_view_counts(M);
    const build_input in = {NULL, M, NULL};
    CMRS_CHECK(build_checked(&counts, in, height, prec, row_offsets, slice,
                             d, convert_s, convert_bytes));
    return CMRS_OK;
}
