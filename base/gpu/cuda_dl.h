/* cuBLAS, cuSPARSE (and NCCL where built), loaded with dlopen
 * on first use.
 *
 * Neither libcmrs nor cmrs links these libraries (together about 270 MB of
 * load-time relocations, paid by `cmrs --version` when they were linked).
 * Instead cuda_dl_cublas.c and cuda_dl_cusparse.c
 * DEFINE the entry points the code calls (cublasDdot_v2, cusparseSpMV,
 * ...), with the real headers' prototypes, so callers stay unchanged. The
 * first call of any of a library's functions loads that library and
 * resolves every function its shim defines (once, under pthread_once);
 * if that fails, every function of the shim returns the library's
 * NOT_INITIALIZED status (the status-string functions: the reason), and
 * cmrs_dl_error() gives the reason for the error message (cuda_check.c).
 *
 * Where the library is looked for, soname libcublas.so.<CUBLAS_VER_MAJOR>
 * (likewise cuSPARSE: the headers' major versions):
 *   - $CMRS_CUDA_LIBDIR set and not empty: DIR/soname, nowhere else;
 *   - else the CUDA toolkit's library directory found at configure time
 *     (CMRS_CUDA_LIBRARY_DIR), then the bare soname (the loader's search:
 *     LD_LIBRARY_PATH, RUNPATH, ld.so.cache).
 * The shims' symbols are hidden (cmrs_objs is compiled with
 * -fvisibility=hidden): libcmrs.so does not export them. */
#ifndef CMRS_CUDA_DL_H
#define CMRS_CUDA_DL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cmrs_dl_lib {
    CMRS_DL_CUBLAS = 0,
    CMRS_DL_CUSPARSE,
#ifdef CMRS_HAVE_NCCL
    CMRS_DL_NCCL, /* only where CMake found nccl.h (several GPUs) */
#endif
    CMRS_DL_COUNT
} cmrs_dl_lib;

/* Loads the library and resolves every function of its shim, the first
 * time (thread-safe); 1 if that succeeded, else 0 (for good: not retried). */
int cmrs_dl_load(cmrs_dl_lib lib);
/* After a failed load: "cannot load cuBLAS (libcublas.so.13): <dlerror's
 * text for each place tried>". NULL if the library is loaded. Loads it
 * first if that was not tried yet. */
const char *cmrs_dl_error(cmrs_dl_lib lib);
/* "cuBLAS", "cuSPARSE", "NCCL". */
const char *cmrs_dl_label(cmrs_dl_lib lib);
/* "libcublas.so.13" etc. (from the headers' major version). */
const char *cmrs_dl_soname(cmrs_dl_lib lib);
/* What dlopen was given when it succeeded (absolute path or bare
 * soname); NULL if the load failed (tries it first if not tried yet). */
const char *cmrs_dl_path(cmrs_dl_lib lib);
/* The functions the shim defines (for the test): how many, the i-th
 * one's name, and whether it is resolved (cmrs_dl_resolved tries the load
 * first if not tried yet). */
int cmrs_dl_count(cmrs_dl_lib lib);
const char *cmrs_dl_symbol(cmrs_dl_lib lib, int i);
int cmrs_dl_resolved(cmrs_dl_lib lib, int i);

/* ---- For the shim files only. ---- */

typedef void (*cmrs_dl_fn)(void);
/* A shim's functions: their names (NULL-terminated) and one slot each
 * for the address cmrs_dl_load stores. */
typedef struct cmrs_dl_table {
    const char *const *names;
    cmrs_dl_fn *fns;
} cmrs_dl_table;
extern const cmrs_dl_table cmrs_dl_cublas_table, cmrs_dl_cusparse_table;
#ifdef CMRS_HAVE_NCCL
extern const cmrs_dl_table cmrs_dl_nccl_table;
#endif

/* A shim file lists its functions as
 *   X(return type, name, (parameters), (arguments), value if not loaded)
 * with the symbol names the calls resolve to (cublas_v2.h maps cublasDdot
 * to cublasDdot_v2: name the _v2 symbol), sets CMRS_DL_THIS (its
 * cmrs_dl_lib) and CMRS_DL_FNS (its slot array), and expands the list with
 * CMRS_DL_INDEX (an enum), CMRS_DL_NAME (the names' array) and
 * CMRS_DL_DEFINE (the functions). The name string is made after macro
 * expansion, so it is always the symbol defined. */
#define CMRS_DL_STR_(x) #x
#define CMRS_DL_STR(x) CMRS_DL_STR_(x)
#define CMRS_DL_INDEX(ret, name, params, args, fail) CMRS_DL_I_##name,
#define CMRS_DL_NAME(ret, name, params, args, fail) CMRS_DL_STR(name),
#define CMRS_DL_DEFINE(ret, name, params, args, fail)                       \
    ret name params                                                         \
    {                                                                       \
        if (!cmrs_dl_load(CMRS_DL_THIS)) return fail;                       \
        return ((ret(*) params)CMRS_DL_FNS[CMRS_DL_I_##name]) args;         \
    }

#ifdef __cplusplus
}
#endif

#endif
