#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "csr.h"
#include "device.h"
#include "thread.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int cmrs_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}

int cmrs_add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return -1;
    *out = a + b;
    return 0;
}

/* Arrays of at least this many bytes are asked for transparent huge
 * pages: their first touch (a file read, a download into them) then faults
 * 2 MiB at a time. Measured on the H100 machines (THP "madvise"): 300 MB
 * first touched in 189-197 ms with 4 KiB pages, 68-75 ms with huge ones. */
#define HUGE_ARRAY_BYTES ((size_t)32 << 20)
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* Off with CMRS_HUGEPAGES=0 (read once). */
static int huge_pages_wanted(void)
{
    static int wanted = -1;
    if (wanted < 0) {
        const char *v = getenv("CMRS_HUGEPAGES");
        wanted = !(v && strcmp(v, "0") == 0);
    }
    return wanted;
}

/* bytes aligned to a huge page and advised to use them, or NULL (the
 * caller mallocs instead). free() releases it. */
static void *huge_array(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    void *p = NULL;
    if (bytes < HUGE_ARRAY_BYTES || !huge_pages_wanted()) return NULL;
    if (posix_memalign(&p, HUGE_PAGE_BYTES, bytes) != 0) return NULL;
    (void)madvise(p, bytes & ~(size_t)4095, MADV_HUGEPAGE); /* a hint */
    return p;
#else
    (void)bytes;
    return NULL;
#endif
}

void *cmrs_malloc_array(size_t n, size_t sz)
{
    size_t bytes;
    if (cmrs_mul_size(n, sz, &bytes) != 0) return NULL;
    void *p = huge_array(bytes);
    return p ? p : malloc(bytes ? bytes : 1);
}

/* One of the matrix's arrays: page-locked where asked and given, else
 * malloc (cmrs_host_free frees either). */
static void *host_array(size_t n, size_t sz, int pinned)
{
    size_t bytes;
    if (pinned && cmrs_mul_size(n, sz, &bytes) == 0) {
        void *p = cmrs_gpu_host_alloc(bytes);
        if (p) return p;
    }
    return cmrs_malloc_array(n, sz);
}

void cmrs_host_free(void *p)
{
    if (!cmrs_gpu_host_free(p)) free(p);
}

static cmrs_code alloc_in(cmrs_csr *A, int64_t rows, int64_t cols,
                          int64_t nnz, int pinned)
{
    memset(A, 0, sizeof *A);
    CMRS_ENSURE(rows >= 0 && cols >= 0 && nnz >= 0, CMRS_E_INPUT,
                "negative matrix size (%lld x %lld, nnz %lld)", (long long)rows,
                (long long)cols, (long long)nnz);
    CMRS_ENSURE(cols <= INT32_MAX && rows < INT64_MAX, CMRS_E_LIMIT,
                "matrix has %lld columns; at most %d are supported",
                (long long)cols, INT32_MAX);
    size_t b1, b2, b3;
    if (cmrs_mul_size((size_t)rows + 1, sizeof(int64_t), &b1) ||
        cmrs_mul_size((size_t)nnz, sizeof(int32_t) + sizeof(double), &b2) ||
        cmrs_add_size(b1, b2, &b3))
        CMRS_FAIL(CMRS_E_LIMIT, "matrix of %lld rows and %lld nonzeros: byte "
                  "count overflows", (long long)rows, (long long)nnz);
    A->indptr = host_array((size_t)rows + 1, sizeof(int64_t), pinned);
    A->indices = host_array((size_t)nnz, sizeof(int32_t), pinned);
    A->values = host_array((size_t)nnz, sizeof(double), pinned);
    if (!A->indptr || !A->indices || !A->values) {
        cmrs_csr_free(A);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate %.3g GB for a matrix of %lld "
                  "rows and %lld nonzeros", (double)b3 / 1e9, (long long)rows,
                  (long long)nnz);
    }
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->indptr[0] = 0;
    return CMRS_OK;
}

cmrs_code cmrs_csr_alloc(cmrs_csr *A, int64_t rows, int64_t cols, int64_t nnz)
{
    return alloc_in(A, rows, cols, nnz, 0);
}

cmrs_code cmrs_csr_alloc_pinned(cmrs_csr *A, int64_t rows, int64_t cols,
                                int64_t nnz)
{
    return alloc_in(A, rows, cols, nnz, 1);
}

