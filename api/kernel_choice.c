/* --kernel-choice measure (kernel_choice.h): candidates built and timed as
 * the solver runs them, the winner kept, remembered by signature. */
#include "kernel_choice.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/memory.h"
#include "base/timer.h"
#include "cmrs.h"
#include "solver/solver.h"


/* A candidate: the registry format and, for "cmrs", the one-width
 * setting (0: the rules'). */
typedef struct candidate {
    const char *format;
    int slice;
} candidate;

/* ---- Signature cache --------------------------------------------------- */

#define CHOICE_CACHE 16

static struct {
    uint64_t sig;
    candidate c;
} g_cache[CHOICE_CACHE];
static int g_cached, g_next;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ULL;
    return h;
}

/* Rows whose lengths spread at least this much (standard deviation over
 * mean) are "irregular": the candidates differ (challenger). */
#define CHOICE_IRREGULAR 0.15

/* What decides the kernel's speed: shape, row lengths (a log2
 * histogram), how far the columns lie from the diagonal (log2 of the
 * mean distance over up to 4096 sampled rows), how the solve runs, and
 * the layout settings the caller fixed (a choice made without them must
 * not override them); *irregular: the row lengths' spread is
 * CHOICE_IRREGULAR or more. */
static uint64_t signature(const cmrs_csr *A, cmrs_prec prec,
                          const cmrs_spmv_opts *so, const cmrs_ksp_opts *k,
                          int *irregular)
{
    uint64_t h = 1469598103934665603ULL;
    int64_t hist[64] = {0}, step = A->rows / 4096 + 1, seen = 0;
    double dist = 0, sum2 = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t len = A->indptr[i + 1] - A->indptr[i], bin = 0;
        while (len >> bin) ++bin;
        ++hist[bin];
        sum2 += (double)len * (double)len;
    }
    /* the sampled rows in a loop of their own: a division per row took
     * 40 ms of the 5M vessel's setup */
    for (int64_t i = 0; i < A->rows; i += step)
        for (int64_t p = A->indptr[i]; p < A->indptr[i + 1]; ++p, ++seen)
            dist += fabs((double)A->indices[p] - (double)i);
    const double mean = A->rows ? (double)A->nnz / (double)A->rows : 0;
    const double var = A->rows ? sum2 / (double)A->rows - mean * mean : 0;
    *irregular = var > 0 && sqrt(var) >= CHOICE_IRREGULAR * mean;
    int64_t vals[] = {A->rows, A->nnz, (int64_t)prec, (int64_t)k->method,
                      (int64_t)k->pc, (int64_t)k->engine,
                      (int64_t)log2(1.0 + (seen ? dist / (double)seen : 0)),
                      so->height, so->block_size, so->slice, so->reorder,
                      so->sorted, so->modulo, so->values32};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; ++i)
        h = mix(h, (uint64_t)vals[i]);
    for (int b = 0; b < 64; ++b) h = mix(h, (uint64_t)hist[b]);
    return h;
}

static int cache_find(uint64_t sig, candidate *c)
{
    int found = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_cached && !found; ++i)
        if (g_cache[i].sig == sig) {
            *c = g_cache[i].c;
            found = 1;
        }
    pthread_mutex_unlock(&g_lock);
    return found;
}

static void cache_put(uint64_t sig, candidate c)
{
    pthread_mutex_lock(&g_lock);
    g_cache[g_next].sig = sig;
    g_cache[g_next].c = c;
    g_next = (g_next + 1) % CHOICE_CACHE;
    if (g_cached < CHOICE_CACHE) ++g_cached;
    pthread_mutex_unlock(&g_lock);
}

void cmrs_choice_cache_clear(void)
{
    pthread_mutex_lock(&g_lock);
    g_cached = g_next = 0;
    pthread_mutex_unlock(&g_lock);
}

/* ---- The file across processes ------------------------------------------ */

#define CHOICE_LINE "cmrs-choice %s %016llx %s %d %s\n"

/* The registry name of a format read back, or NULL for any other. */
static const char *known_format(const char *name)
{
    return strcmp(name, "cmrs") == 0       ? "cmrs"
           : strcmp(name, "cmrs-mod") == 0 ? "cmrs-mod"
                                           : NULL;
}

