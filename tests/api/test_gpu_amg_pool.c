/* The AMG setup's scratch pool (solver/amg/gpu/amg_pool_gpu.h) on the GPU
 * (exits 77 without one): without a hold a trim gives everything back;
 * under a hold trims wait (what a level freed is there for the next one),
 * nested holds count, and the last hold's end trims; a cudaMalloc that
 * finds the memory held by the pool trims it and succeeds; and a whole
 * AMG setup through the library (vessel_3k, several levels) holds the
 * pool while it forms the levels (its trims are deferred): none of it is
 * left reserved afterwards, and the next trim is not deferred. The
 * long-lived arrays' pool (base/gpu/dev_alloc.h): cmrs_dev_malloc is
 * cudaMalloc outside a scope and the pool's inside one (nested scopes
 * count), its memory ready for another stream on return, and
 * cmrs_dev_free of it waits for the work queued on it, as cudaFree does
 * for cudaMalloc's (cudaFree of pool memory does not); the AMG
 * setup made its levels' arrays in a scope. */
#include <cuda_runtime_api.h>

#include "base/gpu/dev_alloc.h"
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

/* bytes by cmrs_dev_malloc: set on g_st, read back, freed while a
 * second memset of them may still run (cmrs_dev_free must wait). */
static void dev_malloc_round(size_t bytes, int scoped)
{
    unsigned char *p = NULL, got[2] = {0, 0};
    (void)cmrs_dev_pool_allocations(); /* cleared */
    if (scoped) cmrs_dev_pool_scope(1);
    CHECK(cmrs_dev_malloc((void **)&p, bytes) == cudaSuccess && p,
          "cmrs_dev_malloc of %zu bytes (scope %d)", bytes, scoped);
    if (scoped) cmrs_dev_pool_scope(0);
    CHECK(cmrs_dev_pool_allocations() == (size_t)scoped, "scope %d: the "
          "pool's allocations do not match", scoped);
    if (!p) return;
    CHECK(cudaMemsetAsync(p, 0x5a, bytes, g_st) == cudaSuccess &&
              cudaMemcpyAsync(&got[0], p, 1, cudaMemcpyDeviceToHost, g_st) ==
                  cudaSuccess &&
              cudaMemcpyAsync(&got[1], p + bytes - 1, 1,
                              cudaMemcpyDeviceToHost, g_st) == cudaSuccess &&
              cudaStreamSynchronize(g_st) == cudaSuccess,
          "memset and read back on another stream");
    CHECK(got[0] == 0x5a && got[1] == 0x5a, "scope %d: read back %x %x",
          scoped, got[0], got[1]);
    CHECK(cudaMemsetAsync(p, 0, bytes, g_st) == cudaSuccess, "memset");
    CHECK(cmrs_dev_free(p) == cudaSuccess, "cmrs_dev_free (scope %d)",
          scoped);
    CHECK(cudaStreamQuery(g_st) == cudaSuccess, "scope %d: cmrs_dev_free "
          "returned before the work on its memory ended", scoped);
}

static void dev_malloc_scopes(void)
{
    dev_malloc_round(512 * MIB, 0);
    dev_malloc_round(512 * MIB, 1);
    dev_malloc_round(1, 1);
    cmrs_dev_pool_scope(1);
    cmrs_dev_pool_scope(1);
    cmrs_dev_pool_scope(0);
    void *p = NULL; /* still in the outer scope */
    CHECK(cmrs_dev_malloc(&p, MIB) == cudaSuccess, "nested scope");
    cmrs_dev_pool_scope(0);
    cmrs_dev_pool_scope(0); /* one end too many: no effect */
    CHECK(cmrs_dev_pool_allocations() == 1, "nested scopes do not count");
    cmrs_dev_free(p);
    CHECK(cmrs_dev_malloc(&p, MIB) == cudaSuccess &&
              cmrs_dev_pool_allocations() == 0, "an extra end left a scope");
    cmrs_dev_free(p);
    CHECK(cmrs_dev_malloc(&p, 0) == cudaSuccess && p == NULL,
          "0 bytes: NULL, as from cudaMalloc");
}

static void amg_setup_leaves_nothing(const char *file, cmrs_context *gpu)
{
    cmrs_matrix *M = tapi_read(gpu, file);
    cmrs_solver *s = NULL;
    API_OK(gpu, cmrs_solver_create(gpu, &s));
    API_OK(gpu, cmrs_solver_set_option(s, "precond", "amg"));
    API_OK(gpu, cmrs_solver_set_option(s, "amg-coarse", "100"));
    size_t deferred = amg_pool_deferred();
    (void)cmrs_dev_pool_allocations(); /* cleared */
    API_OK(gpu, cmrs_solver_setup(s, M));
    CHECK(cmrs_dev_pool_allocations() > 0, "the AMG setup made no level "
          "array from the pool");
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
    dev_malloc_scopes();
    amg_setup_leaves_nothing(file, gpu);
    cudaStreamDestroy(g_st);
    cmrs_system_free(&sys);
    cmrs_context_destroy(gpu);
    return check_summary();
}
