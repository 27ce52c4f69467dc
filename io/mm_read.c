/* Matrix Market reader (NIST format): the banner, comments, the size line,
 * then the entries. Reads exactly what the file says: symmetric storage is
 * expanded, duplicates are summed, every index and count is checked, and a
 * size line that claims more than the file can hold is refused before
 * anything is allocated. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/memory.h"
#include "mm_src.h"
#include "readers.h"

typedef enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN } mm_field;
typedef enum mm_sym { MM_GENERAL, MM_SYMMETRIC, MM_SKEW } mm_sym;

typedef struct mm_header {
    int coordinate;           /* else array (dense, column-major) */
    mm_field field;
    mm_sym sym;
    int64_t rows, cols, nnz;  /* nnz: entries stored in the file */
} mm_header;

#define MAX_TOKENS 8

/* Blanks between tokens (a '\r' of CRLF line ends included). */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Splits line in place at blanks; returns the token count (<= max). */
static int split(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p)) *p++ = '\0';
        if (!*p || n == max) return n;
        tok[n++] = p;
        while (*p && !is_blank(*p)) ++p;
    }
}

/* Next line that is neither blank nor a comment. */
static cmrs_code next_data_line(cmrs_mm_src *s, int *got)
{
    for (;;) {
        CMRS_CHECK(cmrs_mm_src_next(s, got));
        if (!*got) return CMRS_OK;
        const char *p = s->line + strspn(s->line, " \t\r\f\v");
        if (*p && *p != '%') return CMRS_OK;
    }
}

static int token_is(const char *tok, const char *word)
{
    return strcasecmp(tok, word) == 0;
}

static cmrs_code parse_field(const cmrs_mm_src *s, const char *t, mm_header *h)
{
    if (token_is(t, "real") || token_is(t, "double")) h->field = MM_REAL;
    else if (token_is(t, "integer")) h->field = MM_INTEGER;
    else if (token_is(t, "pattern")) h->field = MM_PATTERN;
    else if (token_is(t, "complex"))
        CMRS_FAIL(CMRS_E_INPUT, "%s: line 1: complex matrices are not "
                  "supported (cmrs solves real systems)", s->name);
    else
        CMRS_FAIL(CMRS_E_INPUT, "%s: line 1: unknown field '%s' (expected "
                  "real, integer or pattern)", s->name, t);
    return CMRS_OK;
}

static cmrs_code parse_symmetry(const cmrs_mm_src *s, const char *t,
                                mm_header *h)
{
    if (token_is(t, "general")) h->sym = MM_GENERAL;
    else if (token_is(t, "symmetric")) h->sym = MM_SYMMETRIC;
    else if (token_is(t, "skew-symmetric")) h->sym = MM_SKEW;
    else if (token_is(t, "hermitian"))
        CMRS_FAIL(CMRS_E_INPUT, "%s: line 1: hermitian matrices are not "
                  "supported (cmrs solves real systems)", s->name);
    else
        CMRS_FAIL(CMRS_E_INPUT, "%s: line 1: unknown symmetry '%s' (expected "
                  "general, symmetric or skew-symmetric)", s->name, t);
    return CMRS_OK;
}