void cmrs_csr_free(cmrs_csr *A)
{
    if (!A) return;
    cmrs_host_free(A->indptr);
    cmrs_host_free(A->indices);
    cmrs_host_free(A->values);
    memset(A, 0, sizeof *A);
}

cmrs_code cmrs_csr_copy(cmrs_csr *dst, const cmrs_csr *src)
{
    CMRS_CHECK(cmrs_csr_alloc(dst, src->rows, src->cols, src->nnz));
    memcpy(dst->indptr, src->indptr, ((size_t)src->rows + 1) * sizeof(int64_t));
    memcpy(dst->indices, src->indices, (size_t)src->nnz * sizeof(int32_t));
    memcpy(dst->values, src->values, (size_t)src->nnz * sizeof(double));
    return CMRS_OK;
}

static cmrs_code validate_indptr(const cmrs_csr *A, const char *what)
{
    CMRS_ENSURE(A->indptr[0] == 0, CMRS_E_INPUT,
                "%s: indptr[0] is %lld, expected 0", what,
                (long long)A->indptr[0]);
    for (int64_t i = 0; i < A->rows; ++i)
        CMRS_ENSURE(A->indptr[i + 1] >= A->indptr[i], CMRS_E_INPUT,
                    "%s: indptr decreases at row %lld (%lld > %lld)", what,
                    (long long)i, (long long)A->indptr[i],
                    (long long)A->indptr[i + 1]);
    CMRS_ENSURE(A->indptr[A->rows] == A->nnz, CMRS_E_INPUT,
                "%s: indptr[%lld] is %lld but there are %lld nonzeros", what,
                (long long)A->rows, (long long)A->indptr[A->rows],
                (long long)A->nnz);
    return CMRS_OK;
}

typedef struct first_row_job {
    const cmrs_csr *A;
    int (*bad)(const cmrs_csr *A, int64_t i, const void *ctx);
    const void *ctx;
    int64_t first[CMRS_PARALLEL_CHUNKS]; /* each chunk's first, or -1 */
} first_row_job;

static void first_row_chunk(void *ctx, int t, int64_t lo, int64_t hi)
{
    first_row_job *j = ctx;
    j->first[t] = -1;
    for (int64_t i = lo; i < hi; ++i)
        if (j->bad(j->A, i, j->ctx)) {
            j->first[t] = i;
            return;
        }
}

int64_t cmrs_csr_first_row(const cmrs_csr *A,
                           int (*bad)(const cmrs_csr *A, int64_t i,
                                      const void *ctx),
                           const void *ctx)
{
    first_row_job j = {.A = A, .bad = bad, .ctx = ctx};
    const int nt = cmrs_parallel_threads(A->nnz, (int64_t)1 << 22);
    cmrs_parallel_ranges(A->rows, nt, first_row_chunk, &j);
    for (int t = 0; t < nt; ++t) /* chunks in row order */
        if (j.first[t] >= 0) return j.first[t];
    return A->rows;
}

/* Row i's entries: columns in range, strictly increasing, values
 * finite; the first violation's message (what: ctx). */
static cmrs_code check_row(const cmrs_csr *A, int64_t i, const char *what)
{
    for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
        int32_t c = A->indices[k];
        CMRS_ENSURE(c >= 0 && c < A->cols, CMRS_E_INPUT,
                    "%s: column index %d out of range [0, %lld) in row %lld",
                    what, c, (long long)A->cols, (long long)i);
        CMRS_ENSURE(k == A->indptr[i] || A->indices[k - 1] < c, CMRS_E_INPUT,
                    "%s: row %lld has unsorted or duplicate column %d", what,
                    (long long)i, c);
        CMRS_ENSURE(isfinite(A->values[k]), CMRS_E_INPUT,
                    "%s: value %g (row %lld, column %d) is not finite", what,
                    A->values[k], (long long)i, c);
    }
    return CMRS_OK;
}

/* check_row as cmrs_csr_first_row's test (a worker's message is its
 * thread's and dropped: the caller checks the first bad row again). */
static int row_invalid(const cmrs_csr *A, int64_t i, const void *ctx)
{
    return check_row(A, i, ctx) != CMRS_OK;
}