int cmrs_choice_file_find(const char *path, uint64_t sig, const char *device,
                          char format[16], int *slice)
{
    FILE *f = fopen(path, "r");
    char line[512], ver[64], fmt[16];
    unsigned long long s = 0;
    int found = 0, sl = 0, at = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "cmrs-choice %63s %llx %15s %d %n", ver, &s, fmt,
                   &sl, &at) != 4 || at <= 0)
            continue; /* malformed */
        if (s != sig || strcmp(ver, cmrs_version()) != 0 ||
            strcmp(line + at, device) != 0 || !known_format(fmt) ||
            sl < -1 || sl > 1)
            continue;
        snprintf(format, 16, "%s", fmt);
        *slice = sl;
        found = 1; /* the last line of the key wins: read on */
    }
    fclose(f);
    return found;
}

int cmrs_choice_file_put(const char *path, uint64_t sig, const char *device,
                         const char *format, int slice)
{
    char line[512];
    int n = snprintf(line, sizeof line, CHOICE_LINE, cmrs_version(),
                     (unsigned long long)sig, format, slice, device);
    FILE *f = n > 0 && n < (int)sizeof line ? fopen(path, "a") : NULL;
    if (!f) return 0;
    /* one write of the whole line: appends of several processes do not
     * interleave (O_APPEND, a line far below PIPE_BUF) */
    setvbuf(f, NULL, _IONBF, 0);
    int ok = fwrite(line, 1, (size_t)n, f) == (size_t)n;
    return fclose(f) == 0 && ok;
}

/* The choice of an earlier process, from CMRS_KERNEL_CHOICE_CACHE. */
static int file_find(uint64_t sig, candidate *c)
{
    const char *path = getenv("CMRS_KERNEL_CHOICE_CACHE");
    char fmt[16];
    int slice = 0;
    if (!path || !*path ||
        !cmrs_choice_file_find(path, sig, cmrs_gpu_name(), fmt, &slice))
        return 0;
    *c = (candidate){known_format(fmt), slice};
    return 1;
}

static void file_put(uint64_t sig, candidate c)
{
    const char *path = getenv("CMRS_KERNEL_CHOICE_CACHE");
    if (path && *path)
        (void)cmrs_choice_file_put(path, sig, cmrs_gpu_name(), c.format,
                                   c.slice);
}

/* ---- Candidates -------------------------------------------------------- */

static void name_of(candidate c, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", c.format,
             c.slice > 0 ? " one-width on" : c.slice < 0 ? " one-width off"
                                                         : "");
}

/* Candidate c's layout options: the caller's with c's one-width setting
 * for "cmrs"; cmrs-mod's own defaults. */
static cmrs_spmv_opts options_of(candidate c, const cmrs_spmv_opts *opts)
{
    cmrs_spmv_opts o = {0};
    if (strcmp(c.format, "cmrs") == 0) {
        o = *opts;
        if (c.slice) o.slice = c.slice;
    }
    return o;
}

static cmrs_code build(const cmrs_csr *A, cmrs_prec prec,
                       const cmrs_spmv_opts *opts, candidate c,
                       cmrs_backend **be)
{
    const cmrs_spmv_opts o = options_of(c, opts);
    CMRS_CHECK(cmrs_backend_gpu_create(A, c.format, prec, &o, be));
    return CMRS_OK;
}

/* The challenger of the rules' layout (built as be0), screened by the row
 * lengths' spread so that a search times one: on irregular rows cmrs-mod
 * (2-16% faster per iteration on the FEM cases, where the one-width toggle
 * never won), unless the caller fixed a layout setting (cmrs-mod is made
 * with its own defaults); on regular ones the one-width setting the rules
 * did not take, unless the caller fixed it or sorted strips, or the layout
 * is reordered (these do not combine with it; cmrs-mod lost 27-47%
 * there). H100, docs/BENCHMARKS.md "Measured kernel choice". 0: none. */
static int challenger(const cmrs_spmv_opts *opts, const cmrs_backend *be0,
                      int irregular, candidate *c)
{
    const int fixed = opts->height || opts->block_size || opts->slice ||
                      opts->reorder || opts->sorted;
    if (irregular && !fixed) {
        *c = (candidate){"cmrs-mod", 0};
        return 1;
    }
    if (!irregular && opts->slice == 0 && opts->sorted <= 0 &&
        !be0->reordered) {
        *c = (candidate){"cmrs", be0->one_width ? -1 : 1};
        return 1;
    }
    return 0;
}

