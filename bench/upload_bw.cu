/* Host-to-device transfer paths (base/gpu/upload.h) at 1 MiB .. 1 GiB: a
 * pageable cudaMemcpy (the old path), a pinned cudaMemcpy (the floor),
 * the product's staged path at chunks of 2, 8 and 32 MiB on one thread
 * and with 8 MiB chunks over 1, 2, 4 and 8 workers (staged_8mib_tT,
 * parallel from any size, never more workers than chunks; "threads" in
 * the JSON), the registered
 * path (cudaHostRegister + copy + unregister, as the product does it), and
 * the registration's cost alone (register, unregister). Each the median
 * of `reps` runs (default 10) after 2 warm-ups, wall clock around the
 * call with the device synchronised (every path returns once its bytes
 * landed). Sources are pageable malloc'd buffers, touched before timing.
 *
 *   build/bench/upload_bw OUT.json [--reps R] [--max-mib M]
 *
 * A table on stdout, the JSON to OUT.json. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "base/gpu/cuda_check.h"
#include "base/gpu/upload.h"
#include "bench_main.h"
extern "C" {
#include "io/json.h"
#include "base/timer.h"
}

namespace {

constexpr int kWarmup = 2;

struct result {
    size_t bytes;
    char method[32];
    int threads; /* staging workers (1 for the other methods) */
    double median_s, min_s;
};

struct bufs {
    void *pageable = nullptr, *pinned = nullptr, *dev = nullptr;
    size_t bytes = 0;
};

typedef cmrs_code (*method_fn)(const bufs &b, void *arg);