/* "%%MatrixMarket matrix coordinate|array FIELD SYMMETRY" */
static cmrs_code parse_banner(cmrs_mm_src *s, mm_header *h)
{
    int got = 0;
    char *t[MAX_TOKENS];
    /* A binary file fails reading line 1 (NUL byte, no line end): that
     * too only means "not Matrix Market". */
    cmrs_code rc = cmrs_mm_src_next(s, &got);
    CMRS_ENSURE(rc == CMRS_OK && got &&
                strncasecmp(s->line, "%%MatrixMarket", 14) == 0,
                CMRS_E_INPUT, "%s: line 1: no %%%%MatrixMarket banner: not a "
                "Matrix Market file", s->name);
    int n = split(s->line, t, MAX_TOKENS);
    CMRS_ENSURE(n == 5 && token_is(t[0], "%%MatrixMarket") &&
                token_is(t[1], "matrix"), CMRS_E_INPUT, "%s: line 1: "
                "malformed banner (expected '%%%%MatrixMarket matrix "
                "coordinate|array FIELD SYMMETRY')", s->name);
    h->coordinate = token_is(t[2], "coordinate");
    CMRS_ENSURE(h->coordinate || token_is(t[2], "array"), CMRS_E_INPUT,
                "%s: line 1: unknown format '%s' (expected coordinate or "
                "array)", s->name, t[2]);
    CMRS_CHECK(parse_field(s, t[3], h));
    CMRS_CHECK(parse_symmetry(s, t[4], h));
    CMRS_ENSURE(h->coordinate || h->field != MM_PATTERN, CMRS_E_INPUT,
                "%s: line 1: an array file cannot be 'pattern'", s->name);
    return CMRS_OK;
}

/* A whole token as an integer; 0 on success. */
static int parse_int(const char *tok, int64_t *v)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    if (end == tok || *end || errno) return -1;
    *v = x;
    return 0;
}

/* Entries the file stores for a header (array: one per element, or per
 * element of the triangle that symmetric storage keeps). */
static double stored_entries(const mm_header *h)
{
    double r = (double)h->rows, c = (double)h->cols;
    if (h->coordinate) return (double)h->nnz;
    if (h->sym == MM_SYMMETRIC) return r * (r + 1) / 2;
    if (h->sym == MM_SKEW) return r * (r - 1) / 2;
    return r * c;
}

/* The size line against the header and against the size of the input. */
static cmrs_code check_size(const cmrs_mm_src *s, const mm_header *h)
{
    long long line = (long long)s->lineno;
    CMRS_ENSURE(h->rows <= INT32_MAX && h->cols <= INT32_MAX, CMRS_E_LIMIT,
                "%s: line %lld: %lld x %lld matrix; at most %d rows and "
                "columns are supported", s->name, line, (long long)h->rows,
                (long long)h->cols, INT32_MAX);
    CMRS_ENSURE(h->sym == MM_GENERAL || h->rows == h->cols, CMRS_E_INPUT,
                "%s: line %lld: a symmetric matrix must be square, not %lld x "
                "%lld", s->name, line, (long long)h->rows, (long long)h->cols);
    CMRS_ENSURE((double)h->nnz <= (double)h->rows * (double)h->cols,
                CMRS_E_INPUT, "%s: line %lld: %lld entries claimed, more than "
                "a %lld x %lld matrix has", s->name, line, (long long)h->nnz,
                (long long)h->rows, (long long)h->cols);
    /* Shortest entry line: "1 1\n" (pattern), "1 1 1\n", "1\n" (array). */
    double shortest = !h->coordinate ? 2 : h->field == MM_PATTERN ? 4 : 6;
    double need = stored_entries(h) * shortest - 1;
    CMRS_ENSURE(need <= s->max_bytes, CMRS_E_INPUT, "%s: line %lld: the size "
                "line claims %.0f entries but the file is too small to hold "
                "them (truncated, or a wrong size line)", s->name, line,
                stored_entries(h));
    return CMRS_OK;
}

static cmrs_code parse_size(cmrs_mm_src *s, mm_header *h)
{
    int got = 0;
    char *t[MAX_TOKENS];
    CMRS_CHECK(next_data_line(s, &got));
    CMRS_ENSURE(got, CMRS_E_INPUT, "%s: the size line is missing after line "
                "%lld", s->name, (long long)s->lineno);
    int want = h->coordinate ? 3 : 2;
    int n = split(s->line, t, MAX_TOKENS);
    h->nnz = 0;
    int bad = n != want || parse_int(t[0], &h->rows) ||
              parse_int(t[1], &h->cols) ||
              (h->coordinate && parse_int(t[2], &h->nnz));
    CMRS_ENSURE(!bad && h->rows >= 0 && h->cols >= 0 && h->nnz >= 0,
                CMRS_E_INPUT, "%s: line %lld: malformed size line (expected "
                "%s as non-negative integers)", s->name, (long long)s->lineno,
                h->coordinate ? "'rows columns entries'" : "'rows columns'");
    CMRS_CHECK(check_size(s, h));
    if (!h->coordinate) h->nnz = (int64_t)stored_entries(h);
    return CMRS_OK;
}