/* ---- Timing ------------------------------------------------------------ */

/* Each candidate's solver runs blocks of CHOICE_BLOCK iterations (one
 * CUDA graph each, so no iterations past the stop are launched): a
 * warm-up of one block (it captures the graph), then one timed solve of
 * CHOICE_TIMED blocks. The solve, not the product alone: timed alone,
 * cmrs-mod's product ranked wrongly on three FEM cases of four (H100:
 * 4-15% slower alone, 3-9% faster per iteration). Before (blocks of 32,
 * a 20-iteration warm-up and the faster of two 20-iteration solves)
 * each candidate launched 96 iterations for 20 timed. */
#define CHOICE_BLOCK 10
#define CHOICE_TIMED 2
/* Products timed where the SpMV alone is (amg, chebyshev). */
#define CHOICE_REPS 10
/* A challenger replaces the best only when this much faster: closer than
 * that is noise, and the rules' layout is the one the rest was tuned on. */
#define CHOICE_MARGIN 0.99

/* What every candidate is timed with: the solve's options and whether
 * the SpMV alone is timed. */
typedef struct timing {
    const cmrs_ksp_opts *k;
    int spmv_only;
} timing;

/* Seconds per iteration of the timed solve of the kind tm->k describes on
 * be, its b the back end's start vector (the power iteration's, made on
 * the device: no host array, conversion or upload, 10-25 ms of a 5M-row
 * search in single before) and rtol 0 (every iteration runs; no true
 * residual, x left on the device); SpMV alone: the median product of
 * x = 0 (a product's time does not depend on x). */
static cmrs_code time_on(cmrs_backend *be, const cmrs_csr *A,
                         const timing *tm, double *t)
{
    cmrs_code rc = CMRS_OK;
    cmrs_ksp *s = NULL;
    cmrs_vec *b = NULL;
    cmrs_ksp_result r;
    *t = NAN;
    if (tm->spmv_only) {
        CMRS_TRY(cmrs_backend_time_spmv_of(be, NULL, CHOICE_REPS, t));
        goto done;
    }
    cmrs_ksp_opts o = *tm->k;
    o.maxiter = CHOICE_TIMED * CHOICE_BLOCK;
    o.check_every = CHOICE_BLOCK;
    o.rtol = o.atol = 0.0;
    o.monitor = NULL;
    o.mixed = CMRS_MIXED_OFF;
    CMRS_TRY(cmrs_ksp_create(be, A, &o, "kernel choice", &s));
    cmrs_ksp_set_timing_only(s);
    CMRS_TRY(be->ops->vec_create(be, &b));
    CMRS_TRY(be->ops->arr_start(be, be->n, b->data));
    CMRS_TRY(cmrs_ksp_set_rhs_vec(s, b, NULL));
    cmrs_ksp_set_maxiter(s, CHOICE_BLOCK); /* the warm-up */
    CMRS_TRY(cmrs_ksp_solve(s, &r));
    cmrs_ksp_set_maxiter(s, o.maxiter);
    CMRS_TRY(cmrs_ksp_solve(s, &r));
    if (r.iterations > 0) *t = r.t_solve / (double)r.iterations;
done:
    be->ops->vec_destroy(be, b);
    cmrs_ksp_destroy(s);
    return rc;
}

/* ---- The choice -------------------------------------------------------- */

/* Candidate c made from *best's device copy of A, timed; on success the
 * variant and its time, else (a layout this matrix cannot take, memory)
 * NULL with the error state cleared: the search goes on without it. */
static cmrs_backend *try_candidate(const cmrs_csr *A,
                                   const cmrs_spmv_opts *opts,
                                   const timing *tm, cmrs_backend *best,
                                   candidate c, double *t, double *build_s)
{
    cmrs_backend *v = NULL;
    const cmrs_spmv_opts o = options_of(c, opts);
    const double t0 = cmrs_wtime();
    cmrs_code rc = cmrs_backend_gpu_variant(best, A, c.format, &o, &v);
    *build_s = cmrs_wtime() - t0;
    if (rc == CMRS_OK) rc = time_on(v, A, tm, t);
    if (rc == CMRS_OK && !isnan(*t)) return v;
    cmrs_backend_destroy(v);
    cmrs_error_clear();
    return NULL;
}

