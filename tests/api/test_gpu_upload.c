/* Host-to-device uploads (base/gpu/upload.h) on the GPU (exits 77 without
 * one). The helper itself: every path (staged, registered, pageable) and
 * every kind (bytes, int64 -> int32, double -> float, permutation) at
 * sizes 0, 1, a chunk - 1, a chunk, a chunk + 1 and several chunks not a
 * multiple, into a poisoned destination with a guard band behind it: the
 * device bytes must be the host reference's, bit for bit, and the guard
 * untouched. Then the failures: a value outside the float range (the
 * same error on every path), the pinned allocation failing (pageable
 * fallback, same bytes), a chunk failing (a clean CMRS_E_GPU, nothing
 * leaked, the staging usable again). Last, whole solves through the API
 * with CMRS_UPLOAD=staged|registered|pageable and 4 KiB chunks (so
 * vessel_3k's arrays cross many chunks): same iterations and x bit for
 * bit, for formats that upload through each kind; the injected chunk
 * failure fails setup cleanly, the allocation failure does not; the GPU
 * setup profile. Parallel staging (CMRS_UPLOAD_THREADS): bit for bit the
 * single-thread and pageable images with partial, single and empty
 * shares; the float-range error's index as with one thread; an injected
 * failure in one worker clean; whole solves with 1 and 4 threads the
 * same. */
#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/device.h"
#include "io/system.h"
#include "base/gpu/cuda_check.h"
#include "spmv/device.h"
#include "base/gpu/upload.h"
#include "tapi_case.h"

#define CHUNK 4096
#define GUARD 256
#define POISON 0xAB

static const cmrs_upload_mode k_modes[] = {
    CMRS_UPLOAD_STAGED, CMRS_UPLOAD_REGISTERED, CMRS_UPLOAD_PAGEABLE};
static const cmrs_h2d_kind k_kinds[] = {CMRS_H2D_BYTES, CMRS_H2D_I64_I32,
                                        CMRS_H2D_F64_F32, CMRS_H2D_PERM};
static const char *const k_kind_names[] = {"bytes", "i64-i32", "f64-f32",
                                           "perm"};

static void sizes_of(cmrs_h2d_kind k, size_t *in, size_t *out)
{
    *in = k == CMRS_H2D_BYTES ? 1 : 8;
    *out = k == CMRS_H2D_BYTES ? 1 : 4;
}

static cmrs_upload_cfg cfg(cmrs_upload_mode m)
{
    cmrs_upload_cfg c = {m, CHUNK, 0, -1, 0, 1, 0, 0}; /* one thread */
    return c;
}

/* The staged path over `threads` workers from any size. */
static cmrs_upload_cfg par_cfg(int threads, size_t chunk)
{
    cmrs_upload_cfg c = cfg(CMRS_UPLOAD_STAGED);
    c.chunk_bytes = chunk;
    c.threads = threads;
    c.parallel_min_bytes = 0;
    return c;
}

/* n source elements of kind k (varied bits, in range) and their device
 * form as the reference computes it. */
static void make_source(cmrs_h2d_kind k, size_t n, void *src, void *ref)
{
    for (size_t i = 0; i < n; ++i) {
        switch (k) {
        case CMRS_H2D_BYTES:
            ((unsigned char *)src)[i] = (unsigned char)(i * 131 + 7);
            ((unsigned char *)ref)[i] = (unsigned char)(i * 131 + 7);
            break;
        case CMRS_H2D_I64_I32:
            ((int64_t *)src)[i] = (int64_t)(i * 2654435761u % 2000000000u);
            ((int32_t *)ref)[i] = (int32_t)((int64_t *)src)[i];
            break;
        case CMRS_H2D_F64_F32: {
            double v = sin((double)i) * pow(10.0, (double)(i % 60) - 30.0);
            if (i % 97 == 5) v = 1e-42; /* a float subnormal */
            ((double *)src)[i] = v;
            ((float *)ref)[i] = (float)v;
            break;
        }
        case CMRS_H2D_PERM:
            ((double *)src)[i] = (double)((i * 7919) % (n + 3));
            ((int32_t *)ref)[i] = (int32_t)(((double *)src)[i] - 1.0);
            break;
        }
    }
}

