/* What an SpMV kernel with the least work per entry reaches on a matrix at
 * its size: the matrix in ELL layout (column-major, width W = the longest
 * row, padding pointing at the row's own x with value 0), one thread per
 * row issuing its W column and W value loads (each coalesced across the
 * warp, no row pointers) and then its W x gathers. It has the product's
 * dependent chain (column word, then x) and nothing else; a second kernel
 * reads x[row] in place of the gathers (no dependent load: the matrix's
 * bytes at streaming speed); then SELL-32 and SELL-16 (slices of 32 / 16
 * rows, each padded to its longest row, column-major from a slice
 * pointer, a length byte per row): ELL plus the one pointer load that a
 * strip-pointer format such as CMRS needs before its matrix loads, at the
 * warp's height and at CMRS's largest strip height; then both of one width
 * (slices at computed starts, no pointer loads). Timed as `cmrs bench`
 * times a product
 * (cmrs_time_op: events between back-to-back calls, median of 100), eta+
 * with cmrs's beta+ (h = 16) against the copy bandwidth of 1 GiB buffers.
 * Checks y against the CSR product before timing.
 *
 *   build/bench/gather_ceiling FILE.h5 ...
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "bench_main.h"
extern "C" {
#include "io/system.h"
#include "spmv/timing.h"
}

namespace {

constexpr int kReps = 100, kWarmup = 10, kThreads = 256, kMaxWidth = 8;

template <int W, bool GATHER>
__global__ void ell_kernel(int n, const int *__restrict__ col,
                           const double *__restrict__ val,
                           const double *__restrict__ x, double *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c[W];
    double v[W], xv[W], sum = 0.0;
#pragma unroll
    for (int j = 0; j < W; ++j) {
        c[j] = __ldg(col + (size_t)j * n + i);
        v[j] = __ldg(val + (size_t)j * n + i);
    }
#pragma unroll
    for (int j = 0; j < W; ++j) xv[j] = __ldg(x + (GATHER ? c[j] : i));
#pragma unroll
    for (int j = 0; j < W; ++j) sum += v[j] * xv[j];
    y[i] = sum;
}

/* SELL-S: slices of S rows (32: a warp), each padded to its longest row and
 * stored column-major from slice_ptr[s]; a byte per row holds its length.
 * The matrix loads wait on the slice's two pointers (one line), as a
 * strip-pointer format's do; the length loads in parallel with them. */
template <int W, int S>
__global__ void sell_kernel(int n, const unsigned *__restrict__ slice_ptr,
                            const unsigned char *__restrict__ len,
                            const int *__restrict__ col,
                            const double *__restrict__ val,
                            const double *__restrict__ x, double *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = i / S, lane = i % S;
    if (s * S >= n) return;
    const unsigned p0 = __ldg(slice_ptr + s), p1 = __ldg(slice_ptr + s + 1);
    const int li = i < n ? __ldg(len + i) : 0;
    const unsigned w = (p1 - p0) / S;
    int c[W];
    double v[W], xv[W], sum = 0.0;
#pragma unroll
    for (int j = 0; j < W; ++j) {
        c[j] = j < (int)w ? __ldg(col + p0 + j * S + lane) : 0;
        v[j] = j < (int)w ? __ldg(val + p0 + j * S + lane) : 0.0;
    }
#pragma unroll
    for (int j = 0; j < W; ++j) xv[j] = j < li ? __ldg(x + c[j]) : 0.0;
#pragma unroll
    for (int j = 0; j < W; ++j) sum += v[j] * xv[j];
    if (i < n) y[i] = sum;
}

/* SELL-S of one width W (every slice padded to the longest row): slice s
 * starts at s S W, so the matrix loads wait on no pointer; the length
 * byte only predicates the gathers. ELL's dependence chain with the
 * slices' storage order (CMRS's "su" layout at S = 16). */