cmrs_code m_pageable(const bufs &b, void *)
{
    CMRS_CUDA(cudaMemcpy(b.dev, b.pageable, b.bytes, cudaMemcpyHostToDevice));
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

cmrs_code m_pinned(const bufs &b, void *)
{
    CMRS_CUDA(cudaMemcpy(b.dev, b.pinned, b.bytes, cudaMemcpyHostToDevice));
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

/* The product's helper with a configuration (arg). */
cmrs_code m_product(const bufs &b, void *arg)
{
    const cmrs_upload_cfg *c = (const cmrs_upload_cfg *)arg;
    cmrs_upload_mode used = CMRS_UPLOAD_PAGEABLE;
    CMRS_CHECK(cmrs_h2d_with(c, b.dev, b.pageable, (int64_t)b.bytes,
                             CMRS_H2D_BYTES, "bench", &used));
    CMRS_ENSURE(used == c->mode, CMRS_E_INTERNAL, "asked for %s, took %s",
                cmrs_upload_mode_name(c->mode), cmrs_upload_mode_name(used));
    CMRS_CUDA(cudaDeviceSynchronize());
    return CMRS_OK;
}

/* Registration alone: arg NULL registers and unregisters, timing both. */
cmrs_code m_register(const bufs &b, void *)
{
    int dev = 0, ro = 0;
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaDeviceGetAttribute(
        &ro, cudaDevAttrHostRegisterReadOnlySupported, dev));
    CMRS_CUDA(cudaHostRegister(b.pageable, b.bytes,
                               ro ? cudaHostRegisterReadOnly
                                  : cudaHostRegisterDefault));
    CMRS_CUDA(cudaHostUnregister(b.pageable));
    return CMRS_OK;
}

cmrs_code time_method(const bufs &b, const char *name, method_fn f,
                      void *arg, int reps, std::vector<result> *out,
                      int threads = 1)
{
    std::vector<double> t;
    for (int r = 0; r < kWarmup + reps; ++r) {
        CMRS_CUDA(cudaDeviceSynchronize());
        double t0 = cmrs_wtime();
        CMRS_CHECK(f(b, arg));
        if (r >= kWarmup) t.push_back(cmrs_wtime() - t0);
    }
    std::sort(t.begin(), t.end());
    result res;
    res.bytes = b.bytes;
    snprintf(res.method, sizeof res.method, "%s", name);
    res.threads = threads;
    res.median_s = t[t.size() / 2];
    res.min_s = t[0];
    out->push_back(res);
    printf("%10.1f MiB  %-20s %10.3f ms  %7.2f GB/s\n",
           (double)b.bytes / (1 << 20), name, 1e3 * res.median_s,
           1e-9 * (double)b.bytes / res.median_s);
    fflush(stdout);
    return CMRS_OK;
}

cmrs_code one_size(size_t bytes, int reps, std::vector<result> *out)
{
    cmrs_code rc = CMRS_OK;
    bufs b;
    b.bytes = bytes;
    const size_t chunks[] = {(size_t)2 << 20, (size_t)8 << 20,
                             (size_t)32 << 20};
    const int threads[] = {1, 2, 4, 8};
    b.pageable = malloc(bytes);
    CMRS_ENSURE(b.pageable, CMRS_E_NOMEM, "cannot allocate %zu bytes", bytes);
    memset(b.pageable, 7, bytes);
    CMRS_CUDA_TRY(cudaHostAlloc(&b.pinned, bytes, cudaHostAllocDefault));
    memset(b.pinned, 7, bytes);
    CMRS_CUDA_TRY(cudaMalloc(&b.dev, bytes));
    CMRS_TRY(time_method(b, "pageable", m_pageable, nullptr, reps, out));
    CMRS_TRY(time_method(b, "pinned", m_pinned, nullptr, reps, out));
    for (size_t c : chunks) { /* one thread: the chunk size alone */
        cmrs_upload_cfg cfg = {CMRS_UPLOAD_STAGED, c, 0, -1, 0, 1, 0, 0};
        char name[32];
        snprintf(name, sizeof name, "staged_%zumib", c >> 20);
        CMRS_TRY(time_method(b, name, m_product, &cfg, reps, out));
    }
    for (int t : threads) { /* the default chunks over t workers, any size */
        cmrs_upload_cfg cfg = {CMRS_UPLOAD_STAGED, CMRS_UPLOAD_CHUNK_DEFAULT,
                               0, -1, 0, t, 0, 0};
        char name[32];
        snprintf(name, sizeof name, "staged_%zumib_t%d",
                 CMRS_UPLOAD_CHUNK_DEFAULT >> 20, t);
        CMRS_TRY(time_method(b, name, m_product, &cfg, reps, out, t));
    }
    {
        cmrs_upload_cfg cfg = {CMRS_UPLOAD_REGISTERED,
                               CMRS_UPLOAD_CHUNK_DEFAULT, 0, -1, 0, 1, 0, 0};
        CMRS_TRY(time_method(b, "registered", m_product, &cfg, reps, out));
    }
    CMRS_TRY(time_method(b, "register_only", m_register, nullptr, reps, out));
done:
    free(b.pageable);
    cudaFreeHost(b.pinned);
    cudaFree(b.dev);
    return rc;
}

cmrs_code write_json(const char *path, const std::vector<result> &res,
                     int reps)
{
    FILE *f = fopen(path, "w");
    CMRS_ENSURE(f, CMRS_E_IO, "cannot write %s", path);
    cudaDeviceProp prop;
    int dev = 0;
    CMRS_CUDA(cudaGetDevice(&dev));
    CMRS_CUDA(cudaGetDeviceProperties(&prop, dev));
    cmrs_json j;
    cmrs_json_init(&j, f);
    cmrs_json_object_begin(&j, NULL);
    cmrs_json_str(&j, "device", prop.name);
    cmrs_json_int(&j, "reps", reps);
    cmrs_json_int(&j, "warmup", kWarmup);
    cmrs_json_str(&j, "timing", "wall clock, device synchronised, median");
    cmrs_json_array_begin(&j, "results");
    for (const result &r : res) {
        cmrs_json_object_begin(&j, NULL);
        cmrs_json_int(&j, "bytes", (int64_t)r.bytes);
        cmrs_json_str(&j, "method", r.method);
        cmrs_json_int(&j, "threads", r.threads);
        cmrs_json_num(&j, "median_s", r.median_s);
        cmrs_json_num(&j, "min_s", r.min_s);
        cmrs_json_num(&j, "gbs", 1e-9 * (double)r.bytes / r.median_s);
        cmrs_json_object_end(&j);
    }
    cmrs_json_array_end(&j);
    cmrs_json_object_end(&j);
    fputc('\n', f);
    CMRS_ENSURE(fclose(f) == 0, CMRS_E_IO, "cannot write %s", path);
    return CMRS_OK;
}

cmrs_code run(int argc, char **argv)
{
    const char *out = nullptr;
    int reps = 10;
    long max_mib = 1024;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-mib") == 0 && i + 1 < argc)
            max_mib = atol(argv[++i]);
        else if (!out && argv[i][0] != '-')
            out = argv[i];
        else
            CMRS_FAIL(CMRS_E_USAGE, "usage: upload_bw OUT.json [--reps R] "
                      "[--max-mib M]");
    }
    CMRS_ENSURE(out && reps >= 1, CMRS_E_USAGE, "usage: upload_bw OUT.json "
                "[--reps R] [--max-mib M]");
    CMRS_CUDA(cudaFree(nullptr)); /* context creation, untimed */
    std::vector<result> res;
    const long sizes[] = {1, 16, 64, 256, 1024};
    printf("%14s  %-20s %13s  %12s\n", "size", "method", "median", "bandwidth");
    for (long mib : sizes)
        if (mib <= max_mib)
            CMRS_CHECK(one_size((size_t)mib << 20, reps, &res));
    CMRS_CHECK(write_json(out, res, reps));
    cmrs_upload_release();
    return CMRS_OK;
}

} // namespace

int main(int argc, char **argv)
{
    return bench_main("upload_bw", run, argc, argv);
}
