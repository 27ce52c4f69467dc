/* The HDF5 layouts: native CSR (and its anndata / h5sparse spellings, CSR or
 * CSC) and MATLAB v7.3 / PETSc sparse (CSC: jc, ir, data, MATLAB_sparse).
 * Sizes are checked against each other and against memory before anything
 * is allocated; a CSC matrix is read as the CSR of its transpose and then
 * transposed (never assumed symmetric). */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "h5_sparse.h"
#include "readers.h"

static cmrs_code shape_attr(hid_t g, cmrs_h5_sparse *d, const char *attr)
{
    int64_t shape[2];
    CMRS_CHECK(cmrs_h5_attr_ints(g, d->file, d->group, attr, shape, 2));
    CMRS_ENSURE(shape[0] >= 0 && shape[1] >= 0, CMRS_E_INPUT,
                "%s: %s: attribute '%s' is (%lld, %lld), expected sizes >= 0",
                d->file, d->group, attr, (long long)shape[0],
                (long long)shape[1]);
    d->rows = shape[0];
    d->cols = shape[1];
    return CMRS_OK;
}

static void set_arrays(cmrs_h5_sparse *d, int csc, const char *layout)
{
    d->csc = csc;
    d->layout = layout;
    d->ptr = csc && d->matlab ? "jc" : "indptr";
    d->idx = csc && d->matlab ? "ir" : "indices";
    d->val = "data";
}

static cmrs_code describe_matlab(hid_t g, cmrs_h5_sparse *d)
{
    int64_t rows;
    CMRS_CHECK(cmrs_h5_attr_ints(g, d->file, d->group, "MATLAB_sparse", &rows,
                                 1));
    CMRS_ENSURE(rows >= 0, CMRS_E_INPUT, "%s: %s: MATLAB_sparse is %lld, "
                "expected the number of rows", d->file, d->group,
                (long long)rows);
    d->matlab = 1;
    d->rows = rows;
    d->cols = -1;
    set_arrays(d, 1, "matlab");
    return CMRS_OK;
}

/* anndata ("encoding-type" = csr_matrix/csc_matrix, "shape") or h5sparse
 * ("h5sparse_format" = csr/csc, "h5sparse_shape"). */
static cmrs_code describe_tagged(hid_t g, cmrs_h5_sparse *d, const char *tag,
                                 const char *shape, const char *csr_name,
                                 const char *csc_name, const char *layout)
{
    char fmt[64];
    CMRS_CHECK(cmrs_h5_attr_string(g, d->file, d->group, tag, fmt, sizeof fmt));
    int csc = strcmp(fmt, csc_name) == 0;
    CMRS_ENSURE(csc || strcmp(fmt, csr_name) == 0, CMRS_E_INPUT,
                "%s: %s: attribute '%s' is '%s', expected '%s' or '%s'",
                d->file, d->group, tag, fmt, csr_name, csc_name);
    CMRS_CHECK(shape_attr(g, d, shape));
    set_arrays(d, csc, layout);
    return CMRS_OK;
}

cmrs_code cmrs_h5_sparse_describe(int64_t g, cmrs_h5_sparse *d)
{
    if (cmrs_h5_has_attr(g, "MATLAB_sparse")) return describe_matlab(g, d);
    if (cmrs_h5_has_attr(g, "h5sparse_format"))
        return describe_tagged(g, d, "h5sparse_format", "h5sparse_shape",
                               "csr", "csc", "h5sparse");
    if (cmrs_h5_has_attr(g, "encoding-type"))
        return describe_tagged(g, d, "encoding-type", "shape", "csr_matrix",
                               "csc_matrix", "anndata");
    CMRS_ENSURE(cmrs_h5_has_attr(g, "shape"), CMRS_E_INPUT,
                "%s: %s: missing attribute 'shape' (the native layout is a "
                "group with datasets data, indices, indptr and attribute "
                "shape)", d->file, d->group);
    CMRS_CHECK(shape_attr(g, d, "shape"));
    set_arrays(d, 0, "native");
    return CMRS_OK;
}

cmrs_code cmrs_h5_check_pointers(const cmrs_h5_sparse *d, const char *name,
                                 const int64_t *p, int64_t n, int64_t nnz)
{
    CMRS_ENSURE(p[0] == 0, CMRS_E_INPUT, "%s: %s: %s[0] is %lld, expected 0",
                d->file, name, d->ptr, (long long)p[0]);
    for (int64_t i = 0; i < n; ++i)
        CMRS_ENSURE(p[i + 1] >= p[i], CMRS_E_INPUT, "%s: %s decreases at "
                    "%lld (%lld > %lld)", d->file, name, (long long)i,
                    (long long)p[i], (long long)p[i + 1]);
    CMRS_ENSURE(p[n] == nnz, CMRS_E_INPUT, "%s: %s: last entry %s[%lld] is "
                "%lld but there are %lld nonzeros", d->file, name, d->ptr,
                (long long)n, (long long)p[n], (long long)nnz);
    return CMRS_OK;
}

