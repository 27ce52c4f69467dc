/* One block of rows of an HDF5 CSR matrix (h5_rows.h). The file's whole
 * indptr is read, because the block partition's cuts depend on every row's
 * length; the block's indices, values and vector entries are read through
 * hyperslabs, so a rank reads about 1/nparts of the file. The layout,
 * array and vector handling is the whole-file reader's (h5_sparse.h). */
#include "h5_rows.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_sparse.h"
#include "readers.h"

/* The open file, its matrix group, arrays and vectors. */
typedef struct rows_source {
    hid_t file, group;
    cmrs_h5_sparse d;
    cmrs_h5_sparse_arrays s;
    cmrs_h5_vectors v;
    int64_t n, nnz; /* rows (= columns) and entries of the whole matrix */
} rows_source;

/* Nothing open yet: the state every cleanup starts from. */
static void source_init(rows_source *src, const char *path)
{
    memset(src, 0, sizeof *src);
    src->file = src->group = -1;
    src->s.ptr.dset = src->s.idx.dset = src->s.val.dset = -1;
    src->v.b.dset = src->v.x0.dset = -1;
    src->d.file = path;
}

static void source_close(rows_source *src)
{
    cmrs_h5_vectors_close(&src->v);
    cmrs_h5_sparse_close(&src->s);
    if (src->group >= 0) H5Oclose(src->group);
    if (src->file >= 0) H5Fclose(src->file);
    src->group = src->file = -1;
}

/* A block of consecutive rows and the entries they hold in the file. */
typedef struct row_block {
    int64_t row0, rows; /* rows [row0, row0 + rows) */
    int64_t k0, nnz;    /* entries [k0, k0 + nnz) of indices and data */
} row_block;

static cmrs_code check_parts(int part, int nparts)
{
    CMRS_ENSURE(nparts >= 1, CMRS_E_USAGE, "per-rank reading: %d parts, "
                "expected at least 1", nparts);
    CMRS_ENSURE(part >= 0 && part < nparts, CMRS_E_USAGE, "per-rank reading: "
                "part %d of %d, expected 0 .. %d", part, nparts, nparts - 1);
    return CMRS_OK;
}

/* Opens the file and its matrix group (opts->matrix, default "A") and
 * describes the layout from the group's attributes. */
static cmrs_code open_source(const char *path, const cmrs_read_opts *o,
                             rows_source *src)
{
    CMRS_CHECK(cmrs_check_readable(path));
    cmrs_h5_quiet();
    CMRS_ENSURE(H5Fis_hdf5(path) > 0, CMRS_E_INPUT, "%s: not an HDF5 file: "
                "per-rank reading needs an HDF5 file in a CSR layout", path);
    CMRS_CHECK(cmrs_h5_open_file(path, &src->file));
    CMRS_CHECK(cmrs_h5_sparse_open_group(src->file, o->matrix ? o->matrix
                                                              : "A",
                                         &src->d, &src->group));
    CMRS_CHECK(cmrs_h5_sparse_describe(src->group, &src->d));
    return CMRS_OK;
}

/* A CSC matrix has no rows to cut out of the file: it is read whole and
 * transposed (cmrs_system_read). */
static cmrs_code require_csr(const cmrs_h5_sparse *d)
{
    CMRS_ENSURE(!d->csc, CMRS_E_INPUT, "%s: %s is stored by columns (%s "
                "CSC layout): per-rank reading needs a CSR layout (read the "
                "whole file instead)", d->file, d->group, d->layout);
    return CMRS_OK;
}

/* What the whole file declares, checked as the whole-file reader checks it
 * (cmrs_check_declared_shape), except the memory: this reader holds the
 * pointers and one block, checked when their sizes are known. */
static cmrs_code check_whole(const rows_source *src, const cmrs_read_opts *o,
                             int nparts)
{
    const cmrs_h5_sparse *d = &src->d;
    if (d->rows != d->cols)
        CMRS_CHECK(cmrs_fail_not_square(d->file, d->rows, d->cols));
    CMRS_ENSURE(nparts <= src->n, CMRS_E_USAGE, "per-rank reading: %d parts "
                "for the %lld rows of %s: at most one part per row", nparts,
                (long long)src->n, d->file);
    cmrs_declared dc = {d->file, d->group, d->rows, d->cols, src->nnz,
                        src->nnz, 0, 0, 0};
    CMRS_CHECK(cmrs_check_declared_shape(&dc, o));
    CMRS_CHECK(cmrs_h5_sparse_check_ends(d, &src->s, src->n, src->nnz));
    return CMRS_OK;
}

/* Everything but the block's data: layout, arrays and vectors opened, and
 * their sizes checked against each other. */
static cmrs_code open_matrix(const char *path, const cmrs_read_opts *o,
                             int nparts, rows_source *src)
{
    int64_t major = 0;
    CMRS_CHECK(open_source(path, o, src));
    CMRS_CHECK(require_csr(&src->d));
    CMRS_CHECK(cmrs_h5_sparse_open(src->group, &src->d, &src->s, &major,
                                   &src->nnz));
    src->n = major;
    CMRS_CHECK(cmrs_h5_vectors_open(src->file, &src->d, o, &src->v));
    CMRS_CHECK(check_whole(src, o, nparts));
    return CMRS_OK;
}

/* The file's whole pointer array (n + 1 entries), checked as the
 * whole-file reader checks it. */