/* One upload of n elements on path m; the device bytes and the guard. */
static void one(cmrs_upload_mode m, cmrs_h2d_kind k, size_t n)
{
    size_t in, out;
    sizes_of(k, &in, &out);
    void *src = malloc(n * in + 1), *ref = malloc(n * out + 1);
    unsigned char *back = malloc(n * out + GUARD);
    void *d = NULL;
    make_source(k, n, src, ref);
    CHECK(cudaMalloc(&d, n * out + GUARD) == cudaSuccess &&
              cudaMemset(d, POISON, n * out + GUARD) == cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess, "poison");
    cmrs_upload_cfg c = cfg(m);
    cmrs_upload_mode used = (cmrs_upload_mode)-1;
    CHECK_OK(cmrs_h2d_with(&c, d, src, (int64_t)n, k, "test", &used));
    CHECK(cudaMemcpy(back, d, n * out + GUARD, cudaMemcpyDeviceToHost) ==
              cudaSuccess, "read back");
    CHECK(memcmp(back, ref, n * out) == 0, "%s %s n=%zu: device contents "
          "differ", cmrs_upload_mode_name(m), k_kind_names[k], n);
    int guard_ok = 1;
    for (size_t i = 0; i < GUARD; ++i) guard_ok &= back[n * out + i] == POISON;
    CHECK(guard_ok, "%s %s n=%zu: wrote past the end",
          cmrs_upload_mode_name(m), k_kind_names[k], n);
    /* The path taken: pageable stays pageable; staged stages; registered
     * registers plain bytes (or stages, where registration fails) and
     * stages narrowing. Nothing for n = 0. */
    if (n > 0) {
        int want = m == CMRS_UPLOAD_PAGEABLE ? used == CMRS_UPLOAD_PAGEABLE
                   : m == CMRS_UPLOAD_STAGED ? used == CMRS_UPLOAD_STAGED
                   : k == CMRS_H2D_BYTES ? used != CMRS_UPLOAD_PAGEABLE
                                         : used == CMRS_UPLOAD_STAGED;
        CHECK(want, "%s %s n=%zu: took the %s path", cmrs_upload_mode_name(m),
              k_kind_names[k], n, cmrs_upload_mode_name(used));
        if (m == CMRS_UPLOAD_REGISTERED && k == CMRS_H2D_BYTES &&
            used != CMRS_UPLOAD_REGISTERED)
            printf("note: registration failed for n=%zu (staged instead)\n",
                   n);
    }
    cudaFree(d);
    free(src);
    free(ref);
    free(back);
}

static void contents(void)
{
    for (int mi = 0; mi < 3; ++mi)
        for (int ki = 0; ki < 4; ++ki) {
            size_t in, out;
            sizes_of(k_kinds[ki], &in, &out);
            const size_t per = CHUNK / out; /* elements per chunk */
            const size_t ns[] = {0, 1, per - 1, per, per + 1, 5 * per + 3};
            for (size_t i = 0; i < sizeof ns / sizeof *ns; ++i)
                one(k_modes[mi], k_kinds[ki], ns[i]);
        }
}

/* A value outside the float range: the same error on every path, naming
 * the smallest bad index (in the third chunk). */
static void range_error(void)
{
    const size_t per = CHUNK / 4, n = 4 * per, bad = 2 * per + 5;
    double *src = malloc(n * sizeof *src);
    float *d = NULL;
    char want[64];
    for (size_t i = 0; i < n; ++i) src[i] = 1.0;
    src[bad] = 1e39;
    src[bad + 9] = NAN;
    snprintf(want, sizeof want, "index %zu is outside", bad);
    CHECK(cudaMalloc((void **)&d, n * sizeof *d) == cudaSuccess, "alloc");
    for (int mi = 0; mi < 3; ++mi) {
        cmrs_upload_cfg c = cfg(k_modes[mi]);
        CHECK_FAILS(cmrs_h2d_with(&c, d, src, (int64_t)n, CMRS_H2D_F64_F32,
                                  "vals", NULL), CMRS_E_INPUT, want);
    }
    /* ... and the staging is usable after it. */
    one(CMRS_UPLOAD_STAGED, CMRS_H2D_F64_F32, 3 * per + 1);
    cudaFree(d);
    free(src);
}

/* The pinned allocation fails: the pageable path, the same bytes. */
static void alloc_failure(void)
{
    const size_t n = 3 * CHUNK + 17;
    unsigned char *src = malloc(n), *back = malloc(n);
    void *d = NULL;
    make_source(CMRS_H2D_BYTES, n, src, back);
    CHECK(cudaMalloc(&d, n) == cudaSuccess &&
              cudaMemset(d, POISON, n) == cudaSuccess, "alloc");
    cmrs_upload_cfg c = cfg(CMRS_UPLOAD_STAGED);
    c.fail_alloc = 1;
    cmrs_upload_mode used = CMRS_UPLOAD_STAGED;
    CHECK_OK(cmrs_h2d_with(&c, d, src, (int64_t)n, CMRS_H2D_BYTES, "t",
                           &used));
    CHECK(used == CMRS_UPLOAD_PAGEABLE, "no pinned memory: took %s",
          cmrs_upload_mode_name(used));
    memset(back, 0, n);
    CHECK(cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost) == cudaSuccess &&
              memcmp(back, src, n) == 0, "fallback contents");
    CHECK(cudaGetLastError() == cudaSuccess, "a fallback leaves no error");
    cudaFree(d);
    free(src);
    free(back);
}

/* The 64 MiB source (every byte `fill`) and device buffer of the
 * injected-failure tests. */
typedef struct big_upload {
    size_t n;
    unsigned char *src;
    void *d;
} big_upload;