/* Where cmrs_h5_check_indices' messages point: the file and dataset,
 * the part's first row and entry. */
typedef struct index_ctx {
    const cmrs_h5_sparse *d;
    const char *name;
    int64_t row0, k0;
} index_ctx;

/* Row i's indices inside [0, cols); the first one outside's message. */
static cmrs_code check_row_indices(const cmrs_csr *T, int64_t i,
                                   const index_ctx *c)
{
    for (int64_t k = T->indptr[i]; k < T->indptr[i + 1]; ++k)
        CMRS_ENSURE(T->indices[k] >= 0 && T->indices[k] < T->cols,
                    CMRS_E_INPUT, "%s: %s[%lld] is %d, outside [0, %lld) "
                    "(%s %lld)", c->d->file, c->name, (long long)(c->k0 + k),
                    T->indices[k], (long long)T->cols,
                    c->d->csc ? "column" : "row", (long long)(c->row0 + i));
    return CMRS_OK;
}

/* check_row_indices as cmrs_csr_first_row's test (a worker's message is
 * dropped: the caller checks the first bad row again). */
static int index_outside(const cmrs_csr *T, int64_t i, const void *ctx)
{
    return check_row_indices(T, i, ctx) != CMRS_OK;
}

cmrs_code cmrs_h5_check_indices(const cmrs_h5_sparse *d, const char *name,
                                const cmrs_csr *T, int64_t row0, int64_t k0)
{
    const index_ctx c = {d, name, row0, k0};
    /* the rows by threads; the message from the first bad row */
    const int64_t i = cmrs_csr_first_row(T, index_outside, &c);
    if (i < T->rows) CMRS_CHECK(check_row_indices(T, i, &c));
    return CMRS_OK;
}

void cmrs_h5_sparse_close(cmrs_h5_sparse_arrays *s)
{
    cmrs_h5_array_close(&s->ptr);
    cmrs_h5_array_close(&s->idx);
    cmrs_h5_array_close(&s->val);
}

cmrs_code cmrs_h5_sparse_open(int64_t g, cmrs_h5_sparse *d,
                              cmrs_h5_sparse_arrays *s, int64_t *major,
                              int64_t *nnz)
{
    CMRS_CHECK(cmrs_h5_array_open(g, d->file, d->group, d->ptr, 0, &s->ptr));
    CMRS_CHECK(cmrs_h5_array_open(g, d->file, d->group, d->idx, d->matlab,
                                  &s->idx));
    CMRS_CHECK(cmrs_h5_array_open(g, d->file, d->group, d->val, d->matlab,
                                  &s->val));
    CMRS_ENSURE(s->ptr.n >= 1, CMRS_E_INPUT, "%s: %s is empty, expected at "
                "least one entry", d->file, s->ptr.name);
    if (d->matlab) d->cols = s->ptr.n - 1; /* MATLAB: columns = len(jc) - 1 */
    *major = d->csc ? d->cols : d->rows;
    CMRS_ENSURE(s->ptr.n - 1 == *major, CMRS_E_INPUT, "%s: %s has %lld "
                "entries but the shape is %lld x %lld (expected %llu)",
                d->file, s->ptr.name, (long long)s->ptr.n, (long long)d->rows,
                (long long)d->cols, (unsigned long long)*major + 1);
    CMRS_ENSURE((s->idx.dset >= 0) == (s->val.dset >= 0), CMRS_E_INPUT,
                "%s: missing dataset %s", d->file,
                s->idx.dset >= 0 ? s->val.name : s->idx.name);
    *nnz = s->val.dset >= 0 ? s->val.n : 0;
    int64_t n_idx = s->idx.dset >= 0 ? s->idx.n : 0;
    CMRS_ENSURE(n_idx == *nnz, CMRS_E_INPUT, "%s: %s has %lld entries but "
                "%s has %lld", d->file, s->idx.name, (long long)n_idx,
                s->val.name, (long long)*nnz);
    CMRS_ENSURE(d->cols <= INT32_MAX && (!d->csc || d->rows <= INT32_MAX),
                CMRS_E_LIMIT, "%s: %s is %lld x %lld; "
                "at most %d columns (and rows, for CSC) are supported",
                d->file, d->group, (long long)d->rows, (long long)d->cols,
                INT32_MAX);
    return CMRS_OK;
}