template <int W, int S>
__global__ void sell_uniform_kernel(int n, const unsigned char *__restrict__ len,
                                    const int *__restrict__ col,
                                    const double *__restrict__ val,
                                    const double *__restrict__ x,
                                    double *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = i / S, lane = i % S;
    if (s * S >= n) return;
    const unsigned p0 = (unsigned)s * S * W;
    const int li = i < n ? __ldg(len + i) : 0;
    int c[W];
    double v[W], xv[W], sum = 0.0;
#pragma unroll
    for (int j = 0; j < W; ++j) {
        c[j] = __ldg(col + p0 + j * S + lane);
        v[j] = __ldg(val + p0 + j * S + lane);
    }
#pragma unroll
    for (int j = 0; j < W; ++j) xv[j] = j < li ? __ldg(x + c[j]) : 0.0;
#pragma unroll
    for (int j = 0; j < W; ++j) sum += v[j] * xv[j];
    if (i < n) y[i] = sum;
}

struct ell_dev {
    int n, width;
    int *col_d;
    double *val_d, *x_d, *y_d;
    bool gather;
    int kind; /* 0 ELL, 1 SELL-32, 2 SELL-16, 3/4 the same of one width */
    unsigned *slice_ptr_d;
    unsigned char *len_d;
    int *scol_d;
    double *sval_d;
};

template <bool GATHER>
void launch_w(const ell_dev *e)
{
    const int grid = (e->n + kThreads - 1) / kThreads;
#define CASE(W)                                                              \
    case W:                                                                  \
        if (e->kind == 1)                                                    \
            sell_kernel<W, 32><<<grid, kThreads>>>(e->n, e->slice_ptr_d,     \
                                                   e->len_d, e->scol_d,      \
                                                   e->sval_d, e->x_d,        \
                                                   e->y_d);                  \
        else if (e->kind == 3)                                               \
            sell_uniform_kernel<W, 32><<<grid, kThreads>>>(e->n, e->len_d,   \
                                                           e->scol_d,        \
                                                           e->sval_d, e->x_d,\
                                                           e->y_d);          \
        else if (e->kind == 4)                                               \
            sell_uniform_kernel<W, 16><<<grid, kThreads>>>(e->n, e->len_d,   \
                                                           e->scol_d,        \
                                                           e->sval_d, e->x_d,\
                                                           e->y_d);          \
        else if (e->kind == 2)                                               \
            sell_kernel<W, 16><<<grid, kThreads>>>(e->n, e->slice_ptr_d,     \
                                                   e->len_d, e->scol_d,      \
                                                   e->sval_d, e->x_d,        \
                                                   e->y_d);                  \
        else                                                                 \
            ell_kernel<W, GATHER><<<grid, kThreads>>>(e->n, e->col_d,        \
                                                      e->val_d, e->x_d,      \
                                                      e->y_d);               \
        break;
    switch (e->width) {
        CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
    }
#undef CASE
}

cmrs_code ell_op(void *ctx)
{
    const ell_dev *e = (const ell_dev *)ctx;
    if (e->gather) launch_w<true>(e);
    else launch_w<false>(e);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* ELL arrays of A (host), padding at the row's own column. */
void ell_build(const cmrs_csr *A, int width, std::vector<int> &col,
               std::vector<double> &val)
{
    const size_t n = (size_t)A->rows;
    col.assign(n * width, 0);
    val.assign(n * width, 0.0);
    for (size_t i = 0; i < n; ++i) {
        int j = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k, ++j) {
            col[j * n + i] = (int)A->indices[k];
            val[j * n + i] = A->values[k];
        }
        for (; j < width; ++j) col[j * n + i] = (int)i;
    }
}

/* SELL-S arrays of A (host): slice pointers, row lengths, padded
 * column-major slices (padding: column 0, value 0, never gathered). */
void sell_build(const cmrs_csr *A, int64_t S, int64_t width,
                std::vector<unsigned> &ptr,
                std::vector<unsigned char> &len, std::vector<int> &col,
                std::vector<double> &val)
{
    const int64_t n = A->rows, slices = (n + S - 1) / S;
    ptr.assign((size_t)slices + 1, 0u);
    len.assign((size_t)n, 0);
    for (int64_t s = 0; s < slices; ++s) {
        int64_t w = width; /* > 0: one width for every slice */
        for (int64_t i = s * S; i < n && i < s * S + S; ++i) {
            len[i] = (unsigned char)(A->indptr[i + 1] - A->indptr[i]);
            if (len[i] > w && width == 0) w = len[i];
        }
        ptr[s + 1] = ptr[s] + (unsigned)(w * S);
    }
    col.assign(ptr[slices], 0);
    val.assign(ptr[slices], 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            const size_t at = ptr[i / S] + (size_t)(k - A->indptr[i]) * S + i % S;
            col[at] = A->indices[k];
            val[at] = A->values[k];
        }
}