static big_upload big_upload_make(int fill)
{
    big_upload b = {(size_t)64 << 20, NULL, NULL};
    b.src = malloc(b.n);
    memset(b.src, fill, b.n);
    CHECK(cudaMalloc(&b.d, b.n) == cudaSuccess, "alloc");
    return b;
}

/* Through the environment (cmrs_dev_upload, the failure injected by the
 * variables already set): CMRS_E_GPU naming `want`, no pointer left and,
 * within 4 MiB, no device memory. */
static void expect_env_upload_fails(const big_upload *b, const char *want)
{
    void *p = (void *)1;
    size_t free0 = 0, free1 = 0, total = 0;
    CHECK(cudaDeviceSynchronize() == cudaSuccess &&
              cudaMemGetInfo(&free0, &total) == cudaSuccess, "mem info");
    CHECK_FAILS(cmrs_dev_upload(b->src, b->n, &p), CMRS_E_GPU, want);
    CHECK(p == NULL, "a failed upload leaves no pointer");
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess &&
              free1 + ((size_t)4 << 20) >= free0,
          "a failed upload leaked %zu device bytes", free0 - free1);
}

/* Chunk k fails: CMRS_E_GPU naming the injection; through
 * cmrs_dev_upload (env), nothing of its device allocation left. */
static void chunk_failure(void)
{
    big_upload b = big_upload_make(3);
    for (int64_t k = 0; k < 3; ++k) {
        cmrs_upload_cfg c = cfg(CMRS_UPLOAD_STAGED);
        c.chunk_bytes = (size_t)1 << 20;
        c.fail_chunk = k;
        CHECK_FAILS(cmrs_h2d_with(&c, b.d, b.src, (int64_t)b.n,
                                  CMRS_H2D_BYTES, "big", NULL),
                    CMRS_E_GPU, "injected");
    }
    cudaFree(b.d);
    one(CMRS_UPLOAD_STAGED, CMRS_H2D_BYTES, 2 * CHUNK + 1); /* usable */
    setenv("CMRS_UPLOAD_CHUNK_BYTES", "1048576", 1);
    setenv("CMRS_TEST_FAIL_UPLOAD_CHUNK", "5", 1);
    expect_env_upload_fails(&b, "injected");
    unsetenv("CMRS_TEST_FAIL_UPLOAD_CHUNK");
    unsetenv("CMRS_UPLOAD_CHUNK_BYTES");
    free(b.src);
}

/* ---- parallel staging ------------------------------------------------ */

/* n elements of kind k with `threads` workers and chunks of `chunk`
 * bytes, then with one thread, then pageable, each into its own poisoned
 * buffer: the three device images the reference's, bit for bit, guards
 * untouched. */
static void par_one(cmrs_h2d_kind k, size_t n, int threads, size_t chunk)
{
    size_t in, out;
    sizes_of(k, &in, &out);
    void *src = malloc(n * in + 1), *ref = malloc(n * out + 1);
    unsigned char *back[3];
    cmrs_upload_cfg cs[3] = {par_cfg(threads, chunk), par_cfg(1, chunk),
                             cfg(CMRS_UPLOAD_PAGEABLE)};
    make_source(k, n, src, ref);
    for (int i = 0; i < 3; ++i) {
        void *d = NULL;
        back[i] = malloc(n * out + GUARD);
        CHECK(cudaMalloc(&d, n * out + GUARD) == cudaSuccess &&
                  cudaMemset(d, POISON, n * out + GUARD) == cudaSuccess &&
                  cudaDeviceSynchronize() == cudaSuccess, "poison");
        cmrs_upload_mode used = (cmrs_upload_mode)-1;
        CHECK_OK(cmrs_h2d_with(&cs[i], d, src, (int64_t)n, k, "par", &used));
        CHECK(cudaMemcpy(back[i], d, n * out + GUARD,
                         cudaMemcpyDeviceToHost) == cudaSuccess, "read back");
        CHECK(n == 0 || used == cs[i].mode, "T=%d run %d took %s", threads,
              i, cmrs_upload_mode_name(used));
        int guard_ok = 1;
        for (size_t g = 0; g < GUARD; ++g)
            guard_ok &= back[i][n * out + g] == POISON;
        CHECK(guard_ok, "%s n=%zu T=%d chunk=%zu run %d: wrote past the end",
              k_kind_names[k], n, threads, chunk, i);
        cudaFree(d);
    }
    CHECK(memcmp(back[0], ref, n * out) == 0 &&
              memcmp(back[0], back[1], n * out) == 0 &&
              memcmp(back[0], back[2], n * out) == 0,
          "%s n=%zu T=%d chunk=%zu: the parallel upload differs from one "
          "thread / pageable", k_kind_names[k], n, threads, chunk);
    CHECK(cudaGetLastError() == cudaSuccess, "no error left behind");
    for (int i = 0; i < 3; ++i) free(back[i]);
    free(src);
    free(ref);
}

