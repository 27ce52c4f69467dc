/* cmrs-mod's layout (cmrs_mod_layout.c) built on the GPU from device CSR
 * arrays: the same strips, chunks, padding and permutation as the host's
 * cmrs_mat_from_csr_mod on the same matrix (rows sorted by column, as
 * cmrs_csr_view_d promises), bit for bit (tests/spmv/test_gpu_spmv_dev.c
 * compares the two). The host build walks every strip in one thread of
 * the CPU (0.1-0.5 s at millions of rows) and then uploads the padded
 * layout; here one GPU thread takes a strip:
 *  1. each entry's packed word (column << 4 | row in strip), in CSR order;
 *  2. sorted strips: a stable radix sort of (strip, word) keys (each row
 *     is a run sorted by column, so this is the host's merge of runs; a
 *     segmented sort by strip took 23 ms of fem 3M's 33 ms build, H100);
 *  3. plan: each strip's chunks, blocked or dealt (the host's rule);
 *  4. the chunks' exclusive sum: the strip pointers (and the limit check);
 *  5. emit: each chunk stable by row and padded, its permutation. */
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/dev_alloc.h"
#include "base/gpu/grid.cuh"
#include "cmrs_format.h"
#include "cmrs_setup.h"

namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65536; /* spmv's setup kernels' cap */

__device__ inline unsigned row_of(uint32_t w) { return w & CMRS_ROW_MASK; }

/* keys[k] = column << 4 | row in strip, for every entry k of every row;
 * for sorted strips (strip_keys not NULL) also strip << word_bits | word,
 * the radix sort's key. */
__global__ void words_kernel(int64_t rows, unsigned height,
                             const int32_t *__restrict__ indptr,
                             const int32_t *__restrict__ cols,
                             uint32_t *__restrict__ keys,
                             int32_t *__restrict__ index,
                             uint64_t *__restrict__ strip_keys,
                             int word_bits)
{
    CMRS_GRID_LOOP(r, rows) {
        const uint32_t l = (uint32_t)(r % height);
        const uint64_t strip = (uint64_t)(r / height) << word_bits;
        for (int32_t k = indptr[r]; k < indptr[r + 1]; ++k) {
            const uint32_t w = (uint32_t)cols[k] << CMRS_ROW_BITS | l;
            keys[k] = w;
            index[k] = k;
            if (strip_keys) strip_keys[k] = strip | w;
        }
    }
}

/* The sorted keys' words: their low word_bits. */
__global__ void unpack_kernel(int64_t n, int word_bits,
                              const uint64_t *__restrict__ strip_keys,
                              uint32_t *__restrict__ words)
{
    const uint64_t mask = (1ull << word_bits) - 1;
    CMRS_GRID_LOOP(k, n) words[k] = (uint32_t)(strip_keys[k] & mask);
}

/* Bits that hold values 0 .. v. */
int bits_for(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b) != 0) ++b;
    return b;
}

/* begin[s] = indptr[min(s * height, rows)], s = 0 .. strips. */
__global__ void strip_begin_kernel(int64_t strips, int64_t rows,
                                   unsigned height,
                                   const int32_t *__restrict__ indptr,
                                   int32_t *__restrict__ begin)
{
    CMRS_GRID_LOOP(s, strips + 1) {
        const int64_t r = s * height;
        begin[s] = indptr[r < rows ? r : rows];
    }
}

/* What the plan and the emit of strip s read: its rows and entries. */
struct strip_view {
    const int32_t *indptr;
    const uint32_t *csr_keys;  /* CSR order */
    const uint32_t *seq_keys;  /* the strip's sequence: sorted or CSR */
    const int32_t *seq_index;  /* its CSR entry numbers */
    int64_t rows;
    unsigned height;
    int modulo;
};

__device__ inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The host's blocked_fits: consecutive 32-entry chunks of the sequence
 * hold at most `modulo` entries of any row. */
__device__ bool blocked_fits(const uint32_t *keys, int64_t n, int modulo)
{
    for (int64_t c0 = 0; c0 < n; c0 += CMRS_CHUNK) {
        int count[CMRS_MAX_HEIGHT] = {0};
        for (int64_t k = c0; k < n && k < c0 + CMRS_CHUNK; ++k)
            if (++count[row_of(keys[k])] > modulo) return false;
    }
    return true;
}