cmrs_code cmrs_h5_sparse_check_ends(const cmrs_h5_sparse *d,
                                    const cmrs_h5_sparse_arrays *s,
                                    int64_t major, int64_t nnz)
{
    int64_t first = 0, last = 0;
    CMRS_CHECK(cmrs_h5_array_read_one_i64(&s->ptr, d->file, 0, &first));
    CMRS_ENSURE(first == 0, CMRS_E_INPUT, "%s: %s: %s[0] is %lld, expected 0",
                d->file, s->ptr.name, d->ptr, (long long)first);
    CMRS_CHECK(cmrs_h5_array_read_one_i64(&s->ptr, d->file, major, &last));
    CMRS_ENSURE(last == nnz, CMRS_E_INPUT, "%s: %s: last entry %s[%lld] is "
                "%lld but there are %lld nonzeros", d->file, s->ptr.name,
                d->ptr, (long long)major, (long long)last, (long long)nnz);
    return CMRS_OK;
}

/* Reads the arrays into T, the CSR form of A (CSR) or of A^T (CSC). */
static cmrs_code read_arrays(cmrs_h5_sparse *d, cmrs_h5_sparse_arrays *s,
                             int64_t major, int64_t nnz, int pinned,
                             cmrs_csr *T)
{
    int64_t minor = d->csc ? d->rows : d->cols;
    /* CSC is transposed into new arrays: pinning T would buy nothing. */
    if (pinned && !d->csc)
        CMRS_CHECK(cmrs_csr_alloc_pinned(T, major, minor, nnz));
    else
        CMRS_CHECK(cmrs_csr_alloc(T, major, minor, nnz));
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(cmrs_h5_array_read_i64(&s->ptr, d->file, T->indptr));
    CMRS_TRY(cmrs_h5_check_pointers(d, s->ptr.name, T->indptr, major, nnz));
    if (nnz > 0) {
        CMRS_TRY(cmrs_h5_array_read_i32(&s->idx, d->file, T->indices));
        CMRS_TRY(cmrs_h5_check_indices(d, s->idx.name, T, 0, 0));
        CMRS_TRY(cmrs_h5_array_read_f64(&s->val, d->file, T->values));
    }
done:
    if (rc != CMRS_OK) cmrs_csr_free(T);
    return rc;
}

cmrs_code cmrs_h5_sparse_finish(const cmrs_h5_sparse *d, cmrs_csr *A,
                                int64_t row0)
{
    if (!cmrs_csr_is_sorted(A)) CMRS_CHECK(cmrs_csr_sort_sum_duplicates(A));
    char what[700];
    if (row0 < 0)
        snprintf(what, sizeof what, "%s: %s", d->file, d->group);
    else
        snprintf(what, sizeof what, "%s: %s (block of rows from %lld)",
                 d->file, d->group, (long long)row0);
    CMRS_CHECK(cmrs_csr_validate(A, what));
    return CMRS_OK;
}

static cmrs_code open_vector(hid_t file, const char *fname, const char *name,
                             int optional, int64_t rows, cmrs_h5_array *a)
{
    CMRS_CHECK(cmrs_h5_array_open(file, fname, "/", name, optional, a));
    if (a->dset >= 0 && a->n != rows) {
        cmrs_h5_array_close(a);
        CMRS_FAIL(CMRS_E_INPUT, "%s: %s has %lld entries but the matrix has "
                  "%lld rows", fname, a->name, (long long)a->n,
                  (long long)rows);
    }
    return CMRS_OK;
}

cmrs_code cmrs_h5_vectors_open(int64_t file, const cmrs_h5_sparse *d,
                               const cmrs_read_opts *o, cmrs_h5_vectors *v)
{
    CMRS_CHECK(open_vector(file, d->file, o->rhs ? o->rhs : "b", !o->rhs,
                           d->rows, &v->b));
    CMRS_CHECK(open_vector(file, d->file, o->x0 ? o->x0 : "x0", !o->x0,
                           d->rows, &v->x0));
    return CMRS_OK;
}

void cmrs_h5_vectors_close(cmrs_h5_vectors *v)
{
    cmrs_h5_array_close(&v->b);
    cmrs_h5_array_close(&v->x0);
}

/* What the attributes and dataset dimensions declare, against each other,
 * the command's needs and the memory available: all before any array is
 * read or allocated. */
static cmrs_code check_declared(const cmrs_h5_sparse *d,
                                const cmrs_h5_sparse_arrays *s,
                                const cmrs_h5_vectors *v, int64_t major,
                                int64_t nnz, const cmrs_read_opts *o)
{
    cmrs_declared dc = {d->file, d->group, d->rows, d->cols, nnz, nnz, 0,
                        v->x0.dset >= 0, v->b.dset < 0};
    /* CSC: T, its transpose and the transpose's row cursors at once. */
    if (d->csc) dc.read_bytes = cmrs_csr_bytes(major, nnz, 0) +
                                8.0 * (double)d->rows;
    CMRS_CHECK(cmrs_h5_sparse_check_ends(d, s, major, nnz));
    CMRS_CHECK(cmrs_check_declared(&dc, o));
    return CMRS_OK;
}