/* Every kind at T = 2, 4, 8: a partial last chunk in every worker's
 * share, more threads than chunks (fewer workers, or one), exactly one
 * chunk each, and -- with 256-byte chunks, whose shares round up to 256
 * device bytes -- empty shares (n = 2049 bytes over 8 workers: shares of
 * 512, the last three empty). */
static void par_contents(void)
{
    const int ts[] = {2, 4, 8};
    for (int ki = 0; ki < 4; ++ki)
        for (int ti = 0; ti < 3; ++ti) {
            size_t in, out;
            sizes_of(k_kinds[ki], &in, &out);
            const size_t T = (size_t)ts[ti], per = CHUNK / out;
            const size_t ns[] = {1,
                                 per / 2,             /* one chunk: T = 1 */
                                 per + per / 2,       /* 2 chunks < T */
                                 T * per,             /* one chunk each */
                                 T * per + 1,
                                 2 * T * per + T * per / 2 + 3, /* partial */
                                 7 * T * per + 11};
            for (size_t i = 0; i < sizeof ns / sizeof *ns; ++i)
                par_one(k_kinds[ki], ns[i], ts[ti], CHUNK);
            par_one(k_kinds[ki], 2049, ts[ti], 256);
            par_one(k_kinds[ki], 2049 * 4 / out, ts[ti], 64);
        }
}

/* A value outside the float range in the 3rd of 4 workers' shares (and
 * later ones in the 3rd and 4th): the same error as one thread, naming
 * the smallest bad index; the staging is usable after it. */
static void par_range_error(void)
{
    const size_t per = CHUNK / 4, n = 8 * per, share = n / 4;
    const size_t bad = 2 * share + per + 5;
    double *src = malloc(n * sizeof *src);
    float *d = NULL;
    char want[64], msg1[1024] = "", msg4[1024] = "";
    for (size_t i = 0; i < n; ++i) src[i] = 1.0;
    src[bad] = -1e39;
    src[bad + 9] = NAN;
    src[3 * share] = INFINITY; /* worker 3's first value */
    snprintf(want, sizeof want, "index %zu is outside", bad);
    CHECK(cudaMalloc((void **)&d, n * sizeof *d) == cudaSuccess, "alloc");
    for (int t = 1; t <= 4; t *= 4) {
        cmrs_upload_cfg c = par_cfg(t, CHUNK);
        CHECK_FAILS(cmrs_h2d_with(&c, d, src, (int64_t)n, CMRS_H2D_F64_F32,
                                  "vals", NULL), CMRS_E_INPUT, want);
        snprintf(t == 1 ? msg1 : msg4, sizeof msg1, "%s",
                 cmrs_error_message());
    }
    CHECK(strcmp(msg1, msg4) == 0, "T=1 '%s' but T=4 '%s'", msg1, msg4);
    CHECK(cudaGetLastError() == cudaSuccess, "no CUDA error left behind");
    par_one(CMRS_H2D_F64_F32, 3 * 4 * per + 7, 4, CHUNK);
    cudaFree(d);
    free(src);
}

/* An injected failure in one worker (the 3rd's 2nd chunk, the caller's
 * own first, the last's last): CMRS_E_GPU naming it, every stream
 * drained, nothing leaked, and the next upload right; through the
 * environment (cmrs_dev_upload), the device allocation freed. */
static void par_worker_failure(void)
{
    const int64_t fails[][2] = {{2, 1}, {0, 0}, {3, 15}};
    big_upload b = big_upload_make(5);
    for (int i = 0; i < 3; ++i) {
        cmrs_upload_cfg c = par_cfg(4, (size_t)1 << 20);
        c.fail_worker = (int)fails[i][0];
        c.fail_chunk = fails[i][1];
        CHECK_FAILS(cmrs_h2d_with(&c, b.d, b.src, (int64_t)b.n,
                                  CMRS_H2D_BYTES, "big", NULL),
                    CMRS_E_GPU, "injected");
        CHECK(cudaGetLastError() == cudaSuccess, "worker %d failed: a CUDA "
              "error left behind", (int)fails[i][0]);
        par_one(CMRS_H2D_BYTES, 4 * CHUNK + 3, 4, CHUNK); /* usable */
    }
    cudaFree(b.d);
    setenv("CMRS_UPLOAD_CHUNK_BYTES", "1048576", 1);
    setenv("CMRS_UPLOAD_THREADS", "4", 1);
    setenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES", "0", 1);
    setenv("CMRS_TEST_FAIL_UPLOAD_WORKER", "3", 1);
    setenv("CMRS_TEST_FAIL_UPLOAD_CHUNK", "2", 1);
    expect_env_upload_fails(&b, "worker 3");
    unsetenv("CMRS_TEST_FAIL_UPLOAD_CHUNK");
    unsetenv("CMRS_TEST_FAIL_UPLOAD_WORKER");
    /* A bad thread count: a usage error naming the variable. */
    cmrs_upload_cfg c;
    setenv("CMRS_UPLOAD_THREADS", "0", 1);
    CHECK_FAILS(cmrs_upload_cfg_env(&c), CMRS_E_USAGE,
                "CMRS_UPLOAD_THREADS=0");
    setenv("CMRS_UPLOAD_THREADS", "65", 1);
    CHECK_FAILS(cmrs_upload_cfg_env(&c), CMRS_E_USAGE,
                "CMRS_UPLOAD_THREADS=65");
    unsetenv("CMRS_UPLOAD_THREADS");
    CHECK_OK(cmrs_upload_cfg_env(&c));
    CHECK(c.threads == cmrs_upload_threads_default() && c.threads >= 1 &&
              c.threads <= 8,
          "default threads %d", c.threads);
    unsetenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES");
    unsetenv("CMRS_UPLOAD_CHUNK_BYTES");
    free(b.src);
}