/* The host's strip_chunks: chunks of strip s (begin: its first entry). */
__device__ int64_t strip_chunks(const strip_view &v, int64_t s, int64_t begin,
                                int64_t n, bool *blocked)
{
    int64_t chunks = ceil_div(n, CMRS_CHUNK);
    *blocked = blocked_fits(v.seq_keys + begin, n, v.modulo);
    if (*blocked) return chunks;
    const int64_t r0 = s * v.height;
    const int64_t r1 = r0 + v.height < v.rows ? r0 + v.height : v.rows;
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t need = ceil_div(v.indptr[r + 1] - v.indptr[r], v.modulo);
        if (need > chunks) chunks = need;
    }
    return chunks;
}

__global__ void plan_kernel(strip_view v, int64_t strips,
                            const int32_t *__restrict__ begin,
                            unsigned long long *__restrict__ chunks,
                            uint8_t *__restrict__ blocked)
{
    CMRS_GRID_LOOP(s, strips + 1) {
        if (s == strips) { /* the sum's last term: the total lands there */
            chunks[s] = 0;
            continue;
        }
        bool b = true;
        chunks[s] = (unsigned long long)strip_chunks(v, s, begin[s],
                                                     begin[s + 1] - begin[s],
                                                     &b);
        blocked[s] = b;
    }
}

/* strip_ptr[s] = 32 * (chunks before strip s); the limit checked first. */
__global__ void strip_ptr_kernel(int64_t strips,
                                 const unsigned long long *__restrict__ sum,
                                 uint32_t *__restrict__ strip_ptr)
{
    CMRS_GRID_LOOP(s, strips + 1)
        strip_ptr[s] = (uint32_t)(sum[s] * CMRS_CHUNK);
}

/* The host's pad_row. */
__device__ uint32_t pad_row(unsigned used, unsigned height, uint32_t row0)
{
    for (unsigned r = height; r < CMRS_MAX_HEIGHT; ++r)
        if (!(used >> r & 1u)) return r;
    if (!(used >> row0 & 1u)) return row0;
    for (unsigned r = 0; r < CMRS_MAX_HEIGHT; ++r)
        if (!(used >> r & 1u)) return r;
    return 0;
}

/* The host's emit_chunk: the n entries (1..32) stable by row, then the
 * padding (column of the first entry, a free row of its residue); perm
 * the CSR entry of each slot, -1 for padding. */
__device__ void emit_chunk(const uint32_t *keys, const int32_t *index, int n,
                           unsigned height, int modulo, uint32_t *out_keys,
                           int32_t *out_perm)
{
    int next[CMRS_MAX_HEIGHT + 1] = {0};
    uint32_t k_sorted[CMRS_CHUNK];
    for (int k = 0; k < n; ++k) ++next[row_of(keys[k]) + 1];
    for (int r = 0; r < CMRS_MAX_HEIGHT; ++r) next[r + 1] += next[r];
    for (int k = 0; k < n; ++k) {
        const int pos = next[row_of(keys[k])]++;
        k_sorted[pos] = keys[k];
        out_keys[pos] = keys[k];
        out_perm[pos] = index[k];
    }
    unsigned used[CMRS_CHUNK] = {0};
    for (int p = 0; p < n; ++p) used[p % modulo] |= 1u << row_of(k_sorted[p]);
    const uint32_t first = k_sorted[0];
    for (int p = n; p < CMRS_CHUNK; ++p) {
        const uint32_t r = pad_row(used[p % modulo], height, row_of(first));
        used[p % modulo] |= 1u << r;
        out_keys[p] = (first >> CMRS_ROW_BITS) << CMRS_ROW_BITS | r;
        out_perm[p] = -1;
    }
}

/* The host's emit_strip: the chunks of strip s, blocked (consecutive
 * entries of the sequence) or dealt (entry i of the CSR order to chunk
 * i % C). */
__global__ void emit_kernel(strip_view v, int64_t strips,
                            const int32_t *__restrict__ begin,
                            const uint32_t *__restrict__ strip_ptr,
                            const uint8_t *__restrict__ blocked,
                            uint32_t *__restrict__ colrow,
                            int32_t *__restrict__ perm)
{
    CMRS_GRID_LOOP(s, strips) {
        const int64_t b0 = begin[s], n = begin[s + 1] - b0;
        const int64_t chunks = (strip_ptr[s + 1] - strip_ptr[s]) / CMRS_CHUNK;
        const bool blk = blocked[s];
        const uint32_t *keys = blk ? v.seq_keys + b0 : v.csr_keys + b0;
        const int32_t *index = blk ? v.seq_index + b0 : nullptr;
        uint32_t ck[CMRS_CHUNK];
        int32_t ci[CMRS_CHUNK];
        for (int64_t c = 0; c < chunks; ++c) {
            int count = 0;
            for (int64_t i = blk ? c * CMRS_CHUNK : c;
                 i < n && (!blk || i < (c + 1) * CMRS_CHUNK);
                 i += blk ? 1 : chunks, ++count) {
                ck[count] = keys[i];
                ci[count] = index ? index[i] : (int32_t)(b0 + i);
            }
            const int64_t at = strip_ptr[s] + c * CMRS_CHUNK;
            emit_chunk(ck, ci, count, v.height, v.modulo, colrow + at,
                       perm + at);
        }
    }
}