cmrs_code cmrs_csr_validate(const cmrs_csr *A, const char *what)
{
    CMRS_ENSURE(A->rows >= 0 && A->cols >= 0 && A->nnz >= 0, CMRS_E_INPUT,
                "%s: negative size", what);
    CMRS_CHECK(validate_indptr(A, what));
    /* the rows by threads; the message from the first bad row */
    const int64_t i = cmrs_csr_first_row(A, row_invalid, what);
    if (i < A->rows) CMRS_CHECK(check_row(A, i, what));
    return CMRS_OK;
}

typedef struct col_val { int32_t col; double val; } col_val;

static int cmp_col(const void *a, const void *b)
{
    int32_t x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
    return (x > y) - (x < y);
}

cmrs_code cmrs_csr_sort_sum_duplicates(cmrs_csr *A)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        if (A->indptr[i + 1] - A->indptr[i] > longest)
            longest = A->indptr[i + 1] - A->indptr[i];
    col_val *buf = cmrs_malloc_array((size_t)longest, sizeof *buf);
    CMRS_ENSURE(buf, CMRS_E_NOMEM, "cannot allocate a row buffer of %lld "
                "entries", (long long)longest);
    int64_t out = 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t begin = A->indptr[i], len = A->indptr[i + 1] - begin;
        for (int64_t k = 0; k < len; ++k)
            buf[k] = (col_val){A->indices[begin + k], A->values[begin + k]};
        qsort(buf, (size_t)len, sizeof *buf, cmp_col);
        A->indptr[i] = out;
        for (int64_t k = 0; k < len; ++k) {
            if (k > 0 && buf[k].col == buf[k - 1].col) {
                A->values[out - 1] += buf[k].val; /* duplicates are summed */
                continue;
            }
            A->indices[out] = buf[k].col;
            A->values[out] = buf[k].val;
            ++out;
        }
    }
    A->indptr[A->rows] = out;
    A->nnz = out;
    free(buf);
    return CMRS_OK;
}

/* The transpose by rows of A in order (each row of T comes out sorted
 * by column, entries of one column of A in their order in A's row). */