/* ---- whole solves through the API ------------------------------------ */

static cmrs_context *g_gpu;
static cmrs_system g_sys;
static char g_file[1024];

typedef struct run {
    cmrs_status setup;
    int64_t iterations;
    double *x;
} run;

/* The file's matrix: read as cmrs compare does (A's arrays page-locked) or
 * made from g_sys's arrays (copied into malloc'd, pageable memory: the
 * arrays the upload paths' modes are about). */
static cmrs_matrix *matrix_of(int from_file)
{
    cmrs_matrix *M = NULL;
    if (from_file) {
        cmrs_read_opts ro = {.pinned_matrix = 1}; /* as cmrs compare's */
        API_OK(g_gpu, cmrs_matrix_read_with(g_gpu, g_file, &ro, &M));
        return M;
    }
    /* One index type for both arrays: the row offsets as int32. */
    int32_t *indptr = malloc(((size_t)g_sys.A.rows + 1) * sizeof *indptr);
    CHECK(indptr != NULL, "row offsets");
    for (int64_t i = 0; indptr && i <= g_sys.A.rows; ++i)
        indptr[i] = (int32_t)g_sys.A.indptr[i];
    if (indptr)
        API_OK(g_gpu, cmrs_matrix_create_csr(
                          g_gpu, g_sys.A.rows, g_sys.A.cols, g_sys.A.nnz,
                          indptr, g_sys.A.indices, CMRS_INDEX_INT32,
                          g_sys.A.values, CMRS_VALUE_FLOAT64, &M));
    free(indptr);
    return M;
}

/* Setup and one solve of the file's system with options (name, value
 * pairs), A from the file or from arrays; x malloc'd on success. */
static run solve_on(int from_file, const char *const *opts)
{
    run r = {CMRS_ERROR_INTERNAL, -1, NULL};
    cmrs_matrix *M = matrix_of(from_file);
    cmrs_solver *s = NULL;
    API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
    for (int i = 0; s && opts[i]; i += 2)
        API_OK(g_gpu, cmrs_solver_set_option(s, opts[i], opts[i + 1]));
    if (M && s) r.setup = cmrs_solver_setup(s, M);
    if (r.setup == CMRS_SUCCESS) {
        cmrs_solve_info info;
        r.x = calloc((size_t)g_sys.A.rows, sizeof *r.x);
        API_OK(g_gpu, cmrs_solver_solve(s, g_sys.b, r.x));
        API_OK(g_gpu, cmrs_solver_get_info(s, &info));
        r.iterations = info.iterations;
    }
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
    return r;
}

static run solve_with(const char *const *opts) { return solve_on(0, opts); }

/* The solves the upload settings are compared on: cmrs (CSR-order
 * build: bytes and values), sell (a permutation: perm kind), csr-vector
 * (int64 -> int32 offsets; single: doubles narrowed), each in double and
 * single. */
typedef struct upload_solve {
    const char *fmt, *prec, *rtol;
} upload_solve;

static const upload_solve k_upload_solves[] = {
    {"cmrs", "double", "1e-8"},       {"cmrs", "single", "1e-5"},
    {"sell", "double", "1e-8"},       {"sell", "single", "1e-5"},
    {"csr-vector", "double", "1e-8"}, {"csr-vector", "single", "1e-5"},
};
#define N_UPLOAD_SOLVES 6

/* solve_on with u's options. */
static run solve_upload_on(int from_file, const upload_solve *u)
{
    const char *opts[] = {"spmv", u->fmt,  "precision", u->prec,
                          "rtol", u->rtol, NULL};
    return solve_on(from_file, opts);
}

static run solve_upload(const upload_solve *u)
{
    return solve_upload_on(0, u);
}

/* Both solved, in the same iterations, to the same x bit for bit. */
static int same_solve(const run *a, const run *b)
{
    return a->x && b->x && a->iterations == b->iterations &&
           memcmp(a->x, b->x, (size_t)g_sys.A.rows * sizeof(double)) == 0;
}