static cmrs_code parse_header(cmrs_mm_src *s, mm_header *h)
{
    memset(h, 0, sizeof *h);
    CMRS_CHECK(parse_banner(s, h));
    CMRS_CHECK(parse_size(s, h));
    return CMRS_OK;
}

/* One value token of the header's field into *v. */
static cmrs_code parse_value(const cmrs_mm_src *s, const mm_header *h,
                             const char *tok, double *v)
{
    long long line = (long long)s->lineno;
    if (h->field == MM_INTEGER) {
        int64_t x;
        CMRS_ENSURE(parse_int(tok, &x) == 0, CMRS_E_INPUT, "%s: line %lld: "
                    "'%s' is not an integer (the file says 'integer')",
                    s->name, line, tok);
        *v = (double)x;
        /* 2^63 itself does not fit int64_t: x (< 2^63) was rounded up. */
        CMRS_ENSURE(*v < 9223372036854775808.0 && (int64_t)*v == x,
                    CMRS_E_INPUT, "%s: line %lld: integer %s has no exact "
                    "double (more than 53 significant bits): it would be "
                    "rounded to %.17g", s->name, line, tok, *v);
        return CMRS_OK;
    }
    char *end = NULL;
    *v = strtod(tok, &end);
    CMRS_ENSURE(end != tok && !*end, CMRS_E_INPUT, "%s: line %lld: '%s' is "
                "not a number", s->name, line, tok);
    CMRS_ENSURE(isfinite(*v), CMRS_E_INPUT, "%s: line %lld: value '%s' is "
                "not finite", s->name, line, tok);
    return CMRS_OK;
}

static cmrs_code parse_index(const cmrs_mm_src *s, const char *tok,
                             const char *what, int64_t size, int64_t *out)
{
    long long line = (long long)s->lineno;
    CMRS_ENSURE(parse_int(tok, out) == 0, CMRS_E_INPUT, "%s: line %lld: %s "
                "index '%s' is not an integer", s->name, line, what, tok);
    CMRS_ENSURE(*out >= 1 && *out <= size, CMRS_E_INPUT, "%s: line %lld: %s "
                "index %lld out of range [1, %lld]", s->name, line, what,
                (long long)*out, (long long)size);
    --*out; /* 1-based in the file */
    return CMRS_OK;
}

/* One coordinate entry "i j [value]" into 0-based (i, j) and v. */
static cmrs_code parse_entry(cmrs_mm_src *s, const mm_header *h, int64_t *i,
                             int64_t *j, double *v)
{
    char *t[MAX_TOKENS];
    int want = h->field == MM_PATTERN ? 2 : 3;
    long long line = (long long)s->lineno;
    int n = split(s->line, t, MAX_TOKENS);
    CMRS_ENSURE(n >= want, CMRS_E_INPUT, "%s: line %lld: expected %s, found "
                "%d field%s (truncated line?)", s->name, line,
                want == 2 ? "'row column'" : "'row column value'", n,
                n == 1 ? "" : "s");
    CMRS_ENSURE(n == want, CMRS_E_INPUT, "%s: line %lld: unexpected '%s' after "
                "the entry%s", s->name, line, t[want],
                h->field == MM_PATTERN ? " (the file says 'pattern')" : "");
    CMRS_CHECK(parse_index(s, t[0], "row", h->rows, i));
    CMRS_CHECK(parse_index(s, t[1], "column", h->cols, j));
    *v = 1.0;
    if (h->field != MM_PATTERN) CMRS_CHECK(parse_value(s, h, t[2], v));
    return CMRS_OK;
}

