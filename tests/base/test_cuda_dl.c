/* The loader of cuBLAS and cuSPARSE (base/gpu/cuda_dl.h), without a
 * GPU: each library loads (this machine has the toolkit) and every
 * function its shim defines resolves, so a misspelt or vanished symbol
 * fails here; the sonames come from the headers' major versions; calls
 * through the shim reach the library (the status-string functions need no
 * GPU), from several threads at once; and with CMRS_CUDA_LIBDIR naming an
 * empty folder (only it is searched then) every shim function returns the
 * library's NOT_INITIALIZED status and the error path says which library
 * could not be loaded and dlerror's reason. Each of those runs in a child
 * process: a library's load is tried once per process. */
#include <cublas_v2.h>
#include <cusparse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/gpu/cuda_check.h"
#include "base/gpu/cuda_dl.h"

static int contains(const char *s, const char *part)
{
    return s && part && strstr(s, part) != NULL;
}

/* Runs fn in a child process; its check summary line is printed there,
 * its exit status (0: all passed) recorded here. */
static void in_child(const char *what, int (*fn)(const char *),
                     const char *arg)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        printf("[%s] ", what);
        int rc = fn(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
              WEXITSTATUS(st) == 0,
          "%s: child failed (status %d)", what, st);
}

/* CMRS_CUDA_LIBDIR = an empty folder: nothing loads, cleanly. */
static int child_missing(const char *dir)
{
    setenv("CMRS_CUDA_LIBDIR", dir, 1);
    for (int l = 0; l < CMRS_DL_COUNT; ++l) {
        char where[1200];
        snprintf(where, sizeof where, "%s/%s", dir, cmrs_dl_soname(l));
        CHECK(cmrs_dl_load(l) == 0, "%s loaded from an empty folder",
              cmrs_dl_label(l));
        const char *e = cmrs_dl_error(l);
        CHECK(contains(e, cmrs_dl_label(l)) &&
                  contains(e, cmrs_dl_soname(l)) && contains(e, where),
              "%s: error '%s' should name the library, its soname and "
              "the path tried (%s)", cmrs_dl_label(l), e ? e : "(null)",
              where);
        CHECK(cmrs_dl_path(l) == NULL, "%s: a path though not loaded",
              cmrs_dl_label(l));
        CHECK(cmrs_dl_count(l) > 0 && !cmrs_dl_resolved(l, 0),
              "%s: a function resolved though not loaded",
              cmrs_dl_label(l));
    }
    /* The shims' statuses and the error path the check macros take. */
    cublasHandle_t bh = NULL;
    cublasStatus_t bs = cublasCreate(&bh);
    CHECK(bs == CUBLAS_STATUS_NOT_INITIALIZED && bh == NULL,
          "cublasCreate without cuBLAS: status %d", (int)bs);
    CHECK(contains(cublasGetStatusString(bs), "cannot load cuBLAS"),
          "cublasGetStatusString without cuBLAS: '%s'",
          cublasGetStatusString(bs));
    CHECK_FAILS(cmrs_cublas_error(bs, "cublasCreate(&h)", __FILE__,
                                  __LINE__),
                CMRS_E_GPU, "cannot load cuBLAS (libcublas.so.");
    CHECK(contains(cmrs_error_message(), "needed by cublasCreate(&h)") &&
              contains(cmrs_error_message(), dir),
          "cuBLAS error message: '%s'", cmrs_error_message());
    CHECK(cublasDdot(NULL, 0, NULL, 1, NULL, 1, NULL) ==
              CUBLAS_STATUS_NOT_INITIALIZED,
          "cublasDdot without cuBLAS");

    cusparseHandle_t sh = NULL;
    cusparseStatus_t ss = cusparseCreate(&sh);
    CHECK(ss == CUSPARSE_STATUS_NOT_INITIALIZED && sh == NULL,
          "cusparseCreate without cuSPARSE: status %d", (int)ss);
    CHECK_FAILS(cmrs_cusparse_error(ss, "cusparseCreate(&h)", __FILE__,
                                    __LINE__),
                CMRS_E_GPU, "cannot load cuSPARSE (libcusparse.so.");
    CHECK(contains(cmrs_error_message(), dir), "cuSPARSE error message: "
          "'%s'", cmrs_error_message());
    CHECK(cusparseSpMV(NULL, CUSPARSE_OPERATION_NON_TRANSPOSE, NULL, NULL,
                       NULL, NULL, NULL, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                       NULL) == CUSPARSE_STATUS_NOT_INITIALIZED,
          "cusparseSpMV without cuSPARSE");
    return check_summary();
}