/* Candidate c's time per iteration t, and the seconds its variant took
 * to make and to time (from t0, when its making began). */
static void record(cmrs_choice_result *res, candidate c, double t,
                   double build_s, double t0)
{
    int i = res->tried++;
    name_of(c, res->name[i], sizeof res->name[i]);
    res->t_iter[i] = t;
    res->build_s[i] = build_s;
    res->timing_s[i] = cmrs_wtime() - t0 - build_s;
}

/* The search, after the rules' candidate (*best, built by the caller):
 * the challenger c made from the best's device copy of A on its stream,
 * if time is left before `deadline`, and timed; *best the faster's back
 * end, *won its candidate. */
static cmrs_code search(const cmrs_csr *A, const cmrs_spmv_opts *opts,
                        const timing *tm, candidate c, double deadline,
                        cmrs_choice_result *res, candidate *won,
                        cmrs_backend **best)
{
    double t_best = NAN, t = NAN, build_s = 0, t0 = cmrs_wtime();
    CMRS_CHECK(time_on(*best, A, tm, &t_best));
    record(res, *won, t_best, 0.0, t0);
    if (cmrs_wtime() > deadline) return CMRS_OK;
    t0 = cmrs_wtime();
    cmrs_backend *v = try_candidate(A, opts, tm, *best, c, &t, &build_s);
    if (!v) return CMRS_OK;
    record(res, c, t, build_s, t0);
    if (!(t < CHOICE_MARGIN * t_best)) {
        cmrs_backend_destroy(v);
        return CMRS_OK;
    }
    cmrs_backend_gpu_adopt(v, *best); /* its stream: now v's */
    cmrs_backend_destroy(*best);
    *best = v;
    *won = c;
    res->chosen = res->tried - 1;
    return CMRS_OK;
}

/* search(), when the rules' back end has a challenger: else nothing is
 * timed (res->tried 0). */
static cmrs_code search_if_any(const cmrs_csr *A, const cmrs_spmv_opts *opts,
                               const cmrs_ksp_opts *ksp, double deadline,
                               cmrs_choice_result *res, candidate *won,
                               cmrs_backend **best)
{
    candidate c;
    if (!challenger(opts, *best, res->irregular, &c)) {
        name_of(*won, res->name[0], sizeof res->name[0]);
        return CMRS_OK;
    }
    const timing tm = {ksp, res->spmv_only};
    CMRS_CHECK(search(A, opts, &tm, c, deadline, res, won, best));
    return CMRS_OK;
}

cmrs_code cmrs_choose_backend(const cmrs_csr *A, cmrs_prec prec,
                              const cmrs_spmv_opts *opts,
                              const cmrs_ksp_opts *ksp, double budget_s,
                              cmrs_backend **be, cmrs_choice_result *res)
{
    int irregular = 0;
    uint64_t sig = signature(A, prec, opts, ksp, &irregular);
    candidate won = {"cmrs", 0};
    memset(res, 0, sizeof *res);
    res->irregular = irregular;
    for (int i = 0; i < CMRS_CHOICE_MAX; ++i) res->t_iter[i] = NAN;
    *be = NULL;
    int hit = cache_find(sig, &won);
    if (!hit && file_find(sig, &won)) {
        cache_put(sig, won); /* this process's from now on */
        hit = 1;
    }
    if (hit) {
        res->cached = 1;
        name_of(won, res->name[0], sizeof res->name[0]);
        CMRS_CHECK(build(A, prec, opts, won, be));
        return CMRS_OK;
    }
    res->spmv_only = ksp->pc != CMRS_PC_JACOBI && ksp->pc != CMRS_PC_NONE;
    /* the rules' back end is the setup's (its errors too); the search
     * costs what comes after it */
    CMRS_CHECK(build(A, prec, opts, won, be));
    const double t0 = cmrs_wtime();
    cmrs_code rc = search_if_any(A, opts, ksp, t0 + budget_s, res, &won, be);
    res->cost_s = cmrs_wtime() - t0;
    if (rc != CMRS_OK) {
        cmrs_backend_destroy(*be);
        *be = NULL;
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    cache_put(sig, won);
    file_put(sig, won);
    return CMRS_OK;
}
