/* The loader of cuBLAS and cuSPARSE (and NCCL; cuda_dl.h says where it
 * looks and why). One pthread_once per library: the first call of any of
 * its shim's functions opens it and resolves all of them. */
#include "cuda_dl.h"

#include <cublas_api.h>      /* CUBLAS_VER_MAJOR */
#include <cusparse.h>        /* CUSPARSE_VER_MAJOR */
#ifdef CMRS_HAVE_NCCL
#include <nccl.h>            /* NCCL_MAJOR */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lib_state {
    const char *label, *soname;
    const cmrs_dl_table *table;
    pthread_once_t once;
    int ok;
    char path[1024];  /* what dlopen was given, when it succeeded */
    char error[2048]; /* why the load failed, when it did */
} lib_state;

static lib_state k_libs[CMRS_DL_COUNT] = {
    {"cuBLAS", "libcublas.so." CMRS_DL_STR(CUBLAS_VER_MAJOR),
     &cmrs_dl_cublas_table, PTHREAD_ONCE_INIT, 0, "", ""},
    {"cuSPARSE", "libcusparse.so." CMRS_DL_STR(CUSPARSE_VER_MAJOR),
     &cmrs_dl_cusparse_table, PTHREAD_ONCE_INIT, 0, "", ""},
#ifdef CMRS_HAVE_NCCL
    {"NCCL", "libnccl.so." CMRS_DL_STR(NCCL_MAJOR), &cmrs_dl_nccl_table,
     PTHREAD_ONCE_INIT, 0, "", ""},
#endif
};

/* Appends printf output to buf (size cap), truncating. */
static void append(char *buf, size_t cap, const char *fmt, const char *a,
                   const char *b)
{
    size_t len = strlen(buf);
    if (len + 1 < cap) snprintf(buf + len, cap - len, fmt, a, b);
}

/* dlopen of dir/soname (dir NULL: the bare soname); on failure appends
 * dlerror's text to tried. */
static void *open_in(lib_state *L, const char *dir, char *tried, size_t cap)
{
    if (dir)
        snprintf(L->path, sizeof L->path, "%s/%s", dir, L->soname);
    else
        snprintf(L->path, sizeof L->path, "%s", L->soname);
    void *h = dlopen(L->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        append(tried, cap, "%s%s", tried[0] ? "; " : "",
               e ? e : "dlopen failed");
    }
    return h;
}

static void open_lib(lib_state *L)
{
    char tried[sizeof L->error - 128] = "";
    const char *env = getenv("CMRS_CUDA_LIBDIR");
    void *h = NULL;
    if (env && env[0]) {
        h = open_in(L, env, tried, sizeof tried);
        if (!h) append(tried, sizeof tried, "%s%s",
                       " (only CMRS_CUDA_LIBDIR is searched when it is set)",
                       "");
    } else {
#ifdef CMRS_CUDA_LIBRARY_DIR
        h = open_in(L, CMRS_CUDA_LIBRARY_DIR, tried, sizeof tried);
#endif
        if (!h) h = open_in(L, NULL, tried, sizeof tried);
    }
    if (!h) {
        L->path[0] = '\0';
        snprintf(L->error, sizeof L->error, "cannot load %s (%s): %s",
                 L->label, L->soname, tried);
        return;
    }
    const cmrs_dl_table *t = L->table;
    for (int i = 0; t->names[i]; ++i) {
        dlerror();
        void *p = dlsym(h, t->names[i]);
        if (!p) {
            const char *e = dlerror();
            snprintf(L->error, sizeof L->error, "cannot load %s: %s has no "
                     "%s (%s)", L->label, L->path, t->names[i],
                     e ? e : "null address");
            for (int j = 0; j < i; ++j) t->fns[j] = NULL;
            L->path[0] = '\0';
            dlclose(h);
            return;
        }
        /* POSIX: a dlsym address converts to a function pointer. */
        memcpy(&t->fns[i], &p, sizeof p);
    }
    L->ok = 1;
}

static void open_cublas(void) { open_lib(&k_libs[CMRS_DL_CUBLAS]); }
static void open_cusparse(void) { open_lib(&k_libs[CMRS_DL_CUSPARSE]); }
#ifdef CMRS_HAVE_NCCL
static void open_nccl(void) { open_lib(&k_libs[CMRS_DL_NCCL]); }
#endif
static void (*const k_open[CMRS_DL_COUNT])(void) = {
    open_cublas, open_cusparse,
#ifdef CMRS_HAVE_NCCL
    open_nccl,
#endif
};

int cmrs_dl_load(cmrs_dl_lib lib)
{
    if ((unsigned)lib >= CMRS_DL_COUNT) return 0;
    pthread_once(&k_libs[lib].once, k_open[lib]);
    return k_libs[lib].ok;
}

const char *cmrs_dl_error(cmrs_dl_lib lib)
{
    if ((unsigned)lib >= CMRS_DL_COUNT) return "unknown CUDA library";
    return cmrs_dl_load(lib) ? NULL : k_libs[lib].error;
}

const char *cmrs_dl_label(cmrs_dl_lib lib)
{
    return (unsigned)lib < CMRS_DL_COUNT ? k_libs[lib].label : "?";
}

const char *cmrs_dl_soname(cmrs_dl_lib lib)
{
    return (unsigned)lib < CMRS_DL_COUNT ? k_libs[lib].soname : "?";
}

const char *cmrs_dl_path(cmrs_dl_lib lib)
{
    return cmrs_dl_load(lib) ? k_libs[lib].path : NULL;
}

int cmrs_dl_count(cmrs_dl_lib lib)
{
    if ((unsigned)lib >= CMRS_DL_COUNT) return 0;
    int n = 0;
    while (k_libs[lib].table->names[n]) ++n;
    return n;
}

const char *cmrs_dl_symbol(cmrs_dl_lib lib, int i)
{
    return i >= 0 && i < cmrs_dl_count(lib) ? k_libs[lib].table->names[i]
                                            : NULL;
}

int cmrs_dl_resolved(cmrs_dl_lib lib, int i)
{
    return cmrs_dl_symbol(lib, i) && cmrs_dl_load(lib) &&
           k_libs[lib].table->fns[i] != NULL;
}