/* Scratch of the build, freed together. */
struct scratch {
    uint32_t *keys = nullptr, *sorted = nullptr;
    uint64_t *strip_keys = nullptr, *strip_sorted = nullptr;
    int32_t *index = nullptr, *sorted_index = nullptr, *begin = nullptr;
    unsigned long long *chunks = nullptr, *sum = nullptr;
    uint8_t *blocked = nullptr;
    void *temp = nullptr;
    ~scratch()
    {
        CMRS_GPU_FREE_ALL(keys, sorted, strip_keys, strip_sorted, index,
                          sorted_index, begin, chunks, sum, blocked, temp);
    }
};

/* Step 2: each strip's words sorted (stable: a row's duplicates keep their
 * order) by one radix sort of strip << word_bits | word over the bits
 * the matrix uses, then the words unpacked. */
cmrs_code sort_strips(const cmrs_csr_view_d *M, int64_t strips,
                      int word_bits, scratch *w)
{
    const int64_t nnz = M->nnz;
    const int end_bit = word_bits + bits_for((uint64_t)(strips - 1));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->strip_sorted, (size_t)nnz * 8));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->sorted, (size_t)nnz * 4));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->sorted_index, (size_t)nnz * 4));
    size_t bytes = 0;
    CMRS_CUDA(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, w->strip_keys, w->strip_sorted, w->index,
        w->sorted_index, nnz, 0, end_bit));
    CMRS_CUDA(cmrs_dev_malloc(&w->temp, bytes));
    CMRS_CUDA(cub::DeviceRadixSort::SortPairs(
        w->temp, bytes, w->strip_keys, w->strip_sorted, w->index,
        w->sorted_index, nnz, 0, end_bit));
    unpack_kernel<<<cmrs_grid::blocks(nnz, kBlock, kMaxBlocks), kBlock>>>(
        nnz, word_bits, w->strip_sorted, w->sorted);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* Steps 1-2: the packed words in CSR order and, for sorted strips, each
 * strip's sorted by word. */
cmrs_code make_sequence(const cmrs_csr_view_d *M, unsigned height,
                        int64_t strips, int sorted, scratch *w)
{
    const int64_t nnz = M->nnz;
    const size_t nz = (size_t)(nnz > 0 ? nnz : 1);
    const int word_bits =
        CMRS_ROW_BITS + bits_for((uint64_t)(M->cols > 0 ? M->cols - 1 : 0));
    sorted = sorted && nnz > 0;
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->keys, nz * sizeof(uint32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->index, nz * sizeof(int32_t)));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->begin, ((size_t)strips + 1) * 4));
    if (sorted) CMRS_CUDA(cmrs_dev_malloc((void **)&w->strip_keys, nz * 8));
    if (M->rows > 0) {
        words_kernel<<<cmrs_grid::blocks(M->rows, kBlock, kMaxBlocks),
                       kBlock>>>(M->rows, height, M->indptr_d, M->indices_d,
                                 w->keys, w->index, w->strip_keys, word_bits);
        CMRS_LAUNCH_CHECK();
    }
    strip_begin_kernel<<<cmrs_grid::blocks(strips + 1, kBlock, kMaxBlocks),
                         kBlock>>>(strips, M->rows, height, M->indptr_d,
                                   w->begin);
    CMRS_LAUNCH_CHECK();
    if (!sorted) return CMRS_OK;
    CMRS_CHECK(sort_strips(M, strips, word_bits, w));
    /* 16 bytes an entry, not needed further */
    CMRS_GPU_FREE_ALL(w->strip_keys, w->strip_sorted);
    w->strip_keys = w->strip_sorted = nullptr;
    return CMRS_OK;
}

/* Steps 3-4: each strip's chunks, their sum into d->strip_ptr_d and the
 * stored total (with the host's limit). */