/* Largest relative difference of y_d from the CSR product with x = x_h. */
cmrs_code ell_check(const cmrs_csr *A, const std::vector<double> &x_h,
                    const double *y_d, double *err)
{
    std::vector<double> y((size_t)A->rows);
    CMRS_CUDA(cudaMemcpy(y.data(), y_d, y.size() * sizeof(double),
                         cudaMemcpyDeviceToHost));
    *err = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        double ref = 0, mag = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            ref += A->values[k] * x_h[A->indices[k]];
            mag += fabs(A->values[k] * x_h[A->indices[k]]);
        }
        const double e = fabs(y[i] - ref) / (mag > 0 ? mag : 1.0);
        if (e > *err) *err = e;
    }
    return CMRS_OK;
}

cmrs_code time_ell(ell_dev *e, int kind, bool gather, double *t_s)
{
    cmrs_timing t;
    e->gather = gather;
    e->kind = kind;
    CMRS_CHECK(cmrs_time_op(ell_op, e, 0, kWarmup, kReps, &t));
    *t_s = t.median;
    return CMRS_OK;
}

/* The SELL arrays of e freed (a later measure_sell or the caller's end). */
void sell_free(ell_dev *e)
{
    cudaFree(e->slice_ptr_d);
    cudaFree(e->len_d);
    cudaFree(e->scol_d);
    cudaFree(e->sval_d);
    e->slice_ptr_d = nullptr;
    e->len_d = nullptr;
    e->scol_d = nullptr;
    e->sval_d = nullptr;
}

/* *dst_d = a new device copy of v (cmrs_dev_upload). */
template <typename T>
cmrs_code upload(const std::vector<T> &v, T **dst_d)
{
    void *p = nullptr;
    CMRS_CHECK(cmrs_dev_upload(v.data(), v.size() * sizeof(T), &p));
    *dst_d = (T *)p;
    return CMRS_OK;
}

/* SELL-S uploaded into e (freed by the caller), checked, timed. */
cmrs_code measure_sell(const cmrs_csr *A, const std::vector<double> &x_h,
                       int S, bool uniform, ell_dev *e, double *t_s)
{
    std::vector<unsigned> sptr;
    std::vector<unsigned char> slen;
    std::vector<int> scol;
    std::vector<double> sval;
    double err = 0;
    sell_build(A, S, uniform ? e->width : 0, sptr, slen, scol, sval);
    sell_free(e);
    CMRS_CHECK(upload(sptr, &e->slice_ptr_d));
    CMRS_CHECK(upload(slen, &e->len_d));
    CMRS_CHECK(upload(scol, &e->scol_d));
    CMRS_CHECK(upload(sval, &e->sval_d));
    CMRS_CUDA(cudaMemset(e->y_d, 0xff, x_h.size() * sizeof(double)));
    e->kind = (S == 32 ? 1 : 2) + (uniform ? 2 : 0);
    CMRS_CHECK(ell_op(e));
    CMRS_CHECK(ell_check(A, x_h, e->y_d, &err));
    CMRS_ENSURE(err <= 1e-12, CMRS_E_INTERNAL, "SELL-%d product differs from "
                "CSR (relative %g)", S, err);
    CMRS_CHECK(time_ell(e, e->kind, true, t_s));
    return CMRS_OK;
}

