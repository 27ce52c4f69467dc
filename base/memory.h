/* Host memory: how much a command may use, and the one check every path that
 * allocates by a size read from a file or given as an option makes BEFORE it
 * allocates (readers, generators). */
#ifndef CMRS_MEMORY_H
#define CMRS_MEMORY_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of host memory available, first of: the limit set with
 * cmrs_set_memory_limit (tests, fuzzing); the environment variable
 * CMRS_MEM_AVAILABLE_BYTES (a positive number; anything else is ignored);
 * MemAvailable of /proc/meminfo; the physical memory; 1e300 when unknown
 * (malloc decides). */
double cmrs_mem_available(void);

/* The environment variable `name` as a positive number of bytes, else 0
 * (unset, empty, not a number): the tests' stand-ins for what a machine has
 * (CMRS_MEM_AVAILABLE_BYTES, CMRS_GPU_MEM_AVAILABLE_BYTES). */
double cmrs_env_bytes(const char *name);

/* Overrides cmrs_mem_available (tests, fuzzing); 0 restores the default. */
void cmrs_set_memory_limit(double bytes);

/* Fails with CMRS_E_NOMEM and one line "NAME: WHAT needs about 16.0 GB of
 * host memory; 22.9 GB available" unless `bytes` (an estimate, as a double:
 * it cannot overflow) fits in cmrs_mem_available(). */
cmrs_code cmrs_check_memory(const char *name, const char *what, double bytes);

/* The two allocations of an object and its implementation, made together:
 * CMRS_OK when both a and b are non-NULL, else both freed and CMRS_E_NOMEM
 * "cannot allocate WHAT" (so the caller frees nothing on that path). */
cmrs_code cmrs_alloc_both(void *a, void *b, const char *what);

/* A byte count for messages: "16.0 GB", "512.0 MB", "12.0 kB", "100 bytes". */
void cmrs_format_bytes(double bytes, char *buf, size_t n);

/* release(p[i]) for each of p[0..n) (NULL entries allowed; release must
 * take NULL): CMRS_FREE_WITH. */
void cmrs_free_each(void (*release)(void *), void *const *p, size_t n);

#ifdef __cplusplus
}
#endif

/* release of each pointer argument, one statement for an object's arrays:
 * `CMRS_FREE_ALL(m->a, m->b)` (free), `CMRS_GPU_FREE_ALL(...)` (base/device.h,
 * cmrs_gpu_free). C: a compound literal of the pointers; C++: the same
 * array made by a template. */
#ifdef __cplusplus
/* extern "C++": a header may include this one inside extern "C". */
extern "C++" {
template <typename... T>
static inline void cmrs_free_with_cxx(void (*release)(void *), T *...p)
{
    void *a[] = {(void *)p...};
    cmrs_free_each(release, a, sizeof...(p));
}
}
#define CMRS_FREE_WITH(release, ...) cmrs_free_with_cxx(release, __VA_ARGS__)
#else
#define CMRS_FREE_WITH(release, ...)                                        \
    cmrs_free_each(release, (void *[]){__VA_ARGS__},                        \
                   sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
#endif
#define CMRS_FREE_ALL(...) CMRS_FREE_WITH(free, __VA_ARGS__)

#endif