static cmrs_code transpose_serial(const cmrs_csr *A, cmrs_csr *T)
{
    memset(T->indptr, 0, ((size_t)T->rows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < A->nnz; ++k) ++T->indptr[A->indices[k] + 1];
    for (int64_t j = 0; j < T->rows; ++j) T->indptr[j + 1] += T->indptr[j];
    int64_t *next = cmrs_malloc_array((size_t)T->rows + 1, sizeof(int64_t));
    CMRS_ENSURE(next, CMRS_E_NOMEM, "cannot allocate transpose workspace");
    memcpy(next, T->indptr, ((size_t)T->rows + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < A->rows; ++i) {
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int64_t dst = next[A->indices[k]]++;
            T->indices[dst] = (int32_t)i;
            T->values[dst] = A->values[k];
        }
    }
    free(next);
    return CMRS_OK;
}

/* The same by threads over A's rows (the distributed AMG's transfers,
 * hundreds of millions of entries): each column's entries counted and
 * placed by atomic counters, so they land in any order, with their
 * position k in A; each row of T then sorted by k, which is the serial
 * order (rows of A ascending, then their order in the row): the same
 * bits as transpose_serial. */
typedef struct transpose_job {
    const cmrs_csr *A;
    cmrs_csr *T;
    int64_t *next, *pos;
    int phase; /* 0 count, 1 place, 2 sort T's rows */
} transpose_job;

/* T's row [lo, hi) by pos (insertion sort: a column's entries are few). */
static void sort_by_pos(cmrs_csr *T, int64_t *pos, int64_t lo, int64_t hi)
{
    for (int64_t e = lo + 1; e < hi; ++e) {
        int64_t p = pos[e], m = e;
        int32_t c = T->indices[e];
        double v = T->values[e];
        for (; m > lo && pos[m - 1] > p; --m) {
            pos[m] = pos[m - 1];
            T->indices[m] = T->indices[m - 1];
            T->values[m] = T->values[m - 1];
        }
        pos[m] = p;
        T->indices[m] = c;
        T->values[m] = v;
    }
}

static void transpose_part(void *ctx, int t, int64_t lo, int64_t hi)
{
    transpose_job *j = ctx;
    const cmrs_csr *A = j->A;
    cmrs_csr *T = j->T;
    (void)t;
    for (int64_t r = lo; r < hi; ++r) {
        if (j->phase == 2) {
            sort_by_pos(T, j->pos, T->indptr[r], T->indptr[r + 1]);
            continue;
        }
        for (int64_t k = A->indptr[r]; k < A->indptr[r + 1]; ++k) {
            int64_t c = A->indices[k];
            if (j->phase == 0) {
                __atomic_fetch_add(&T->indptr[c + 1], 1, __ATOMIC_RELAXED);
                continue;
            }
            int64_t dst = __atomic_fetch_add(&j->next[c], 1,
                                             __ATOMIC_RELAXED);
            j->pos[dst] = k;
            T->indices[dst] = (int32_t)r;
            T->values[dst] = A->values[k];
        }
    }
}

static cmrs_code transpose_threads(const cmrs_csr *A, cmrs_csr *T, int nt)
{
    transpose_job j = {.A = A, .T = T};
    j.next = cmrs_malloc_array((size_t)T->rows + 1, sizeof(int64_t));
    j.pos = cmrs_malloc_array((size_t)A->nnz, sizeof(int64_t));
    if (!j.next || !j.pos) {
        free(j.next);
        free(j.pos);
        CMRS_FAIL(CMRS_E_NOMEM, "cannot allocate transpose workspace");
    }
    memset(T->indptr, 0, ((size_t)T->rows + 1) * sizeof(int64_t));
    cmrs_parallel_ranges(A->rows, nt, transpose_part, &j);
    for (int64_t c = 0; c < T->rows; ++c) T->indptr[c + 1] += T->indptr[c];
    memcpy(j.next, T->indptr, ((size_t)T->rows + 1) * sizeof(int64_t));
    j.phase = 1;
    cmrs_parallel_ranges(A->rows, nt, transpose_part, &j);
    j.phase = 2;
    cmrs_parallel_ranges(T->rows, nt, transpose_part, &j);
    free(j.next);
    free(j.pos);
    return CMRS_OK;
}

/* Threads for transposes from this many entries on, and from this many
 * threads: the atomics, the positions and the rows' sort cost the
 * threaded version 1.3x the serial one's time at 2 threads (25M entries,
 * 2 cores here), so it pays only with more. */
#define TRANSPOSE_GRAIN ((int64_t)1 << 20)
#define TRANSPOSE_MIN_THREADS 4

cmrs_code cmrs_csr_transpose(const cmrs_csr *A, cmrs_csr *T)
{
    CMRS_ENSURE(A->rows <= INT32_MAX, CMRS_E_LIMIT, "cannot transpose a matrix "
                "of %lld rows (its columns would exceed 32 bits)",
                (long long)A->rows);
    CMRS_CHECK(cmrs_csr_alloc(T, A->cols, A->rows, A->nnz));
    int nt = cmrs_parallel_threads(A->nnz, TRANSPOSE_GRAIN);
    cmrs_code rc = nt >= TRANSPOSE_MIN_THREADS ? transpose_threads(A, T, nt)
                                               : transpose_serial(A, T);
    if (rc != CMRS_OK) cmrs_csr_free(T);
    return rc;
}

void cmrs_csr_spmv(const cmrs_csr *A, double alpha, const double *x,
                   double beta, double *y)
{
    for (int64_t i = 0; i < A->rows; ++i) {
        double sum = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            sum += A->values[k] * x[A->indices[k]];
        y[i] = alpha * sum + (beta == 0 ? 0.0 : beta * y[i]);
    }
}

double cmrs_csr_lookup(const cmrs_csr *A, int64_t i, int32_t j, int *found)
{
    int64_t lo = A->indptr[i], hi = A->indptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->indices[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < A->indptr[i + 1] && A->indices[lo] == j;
    return *found ? A->values[lo] : 0.0;
}

static void stats_rows(const cmrs_csr *A, cmrs_csr_stats *s)
{
    double sum = 0, sum2 = 0;
    s->min_row = A->rows ? INT64_MAX : 0;
    for (int64_t i = 0; i < A->rows; ++i) {
        int64_t len = A->indptr[i + 1] - A->indptr[i];
        sum += (double)len;
        sum2 += (double)len * (double)len;
        if (len < s->min_row) s->min_row = len;
        if (len > s->max_row) s->max_row = len;
        if (len == 0) ++s->empty_rows;
    }
    if (A->rows > 0) {
        s->mu = sum / (double)A->rows;
        double var = sum2 / (double)A->rows - s->mu * s->mu;
        s->sigma = var > 0 ? sqrt(var) : 0.0;
    }
}

static void stats_diagonal(const cmrs_csr *A, cmrs_csr_stats *s)
{
    s->first_bad_diagonal = -1;
    for (int64_t i = 0; i < A->rows; ++i) {
        int found = 0;
        double d = i < A->cols ? cmrs_csr_lookup(A, i, (int32_t)i, &found) : 0.0;
        if (!found) ++s->missing_diagonal;
        if (!found || !(d > 0)) {
            ++s->nonpositive_diagonal;
            if (s->first_bad_diagonal < 0) s->first_bad_diagonal = i;
        }
        double off = 0;
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k)
            if (A->indices[k] != i) off += fabs(A->values[k]);
        if (fabs(d) >= off) ++s->dominant_rows;
        if (fabs(d) > off) ++s->strictly_dominant_rows;
    }
}

static void stats_symmetry(const cmrs_csr *A, cmrs_csr_stats *s)
{
    s->structurally_symmetric = A->rows == A->cols;
    s->symmetric = s->structurally_symmetric;
    for (int64_t i = 0; i < A->rows && s->structurally_symmetric; ++i) {
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int found = 0;
            double v = cmrs_csr_lookup(A, A->indices[k], (int32_t)i, &found);
            if (!found) {
                s->structurally_symmetric = s->symmetric = 0;
                break;
            }
            if (v != A->values[k]) s->symmetric = 0;
        }
    }
}