static void solves(void)
{
    setenv("CMRS_UPLOAD_CHUNK_BYTES", "4096", 1);
    setenv("CMRS_UPLOAD_MIN_BYTES", "0", 1);
    for (int k = 0; k < N_UPLOAD_SOLVES; ++k) {
        const upload_solve *u = &k_upload_solves[k];
        run base = {CMRS_ERROR_INTERNAL, -1, NULL};
        for (int mi = 0; mi < 3; ++mi) {
            const char *mode = cmrs_upload_mode_name(k_modes[mi]);
            setenv("CMRS_UPLOAD", mode, 1);
            run r = solve_upload(u);
            CHECK(r.setup == CMRS_SUCCESS && r.iterations > 0,
                  "%s %s %s: setup %s", u->fmt, u->prec, mode,
                  cmrs_status_name(r.setup));
            if (mi == 0) {
                base = r;
                continue;
            }
            CHECK(same_solve(&r, &base), "%s %s: %s gives %lld iterations / a different x "
                  "(staged: %lld)", u->fmt, u->prec, mode,
                  (long long)r.iterations, (long long)base.iterations);
            free(r.x);
        }
        free(base.x);
    }
    /* A chunk failing in setup: a clean error; the next setup works. */
    const char *opts[] = {"spmv", "cmrs", NULL};
    setenv("CMRS_UPLOAD", "staged", 1);
    run ok = solve_with(opts);
    setenv("CMRS_TEST_FAIL_UPLOAD_CHUNK", "1", 1);
    run bad = solve_with(opts);
    CHECK(bad.setup == CMRS_ERROR_GPU && bad.x == NULL &&
              strstr(cmrs_last_error(g_gpu), "injected"),
          "injected chunk failure: setup %s '%s'",
          cmrs_status_name(bad.setup), cmrs_last_error(g_gpu));
    unsetenv("CMRS_TEST_FAIL_UPLOAD_CHUNK");
    /* No pinned memory: the pageable fallback, the same x. */
    setenv("CMRS_TEST_FAIL_UPLOAD_ALLOC", "1", 1);
    run fb = solve_with(opts);
    unsetenv("CMRS_TEST_FAIL_UPLOAD_ALLOC");
    run again = solve_with(opts);
    CHECK(same_solve(&fb, &ok) && same_solve(&again, &ok),
          "fallback / after a failure: a different solve");
    free(ok.x);
    free(fb.x);
    free(again.x);
    /* A bad CMRS_UPLOAD is a usage error naming the variable. */
    setenv("CMRS_UPLOAD", "fast", 1);
    run u = solve_with(opts);
    CHECK(u.setup == CMRS_ERROR_USAGE &&
              strstr(cmrs_last_error(g_gpu), "CMRS_UPLOAD=fast"),
          "bad CMRS_UPLOAD: %s '%s'", cmrs_status_name(u.setup),
          cmrs_last_error(g_gpu));
    unsetenv("CMRS_UPLOAD");
    unsetenv("CMRS_UPLOAD_CHUNK_BYTES");
    unsetenv("CMRS_UPLOAD_MIN_BYTES");
}

/* Whole solves with CMRS_UPLOAD_THREADS=1 and 4 (4 KiB chunks, parallel
 * from any size): the same iterations and x, bit for bit. */
static void solves_threads(void)
{
    setenv("CMRS_UPLOAD", "staged", 1);
    setenv("CMRS_UPLOAD_CHUNK_BYTES", "4096", 1);
    setenv("CMRS_UPLOAD_MIN_BYTES", "0", 1);
    setenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES", "0", 1);
    for (int k = 0; k < N_UPLOAD_SOLVES; ++k) {
        const upload_solve *u = &k_upload_solves[k];
        setenv("CMRS_UPLOAD_THREADS", "1", 1);
        run one_t = solve_upload(u);
        setenv("CMRS_UPLOAD_THREADS", "4", 1);
        run four = solve_upload(u);
        CHECK(one_t.setup == CMRS_SUCCESS && four.setup == CMRS_SUCCESS &&
                  same_solve(&one_t, &four),
              "%s %s: 4 upload threads give %lld iterations / a "
              "different x (1 thread: %lld)", u->fmt, u->prec,
              (long long)four.iterations, (long long)one_t.iterations);
        free(one_t.x);
        free(four.x);
    }
    unsetenv("CMRS_UPLOAD_THREADS");
    unsetenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES");
    unsetenv("CMRS_UPLOAD_MIN_BYTES");
    unsetenv("CMRS_UPLOAD_CHUNK_BYTES");
    unsetenv("CMRS_UPLOAD");
}

/* The host build a chunk of rows at a time (CMRS_CONVERT_CHUNK_ENTRIES,
 * spmv/cmrs/cmrs_convert.cu): from the page-locked file read and from
 * pageable arrays, in the rules' layout and in strips of one width,
 * through the plain copies of small uploads and the staged ones (one
 * thread and four), chunks of 7 and 1000 entries give the one-pass
 * build's solve, bit for bit (Jacobi: the diagonal found a
 * chunk at a time too). A failure at the third chunk, with the first two
 * chunks' kernels queued, is a clean error that leaves the device's free
 * memory as it found it, and the next setup gives the same solve. */
