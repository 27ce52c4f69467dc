/* The AMG setup's scratch pool (solver/amg/gpu/amg_pool_gpu.h) on the GPU
 * (exits 77 without one): without a hold a trim gives everything back;
 * under a hold trims wait (what a level freed is there for the next one),
 * nested holds count, and the last hold's end trims; a cudaMalloc that
 * finds the memory held by the pool trims it and succeeds; and a whole
 * AMG setup through the library (vessel_3k, several levels) holds the
 * pool while it forms the levels (its trims are deferred): none of it is
 * left reserved afterwards, and the next trim is not deferred. */
#include <cuda_runtime_api.h>

#include "solver/amg/gpu/amg_pool_gpu.h"
#include "tapi_gpu.h"

#define MIB ((size_t)1 << 20)

static cudaStream_t g_st;

/* bytes from the pool and back to it. */
static void use_pool(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(amg_pool_alloc(&p, bytes, g_st));
    CHECK(p != NULL, "pool allocation of %zu bytes", bytes);
    amg_pool_free(p, g_st);
    CHECK(cudaStreamSynchronize(g_st) == cudaSuccess, "stream sync");
}

static void trim_without_hold(void)
{
    use_pool(64 * MIB);
    amg_pool_trim(g_st);
    CHECK(amg_pool_reserved() == 0, "no hold: the trim left %zu bytes",
          amg_pool_reserved());
}

static void hold_defers_trims(void)
{
    amg_pool_hold(1, g_st);
    use_pool(64 * MIB);
    amg_pool_trim(g_st);
    size_t kept = amg_pool_reserved();
    CHECK(kept >= 64 * MIB, "held: the trim gave back memory (%zu left)",
          kept);
    use_pool(32 * MIB); /* reuses what is held */
    CHECK(amg_pool_reserved() == kept, "held: a smaller block grew the "
          "pool from %zu to %zu bytes", kept, amg_pool_reserved());
    amg_pool_hold(1, g_st); /* nested */
    amg_pool_hold(0, g_st);
    CHECK(amg_pool_reserved() == kept, "the inner hold's end trimmed");
    amg_pool_hold(0, g_st);
    CHECK(amg_pool_reserved() == 0, "the last hold's end left %zu bytes",
          amg_pool_reserved());
    amg_pool_hold(0, g_st); /* one end too many: no effect */
    use_pool(MIB);
    amg_pool_trim(g_st);
    CHECK(amg_pool_reserved() == 0, "an extra end left a hold behind");
}

/* Two thirds of the free memory held by the pool, then a cudaMalloc of as
 * much: it only fits once the pool gives its share back. */
static void malloc_trims_a_held_pool(void)
{
    size_t free_b = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_b, &total) == cudaSuccess, "cudaMemGetInfo");
    size_t big = free_b / 3 * 2;
    amg_pool_hold(1, g_st);
    use_pool(big);
    CHECK(amg_pool_reserved() >= big, "the pool does not hold %zu bytes",
          big);
    void *p = NULL;
    CHECK_OK(amg_dev_malloc(&p, big));
    CHECK(p != NULL && amg_pool_reserved() == 0, "amg_dev_malloc of %zu "
          "bytes beside a held pool (%zu bytes left in it)", big,
          amg_pool_reserved());
    CHECK(cudaFree(p) == cudaSuccess, "cudaFree");
    amg_pool_hold(0, g_st);
}

static void amg_setup_leaves_nothing(const char *file, cmrs_context *gpu)
{
    cmrs_matrix *M = tapi_read(gpu, file);
    cmrs_solver *s = NULL;
    API_OK(gpu, cmrs_solver_create(gpu, &s));
    API_OK(gpu, cmrs_solver_set_option(s, "precond", "amg"));
    API_OK(gpu, cmrs_solver_set_option(s, "amg-coarse", "100"));
    size_t deferred = amg_pool_deferred();
    API_OK(gpu, cmrs_solver_setup(s, M));
    CHECK(amg_pool_deferred() > deferred, "the AMG setup deferred no trim: "
          "its levels were formed without the hold");
    CHECK(amg_pool_reserved() == 0, "after the AMG setup the pool holds "
          "%zu bytes", amg_pool_reserved());
    use_pool(MIB);
    amg_pool_trim(g_st);
    CHECK(amg_pool_reserved() == 0, "the AMG setup left a hold behind");
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    static char file[1024];
    cmrs_system sys;
    cmrs_context *gpu = NULL;
    if (!tapi_gpu_start(file, sizeof file, &sys, &gpu))
        return check_summary();
    CHECK(cudaStreamCreateWithFlags(&g_st, cudaStreamNonBlocking) ==
              cudaSuccess, "stream");
    trim_without_hold();
    hold_defers_trims();
    malloc_trims_a_held_pool();
    amg_setup_leaves_nothing(file, gpu);
    cudaStreamDestroy(g_st);
    cmrs_system_free(&sys);
    cmrs_context_destroy(gpu);
    return check_summary();
}