/* The next of the `count` entries the size line announced. */
static cmrs_code next_entry_line(cmrs_mm_src *s, int64_t k, int64_t count)
{
    int got = 0;
    CMRS_CHECK(next_data_line(s, &got));
    CMRS_ENSURE(got, CMRS_E_INPUT, "%s: truncated: the size line announces "
                "%lld entries, the file ends after %lld (line %lld)", s->name,
                (long long)count, (long long)k, (long long)s->lineno);
    return CMRS_OK;
}

/* After the last entry only blank and comment lines may follow. */
static cmrs_code expect_end(cmrs_mm_src *s, int64_t count)
{
    int got = 0;
    CMRS_CHECK(next_data_line(s, &got));
    CMRS_ENSURE(!got, CMRS_E_INPUT, "%s: line %lld: more entries than the "
                "%lld the size line announces", s->name, (long long)s->lineno,
                (long long)count);
    return CMRS_OK;
}

/* Entries as read, before conversion to CSR. */
typedef struct coo {
    int32_t *row, *col;
    double *val;
    int64_t n;
} coo;

static void coo_free(coo *c)
{
    CMRS_FREE_ALL(c->row, c->col, c->val);
    memset(c, 0, sizeof *c);
}

/* The size line against what the command needs (square, no empty row) and
 * against the memory available, before anything is allocated. */
static cmrs_code check_declared(const cmrs_mm_src *s, const mm_header *h,
                                const cmrs_read_opts *o)
{
    char where[32];
    snprintf(where, sizeof where, "line %lld", (long long)s->lineno);
    int64_t cap = h->sym == MM_GENERAL ? h->nnz : 2 * h->nnz;
    cmrs_declared d = {s->name, where, h->rows, h->cols, h->nnz, cap,
                       16.0 * (double)cap, o->x0 != NULL, o->rhs == NULL};
    CMRS_CHECK(cmrs_check_declared(&d, o));
    return CMRS_OK;
}

static cmrs_code coo_alloc(const cmrs_mm_src *s, const mm_header *h, coo *c)
{
    int64_t cap = h->sym == MM_GENERAL ? h->nnz : 2 * h->nnz;
    memset(c, 0, sizeof *c);
    c->row = cmrs_malloc_array((size_t)cap, sizeof(int32_t));
    c->col = cmrs_malloc_array((size_t)cap, sizeof(int32_t));
    c->val = cmrs_malloc_array((size_t)cap, sizeof(double));
    if (!c->row || !c->col || !c->val) {
        coo_free(c);
        CMRS_FAIL(CMRS_E_NOMEM, "%s: cannot allocate %lld entries", s->name,
                  (long long)cap);
    }
    return CMRS_OK;
}

static void coo_add(coo *c, int64_t i, int64_t j, double v)
{
    c->row[c->n] = (int32_t)i;
    c->col[c->n] = (int32_t)j;
    c->val[c->n] = v;
    ++c->n;
}

/* Reads the entries, expanding symmetric and skew-symmetric storage. */
static cmrs_code read_entries(cmrs_mm_src *s, const mm_header *h, coo *c)
{
    for (int64_t k = 0; k < h->nnz; ++k) {
        int64_t i, j;
        double v;
        CMRS_CHECK(next_entry_line(s, k, h->nnz));
        CMRS_CHECK(parse_entry(s, h, &i, &j, &v));
        CMRS_ENSURE(h->sym != MM_SKEW || i != j || v == 0, CMRS_E_INPUT,
                    "%s: line %lld: a skew-symmetric matrix has a zero "
                    "diagonal, but entry (%lld, %lld) is %g", s->name,
                    (long long)s->lineno, (long long)i + 1, (long long)j + 1,
                    v);
        coo_add(c, i, j, v);
        if (h->sym != MM_GENERAL && i != j)
            coo_add(c, j, i, h->sym == MM_SKEW ? -v : v);
    }
    CMRS_CHECK(expect_end(s, h->nnz));
    return CMRS_OK;
}