static cmrs_code read_sparse(hid_t file, hid_t g, cmrs_h5_sparse *d,
                             const cmrs_read_opts *o, cmrs_h5_vectors *v,
                             cmrs_csr *A)
{
    cmrs_h5_sparse_arrays s = {{.dset = -1}, {.dset = -1}, {.dset = -1}};
    cmrs_csr T = {0};
    int64_t major = 0, nnz = 0;
    cmrs_code rc = CMRS_OK;
    CMRS_TRY(cmrs_h5_sparse_describe(g, d));
    CMRS_TRY(cmrs_h5_sparse_open(g, d, &s, &major, &nnz));
    CMRS_TRY(cmrs_h5_vectors_open(file, d, o, v));
    CMRS_TRY(check_declared(d, &s, v, major, nnz, o));
    CMRS_TRY(read_arrays(d, &s, major, nnz, o->pinned_matrix, &T));
    if (d->csc) {
        CMRS_TRY(cmrs_csr_transpose(&T, A));
        cmrs_csr_free(&T);
    } else {
        *A = T;
        memset(&T, 0, sizeof T);
    }
    CMRS_TRY(cmrs_h5_sparse_finish(d, A, -1));
done:
    cmrs_h5_sparse_close(&s);
    cmrs_csr_free(&T);
    if (rc != CMRS_OK) cmrs_csr_free(A);
    return rc;
}

cmrs_code cmrs_h5_sparse_open_group(int64_t file, const char *name,
                                    cmrs_h5_sparse *d, int64_t *g)
{
    CMRS_CHECK(cmrs_h5_full_name(d->file, "/", name, d->group,
                                 sizeof d->group));
    CMRS_ENSURE(cmrs_h5_exists(file, name), CMRS_E_INPUT, "%s: no group %s "
                "holding the matrix (choose another with --matrix NAME)",
                d->file, d->group);
    *g = H5Oopen(file, name, H5P_DEFAULT);
    CMRS_ENSURE(*g >= 0, CMRS_E_INPUT, "%s: %s cannot be opened (corrupt "
                "file?)", d->file, d->group);
    if (H5Iget_type(*g) != H5I_GROUP) {
        H5Oclose(*g);
        *g = -1; /* closed: the caller's cleanup must not close it again */
        CMRS_FAIL(CMRS_E_INPUT, "%s: %s is not a group: a sparse matrix is a "
                  "group of datasets (data, indices, indptr)", d->file,
                  d->group);
    }
    return CMRS_OK;
}

cmrs_code cmrs_h5_vector_read(const cmrs_h5_array *a, const char *fname,
                              int64_t first, int64_t count, double **v)
{
    if (a->dset < 0) return CMRS_OK;
    *v = cmrs_malloc_array((size_t)count, sizeof(double));
    CMRS_ENSURE(*v, CMRS_E_NOMEM, "%s: cannot allocate %s", fname, a->name);
    cmrs_code rc = cmrs_h5_array_read_range_f64(a, fname, first, count, *v);
    if (rc == CMRS_OK)
        rc = cmrs_check_finite(fname, a->name, *v, count, first);
    if (rc != CMRS_OK) {
        free(*v);
        *v = NULL;
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

cmrs_code cmrs_h5_read_system(int64_t file, const char *name,
                              const cmrs_read_opts *opts, cmrs_system *sys)
{
    static const cmrs_read_opts defaults = {0};
    const cmrs_read_opts *o = opts ? opts : &defaults;
    cmrs_h5_sparse d = {.file = name};
    cmrs_h5_vectors v = {{.dset = -1}, {.dset = -1}};
    hid_t g = -1;
    cmrs_code rc = CMRS_OK;
    memset(sys, 0, sizeof *sys);
    cmrs_h5_quiet();
    CMRS_TRY(cmrs_h5_sparse_open_group(file, o->matrix ? o->matrix : "A", &d,
                                        &g));
    CMRS_TRY(read_sparse(file, g, &d, o, &v, &sys->A));
    snprintf(sys->layout, sizeof sys->layout, "%s", d.layout);
    CMRS_TRY(cmrs_h5_vector_read(&v.b, name, 0, v.b.n, &sys->b));
    CMRS_TRY(cmrs_h5_vector_read(&v.x0, name, 0, v.x0.n, &sys->x0));
done:
    cmrs_h5_vectors_close(&v);
    if (g >= 0) H5Oclose(g);
    if (rc != CMRS_OK) cmrs_system_free(sys);
    return rc;
}