/* Values equal to their transposes: entries above the diagonal looked up
 * below it (the pattern's other half follows from nnz counts only when
 * every lookup succeeds, so the lower half is counted as well). */
int cmrs_csr_is_symmetric(const cmrs_csr *A)
{
    if (A->rows != A->cols) return 0;
    int64_t upper = 0, lower = 0;
    for (int64_t i = 0; i < A->rows; ++i)
        for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; ++k) {
            int32_t j = A->indices[k];
            if (j < i) {
                ++lower;
                continue;
            }
            if (j == i) continue;
            ++upper;
            int found = 0;
            double v = cmrs_csr_lookup(A, j, (int32_t)i, &found);
            if (!found || v != A->values[k]) return 0;
        }
    /* Every upper (i, j) has its (j, i): equal counts leave no lower entry
     * without an upper partner (rows sorted, no duplicates). */
    return upper == lower;
}

void cmrs_csr_stats_compute(const cmrs_csr *A, cmrs_csr_stats *s)
{
    memset(s, 0, sizeof *s);
    s->rows = A->rows;
    s->cols = A->cols;
    s->nnz = A->nnz;
    stats_rows(A, s);
    stats_diagonal(A, s);
    stats_symmetry(A, s);
}

/* Cut of the order into nparts blocks: part p closes before the row
 * whose middle passes (p + 1) / nparts of the total nnz (so each cut is
 * within half a row of its target), but every part keeps at least one
 * row and leaves one for each part after it. */
void cmrs_csr_row_blocks(const int64_t *indptr, int64_t rows,
                         const int64_t *order, int nparts, int64_t *start)
{
    int64_t sum = 0, nnz = indptr[rows] - indptr[0];
    int p = 0, rows_in_p = 0;
    start[0] = 0;
    for (int64_t k = 0; k < rows; ++k) {
        int64_t i = order ? order[k] : k;
        int64_t len = indptr[i + 1] - indptr[i];
        int must_close = rows - k <= nparts - 1 - p; /* rows left = parts left */
        if (rows_in_p > 0 && p < nparts - 1 &&
            (must_close || (double)sum + 0.5 * (double)len >=
                               (double)nnz * (p + 1) / nparts)) {
            start[++p] = k;
            rows_in_p = 0;
        }
        sum += len;
        ++rows_in_p;
    }
    start[nparts] = rows;
}

cmrs_code cmrs_float_range_error(const char *what, double v, int64_t i)
{
    CMRS_FAIL(CMRS_E_INPUT, "%s: value %g at index %lld is "
              CMRS_FLOAT_RANGE_TEXT " (use --precision double)", what, v,
              (long long)i);
}

cmrs_code cmrs_check_float_range(const double *v, int64_t n,
                                 const char *what)
{
    for (int64_t i = 0; i < n; ++i)
        if (!(fabs(v[i]) <= FLT_MAX))
            return cmrs_float_range_error(what, v[i], i);
    return CMRS_OK;
}
