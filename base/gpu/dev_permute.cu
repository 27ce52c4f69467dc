/* cmrs_dev_gather and cmrs_dev_scatter (dev_permute.h). */
#include "cuda_check.h"
#include "grid.cuh"
#include "dev_permute.h"

template <typename T>
__global__ void gather_kernel(int64_t n, const int32_t *__restrict__ map,
                              const T *__restrict__ src, T *__restrict__ dst)
{
    CMRS_GRID_LOOP(i, n) dst[i] = src[map[i]];
}

template <typename T>
__global__ void scatter_kernel(int64_t n, const int32_t *__restrict__ map,
                               const T *__restrict__ src, T *__restrict__ dst)
{
    CMRS_GRID_LOOP(i, n) dst[map[i]] = src[i];
}

/* One launch of either kernel for elements of `elem_bytes`. */
static cmrs_code permute(int gather, int64_t n, const int32_t *map_d,
                         const void *src_d, void *dst_d, int elem_bytes,
                         cudaStream_t stream)
{
    CMRS_ENSURE(elem_bytes == 4 || elem_bytes == 8, CMRS_E_INTERNAL,
                "a device permutation of %d-byte elements", elem_bytes);
    if (n <= 0) return CMRS_OK;
    const unsigned blocks = cmrs_grid::blocks(n, 256, 1 << 16);
    if (elem_bytes == 8 && gather)
        gather_kernel<<<blocks, 256, 0, stream>>>(
            n, map_d, (const uint64_t *)src_d, (uint64_t *)dst_d);
    else if (elem_bytes == 8)
        scatter_kernel<<<blocks, 256, 0, stream>>>(
            n, map_d, (const uint64_t *)src_d, (uint64_t *)dst_d);
    else if (gather)
        gather_kernel<<<blocks, 256, 0, stream>>>(
            n, map_d, (const uint32_t *)src_d, (uint32_t *)dst_d);
    else
        scatter_kernel<<<blocks, 256, 0, stream>>>(
            n, map_d, (const uint32_t *)src_d, (uint32_t *)dst_d);
    CMRS_LAUNCH_CHECK();
    return CMRS_OK;
}

cmrs_code cmrs_dev_gather(int64_t n, const int32_t *map_d, const void *src_d,
                          void *dst_d, int elem_bytes, cudaStream_t stream)
{
    return permute(1, n, map_d, src_d, dst_d, elem_bytes, stream);
}

cmrs_code cmrs_dev_scatter(int64_t n, const int32_t *map_d,
                           const void *src_d, void *dst_d, int elem_bytes,
                           cudaStream_t stream)
{
    return permute(0, n, map_d, src_d, dst_d, elem_bytes, stream);
}
