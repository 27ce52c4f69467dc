// What a kernel that moves B bytes can reach at that size on this GPU:
// median time (CUDA events around each call, 100 calls after 10 warm-ups,
// as `cmrs bench` times a product) of an empty kernel, of a grid-stride
// copy kernel and of cudaMemcpyAsync moving B bytes (B/2 read, B/2
// written), against the copy bandwidth of a 1 GiB buffer. The ceiling of
// eta+ for a product of beta+ = B bytes is then (B / t_copy(B)) / bw(1 GiB).
// Build and run: built as build/bench/copy_ceiling, or nvcc -O3 -arch=sm_90
// bench/copy_ceiling.cu -o /tmp/cc &&
//   /tmp/cc 37435620 380000000   (bytes: beta+ of the products to compare)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                              \
    do {                                                                   \
        cudaError_t e_ = (x);                                              \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    cudaGetErrorString(e_));                               \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void empty_kernel() {}

__global__ void copy_kernel(const double2 *__restrict__ in,
                            double2 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

template <typename F> static double median_us(F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 10; ++i) f();
    std::vector<float> t(100);
    for (float &ms : t) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return 1e3 * t[50];
}

int main(int argc, char **argv)
{
    const size_t big = (size_t)1 << 30;
    void *src = nullptr, *dst = nullptr;
    CK(cudaMalloc(&src, big));
    CK(cudaMalloc(&dst, big));
    CK(cudaMemset(src, 0, big));
    const double bw = 2.0 * big / (1e-6 * median_us([&] {
                          CK(cudaMemcpyAsync(dst, src, big, cudaMemcpyDeviceToDevice));
                      }));
    printf("copy bandwidth (1 GiB buffers): %.0f GB/s\n", bw / 1e9);
    printf("empty kernel: %.2f us\n", median_us([] { empty_kernel<<<1, 32>>>(); }));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int i = 1; i < argc; ++i) {
        const size_t bytes = strtoull(argv[i], nullptr, 10);
        const size_t half = std::min(bytes / 2, big) / 16 * 16, n = half / 16;
        const double t_mem = median_us([&] {
            CK(cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice));
        });
        const double t_ker = median_us([&] {
            copy_kernel<<<sms * 8, 256>>>((const double2 *)src, (double2 *)dst, n);
        });
        const double t = std::min(t_mem, t_ker);
        printf("B = %zu bytes: cudaMemcpy %.2f us, copy kernel %.2f us, "
               "eta+ ceiling %.3f\n", 2 * half, t_mem, t_ker,
               (2.0 * half / (1e-6 * t)) / bw);
    }
    CK(cudaFree(src));
    CK(cudaFree(dst));
    return 0;
}
