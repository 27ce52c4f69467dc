/* The slab of small page-locked blocks (base/gpu/pinned_small.h) on the
 * GPU (exits 77 without one): a block is page-locked host memory that a
 * copy from the device fills, blocks live at once are distinct and do not
 * overlap, a freed block's slot is handed out again, a block larger than
 * a slot and one asked for with every slot taken come from cudaHostAlloc
 * (still page-locked, freed by the same call), and solvers set up and
 * destroyed through the library give back every slot they took. */
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/device.h"
#include "base/gpu/pinned_small.h"
#include "tapi_gpu.h"

#define MANY 80 /* more than the slab's slots */

/* A device word copied into block p (bytes long) arrives there. */
static void filled_by_copy(unsigned char *p, size_t bytes)
{
    unsigned char *d = NULL;
    CHECK(cudaMalloc((void **)&d, bytes) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemset(d, 0x5a, bytes) == cudaSuccess, "memset");
    memset(p, 0, bytes);
    CHECK(cudaMemcpyAsync(p, d, bytes, cudaMemcpyDeviceToHost, 0) ==
              cudaSuccess && cudaDeviceSynchronize() == cudaSuccess,
          "copy into the block");
    size_t bad = 0;
    for (size_t i = 0; i < bytes; ++i) bad += p[i] != 0x5a;
    CHECK(bad == 0, "%zu of %zu bytes not filled by the copy", bad, bytes);
    cudaFree(d);
}

static void blocks_distinct_and_reused(void)
{
    int live0 = cmrs_pinned_small_live();
    unsigned char *p[MANY] = {0};
    for (int i = 0; i < MANY; ++i) {
        size_t bytes = i % 3 == 0 ? CMRS_PINNED_SMALL_MAX : (size_t)(8 + i);
        CHECK(cmrs_pinned_small_alloc((void **)&p[i], bytes) ==
                  cudaSuccess && p[i], "block %d of %zu bytes", i, bytes);
        CHECK(cmrs_gpu_page_locked(p[i]), "block %d is not page-locked", i);
        memset(p[i], i & 0xff, bytes); /* overlaps would show below */
    }
    int live = cmrs_pinned_small_live();
    CHECK(live > live0 && live < MANY, "slots taken %d (before %d): the "
          "slab holds fewer than %d, the rest from cudaHostAlloc", live,
          live0, MANY);
    for (int i = 0; i < MANY; ++i)
        CHECK(p[i][0] == (unsigned char)(i & 0xff) &&
                  p[i][7] == (unsigned char)(i & 0xff),
              "block %d overwritten by another", i);
    filled_by_copy(p[1], 9);
    void *k = p[4];
    cmrs_pinned_small_free(k);
    void *again = NULL;
    CHECK(cmrs_pinned_small_alloc(&again, 16) == cudaSuccess &&
              again == k, "the freed slot %p was not handed out again "
              "(got %p)", k, again);
    p[4] = again;
    for (int i = 0; i < MANY; ++i) cmrs_pinned_small_free(p[i]);
    CHECK(cmrs_pinned_small_live() == live0, "slots taken after freeing "
          "all: %d, before %d", cmrs_pinned_small_live(), live0);
}

static void large_block_from_the_driver(void)
{
    int live0 = cmrs_pinned_small_live();
    unsigned char *p = NULL;
    size_t bytes = 3 * CMRS_PINNED_SMALL_MAX + 5;
    CHECK(cmrs_pinned_small_alloc((void **)&p, bytes) == cudaSuccess && p,
          "a block of %zu bytes", bytes);
    CHECK(cmrs_pinned_small_live() == live0, "a block larger than a slot "
          "took a slot");
    CHECK(cmrs_gpu_page_locked(p), "the large block is not page-locked");
    filled_by_copy(p, bytes);
    cmrs_pinned_small_free(p);
}

/* Solvers through the library (the committed vessel_3k on GPU 0) take
 * their blocks from the slab and give every one back. */
static void solvers_give_slots_back(void)
{
    static char file[1024];
    cmrs_system sys;
    cmrs_context *gpu = NULL;
    if (!tapi_gpu_start(file, sizeof file, &sys, &gpu)) return;
    int live0 = cmrs_pinned_small_live();
    cmrs_matrix *M = NULL;
    API_OK(gpu, cmrs_matrix_read(gpu, file, NULL, &M));
    for (int round = 0; round < 3; ++round) {
        cmrs_solver *s = NULL;
        API_OK(gpu, cmrs_solver_create(gpu, &s));
        API_OK(gpu, cmrs_solver_setup(s, M));
        CHECK(cmrs_pinned_small_live() > live0, "round %d: the back end "
              "took no slot", round);
        cmrs_solver_destroy(s);
        CHECK(cmrs_pinned_small_live() == live0, "round %d: %d slots "
              "left taken", round, cmrs_pinned_small_live() - live0);
    }
    cmrs_matrix_destroy(M);
    cmrs_system_free(&sys);
    cmrs_context_destroy(gpu);
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    blocks_distinct_and_reused();
    large_block_from_the_driver();
    solvers_give_slots_back();
    return check_summary();
}