/* Setup and one solve in cmrs double, A from the file or from arrays,
 * strips of one width forced or left to the rules. */
static run solve_cmrs_on(int from_file, int one_width)
{
    const char *opts[] = {"spmv", "cmrs", "precision", "double", "rtol",
                          "1e-8", one_width ? "one-width" : NULL, "on", NULL};
    return solve_on(from_file, opts);
}

/* The staged uploads in 4 KiB chunks from any size, on one thread, then
 * on 4 (the parallel path), or the defaults (stage 0). */
static void upload_stage(int stage)
{
    if (stage == 0) {
        unsetenv("CMRS_UPLOAD_CHUNK_BYTES");
        unsetenv("CMRS_UPLOAD_MIN_BYTES");
        unsetenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES");
        unsetenv("CMRS_UPLOAD_THREADS");
        return;
    }
    setenv("CMRS_UPLOAD_CHUNK_BYTES", "4096", 1);
    setenv("CMRS_UPLOAD_MIN_BYTES", "0", 1);
    setenv("CMRS_UPLOAD_PARALLEL_MIN_BYTES", "0", 1);
    setenv("CMRS_UPLOAD_THREADS", stage == 1 ? "1" : "4", 1);
}

static void solves_pipelined(void)
{
    static const char *const chunks[] = {"7", "1000"};
    for (int k = 0; k < 8; ++k) { /* from the file or not, su, uploads */
        const int from_file = k % 2, one_width = k / 2 % 2, stage = k / 4;
        if (from_file && stage) continue; /* page-locked: the direct copy */
        unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
        upload_stage(0);
        run base = solve_cmrs_on(from_file, one_width);
        CHECK(base.setup == CMRS_SUCCESS && base.iterations > 0,
              "one-pass build: setup %s", cmrs_status_name(base.setup));
        for (int c = 0; c < 2; ++c) {
            setenv("CMRS_CONVERT_CHUNK_ENTRIES", chunks[c], 1);
            for (int st = stage; st <= (stage ? 2 : 0); ++st) {
                upload_stage(st);
                run r = solve_cmrs_on(from_file, one_width);
                CHECK(r.setup == CMRS_SUCCESS && same_solve(&r, &base),
                      "chunks of %s entries (%s, one width %s, uploads %d): "
                      "setup %s, %lld iterations / a different x (one "
                      "pass: %lld)", chunks[c],
                      from_file ? "page-locked" : "pageable",
                      one_width ? "on" : "by rule", st,
                      cmrs_status_name(r.setup), (long long)r.iterations,
                      (long long)base.iterations);
                free(r.x);
            }
        }
        upload_stage(0);
        free(base.x);
    }
    const upload_solve u = {"cmrs", "double", "1e-8"};
    setenv("CMRS_CONVERT_CHUNK_ENTRIES", "1000", 1);
    run ok = solve_upload_on(0, &u);
    size_t free0 = 0, free1 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess, "memory before");
    setenv("CMRS_TEST_FAIL_CONVERT_CHUNK", "2", 1);
    run bad = solve_upload_on(0, &u);
    unsetenv("CMRS_TEST_FAIL_CONVERT_CHUNK");
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess, "memory after");
    CHECK(bad.setup == CMRS_ERROR_GPU && bad.x == NULL &&
              strstr(cmrs_last_error(g_gpu), "injected failure at chunk 2"),
          "failure mid-pipeline: setup %s '%s'", cmrs_status_name(bad.setup),
          cmrs_last_error(g_gpu));
    CHECK(free1 == free0, "failure mid-pipeline: %zu bytes of GPU memory "
          "free after, %zu before", free1, free0);
    run again = solve_upload_on(0, &u);
    CHECK(same_solve(&again, &ok), "after a failure mid-pipeline: a "
          "different solve");
    free(ok.x);
    free(again.x);
    unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
}

static int is_page_locked(const void *p)
{
    struct cudaPointerAttributes a;
    return cudaPointerGetAttributes(&a, p) == cudaSuccess &&
           a.type == cudaMemoryTypeHost;
}

/* A file read with pinned_matrix on a GPU context lands in page-locked
 * memory (its upload takes the DMA path), a plain read does not: the same
 * arrays as a plain read, the same solves
 * bit for bit as from pageable arrays, freed without a runtime error.
 * cmrs_host_free tells the two kinds apart while page-locked blocks live. */