/* Several threads make the first calls at once: one load, same answers. */
enum { THREADS = 8 };
static const char *g_blas[THREADS], *g_sparse[THREADS];
static void *first_call(void *arg)
{
    int i = (int)(long)arg;
    g_blas[i] = cublasGetStatusString(CUBLAS_STATUS_ALLOC_FAILED);
    g_sparse[i] = cusparseGetErrorString(CUSPARSE_STATUS_ALLOC_FAILED);
    return NULL;
}

static int child_threads(const char *unused)
{
    (void)unused;
    unsetenv("CMRS_CUDA_LIBDIR");
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; ++i)
        CHECK(pthread_create(&t[i], NULL, first_call, (void *)(long)i) == 0,
              "pthread_create");
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; ++i) {
        CHECK(g_blas[i] && g_blas[i] == g_blas[0] &&
                  !contains(g_blas[i], "cannot load"),
              "thread %d: cublasGetStatusString '%s'", i,
              g_blas[i] ? g_blas[i] : "(null)");
        CHECK(g_sparse[i] && g_sparse[i] == g_sparse[0] &&
                  !contains(g_sparse[i], "cannot load"),
              "thread %d: cusparseGetErrorString '%s'", i,
              g_sparse[i] ? g_sparse[i] : "(null)");
    }
    printf("cuBLAS says '%s', cuSPARSE '%s'; ", g_blas[0], g_sparse[0]);
    return check_summary();
}

int main(void)
{
    char dir[] = "/tmp/cmrs_dl_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    in_child("empty CMRS_CUDA_LIBDIR", child_missing, dir);
    rmdir(dir);
    in_child("threads", child_threads, NULL);

    /* The sonames from the headers' major versions. */
    char want[64];
    snprintf(want, sizeof want, "libcublas.so.%d", CUBLAS_VER_MAJOR);
    CHECK(strcmp(cmrs_dl_soname(CMRS_DL_CUBLAS), want) == 0, "%s vs %s",
          cmrs_dl_soname(CMRS_DL_CUBLAS), want);
    snprintf(want, sizeof want, "libcusparse.so.%d", CUSPARSE_VER_MAJOR);
    CHECK(strcmp(cmrs_dl_soname(CMRS_DL_CUSPARSE), want) == 0, "%s vs %s",
          cmrs_dl_soname(CMRS_DL_CUSPARSE), want);

    /* Each library loads and every shim function resolves. */
    unsetenv("CMRS_CUDA_LIBDIR");
    for (int l = 0; l < CMRS_DL_COUNT; ++l) {
        int ok = cmrs_dl_load(l);
#ifdef CMRS_HAVE_NCCL
        /* NCCL comes with multi-GPU machines, not with every toolkit. */
        if (l == CMRS_DL_NCCL && !ok) {
            printf("NCCL: not installed here: %s\n", cmrs_dl_error(l));
            continue;
        }
#endif
        CHECK(ok, "%s", cmrs_dl_error(l));
        if (!ok) continue;
        CHECK(cmrs_dl_error(l) == NULL, "%s: an error though loaded",
              cmrs_dl_label(l));
        const char *path = cmrs_dl_path(l);
        size_t pl = path ? strlen(path) : 0, sl = strlen(cmrs_dl_soname(l));
        CHECK(path && pl >= sl &&
                  strcmp(path + pl - sl, cmrs_dl_soname(l)) == 0,
              "%s: path '%s'", cmrs_dl_label(l), path ? path : "(null)");
        int n = cmrs_dl_count(l), resolved = 0;
        for (int i = 0; i < n; ++i) {
            int r = cmrs_dl_resolved(l, i);
            resolved += r;
            CHECK(r, "%s: %s not resolved", cmrs_dl_label(l),
                  cmrs_dl_symbol(l, i));
        }
        CHECK(n > 0 && cmrs_dl_symbol(l, n) == NULL, "%s: %d functions",
              cmrs_dl_label(l), n);
        printf("%s: %s, %d/%d functions resolved\n", cmrs_dl_label(l),
               path ? path : "?", resolved, n);
    }
    /* The names are the _v2 symbols cublas_v2.h maps the calls to. */
    int v2 = 0;
    for (int i = 0; i < cmrs_dl_count(CMRS_DL_CUBLAS); ++i)
        v2 += strcmp(cmrs_dl_symbol(CMRS_DL_CUBLAS, i), "cublasDdot_v2") == 0;
    CHECK(v2 == 1, "cublasDdot_v2 in the cuBLAS shim: %d", v2);
    /* A call through the shim reaches the library. */
    CHECK(strcmp(cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE),
                 "CUSPARSE_STATUS_INVALID_VALUE") == 0,
          "cusparseGetErrorName: '%s'",
          cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE));
    CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE),
                 "CUBLAS_STATUS_INVALID_VALUE") == 0,
          "cublasGetStatusName: '%s'",
          cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE));
    return check_summary();
}