static cmrs_code read_pointers(const rows_source *src, int64_t **ptr)
{
    const cmrs_h5_array *a = &src->s.ptr;
    char what[600];
    snprintf(what, sizeof what, "%s (%lld entries)", a->name,
             (long long)a->n);
    CMRS_CHECK(cmrs_check_memory(src->d.file, what, 8.0 * (double)a->n));
    *ptr = cmrs_malloc_array((size_t)a->n, sizeof **ptr);
    CMRS_ENSURE(*ptr, CMRS_E_NOMEM, "%s: cannot allocate %s", src->d.file,
                what);
    cmrs_code rc = cmrs_h5_array_read_i64(a, src->d.file, *ptr);
    if (rc == CMRS_OK)
        rc = cmrs_h5_check_pointers(&src->d, a->name, *ptr, src->n,
                                    src->nnz);
    if (rc != CMRS_OK) {
        free(*ptr);
        *ptr = NULL;
        return cmrs_error_trace(rc, __FILE__, __LINE__);
    }
    return CMRS_OK;
}

/* Block `part` of the block partition of all n rows (checked pointers). */
static cmrs_code find_block(const int64_t *ptr, int64_t n, int part,
                            int nparts, row_block *blk)
{
    int64_t *start = cmrs_malloc_array((size_t)nparts + 1, sizeof *start);
    CMRS_ENSURE(start, CMRS_E_NOMEM, "cannot allocate the starts of %d row "
                "blocks", nparts);
    cmrs_csr_row_blocks(ptr, n, NULL, nparts, start);
    blk->row0 = start[part];
    blk->rows = start[part + 1] - start[part];
    free(start);
    blk->k0 = ptr[blk->row0];
    blk->nnz = ptr[blk->row0 + blk->rows] - blk->k0;
    return CMRS_OK;
}

/* The block's arrays and vectors (beside the whole pointer array, still
 * held while the block's pointers are copied) against the memory, as
 * cmrs_check_declared counts a whole matrix; the block is not square. */
static cmrs_code check_block_memory(const rows_source *src,
                                    const row_block *blk,
                                    const cmrs_read_opts *o)
{
    char what[600];
    snprintf(what, sizeof what, "%s rows %lld .. %lld", src->d.group,
             (long long)blk->row0, (long long)(blk->row0 + blk->rows - 1));
    cmrs_declared dc = {src->d.file, what, blk->rows, src->n, blk->nnz,
                        blk->nnz, 8.0 * ((double)src->n + 1),
                        src->v.x0.dset >= 0, src->v.b.dset < 0};
    cmrs_read_opts ob = *o;
    ob.require_square = 0;
    CMRS_CHECK(cmrs_check_declared(&dc, &ob));
    return CMRS_OK;
}

/* The block's CSR: pointers rebased to 0, then its indices (checked before
 * anything indexes with them) and values. */
static cmrs_code read_block(const rows_source *src, const int64_t *ptr,
                            const row_block *blk, cmrs_csr *A)
{
    const char *file = src->d.file;
    CMRS_CHECK(cmrs_csr_alloc(A, blk->rows, src->n, blk->nnz));
    for (int64_t i = 0; i <= blk->rows; ++i)
        A->indptr[i] = ptr[blk->row0 + i] - blk->k0;
    cmrs_code rc = CMRS_OK;
    if (blk->nnz > 0) {
        CMRS_TRY(cmrs_h5_array_read_range_i32(&src->s.idx, file, blk->k0,
                                              blk->nnz, A->indices));
        CMRS_TRY(cmrs_h5_check_indices(&src->d, src->s.idx.name, A,
                                       blk->row0, blk->k0));
        CMRS_TRY(cmrs_h5_array_read_range_f64(&src->s.val, file, blk->k0,
                                              blk->nnz, A->values));
    }
    CMRS_TRY(cmrs_h5_sparse_finish(&src->d, A, blk->row0));
done:
    if (rc != CMRS_OK) cmrs_csr_free(A);
    return rc;
}

int cmrs_h5_rows_readable(const char *path, const cmrs_read_opts *opts)
{
    static const cmrs_read_opts defaults = {0};
    rows_source src;
    source_init(&src, path);
    int csr = open_source(path, opts ? opts : &defaults, &src) == CMRS_OK &&
              !src.d.csc;
    source_close(&src);
    cmrs_error_clear(); /* a 0 is an answer, not an error */
    return csr;
}

cmrs_code cmrs_h5_read_rows(const char *path, const cmrs_read_opts *opts,
                            int part, int nparts, cmrs_system *sys,
                            int64_t *row0, int64_t *n, int64_t *nnz_global)
{
    static const cmrs_read_opts defaults = {0};
    const cmrs_read_opts *o = opts ? opts : &defaults;
    rows_source src;
    int64_t *ptr = NULL;
    row_block blk = {0};
    cmrs_code rc = CMRS_OK;
    source_init(&src, path);
    memset(sys, 0, sizeof *sys);
    *row0 = *n = *nnz_global = 0;
    CMRS_TRY(check_parts(part, nparts));
    CMRS_TRY(open_matrix(path, o, nparts, &src));
    CMRS_TRY(read_pointers(&src, &ptr));
    CMRS_TRY(find_block(ptr, src.n, part, nparts, &blk));
    CMRS_TRY(check_block_memory(&src, &blk, o));
    CMRS_TRY(read_block(&src, ptr, &blk, &sys->A));
    CMRS_TRY(cmrs_h5_vector_read(&src.v.b, path, blk.row0, blk.rows,
                                 &sys->b));
    CMRS_TRY(cmrs_h5_vector_read(&src.v.x0, path, blk.row0, blk.rows,
                                 &sys->x0));
    snprintf(sys->layout, sizeof sys->layout, "%s", src.d.layout);
    *row0 = blk.row0;
    *n = src.n;
    *nnz_global = src.nnz;
done:
    free(ptr);
    source_close(&src);
    if (rc != CMRS_OK) cmrs_system_free(sys);
    return rc;
}