static void pinned_read(void)
{
    cmrs_matrix *M = matrix_of(1);
    const cmrs_csr *A = M ? &cmrs_matrix_system(M)->A : NULL;
    CHECK(A && is_page_locked(A->indptr) && is_page_locked(A->indices) &&
              is_page_locked(A->values),
          "a GPU context's read is not page-locked");
    CHECK(A && A->nnz == g_sys.A.nnz &&
              memcmp(A->indptr, g_sys.A.indptr,
                     (size_t)(A->rows + 1) * sizeof *A->indptr) == 0 &&
              memcmp(A->indices, g_sys.A.indices,
                     (size_t)A->nnz * sizeof *A->indices) == 0 &&
              memcmp(A->values, g_sys.A.values,
                     (size_t)A->nnz * sizeof *A->values) == 0,
          "the page-locked read differs from the plain one");
    cmrs_matrix *P = NULL; /* the plain read: malloc'd */
    API_OK(g_gpu, cmrs_matrix_read(g_gpu, g_file, NULL, &P));
    CHECK(P && !is_page_locked(cmrs_matrix_system(P)->A.values),
          "a plain read is page-locked");
    cmrs_matrix_destroy(P);
    void *plain = malloc(64);
    CHECK(plain && !is_page_locked(plain) && cmrs_gpu_host_free(plain) == 0,
          "a malloc'd block taken for a page-locked one");
    cmrs_host_free(plain);
    cmrs_matrix_destroy(M);
    for (int k = 0; k < N_UPLOAD_SOLVES; ++k) {
        const upload_solve *u = &k_upload_solves[k];
        run paged = solve_upload_on(0, u), locked = solve_upload_on(1, u);
        CHECK(same_solve(&paged, &locked),
              "%s %s: from the page-locked read %lld iterations / a "
              "different x (pageable: %lld)", u->fmt, u->prec,
              (long long)locked.iterations, (long long)paged.iterations);
        free(paged.x);
        free(locked.x);
    }
    CHECK(cudaGetLastError() == cudaSuccess, "a runtime error after the "
          "page-locked matrices were freed");
}

/* The setup profile on the GPU: phases non-negative and within the
 * total, the CSR's bytes uploaded (at least indices and values), the
 * pinned bandwidth measured. */
/* The setup profile of one build, in one pass or by chunks (the
 * profile's syncs held off inside the chunks: the phases stay exclusive
 * and sum to the total). */
static void profile_one(void)
{
    cmrs_matrix *M = NULL;
    cmrs_solver *s = NULL;
    cmrs_setup_profile p;
    memset(&p, 0, sizeof p);
    API_OK(g_gpu, cmrs_matrix_read(g_gpu, g_file, NULL, &M));
    API_OK(g_gpu, cmrs_solver_create(g_gpu, &s));
    API_OK(g_gpu, cmrs_solver_set_option(s, "profile", "on"));
    API_OK(g_gpu, cmrs_solver_setup(s, M));
    API_OK(g_gpu, cmrs_solver_setup_profile(s, &p));
    double sum = p.host_staging + p.transfer + p.conversion + p.precond +
                 p.other + p.libraries + p.allocation;
    CHECK(p.valid && p.host_staging >= 0 && p.transfer > 0 &&
              p.conversion >= 0 && p.precond >= 0 && p.other >= 0 &&
              p.libraries > 0 && p.allocation > 0 &&
              sum <= p.total + 1e-6 && sum >= 0.99 * p.total,
          "profile phases: %g %g %g %g %g %g %g of %g", p.host_staging,
          p.transfer, p.conversion, p.precond, p.other, p.libraries,
          p.allocation, p.total);
    CHECK(p.upload_threads == cmrs_upload_threads_default(),
          "upload threads %d", p.upload_threads);
    CHECK(p.transfer_bytes >= 12.0 * (double)g_sys.A.nnz,
          "uploaded %g bytes for %lld entries", p.transfer_bytes,
          (long long)g_sys.A.nnz);
    CHECK(p.h2d_pinned_gbs > 0 && p.transfer_floor > 0 &&
              strcmp(p.upload, "staged") == 0,
          "pinned %g GB/s, floor %g s, upload '%s'", p.h2d_pinned_gbs,
          p.transfer_floor, p.upload);
    printf("profile: total %.4f transfer %.4f (%.0f bytes) libraries %.4f "
           "allocation %.4f pinned %.1f GB/s\n", p.total, p.transfer,
           p.transfer_bytes, p.libraries, p.allocation, p.h2d_pinned_gbs);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(M);
}

static void profile(void)
{
    profile_one();
    setenv("CMRS_CONVERT_CHUNK_ENTRIES", "1000", 1);
    profile_one();
    unsetenv("CMRS_CONVERT_CHUNK_ENTRIES");
}

int main(void)
{
    CHECK_GPU_OR_SKIP();
    unsetenv("CMRS_UPLOAD");
    CHECK(cudaSetDevice(0) == cudaSuccess, "device 0");
    contents();
    range_error();
    alloc_failure();
    chunk_failure();
    par_contents();
    par_range_error();
    par_worker_failure();
    case_path("vessel_3k.h5", g_file, sizeof g_file);
    CHECK_OK(cmrs_system_read(g_file, NULL, &g_sys));
    API_OK(NULL, cmrs_context_create(0, &g_gpu));
    if (g_gpu && g_sys.A.rows) {
        solves();
        solves_threads();
        solves_pipelined();
        pinned_read();
        profile();
    }
    cmrs_context_destroy(g_gpu); /* frees this thread's staging */
    cmrs_system_free(&g_sys);
    cmrs_upload_release();
    return check_summary();
}
