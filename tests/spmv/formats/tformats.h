/* What the host tests of the padded formats share (header-only): the
 * vectors of a check of a format's product, emulated on the host, against
 * the reference product. */
#ifndef CMRS_TEST_TFORMATS_H
#define CMRS_TEST_TFORMATS_H

#include <stdlib.h>

#include "base/csr.h"

typedef struct product_vectors {
    double *x;   /* A's columns */
    double *y;   /* A's rows: the emulated product */
    double *ref; /* A's rows: the reference product (cmrs_ref_spmv) */
} product_vectors;

/* Unfilled, one spare entry each (so an empty A allocates too). */
static inline product_vectors product_vectors_make(const cmrs_csr *A)
{
    size_t nx = (size_t)A->cols + 1, ny = (size_t)A->rows + 1;
    product_vectors v = {cmrs_malloc_array(nx, sizeof *v.x),
                         cmrs_malloc_array(ny, sizeof *v.y),
                         cmrs_malloc_array(ny, sizeof *v.ref)};
    return v;
}

static inline void product_vectors_free(product_vectors *v)
{
    free(v->x);
    free(v->y);
    free(v->ref);
}

#endif