cmrs_code measure(const char *path, double bw)
{
    cmrs_code rc = CMRS_OK;
    cmrs_read_opts opts = {};
    cmrs_system sys = {};
    ell_dev e = {};
    std::vector<int> col;
    std::vector<double> val, x_h;
    double t_gather = 0, t_stream = 0, t_sell = 0, t_sell16 = 0, err = 0;
    double t_uni = 0, t_uni16 = 0;
    CMRS_CHECK(cmrs_system_read(path, &opts, &sys));
    const cmrs_csr *A = &sys.A;
    int width = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        const int64_t len = A->indptr[i + 1] - A->indptr[i];
        if (len > width) width = (int)len;
    }
    if (width < 1 || width > kMaxWidth || A->rows != A->cols ||
        A->rows > INT32_MAX / kMaxWidth)
        CMRS_TRY_FAIL(CMRS_E_USAGE, "%s: square, rows of 1..%d entries and "
                      "fewer than %d rows only (width %d)", path, kMaxWidth,
                      INT32_MAX / kMaxWidth, width);
    ell_build(A, width, col, val);
    e.n = (int)A->rows;
    e.width = width;
    x_h.resize((size_t)e.n);
    for (int i = 0; i < e.n; ++i) x_h[i] = 1.0 + (i % 7) * 0.25;
    CMRS_TRY(upload(col, &e.col_d));
    CMRS_TRY(upload(val, &e.val_d));
    CMRS_TRY(upload(x_h, &e.x_d));
    CMRS_CUDA_TRY(cudaMalloc(&e.y_d, x_h.size() * sizeof(double)));
    CMRS_CUDA_TRY(cudaMemset(e.y_d, 0xff, x_h.size() * sizeof(double)));
    e.gather = true;
    CMRS_TRY(ell_op(&e));
    CMRS_TRY(ell_check(A, x_h, e.y_d, &err));
    if (err > 1e-12)
        CMRS_TRY_FAIL(CMRS_E_INTERNAL, "%s: ELL product differs from CSR "
                      "(relative %g)", path, err);
    CMRS_TRY(time_ell(&e, 0, true, &t_gather));
    CMRS_TRY(time_ell(&e, 0, false, &t_stream));
    CMRS_TRY(measure_sell(A, x_h, 32, false, &e, &t_sell));
    CMRS_TRY(measure_sell(A, x_h, 16, false, &e, &t_sell16));
    CMRS_TRY(measure_sell(A, x_h, 32, true, &e, &t_uni));
    CMRS_TRY(measure_sell(A, x_h, 16, true, &e, &t_uni16));
    {
        const double strips = (double)((A->rows + 15) / 16);
        const double beta = 12.0 * (double)A->nnz + 4.0 * (strips + 1) +
                            16.0 * (double)A->rows;
        printf("%s: %lld rows, nnz %lld, ELL width %d (%.1f%% padding), "
               "checked (rel err %.1e); ELL %.2f us, eta+ %.3f; without the "
               "gathers %.2f us, eta+ %.3f; SELL with slice pointers: "
               "32 rows %.2f us, eta+ %.3f; 16 rows %.2f us, eta+ %.3f\n",
               path, (long long)A->rows,
               (long long)A->nnz, width,
               100.0 * ((double)width * A->rows - A->nnz) / (double)A->nnz, err,
               1e6 * t_gather, beta / t_gather / bw, 1e6 * t_stream,
               beta / t_stream / bw, 1e6 * t_sell, beta / t_sell / bw,
               1e6 * t_sell16, beta / t_sell16 / bw);
        printf("%s: SELL of one width (no pointer loads): 32 rows %.2f us, "
               "eta+ %.3f; 16 rows %.2f us, eta+ %.3f\n", path, 1e6 * t_uni,
               beta / t_uni / bw, 1e6 * t_uni16, beta / t_uni16 / bw);
    }
done:
    cudaFree(e.col_d);
    cudaFree(e.val_d);
    cudaFree(e.x_d);
    cudaFree(e.y_d);
    sell_free(&e);
    cmrs_system_free(&sys);
    return rc;
}

cmrs_code run(int argc, char **argv)
{
    double bw = 0;
    CMRS_ENSURE(argc >= 2, CMRS_E_USAGE, "usage: gather_ceiling FILE.h5 ...");
    CMRS_CHECK(cmrs_measure_copy_bandwidth((size_t)1 << 30, 30, &bw));
    printf("copy bandwidth (1 GiB buffers): %.0f GB/s\n", bw / 1e9);
    for (int i = 1; i < argc; ++i) CMRS_CHECK(measure(argv[i], bw));
    return CMRS_OK;
}

} // namespace

int main(int argc, char **argv)
{
    return bench_main("gather_ceiling", run, argc, argv);
}
