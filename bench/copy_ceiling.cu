/* What a kernel that moves B bytes can reach at that size on this GPU:
 * the median time of an empty kernel, of a grid-stride copy kernel and of
 * cudaMemcpyAsync moving B bytes (B/2 read, B/2 written), timed as
 * `cmrs bench` times a product (cmrs_time_op: events between calls, 100
 * calls after warm-ups; the memcpy through cmrs_measure_copy_bandwidth),
 * against the copy bandwidth of 1 GiB buffers that `cmrs bench` measures.
 * The ceiling of eta+ for a product of beta+ = B bytes is then
 * (B / t_copy(B)) / bw(1 GiB).
 *
 *   build/bench/copy_ceiling B ...   (bytes: beta+ of the products to compare)
 */
#include <cstdio>
#include <cstdlib>

/* device.h first: it declares the C headers with C linkage. */
#include "spmv/device.h"
#include "base/gpu/cuda_check.h"
#include "bench_main.h"
extern "C" {
#include "spmv/timing.h"
}

namespace {

constexpr int kReps = 100, kWarmup = 10, kThreads = 256;

__global__ void empty_kernel() {}

__global__ void copy_kernel(const double2 *__restrict__ in,
                            double2 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

struct copy_args {
    const double2 *src;
    double2 *dst;
    size_t n;
    int grid;
};

cmrs_code empty_op(void *)
{
    empty_kernel<<<1, 32>>>();
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code copy_op(void *ctx)
{
    const copy_args *c = (const copy_args *)ctx;
    copy_kernel<<<c->grid, kThreads>>>(c->src, c->dst, c->n);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

/* One size: the memcpy and the copy kernel moving `bytes`, in seconds. */
cmrs_code time_size(size_t bytes, int grid, double *t_mem, double *t_ker)
{
    cmrs_code rc = CMRS_OK;
    const size_t half = bytes / 2 / 256 * 256;
    copy_args c = {nullptr, nullptr, half / sizeof(double2), grid};
    double bw = 0;
    cmrs_timing t;
    CMRS_CHECK(cmrs_measure_copy_bandwidth(half, kReps, &bw));
    *t_mem = 2.0 * (double)half / bw;
    CMRS_CUDA_TRY(cudaMalloc((void **)&c.src, half));
    CMRS_CUDA_TRY(cudaMalloc((void **)&c.dst, half));
    CMRS_CUDA_TRY(cudaMemset((void *)c.src, 0, half));
    CMRS_TRY(cmrs_time_op(copy_op, &c, 0, kWarmup, kReps, &t));
    *t_ker = t.median;
done:
    cudaFree((void *)c.src);
    cudaFree(c.dst);
    return rc;
}

cmrs_code run(int argc, char **argv)
{
    double bw = 0;
    int sms = 0;
    cmrs_timing t;
    CMRS_CHECK(cmrs_measure_copy_bandwidth((size_t)1 << 30, 30, &bw));
    printf("copy bandwidth (1 GiB buffers): %.0f GB/s\n", bw / 1e9);
    CMRS_CHECK(cmrs_time_op(empty_op, nullptr, 0, kWarmup, kReps, &t));
    printf("empty kernel: %.2f us\n", 1e6 * t.median);
    CMRS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int i = 1; i < argc; ++i) {
        char *end = nullptr;
        const unsigned long long bytes = strtoull(argv[i], &end, 10);
        CMRS_ENSURE(end != argv[i] && *end == '\0' && bytes >= 512,
                    CMRS_E_USAGE, "'%s' is not a byte count of at least 512",
                    argv[i]);
        double t_mem = 0, t_ker = 0;
        CMRS_CHECK(time_size((size_t)bytes, sms * 2048 / kThreads, &t_mem, &t_ker));
        const double t_best = t_mem < t_ker ? t_mem : t_ker;
        printf("B = %llu bytes: cudaMemcpy %.2f us, copy kernel %.2f us, "
               "eta+ ceiling %.3f\n", bytes / 512 * 512, 1e6 * t_mem,
               1e6 * t_ker, ((double)(bytes / 512 * 512) / t_best) / bw);
    }
    return CMRS_OK;
}

} // namespace

int main(int argc, char **argv)
{
    return bench_main("copy_ceiling", run, argc, argv);
}