/* Counting sort of the entries by row into A (stable: file order inside a
 * row), then rows sorted by column with duplicates summed. */
static cmrs_code coo_to_csr(const cmrs_mm_src *s, const mm_header *h,
                            const coo *c, cmrs_csr *A)
{
    CMRS_CHECK(cmrs_csr_alloc(A, h->rows, h->cols, c->n));
    memset(A->indptr, 0, ((size_t)h->rows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < c->n; ++k) ++A->indptr[c->row[k] + 1];
    for (int64_t i = 0; i < h->rows; ++i) A->indptr[i + 1] += A->indptr[i];
    for (int64_t k = 0; k < c->n; ++k) { /* indptr[r] walks row r */
        int64_t dst = A->indptr[c->row[k]]++;
        A->indices[dst] = c->col[k];
        A->values[dst] = c->val[k];
    }
    for (int64_t i = h->rows; i > 0; --i) A->indptr[i] = A->indptr[i - 1];
    A->indptr[0] = 0;
    if (!cmrs_csr_is_sorted(A)) CMRS_CHECK(cmrs_csr_sort_sum_duplicates(A));
    CMRS_CHECK(cmrs_csr_validate(A, s->name)); /* e.g. sums overflowing */
    return CMRS_OK;
}

static cmrs_code parse_matrix(cmrs_mm_src *s, const cmrs_read_opts *o,
                              cmrs_csr *A)
{
    mm_header h;
    coo c = {0};
    cmrs_code rc = CMRS_OK;
    memset(A, 0, sizeof *A);
    CMRS_TRY(parse_header(s, &h));
    if (!h.coordinate)
        CMRS_TRY_FAIL(CMRS_E_INPUT, "%s: a dense 'array' file: cmrs reads "
                      "sparse matrices in 'coordinate' format (array files "
                      "are accepted as vectors)", s->name);
    CMRS_TRY(check_declared(s, &h, o));
    CMRS_TRY(coo_alloc(s, &h, &c));
    CMRS_TRY(read_entries(s, &h, &c));
    CMRS_TRY(coo_to_csr(s, &h, &c, A));
done:
    coo_free(&c);
    if (rc != CMRS_OK) cmrs_csr_free(A);
    return rc;
}

/* Dense column (or row) vector: one value per line. */
static cmrs_code read_array_vector(cmrs_mm_src *s, const mm_header *h,
                                   double *v)
{
    char *t[MAX_TOKENS];
    for (int64_t k = 0; k < h->nnz; ++k) {
        CMRS_CHECK(next_entry_line(s, k, h->nnz));
        int n = split(s->line, t, MAX_TOKENS);
        CMRS_ENSURE(n == 1, CMRS_E_INPUT, "%s: line %lld: expected one value, "
                    "found %d fields", s->name, (long long)s->lineno, n);
        CMRS_CHECK(parse_value(s, h, t[0], &v[k]));
    }
    return CMRS_OK;
}

static cmrs_code read_coordinate_vector(cmrs_mm_src *s, const mm_header *h,
                                        double *v, int64_t n)
{
    for (int64_t i = 0; i < n; ++i) v[i] = 0.0;
    for (int64_t k = 0; k < h->nnz; ++k) {
        int64_t i, j;
        double x;
        CMRS_CHECK(next_entry_line(s, k, h->nnz));
        CMRS_CHECK(parse_entry(s, h, &i, &j, &x));
        v[h->cols == 1 ? i : j] += x;
    }
    CMRS_CHECK(cmrs_check_finite(s->name, "vector", v, n, 0));
    return CMRS_OK;
}

static cmrs_code check_vector_header(const cmrs_mm_src *s, const mm_header *h)
{
    CMRS_ENSURE(h->cols == 1 || h->rows == 1, CMRS_E_INPUT, "%s: a %lld x "
                "%lld matrix, expected a vector (n x 1)", s->name,
                (long long)h->rows, (long long)h->cols);
    CMRS_ENSURE(h->sym == MM_GENERAL || h->rows * h->cols <= 1, CMRS_E_INPUT,
                "%s: a vector must be stored as 'general'", s->name);
    CMRS_ENSURE(h->field != MM_PATTERN, CMRS_E_INPUT, "%s: a 'pattern' file "
                "has no values: it cannot be a vector", s->name);
    return CMRS_OK;
}

/* A vector of any length (expect < 0) or of `expect` entries, checked
 * before it is allocated; `what` names it in messages. */
static cmrs_code parse_vector(cmrs_mm_src *s, int64_t expect,
                              const char *what, double **v, int64_t *n)
{
    mm_header h;
    cmrs_code rc = CMRS_OK;
    *v = NULL;
    *n = 0;
    CMRS_TRY(parse_header(s, &h));
    CMRS_TRY(check_vector_header(s, &h));
    int64_t len = h.rows * h.cols;
    if (expect >= 0 && len != expect)
        CMRS_TRY_FAIL(CMRS_E_INPUT, "%s: %s has %lld entries but the matrix "
                      "has %lld rows", s->name, what, (long long)len,
                      (long long)expect);
    CMRS_TRY(cmrs_check_memory(s->name, "the vector", 8.0 * (double)len));
    *v = cmrs_malloc_array((size_t)len, sizeof(double));
    if (!*v) CMRS_TRY_FAIL(CMRS_E_NOMEM, "%s: cannot allocate a vector of %lld "
                           "entries", s->name, (long long)len);
    if (h.coordinate) CMRS_TRY(read_coordinate_vector(s, &h, *v, len));
    else CMRS_TRY(read_array_vector(s, &h, *v));
    CMRS_TRY(expect_end(s, h.nnz));
    *n = len;
done:
    if (rc != CMRS_OK) {
        free(*v);
        *v = NULL;
    }
    return rc;
}

static const cmrs_read_opts defaults = {0};

cmrs_code cmrs_mm_parse_matrix(const char *buf, size_t len, const char *name,
                               cmrs_csr *A)
{
    cmrs_mm_src s;
    CMRS_CHECK(cmrs_mm_src_memory(&s, buf, len, name));
    cmrs_code rc = parse_matrix(&s, &defaults, A);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_mm_parse_vector(const char *buf, size_t len, const char *name,
                               double **v, int64_t *n)
{
    cmrs_mm_src s;
    CMRS_CHECK(cmrs_mm_src_memory(&s, buf, len, name));
    cmrs_code rc = parse_vector(&s, -1, "vector", v, n);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_mm_read_matrix(const char *path, cmrs_csr *A)
{
    cmrs_mm_src s;
    memset(A, 0, sizeof *A);
    CMRS_CHECK(cmrs_mm_src_file(&s, path));
    cmrs_code rc = parse_matrix(&s, &defaults, A);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_mm_read_vector(const char *path, double **v, int64_t *n)
{
    cmrs_mm_src s;
    *v = NULL;
    *n = 0;
    CMRS_CHECK(cmrs_mm_src_file(&s, path));
    cmrs_code rc = parse_vector(&s, -1, "vector", v, n);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_mm_read_matrix_with(const char *path, const cmrs_read_opts *o,
                                   cmrs_csr *A)
{
    cmrs_mm_src s;
    memset(A, 0, sizeof *A);
    CMRS_CHECK(cmrs_mm_src_file(&s, path));
    cmrs_code rc = parse_matrix(&s, o, A);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}

cmrs_code cmrs_mm_read_vector_of(const char *path, int64_t rows,
                                 const char *what, double **v)
{
    cmrs_mm_src s;
    int64_t n = 0;
    *v = NULL;
    CMRS_CHECK(cmrs_mm_src_file(&s, path));
    cmrs_code rc = parse_vector(&s, rows, what, v, &n);
    cmrs_mm_src_close(&s);
    CMRS_CHECK(rc);
    return CMRS_OK;
}