cmrs_code plan(const strip_view &v, int64_t strips, scratch *w,
               cmrs_mat_dev *d, int64_t *stored)
{
    const size_t n = (size_t)strips + 1;
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->chunks, n * sizeof *w->chunks));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->sum, n * sizeof *w->sum));
    CMRS_CUDA(cmrs_dev_malloc((void **)&w->blocked, n));
    const unsigned grid = cmrs_grid::blocks((int64_t)n, kBlock, kMaxBlocks);
    plan_kernel<<<grid, kBlock>>>(v, strips, w->begin, w->chunks, w->blocked);
    CMRS_LAUNCH_CHECK();
    size_t bytes = 0;
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, w->chunks, w->sum,
                                            (int64_t)n));
    cmrs_dev_free(w->temp);
    w->temp = nullptr;
    CMRS_CUDA(cmrs_dev_malloc(&w->temp, bytes));
    CMRS_CUDA(cub::DeviceScan::ExclusiveSum(w->temp, bytes, w->chunks, w->sum,
                                            (int64_t)n));
    unsigned long long total = 0;
    CMRS_CUDA(cudaMemcpy(&total, w->sum + strips, sizeof total,
                         cudaMemcpyDeviceToHost));
    CMRS_ENSURE(total <= (unsigned long long)(CMRS_MAX_ENTRIES / CMRS_CHUNK),
                CMRS_E_LIMIT, "cmrs-mod: padding strips to multiples of %d "
                "needs more than %lld stored entries (32-bit strip pointers); "
                "use the cmrs format or a larger modulo", CMRS_CHUNK,
                (long long)CMRS_MAX_ENTRIES);
    *stored = (int64_t)total * CMRS_CHUNK;
    CMRS_CUDA(cmrs_dev_malloc((void **)&d->strip_ptr_d, n * sizeof(uint32_t)));
    strip_ptr_kernel<<<grid, kBlock>>>(strips, w->sum, d->strip_ptr_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

} // namespace

cmrs_code cmrs_mat_dev_build_mod(const cmrs_csr_view_d *M, int height,
                                 int modulo, int sorted, cmrs_mat_dev *d,
                                 int32_t **perm_d, int64_t *stored)
{
    cmrs_code rc = CMRS_OK;
    scratch w;
    memset(d, 0, sizeof *d);
    *perm_d = nullptr;
    *stored = 0;
    CMRS_ENSURE(modulo == 2 || modulo == 4 || modulo == 8 || modulo == 16 ||
                    modulo == 32, CMRS_E_USAGE, "cmrs-mod: modulo %d is not "
                "one of 2, 4, 8, 16, 32", modulo);
    CMRS_ENSURE(height >= 1 && height <= CMRS_MAX_HEIGHT, CMRS_E_USAGE,
                "cmrs-mod: strip height %d is out of range 1..%d", height,
                CMRS_MAX_HEIGHT);
    const int64_t strips = (M->rows + height - 1) / height;
    CMRS_TRY(make_sequence(M, (unsigned)height, strips, sorted, &w));
    {
        const int sorted_seq = w.sorted != nullptr;
        const strip_view v = {M->indptr_d, w.keys,
                              sorted_seq ? w.sorted : w.keys,
                              sorted_seq ? w.sorted_index : w.index,
                              M->rows, (unsigned)height, modulo};
        CMRS_TRY(plan(v, strips, &w, d, stored));
        /* the host path's allocations, so that an empty layout is NULL
         * in both */
        CMRS_CUDA_TRY(cmrs_dev_malloc((void **)&d->colrow_d,
                                 (size_t)*stored * sizeof(uint32_t)));
        CMRS_CUDA_TRY(cmrs_dev_malloc((void **)perm_d,
                                 (size_t)*stored * sizeof(int32_t)));
        if (strips > 0) {
            emit_kernel<<<cmrs_grid::blocks(strips, kBlock, kMaxBlocks),
                          kBlock>>>(v, strips, w.begin, d->strip_ptr_d,
                                    w.blocked, d->colrow_d, *perm_d);
            CMRS_CUDA_TRY(cudaGetLastError());
        }
        CMRS_CUDA_TRY(cudaDeviceSynchronize());
    }
    d->rows = M->rows;
    d->strips = strips;
    d->height = height;
done:
    if (rc != CMRS_OK) {
        cmrs_mat_dev_free(d);
        cmrs_dev_free(*perm_d);
        *perm_d = nullptr;
    }
    return rc;
}
